"""Plain dbt's Spark session (tsdedup/plain_dbt.py) and the `tsdedup_spark`
adapter that asks for it (adapter/), without starting Spark."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from dbt.adapters.contracts.connection import Connection, ConnectionState
from dbt.adapters.spark.connections import SparkConnectionMethod
from dbt_common.exceptions import DbtRuntimeError

from tsdedup import engine, plain_dbt, spark_session
from tsdedup.state import HomeLock


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, str]]:
    """The settings of each session build_session would start (none is started)."""
    sessions: list[dict[str, str]] = []

    def build_session(conf: dict[str, str], preload_modules: tuple[str, ...] = ()) -> object:
        sessions.append(conf)
        monkeypatch.setattr(spark_session, "_REGISTERED", [object()])
        return object()

    monkeypatch.setattr(spark_session, "_REGISTERED", [])
    monkeypatch.setattr(spark_session, "build_session", build_session)
    monkeypatch.setattr(plain_dbt, "_HELD", [])
    monkeypatch.delenv("TSDEDUP_HOME", raising=False)
    monkeypatch.delenv("TSDEDUP_SPARK_LOG_LEVEL", raising=False)
    return sessions


def test_the_session_starts_once_with_the_projects_settings_and_the_targets(
    tmp_path: Path, started: list[dict[str, str]]
) -> None:
    plain_dbt.ensure_session(str(tmp_path), {"spark.driver.memory": "1g"})
    plain_dbt.ensure_session(str(tmp_path), {"spark.driver.memory": "1g"})  # another thread's
    (conf,) = started
    assert conf["spark.driver.memory"] == "1g"  # the target's, over the project's
    home = tmp_path / ".tsdedup"
    assert conf["spark.sql.warehouse.dir"] == str(home / "warehouse")
    assert (
        f"databaseName={home / 'metastore_db'}"
        in conf["spark.hadoop.javax.jdo.option.ConnectionURL"]
    )
    assert (
        f"-Dderby.stream.error.file={home / 'derby.log'}" in conf["spark.driver.extraJavaOptions"]
    )


def test_a_session_tsdedup_started_is_used_as_it_is(
    tmp_path: Path, started: list[dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spark_session, "_REGISTERED", [object()])
    plain_dbt.ensure_session(str(tmp_path), {})
    assert started == []
    assert not (tmp_path / ".tsdedup").exists()


def test_a_state_folder_in_use_is_a_clear_error(
    tmp_path: Path, started: list[dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom pathlib import Path\n"
            "from tsdedup.state import HomeLock\n"
            f"HomeLock(Path({str(tmp_path / '.tsdedup')!r})).__enter__()\n"
            "print('held', flush=True)\ntime.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(plain_dbt.SessionError, match=rf"process {holder.pid}\b.*is using"):
            plain_dbt.ensure_session(str(tmp_path), {})
    finally:
        holder.kill()
        holder.wait()
    record = engine.EngineRecord(1, "s", "f", "local", 0.0, 30.0)
    monkeypatch.setattr(engine, "read_record", lambda home: record)
    with pytest.raises(plain_dbt.SessionError, match="tsdedup engine stop"):
        plain_dbt.ensure_session(str(tmp_path), {})
    assert started == []
    with HomeLock(tmp_path / ".tsdedup"):  # nothing left holding it
        pass


def test_a_bad_log_level_is_a_clear_error(
    tmp_path: Path, started: list[dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TSDEDUP_SPARK_LOG_LEVEL", "loud")
    with pytest.raises(plain_dbt.SessionError, match="'LOUD' is not a log level"):
        plain_dbt.ensure_session(str(tmp_path), {})


def test_the_adapter_is_dbt_sparks_with_its_own_type() -> None:
    from dbt.adapters.tsdedup_spark import Plugin

    assert Plugin.adapter.type() == "tsdedup_spark"
    assert Plugin.dependencies == ["spark"]
    credentials = Plugin.credentials(method="session", host="h", schema="s")
    assert credentials.type == "tsdedup_spark"
    credentials.method = SparkConnectionMethod.THRIFT
    connection = Connection(
        type="tsdedup_spark", name="x", credentials=credentials, state=ConnectionState.INIT
    )
    with pytest.raises(DbtRuntimeError, match="use `method: session`"):
        Plugin.adapter.ConnectionManager.open(connection)
