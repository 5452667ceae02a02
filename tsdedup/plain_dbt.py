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
# The state folder's lock, or a shared catalog's builder lock, held until the
# process ends (the OS, or PostgreSQL when the connection drops, releases it).
_HELD: list[contextlib.AbstractContextManager[object]] = []


class SessionError(RuntimeError):
    """The session cannot start: the state folder is in use, or a setting is wrong."""


def ensure_session(
    project_root: str | None, server_side_parameters: Mapping[str, str], schema: str = "tsdedup"
) -> None:
    """Start the Spark session of the project at ``project_root`` (the current
    folder's if None) with the profile target's ``server_side_parameters`` on
    top of the project's settings, and register the functions (``schema``: the
    target's, whose builder lock a writing command holds on a shared catalog). Nothing happens
    when this process has such a session already (``tsdedup`` started it).
    Raises SessionError with the reason when it cannot start."""
    with _LOCK:
        if spark_session.registered_session() is not None:
            return
        try:
            _start(project_root, server_side_parameters, schema)
        except (HomeLockedError, LogLevelError, IcebergJarsError, CatalogError) as exc:
            raise SessionError(str(exc)) from None


def _start(
    project_root: str | None, server_side_parameters: Mapping[str, str], schema: str
) -> None:
    environ = dict(os.environ)
    if project_root:
        environ["DBT_PROJECT_DIR"] = project_root
    invocation = Invocation.parse([], environ)
    home = invocation.home
    conf = spark_session.base_conf(spark_session.Paths(home))
    conf.update({str(key): str(value) for key, value in server_side_parameters.items()})
    catalog = SharedCatalog.of(conf)
    if catalog is not None:
        _start_shared(catalog, conf, invocation.home, schema)
        return
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
        _build(conf, home)
    except BaseException:
        lock.__exit__(None, None, None)
        raise
    _HELD.append(lock)


def _start_shared(catalog: SharedCatalog, conf: dict[str, str], home: Path, schema: str) -> None:
    """On a shared catalog: no state folder lock; a dbt command that writes
    holds the schema's builder lock until the process ends."""
    wait = lock_wait_seconds(os.environ)
    command = _dbt_command()
    up_to_date.forget(home)
    spark = _build(conf, home)
    if writes(command):
        lock = catalog.builder_lock(spark, schema, f"dbt {command}", wait)
        lock.__enter__()
        _HELD.append(lock)


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
