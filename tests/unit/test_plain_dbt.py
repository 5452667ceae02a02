"""Plain dbt's Spark session (tsdedup/plain_dbt.py) and the `tsdedup_spark`
adapter that asks for it (adapter/), without starting Spark."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from dbt.adapters.contracts.connection import Connection, ConnectionState
from dbt.adapters.spark.connections import SparkConnectionMethod
from dbt_common.exceptions import DbtRuntimeError

from tsdedup import engine, plain_dbt, shared_catalog, spark_session, up_to_date
from tsdedup.packages import adapter_sources
from tsdedup.state import HomeLock, HomeLockedError

ROOT = Path(__file__).resolve().parents[2]


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
    tmp_path: Path, started: list[dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    slow_build = spark_session.build_session

    def build_session(conf: dict[str, str], preload_modules: tuple[str, ...] = ()) -> object:
        time.sleep(0.3)  # a JVM takes a while: dbt's other threads ask meanwhile
        return slow_build(conf, preload_modules)

    monkeypatch.setattr(spark_session, "build_session", build_session)
    home = tmp_path / ".tsdedup"
    home.mkdir()
    (home / up_to_date.RECORD_NAME).write_text("{}", encoding="utf-8")
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            plain_dbt.ensure_session(str(tmp_path), {"spark.driver.memory": "1g"}, "tsdedup")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    (conf,) = started
    assert conf["spark.driver.memory"] == "1g"  # the target's, over the project's
    assert conf["spark.sql.warehouse.dir"] == str(home / "warehouse")
    metastore = conf["spark.hadoop.javax.jdo.option.ConnectionURL"]
    assert f"databaseName={home / 'metastore_db'};" in metastore
    assert (
        f"-Dderby.stream.error.file={home / 'derby.log'}" in conf["spark.driver.extraJavaOptions"]
    )
    # A run of tsdedup after this one is not skipped as unchanged.
    assert not (home / up_to_date.RECORD_NAME).exists()
    with pytest.raises(HomeLockedError):  # held for the process's life
        HomeLock(home).__enter__()


def test_a_session_tsdedup_started_is_used_as_it_is(
    tmp_path: Path, started: list[dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spark_session, "_REGISTERED", [object()])
    plain_dbt.ensure_session(str(tmp_path), {}, "tsdedup")
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
            plain_dbt.ensure_session(str(tmp_path), {}, "tsdedup")
    finally:
        holder.kill()
        holder.wait()
    record = engine.EngineRecord(1, "s", "f", "local", 0.0, 30.0)
    monkeypatch.setattr(engine, "read_record", lambda home: record)
    with pytest.raises(plain_dbt.SessionError, match="tsdedup engine stop"):
        plain_dbt.ensure_session(str(tmp_path), {}, "tsdedup")
    assert started == []
    with HomeLock(tmp_path / ".tsdedup"):  # nothing left holding it
        pass


def test_a_bad_log_level_is_a_clear_error(
    tmp_path: Path, started: list[dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TSDEDUP_SPARK_LOG_LEVEL", "loud")
    for _ in range(2):  # the second time says the same, not "in use"
        with pytest.raises(plain_dbt.SessionError, match="'LOUD' is not a log level"):
            plain_dbt.ensure_session(str(tmp_path), {}, "tsdedup")
    with HomeLock(tmp_path / ".tsdedup"):  # nothing left holding it
        pass


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


def test_the_adapter_opens_the_session_of_its_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dbt.adapters.tsdedup_spark import Plugin

    asked: list[tuple[str | None, dict[str, str], str]] = []
    monkeypatch.setattr(
        plain_dbt,
        "ensure_session",
        lambda root, ssp, schema: asked.append((root, ssp, schema)),
    )
    manager = Plugin.adapter.ConnectionManager
    manager(SimpleNamespace(project_root=str(tmp_path)), multiprocessing.get_context("spawn"))
    credentials = Plugin.credentials(
        method="session", host="h", schema="s", server_side_parameters={"spark.master": "local[1]"}
    )
    connection = Connection(
        type="tsdedup_spark", name="x", credentials=credentials, state=ConnectionState.INIT
    )
    manager.open(connection)
    assert connection.state == ConnectionState.OPEN
    # The target's schema: its builder lock, on a shared catalog.
    assert asked == [(str(tmp_path), credentials.server_side_parameters, "s")]
    assert asked[0][1]["spark.master"] == "local[1]"


def _connection_manager(project_root: Path) -> Any:
    """The adapter's connection manager, set up for a project in ``project_root``."""
    from dbt.adapters.tsdedup_spark import Plugin

    manager = Plugin.adapter.ConnectionManager
    manager(SimpleNamespace(project_root=str(project_root)), multiprocessing.get_context("spawn"))
    return manager


def _run_node(manager: Any, parameters: dict[str, str], *statements: str) -> None:
    """What dbt does for a node: open a connection of a target with the runtime
    settings ``parameters``, run ``statements`` in it, close its cursor."""
    from dbt.adapters.tsdedup_spark import Plugin

    credentials = Plugin.credentials(
        method="session", host="h", schema="s", server_side_parameters=parameters
    )
    connection = Connection(
        type="tsdedup_spark", name="x", credentials=credentials, state=ConnectionState.INIT
    )
    manager.open(connection)
    handle = connection.handle.cursor()
    for statement in statements:
        handle.execute(statement)
    handle.close()


def test_a_connection_looks_up_the_session_once_for_all_its_statements(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """dbt-spark's cursor asks the builder for the session before every statement;
    the adapter's connection asks once, so the profile's runtime settings hold
    when each node (each opened connection) starts, and a node's own `set` holds
    until it ends."""
    from dbt.adapters.tsdedup_spark import session as adapter_session
    from pyspark.sql.utils import AnalysisException

    run: list[str] = []

    class FakeSession:
        sparkContext = SimpleNamespace(getConf=lambda: {})
        conf = SimpleNamespace(set=lambda key, value: None, unset=lambda key: None)

        def sql(self, statement: str) -> str:
            if statement == "select missing":
                raise AnalysisException(message="[UNRESOLVED_COLUMN] `missing` cannot be resolved")
            run.append(statement)
            return f"frame of {statement}"

    looked_up: list[dict[str, str]] = []

    def open_session(parameters: dict[str, str]) -> FakeSession:
        looked_up.append(dict(parameters))
        return FakeSession()

    monkeypatch.setattr(adapter_session, "open_session", open_session)
    monkeypatch.setattr(plain_dbt, "ensure_session", lambda root, ssp, schema: None)
    manager = _connection_manager(tmp_path)

    def node(*statements: str) -> None:
        _run_node(manager, {"spark.sql.shuffle.partitions": "3"}, *statements)

    node("set spark.sql.shuffle.partitions = 2", "select 1", "select 2;")
    assert run == ["set spark.sql.shuffle.partitions = 2", "select 1", "select 2"]
    assert len(looked_up) == 1
    assert looked_up[0]["spark.sql.shuffle.partitions"] == "3"
    node("select 3")
    assert len(looked_up) == 2, "each node starts from the profile's settings"
    with pytest.raises(DbtRuntimeError, match="UNRESOLVED_COLUMN"):
        node("select missing")


def test_each_node_starts_with_the_settings_a_macro_changes_for_one_statement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A merge sets the shuffle partitions and sets them back after it; if it
    fails in between, the next node still starts with the session's own value
    (the Spark configuration's, else Spark's default), unless the profile names
    the setting, which the session lookup applies."""
    from dbt.adapters.tsdedup_spark import session as adapter_session

    settings: dict[str, str] = {}
    conf_reads: list[str] = []

    class StartConf:
        def get(self, key: str, default: str | None) -> str | None:
            conf_reads.append(key)
            return {"spark.sql.shuffle.partitions": "4"}.get(key, default)

    class FakeSession:
        sparkContext = SimpleNamespace(getConf=StartConf)
        conf = SimpleNamespace(set=settings.__setitem__, unset=lambda key: settings.pop(key, None))

        def sql(self, statement: str) -> None:
            key, _, value = statement.removeprefix("set ").partition(" = ")
            settings[key.strip("`")] = value

    def open_session(parameters: dict[str, str]) -> FakeSession:
        settings.update(parameters)
        return FakeSession()

    monkeypatch.setattr(adapter_session, "open_session", open_session)
    monkeypatch.setattr(adapter_session, "_STARTED", {})
    monkeypatch.setattr(plain_dbt, "ensure_session", lambda root, ssp, schema: None)
    manager = _connection_manager(tmp_path)

    def node(parameters: dict[str, str], *statements: str) -> None:
        _run_node(manager, parameters, *statements)

    def scoped() -> dict[str, str]:
        return {k: v for k, v in settings.items() if k in adapter_session.NODE_SCOPED_SETTINGS}

    # A node that failed after changing every setting.
    node(
        {},
        "set spark.sql.shuffle.partitions = 2",
        "set spark.sql.files.maxPartitionBytes = 1099511627776",
        "set `spark.sql.sources.v2.bucketing.enabled` = true",
        "set `spark.sql.iceberg.planning.preserve-data-grouping` = true",
    )
    assert scoped() == {
        "spark.sql.shuffle.partitions": "2",
        "spark.sql.files.maxPartitionBytes": "1099511627776",
        "spark.sql.sources.v2.bucketing.enabled": "true",
        "spark.sql.iceberg.planning.preserve-data-grouping": "true",
    }
    node({}, "select 1")
    # Back to the value the session started with; Spark's default where it had none.
    assert scoped() == {"spark.sql.shuffle.partitions": "4"}
    # The configuration a session started with is read once.
    assert conf_reads == list(adapter_session.NODE_SCOPED_SETTINGS)
    node({}, "set spark.sql.shuffle.partitions = 2")
    node({"spark.sql.shuffle.partitions": "3"}, "select 2")
    assert settings["spark.sql.shuffle.partitions"] == "3", "the profile's value"
    assert len(conf_reads) == len(adapter_session.NODE_SCOPED_SETTINGS)


def test_the_installed_adapter_is_the_one_in_the_project() -> None:
    """dbt runs the installed copy (make setup installs it): it must be this one."""
    import dbt.include.tsdedup_spark

    def files(*folders: Path) -> dict[str, bytes]:
        return {
            f"{folder.name}/{path.relative_to(folder)}": path.read_bytes()
            for folder in folders
            for path in folder.rglob("*")
            if path.is_file() and "__pycache__" not in path.parts
        }

    installed = files(adapter_sources()[0].parent, Path(dbt.include.tsdedup_spark.PACKAGE_PATH))
    source = ROOT / "adapter" / "src" / "dbt"
    expected = files(source / "adapters" / "tsdedup_spark", source / "include" / "tsdedup_spark")
    assert sorted(installed) == sorted(expected)
    assert installed == expected, "the installed adapter differs from adapter/: run make setup"


def test_a_session_that_fails_to_start_leaves_the_state_folder_free(
    tmp_path: Path, started: list[dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    def build_session(conf: dict[str, str], preload_modules: tuple[str, ...] = ()) -> object:
        raise RuntimeError("Java gateway process exited")

    monkeypatch.setattr(spark_session, "build_session", build_session)
    with pytest.raises(RuntimeError, match="Java gateway"):
        plain_dbt.ensure_session(str(tmp_path), {}, "tsdedup")
    with HomeLock(tmp_path / ".tsdedup"):
        pass


class FakeLock:
    """A builder lock that records being taken and released."""

    def __init__(self, log: list[str], schema: str, command: str) -> None:
        self.log, self.name = log, f"{command} {schema}"

    def __enter__(self) -> None:
        self.log.append(f"take {self.name}")

    def __exit__(self, *exc: object) -> None:
        self.log.append(f"release {self.name}")


def test_on_a_shared_catalog_a_writing_dbt_command_holds_the_builder_lock_until_cleanup(
    tmp_path: Path, started: list[dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    log: list[str] = []
    held: set[str] = set()
    monkeypatch.setattr(
        shared_catalog.SharedCatalog,
        "builder_lock",
        lambda self, spark, schema, command, wait: FakeLock(log, schema, command),
    )
    monkeypatch.setattr(shared_catalog.SharedCatalog, "holds", lambda self, schema: schema in held)
    monkeypatch.setattr(plain_dbt, "_BUILDER", [])
    team = {shared_catalog.URL_KEY: "jdbc:postgresql://db:5432/tsdedup"}
    command = ["test"]
    monkeypatch.setattr(plain_dbt, "_dbt_command", lambda: command[0])

    plain_dbt.ensure_session(str(tmp_path), team, "s")  # a reader: no lock
    assert log == [] and len(started) == 1
    assert not (tmp_path / ".tsdedup" / ".lock").exists(), "no state folder lock either"
    command[0] = "run"  # then, in the same process, a command that writes
    plain_dbt.ensure_session(str(tmp_path), team, "s")
    plain_dbt.ensure_session(str(tmp_path), team, "s")  # another connection of it
    assert log == ["take dbt run s"] and len(started) == 1
    plain_dbt.release_builder_lock()  # dbt cleaned up its connections
    assert log == ["take dbt run s", "release dbt run s"]
    held.add("s")  # `tsdedup build` holds it: dbt inside it takes none
    plain_dbt.ensure_session(str(tmp_path), team, "s")
    assert log == ["take dbt run s", "release dbt run s"]
    # The embedded metastore has no builder lock.
    monkeypatch.setattr(plain_dbt, "_dbt_command", lambda: "run")
    held.clear()
    plain_dbt._hold_builder_lock(object(), {}, "s")
    assert log == ["take dbt run s", "release dbt run s"]
