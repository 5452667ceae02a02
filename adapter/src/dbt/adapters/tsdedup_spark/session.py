"""dbt-spark's `method: session` connection, with the session looked up once
per connection instead of once per statement.

dbt-spark's cursor calls ``SparkSession.builder...getOrCreate()`` before every
statement, which hands the profile's ``server_side_parameters`` to the running
session again: several calls into the JVM per statement, about 0.2 s of a 1 %
run's `cpu` model. Here the connection does it once, when its first statement
runs. dbt opens a connection for each node, so the profile's runtime settings
still hold when each node starts; a `set` a node runs holds for the rest of
that node, as SQL reads. The settings tsdedup's macros change for one
statement and then set back (NODE_SCOPED_SETTINGS) start each node at the
session's own value, so a node that failed between the two leaves nothing
behind.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dbt.adapters.spark.session import Connection, Cursor
from dbt_common.exceptions import DbtRuntimeError

# Changed by a macro for a statement and set back after it: the merge's shuffle
# partitions and a rebuild's storage-partitioned reading of the raw log
# (materializations/measurement.sql, decisions 0033 and 0034), and the landing
# listing's split size (landing/new_landed_files.sql).
NODE_SCOPED_SETTINGS = (
    "spark.sql.shuffle.partitions",
    "spark.sql.files.maxPartitionBytes",
    "spark.sql.sources.v2.bucketing.enabled",
    "spark.sql.iceberg.planning.preserve-data-grouping",
)


def open_session(parameters: Mapping[str, str]) -> Any:
    """The process's Spark session with the runtime settings among ``parameters``
    applied, as dbt-spark's cursor gets it (the others need a new session)."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.enableHiveSupport()
    for key, value in parameters.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


# NODE_SCOPED_SETTINGS in the Spark configuration a context started with, read
# once per context: its copy costs two calls into the JVM per setting.
_STARTED: dict[int, dict[str, str | None]] = {}


def restore_node_scoped_settings(session: Any, parameters: Mapping[str, str]) -> None:
    """Each of NODE_SCOPED_SETTINGS back to the value the session started with
    (as Spark's `reset <key>` does: the Spark configuration's, else Spark's
    default), unless the profile's ``parameters`` name it."""
    context = session.sparkContext
    started = _STARTED.get(id(context))
    if started is None:
        conf = context.getConf()
        started = {key: conf.get(key, None) for key in NODE_SCOPED_SETTINGS}
        _STARTED[id(context)] = started
    for key, value in started.items():
        if key in parameters:
            continue
        if value is None:
            session.conf.unset(key)
        else:
            session.conf.set(key, value)


class SessionConnection(Connection):
    """One connection's statements share the session it looked up first."""

    def __init__(self, *, server_side_parameters: Mapping[str, str] | None = None) -> None:
        super().__init__(server_side_parameters=dict(server_side_parameters or {}))
        self._session: Any = None

    def session(self) -> Any:
        if self._session is None:
            session = open_session(self.server_side_parameters)
            restore_node_scoped_settings(session, self.server_side_parameters)
            self._session = session
        return self._session

    def cursor(self) -> Cursor:
        return SessionCursor(self)


class SessionCursor(Cursor):
    """dbt-spark's session cursor, running statements in its connection's session."""

    def __init__(self, connection: SessionConnection) -> None:
        super().__init__(server_side_parameters=connection.server_side_parameters)
        self._connection = connection

    def execute(self, sql: str, *parameters: Any) -> None:
        from pyspark.sql.utils import AnalysisException

        if parameters:
            sql = sql % parameters
        try:
            self._df = self._connection.session().sql(sql)
        except AnalysisException as exc:
            raise DbtRuntimeError(str(exc)) from exc
