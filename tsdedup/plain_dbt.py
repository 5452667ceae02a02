"""The project's Spark session for plain ``dbt`` (the ``tsdedup_spark`` adapter
in adapter/): the session ``tsdedup`` would start, built once per process on
dbt's first statement, with the project's functions registered."""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping

from tsdedup import engine, spark_session
from tsdedup.dbt_runner import status
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
        except (HomeLockedError, LogLevelError) as exc:
            raise SessionError(str(exc)) from None


def _start(project_root: str | None, server_side_parameters: Mapping[str, str]) -> None:
    environ = dict(os.environ)
    if project_root:
        environ["DBT_PROJECT_DIR"] = project_root
    invocation = Invocation.parse([], environ)
    record = engine.read_record(invocation.home)
    if record is not None:
        raise SessionError(
            f"the {record.describe()} holds the metastore of {invocation.home}: run "
            "this command through tsdedup, or stop the engine (tsdedup engine stop)"
        )
    _HELD.append(HomeLock(invocation.home).__enter__())  # one run per state folder
    conf = spark_session.base_conf(spark_session.Paths(invocation.home))
    conf.update({str(key): str(value) for key, value in server_side_parameters.items()})
    master = conf.get("spark.master", "?")
    status(f"starting Spark for dbt (master {master}, state in {invocation.home})")
    spark = spark_session.build_session(conf)
    if not master.startswith("local"):
        spark_session.ship_udfs(spark)
