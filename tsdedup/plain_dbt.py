"""The project's Spark session for plain ``dbt`` (the ``tsdedup_spark`` adapter
in adapter/): the session ``tsdedup`` would start, built once per process on
dbt's first statement, with the project's functions registered."""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping

from tsdedup import engine, spark_session, up_to_date
from tsdedup.dbt_runner import status
from tsdedup.iceberg_jars import IcebergJarsError
from tsdedup.invocation import Invocation
from tsdedup.spark_session import LogLevelError
from tsdedup.state import HomeLock, HomeLockedError

_LOCK = threading.Lock()
# The state folder's lock, held until the process ends (the OS releases it).
_HELD: list[HomeLock] = []


class SessionError(RuntimeError):
    """The session cannot start: the state folder is in use, or a setting is wrong."""


def ensure_session(project_root: str | None, server_side_parameters: Mapping[str, str]) -> None:
    """Start the Spark session of the project at ``project_root`` (the current
    folder's if None) with the profile target's ``server_side_parameters`` on
    top of the project's settings, and register the functions. Nothing happens
    when this process has such a session already (``tsdedup`` started it).
    Raises SessionError with the reason when it cannot start."""
    with _LOCK:
        if spark_session.registered_session() is not None:
            return
        try:
            _start(project_root, server_side_parameters)
        except (HomeLockedError, LogLevelError, IcebergJarsError) as exc:
            raise SessionError(str(exc)) from None


def _start(project_root: str | None, server_side_parameters: Mapping[str, str]) -> None:
    environ = dict(os.environ)
    if project_root:
        environ["DBT_PROJECT_DIR"] = project_root
    home = Invocation.parse([], environ).home
    record = engine.read_record(home)
    if record is not None:
        raise SessionError(
            f"the {record.describe()} holds the metastore of {home}: run "
            "this command through tsdedup, or stop the engine (tsdedup engine stop)"
        )
    conf = spark_session.base_conf(spark_session.Paths(home))
    conf.update({str(key): str(value) for key, value in server_side_parameters.items()})
    lock = HomeLock(home).__enter__()  # one run per state folder, as with tsdedup
    try:
        # This run writes tables: a `tsdedup` run after it must not be skipped
        # as unchanged (tsdedup/up_to_date.py).
        up_to_date.forget(home)
        master = conf.get("spark.master", "?")
        status(f"starting Spark for dbt (master {master}, state in {home})")
        spark = spark_session.build_session(conf)
        if not master.startswith("local"):
            spark_session.ship_udfs(spark, home)
    except BaseException:
        lock.__exit__(None, None, None)
        raise
    _HELD.append(lock)
