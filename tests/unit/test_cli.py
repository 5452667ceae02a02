"""The `tsdedup` command's plumbing: profiles, state lock, environment, `sql` arguments."""

from __future__ import annotations

import os
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pytest

from tsdedup.cli import main, retract_args
from tsdedup.profile import ProfileError, read_target, spark_parameters
from tsdedup.sql_command import SqlUsageError, _plain, parse_args
from tsdedup.state import HomeLock, HomeLockedError

ROOT = Path(__file__).resolve().parents[2]
PROFILES = ROOT / "profiles"


def test_local_target_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TSDEDUP_TARGET", raising=False)
    monkeypatch.delenv("TSDEDUP_SCHEMA", raising=False)
    name, settings = read_target(PROFILES, None)
    assert name == "local"
    assert settings["method"] == "session"
    assert settings["schema"] == "tsdedup"
    assert spark_parameters(settings) == {"spark.master": "local[2]"}


def test_cluster_target_takes_its_master_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TSDEDUP_TARGET", "cluster")
    monkeypatch.setenv("TSDEDUP_SPARK_MASTER", "spark://10.0.0.5:7077")
    name, settings = read_target(PROFILES, None)
    assert name == "cluster"
    assert spark_parameters(settings)["spark.master"] == "spark://10.0.0.5:7077"


def test_unknown_target_lists_the_choices() -> None:
    with pytest.raises(ProfileError, match=r"target 'prod' is not in .*: cluster, local"):
        read_target(PROFILES, "prod")


def test_required_environment_variable_is_named(tmp_path: Path) -> None:
    (tmp_path / "profiles.yml").write_text(
        "tsdedup:\n  target: x\n  outputs:\n    x:\n"
        "      schema: \"{{ env_var('TSDEDUP_TEST_UNSET_VARIABLE') }}\"\n",
        encoding="utf-8",
    )
    with pytest.raises(ProfileError, match="TSDEDUP_TEST_UNSET_VARIABLE"):
        read_target(tmp_path, None)


def test_second_run_on_the_same_home_fails_fast(tmp_path: Path) -> None:
    pattern = rf"process {os.getpid()}\b.*TSDEDUP_HOME"
    with HomeLock(tmp_path), pytest.raises(HomeLockedError, match=pattern):
        HomeLock(tmp_path).__enter__()
    with HomeLock(tmp_path):  # released: usable again
        pass


def test_sql_arguments() -> None:
    assert parse_args(["select 1"]) == (False, 100, ["select 1"])
    assert parse_args(["--json", "--limit", "-1", "a", "b"]) == (True, None, ["a", "b"])
    for bad, message in (
        ([], "no statement"),
        (["--limit"], "needs a number"),
        (["--limit", "x", "select 1"], "got 'x'"),
        (["--csv", "select 1"], "unknown option '--csv'"),
    ):
        with pytest.raises(SqlUsageError, match=message):
            parse_args(bad)


def test_sql_bad_arguments_fail_before_spark_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TSDEDUP_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TSDEDUP_LANDING", str(tmp_path / "landing"))
    assert main(["sql", "--limit"]) == 2
    assert "--limit needs a number" in capsys.readouterr().err
    assert not (tmp_path / "home").exists()


def test_retract_runs_the_retract_operation_with_the_chunks_named() -> None:
    assert retract_args(["7", "feed 'x'.lp"]) == [
        "run-operation",
        "retract_chunks",
        "--args",
        '{"chunks": ["7", "feed \'x\'.lp"]}',
    ]


def test_retract_without_chunks_fails_before_spark_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TSDEDUP_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TSDEDUP_LANDING", str(tmp_path / "landing"))
    for args in (["retract"], ["retract", "--all"]):
        assert main(args) == 2
        assert "usage: tsdedup retract CHUNK_NUMBER|FILE_NAME" in capsys.readouterr().err
    assert not (tmp_path / "home").exists()


def test_sql_json_values_keep_their_precision() -> None:
    assert _plain(Decimal("18446744073709551615")) == "18446744073709551615"
    assert _plain(datetime(2026, 11, 1, 0, 0, 0, 123456)) == "2026-11-01T00:00:00.123456"
    assert _plain({"a": [Decimal("1.5"), None]}) == {"a": ["1.5", None]}
    assert _plain(9_223_372_036_854_775_807) == 9_223_372_036_854_775_807


def test_docs_serve_starts_no_spark_and_takes_no_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tsdedup import cli

    monkeypatch.setenv("TSDEDUP_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TSDEDUP_LANDING", str(tmp_path / "landing"))
    ran: list[list[str]] = []
    monkeypatch.setattr(cli, "run_dbt", lambda args: ran.append(list(args)) or 0)
    monkeypatch.setattr(cli, "start_spark", lambda args: pytest.fail("Spark started"))
    assert main(["docs", "serve", "--port", "8080"]) == 0
    assert ran == [["docs", "serve", "--port", "8080"]]
    assert not (tmp_path / "home").exists()  # no lock file: runs may go on meanwhile


def test_report_bad_arguments_fail_before_spark_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TSDEDUP_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TSDEDUP_LANDING", str(tmp_path / "landing"))
    assert main(["report", "--open"]) == 2
    assert "unknown argument '--open'" in capsys.readouterr().err
    assert not (tmp_path / "home").exists()
