"""The metastore's copy of an Iceberg view's SQL.

Spark reads a view of the session catalog through the Hive metastore's text of
it, and Iceberg's `create or replace view` commits the new SQL to the view's
metadata but leaves the metastore's text as it was. set_view_text writes it
after each replace, so the view is replaced in place, never dropped
(decision 0030).
"""

from __future__ import annotations

import threading
from typing import Any

from py4j.protocol import Py4JError

from tsdedup.shared_catalog import reason

_LOCK = threading.Lock()
# This process's metastore client, with the settings of the session it was made for.
_CLIENTS: list[tuple[Any, Any]] = []


def _client(spark: Any) -> Any:
    for session, client in _CLIENTS:
        if session is spark:
            return client
    jvm = spark._jvm
    hive_conf = jvm.org.apache.hadoop.hive.conf.HiveConf(
        spark._jsc.hadoopConfiguration(),
        jvm.java.lang.Class.forName("org.apache.hadoop.hive.conf.HiveConf"),
    )
    client = jvm.org.apache.hadoop.hive.metastore.HiveMetaStoreClient(hive_conf)
    for _, earlier in _CLIENTS:  # a session stopped since
        earlier.close()
    _CLIENTS[:] = [(spark, client)]
    return client


class ViewTextError(RuntimeError):
    """The metastore did not take the view's text."""


def set_view_text(spark: Any, database: str, name: str, sql: str) -> bool:
    """Make the metastore's text of view ``database.name`` be ``sql``; returns
    whether it changed."""
    with _LOCK:
        try:
            client = _client(spark)
            table = client.getTable(database, name)
            if table.getViewOriginalText() == sql and table.getViewExpandedText() == sql:
                return False
            table.setViewOriginalText(sql)
            table.setViewExpandedText(sql)
            client.alter_table(database, name, table)
        except Py4JError as exc:
            raise ViewTextError(
                f"the metastore did not take the SQL of view {database}.{name}: {reason(exc)}"
            ) from None
        return True
