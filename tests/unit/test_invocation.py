"""A command line parsed once into the Invocation every command receives
(tsdedup/invocation.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tsdedup.invocation import Invocation, dbt_options
from tsdedup.profile import ProfileError

ROOT = Path(__file__).resolve().parents[2]
SELECTION = ("TSDEDUP_HOME", "TSDEDUP_LANDING", "DBT_PROFILES_DIR", "DBT_PROJECT_DIR")


@pytest.fixture
def bare_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (*SELECTION, "DBT_TARGET_PATH", "TSDEDUP_TARGET", "TSDEDUP_SCHEMA"):
        monkeypatch.delenv(name, raising=False)


def test_defaults_live_in_the_project(tmp_path: Path, bare_environment: None) -> None:
    invocation = Invocation.parse(["build", "--project-dir", str(tmp_path)], {})
    assert invocation.project_dir == tmp_path.resolve()
    assert invocation.home == tmp_path / ".tsdedup"
    assert invocation.landing == str(tmp_path / "landing")
    assert invocation.profiles_dir == tmp_path / "profiles"
    assert invocation.target_path == tmp_path / "target"
    assert invocation.target is None
    assert not (tmp_path / "landing").exists()  # parsing changes nothing
    environ: dict[str, str] = {}
    invocation.export(environ)
    assert (tmp_path / "landing").is_dir()
    assert environ["TSDEDUP_HOME"] == str(tmp_path / ".tsdedup")
    assert environ["TSDEDUP_LANDING"] == str(tmp_path / "landing")
    assert environ["DBT_PROFILES_DIR"] == str(tmp_path / "profiles")
    assert environ["DBT_PROJECT_DIR"] == str(tmp_path)


def test_the_environment_and_dbts_options_choose(tmp_path: Path) -> None:
    environ = {
        "DBT_PROJECT_DIR": str(tmp_path),
        "DBT_PROFILES_DIR": "/profiles",
        "DBT_TARGET_PATH": "out",
        "TSDEDUP_HOME": str(tmp_path / "home"),
        "TSDEDUP_LANDING": "s3://bucket/landing",
    }
    invocation = Invocation.parse(["run"], environ)
    assert invocation.profiles_dir == Path("/profiles")
    assert invocation.target_path == tmp_path / "out"
    assert invocation.home == tmp_path / "home"
    assert invocation.landing == "s3://bucket/landing"  # a URL is kept as it is
    options = ["run", "--profiles-dir=/p", "-t", "cluster", "--target-path", "/abs"]
    invocation = Invocation.parse(options, environ)
    assert (invocation.profiles_dir, invocation.target) == (Path("/p"), "cluster")
    assert invocation.target_path == Path("/abs")
    exported = dict(environ)
    invocation.export(exported)
    assert exported["DBT_PROFILES_DIR"] == "/profiles"  # the environment's is kept


def test_the_project_is_found_from_a_subfolder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "dbt_project.yml").write_text("name: x\n", encoding="utf-8")
    (tmp_path / "models").mkdir()
    monkeypatch.chdir(tmp_path / "models")
    assert Invocation.parse([], {}).project_dir == tmp_path
    assert Invocation.parse(["--project-dir", str(ROOT)], {}).project_dir == ROOT


def test_only_a_commands_dbt_part_holds_dbt_options() -> None:
    assert dbt_options(["build", "-t", "x"]) == ["build", "-t", "x"]
    assert dbt_options(["sample", "-t", "x"]) == ["-t", "x"]
    assert dbt_options(["engine", "start", "--target", "x"]) == ["--target", "x"]
    assert dbt_options(["sql", "--target", "x"]) == ()  # text of the SQL's own
    assert dbt_options(["report", "--out", "r.html"]) == ()
    assert dbt_options([]) == ()
    assert Invocation.parse(["sql", "--target", "x"], {}).target is None
    assert Invocation.parse(["sample", "--target", "x"], {}).target == "x"


def test_another_command_line_keeps_the_selection(tmp_path: Path) -> None:
    invocation = Invocation.parse(["retract", "3"], {"DBT_PROJECT_DIR": str(tmp_path)})
    operation = invocation.with_args(["run-operation", "retract_chunks"])
    assert operation.command == "run-operation"
    assert operation.project_dir == invocation.project_dir == tmp_path
    assert operation.home == invocation.home


def test_the_schema_is_the_selected_targets(
    bare_environment: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    environ = {"DBT_PROJECT_DIR": str(ROOT)}
    assert Invocation.parse(["run"], environ).schema() == "tsdedup"
    monkeypatch.setenv("TSDEDUP_SCHEMA", "other")  # the profile's env_var reads the process's
    assert Invocation.parse(["run"], environ).schema() == "other"
    with pytest.raises(ProfileError, match="target 'nowhere' is not in"):
        Invocation.parse(["run", "--target", "nowhere"], environ).schema()
