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


@pytest.mark.parametrize(
    ("master", "cores"),
    [
        ("local", 1),
        ("local[2]", 2),
        (" local[3] ", 3),
        ("local[4,2]", 4),
        ("local[0]", 1),
        ("spark://127.0.0.1:7077", None),
        ("yarn", None),
        ("local-cluster[2,1,1024]", None),
    ],
)
def test_the_cores_of_a_local_master(master: str, cores: int | None) -> None:
    assert spark_session.local_cores(master) == cores


def test_a_local_session_merges_with_one_shuffle_partition_per_core(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = spark_session.MERGE_SHUFFLE_PARTITIONS
    assert spark_session.with_merge_partitions({"spark.master": "local[2]"})[key] == "2"
    monkeypatch.setattr(spark_session.os, "cpu_count", lambda: 6)
    assert spark_session.with_merge_partitions({"spark.master": "local[*]"})[key] == "6"
    # A target's own value stays; a cluster keeps its session's setting.
    own = {"spark.master": "local[2]", key: "8"}
    assert spark_session.with_merge_partitions(own) == own
    assert key not in spark_session.with_merge_partitions({"spark.master": "yarn"})
