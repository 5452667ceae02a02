"""A run with nothing to do is skipped before Spark starts; anything a run reads
that changes, and any other command in between, makes the next run real."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tsdedup import cli, up_to_date


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "models").mkdir(parents=True)
    (root / "models" / "m.sql").write_text("select 1\n", encoding="utf-8")
    (root / "dbt_project.yml").write_text("name: x\n", encoding="utf-8")
    (root / "profiles").mkdir()
    (root / "profiles" / "profiles.yml").write_text("x: {}\n", encoding="utf-8")
    (root / "target").mkdir()
    (tmp_path / "landing").mkdir()
    (tmp_path / "landing" / "a.lp").write_text("m v=1 1\n", encoding="utf-8")
    return root


def _environ(project: Path) -> dict[str, str]:
    return {
        "TSDEDUP_HOME": str(project.parent / "home"),
        "TSDEDUP_LANDING": str(project.parent / "landing"),
        "DBT_PROFILES_DIR": str(project / "profiles"),
        "HOME": "/somewhere",
    }


def test_same_inputs_same_fingerprint_and_output_folders_do_not_count(project: Path) -> None:
    environ = _environ(project)
    first = up_to_date.fingerprint(["run"], project, environ)
    assert first is not None
    (project / "target" / "run_results.json").write_text("{}", encoding="utf-8")
    environ["HOME"] = "/elsewhere"  # not a tsdedup or dbt setting
    assert up_to_date.fingerprint(["run"], project, environ) == first


def test_every_input_of_a_run_changes_the_fingerprint(project: Path) -> None:
    environ = _environ(project)
    seen = {up_to_date.fingerprint(["run"], project, environ)}

    def changed() -> bool:
        current = up_to_date.fingerprint(["run"], project, environ)
        fresh = current not in seen
        seen.add(current)
        return fresh

    (project.parent / "landing" / "b.lp").write_text("m v=2 2\n", encoding="utf-8")
    assert changed(), "a new landed file"
    landed = project.parent / "landing" / "a.lp"
    stat = landed.stat()
    os.utime(landed, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert changed(), "a landed file touched"
    (project / "models" / "m.sql").write_text("select 2\n", encoding="utf-8")
    assert changed(), "a model edited"
    (project / "macros").mkdir()
    (project / "macros" / "x.sql").write_text("{% macro x() %}{% endmacro %}", encoding="utf-8")
    assert changed(), "a macro added"
    (project / "profiles" / "profiles.yml").write_text("x: {y: 1}\n", encoding="utf-8")
    assert changed(), "the profile edited"
    environ["TSDEDUP_PRECISION"] = "ms"
    assert changed(), "a tsdedup setting"
    assert up_to_date.fingerprint(["run", "--select", "m"], project, environ) not in seen
    assert up_to_date.fingerprint(["build"], project, environ) not in seen
    # The profile of --profiles-dir counts, whatever DBT_PROFILES_DIR says.
    other = project.parent / "other_profiles"
    other.mkdir()
    (other / "profiles.yml").write_text("x: {}\n", encoding="utf-8")
    args = ["run", "--profiles-dir", str(other)]
    before = up_to_date.fingerprint(args, project, environ, other)
    (other / "profiles.yml").write_text("x: {z: 1}\n", encoding="utf-8")
    assert up_to_date.fingerprint(args, project, environ, other) != before


@pytest.mark.parametrize(
    ("args", "change"),
    [
        (["run", "--full-refresh"], {}),
        (["run", "-f"], {}),
        (["build"], {"DBT_FULL_REFRESH": "True"}),
        (["run-operation", "compact_measurements"], {}),
        (["sql", "select 1"], {}),
        (["test"], {}),
        (["run"], {"TSDEDUP_RUN_ALWAYS": "1"}),
        (["run"], {"TSDEDUP_LANDING": "s3://bucket/landing"}),
    ],
)
def test_commands_that_always_run(project: Path, args: list[str], change: dict[str, str]) -> None:
    environ = _environ(project) | change
    assert up_to_date.fingerprint(args, project, environ) is None


def test_record_round_trip(tmp_path: Path) -> None:
    assert up_to_date.last_success(tmp_path, "abc") is None
    up_to_date.remember(tmp_path, "abc", ["run"])
    assert up_to_date.last_success(tmp_path, "abc") is not None
    assert up_to_date.last_success(tmp_path, "other") is None
    (tmp_path / up_to_date.RECORD_NAME).write_text("{not json", encoding="utf-8")
    assert up_to_date.last_success(tmp_path, "abc") is None
    up_to_date.remember(tmp_path, "abc", ["run"])
    up_to_date.forget(tmp_path)
    assert up_to_date.last_success(tmp_path, "abc") is None


def test_cli_skips_an_unchanged_run_without_starting_spark(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for key, value in _environ(project).items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("TSDEDUP_RUN_ALWAYS", raising=False)
    monkeypatch.chdir(project)
    calls: list[list[str]] = []

    def fake_spark(args: list[str], **options: object) -> object:
        calls.append(["spark"])
        return object()

    def fake_dbt(args: list[str]) -> int:
        calls.append(list(args))
        return 0

    monkeypatch.setattr(cli, "start_spark", fake_spark)
    monkeypatch.setattr(cli, "run_dbt", fake_dbt)
    home = Path(os.environ["TSDEDUP_HOME"])

    assert cli.main(["run"]) == 0
    assert calls == [["spark"], ["run"]]
    assert cli.main(["run"]) == 0  # nothing changed: skipped
    assert calls == [["spark"], ["run"]]
    assert "nothing to do" in capsys.readouterr().out

    assert cli.main(["run-operation", "compact_measurements"]) == 0  # forgets the record
    assert not (home / up_to_date.RECORD_NAME).exists()
    assert cli.main(["run"]) == 0
    assert calls[-1] == ["run"] and len(calls) == 6

    monkeypatch.setattr(cli, "run_dbt", lambda args: 1)
    (project.parent / "landing" / "c.lp").write_text("m v=3 3\n", encoding="utf-8")
    assert cli.main(["run"]) == 1  # a failed run leaves no record
    assert not (home / up_to_date.RECORD_NAME).exists()
