"""The project's Spark session for plain ``dbt`` (the ``tsdedup_spark`` adapter
in adapter/): the session ``tsdedup`` would start, built once per process on
dbt's first statement, with the project's functions registered."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Mapping
from pathlib import Path

from tsdedup import engine, spark_session, up_to_date
from tsdedup.dbt_runner import status
from tsdedup.iceberg_jars import IcebergJarsError
from tsdedup.invocation import Invocation
from tsdedup.shared_catalog import CatalogError, SharedCatalog, lock_wait_seconds, writes
from tsdedup.spark_session import LogLevelError
from tsdedup.state import HomeLock, HomeLockedError

_LOCK = threading.Lock()
# The state folder's lock, held until the process ends (the OS releases it).
_HELD: list[HomeLock] = []
# A shared catalog's builder lock, held until dbt's command cleans up its
# connections (or the process ends: PostgreSQL releases it with the connection).
_BUILDER: list[contextlib.AbstractContextManager[None]] = []


class SessionError(RuntimeError):
    """The session cannot start: the state folder is in use, or a setting is wrong."""


def ensure_session(
    project_root: str | None, server_side_parameters: Mapping[str, str], schema: str
) -> None:
    """Start the Spark session of the project at ``project_root`` (the current
    folder's if None) with the profile target's ``server_side_parameters`` on
    top of the project's settings, and register the functions; nothing starts
    when this process has such a session already (``tsdedup`` started it). On a
    shared catalog, a dbt command that writes then holds the builder lock of
    ``schema``, the target's. Raises SessionError with the reason."""
    with _LOCK:
        try:
            spark = spark_session.registered_session()
            if spark is None:
                spark = _start(project_root, server_side_parameters)
            _hold_builder_lock(spark, server_side_parameters, schema)
        except (HomeLockedError, LogLevelError, IcebergJarsError, CatalogError) as exc:
            raise SessionError(str(exc)) from None


def release_builder_lock() -> None:
    """At the end of a dbt command (its connections cleaned up): release the
    builder lock it held, if any."""
    with _LOCK:
        while _BUILDER:
            _BUILDER.pop().__exit__(None, None, None)


def _start(project_root: str | None, server_side_parameters: Mapping[str, str]) -> object:
    environ = dict(os.environ)
    if project_root:
        environ["DBT_PROJECT_DIR"] = project_root
    home = Invocation.parse([], environ).home
    conf = spark_session.base_conf(spark_session.Paths(home))
    conf.update({str(key): str(value) for key, value in server_side_parameters.items()})
    if SharedCatalog.of(conf) is not None:
        # A shared catalog admits many processes: no state folder lock.
        up_to_date.forget(home)
        return _build(conf, home)
    record = engine.read_record(home)
    if record is not None:
        raise SessionError(
            f"the {record.describe()} holds the metastore of {home}: run "
            "this command through tsdedup, or stop the engine (tsdedup engine stop)"
        )
    lock = HomeLock(home).__enter__()  # one run per state folder, as with tsdedup
    try:
        # This run writes tables: a `tsdedup` run after it must not be skipped
        # as unchanged (tsdedup/up_to_date.py).
        up_to_date.forget(home)
        spark = _build(conf, home)
    except BaseException:
        lock.__exit__(None, None, None)
        raise
    _HELD.append(lock)
    return spark


def _hold_builder_lock(
    spark: object, server_side_parameters: Mapping[str, str], schema: str
) -> None:
    """On a shared catalog, take the schema's builder lock for a dbt command that
    writes, unless this process holds it already (`tsdedup build` took it)."""
    catalog = SharedCatalog.of({str(k): str(v) for k, v in server_side_parameters.items()})
    if catalog is None or catalog.holds(schema) or _BUILDER:
        return
    command = _dbt_command()
    if not writes(command):
        return
    lock = catalog.builder_lock(spark, schema, f"dbt {command}", lock_wait_seconds(os.environ))
    lock.__enter__()
    _BUILDER.append(lock)


def _build(conf: dict[str, str], home: Path) -> object:
    master = conf.get("spark.master", "?")
    status(f"starting Spark for dbt (master {master}, state in {home})")
    spark = spark_session.build_session(conf)
    if not master.startswith("local"):
        spark_session.ship_udfs(spark, home)
    return spark


def _dbt_command() -> str:
    """The running dbt command's name (`run`, `test`, `generate`, ...)."""
    from dbt.flags import get_flags

    return str(getattr(get_flags(), "WHICH", "") or "run")
