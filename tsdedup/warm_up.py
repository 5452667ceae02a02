"""Warm the Spark session up while dbt starts.

dbt's start (its imports, reading the project, the first statements) keeps one
core busy in Python and the JVM mostly idle. The first use of each part of
Spark costs seconds once per process: the metastore client, the first Iceberg
scan, the first file listing, the Python workers. A background thread pays
those while dbt starts, with statements that only read and leave nothing
behind; a statement that fails (no table yet) is skipped, since the run itself
reports any real problem.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any

from tsdedup.sql_quoting import quote_identifier, string_literal

LOG = logging.getLogger(__name__)


def warm_up_statements(schema: str, landing: str) -> list[str]:
    """The statements that warm a session up for a run over ``schema``."""
    table = f"{quote_identifier(schema)}.{quote_identifier('raw_chunks')}"
    return [
        "show databases",
        # The columns the landing listing compares: a count(*) alone would be
        # answered from Iceberg's metadata and leave the Parquet reader cold.
        "select sum(source_bytes), max(length(source_file)), max(source_modified_at)"
        f" from {table} where row_kind = 'chunk'",
        f"select count(*) from tsdedup_empty_files({string_literal(landing)})",
        "select count(*) from tsdedup_read_chunk('warm-up.lp', 'warm-up.lp', x'', 'ns', 0)",
        # The first `describe` of a process takes 1-2 s (Spark's describe
        # builds each output row in code the JIT has not compiled yet); every
        # model's materialization describes tables.
        f"describe extended {table}",
    ]


def _run(spark: Any, statements: Sequence[str]) -> None:
    for statement in statements:
        try:
            spark.sql(statement).collect()
        except Exception as exc:  # a warm-up never fails the run
            LOG.debug("warm-up statement skipped: %s (%s)", statement, exc)


def start_warm_up(spark: Any, schema: str, landing: str) -> threading.Thread:
    """Run the warm-up statements in a daemon thread; returns it (started)."""
    thread = threading.Thread(
        target=_run,
        args=(spark, warm_up_statements(schema, landing)),
        name="tsdedup-warm-up",
        daemon=True,
    )
    thread.start()
    return thread
