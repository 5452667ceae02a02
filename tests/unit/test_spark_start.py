"""What starts while the JVM starts (tsdedup/cli.py, tsdedup/spark_session.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tsdedup import cli, spark_session
from tsdedup.invocation import Invocation

ROOT = Path(__file__).resolve().parents[2]


def test_dbt_is_imported_while_the_jvm_starts_only_when_a_dbt_command_follows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DBT_PROFILES_DIR", str(ROOT / "profiles"))
    monkeypatch.setenv("TSDEDUP_HOME", str(tmp_path))
    monkeypatch.setenv("TSDEDUP_LANDING", str(tmp_path))
    monkeypatch.delenv("TSDEDUP_TARGET", raising=False)
    preloads: list[tuple[str, ...]] = []

    def build_session(conf: dict[str, str], preload_modules: tuple[str, ...] = ()) -> object:
        preloads.append(tuple(preload_modules))
        return object()

    warmed: list[object] = []
    monkeypatch.setattr(spark_session, "build_session", build_session)
    monkeypatch.setattr(cli.warm_up, "start_warm_up", lambda spark, *_: warmed.append(spark))
    cli.start_spark(Invocation.parse(["run"]), warm=True)
    cli.start_spark(Invocation.parse(["run"]))
    assert preloads == [("dbt.cli.main",), ()]
    assert len(warmed) == 1


def test_a_preloaded_module_is_imported_and_one_that_fails_is_left_to_its_user(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(sys.modules, "json.tool", raising=False)
    spark_session._import_quietly("tsdedup_no_such_module", "json.tool")
    assert "json.tool" in sys.modules
    assert "tsdedup_no_such_module" not in sys.modules
