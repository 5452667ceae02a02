"""dbt run in this process, in the Spark session tsdedup started, with
progress lines for long models (tsdedup/progress.py)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from tsdedup.progress import Heartbeat, interval_from_environment


def status(message: str) -> None:
    """A line on what the command is doing, on standard error (standard output
    stays dbt's, and JSON for `sql --json`)."""
    print(f"tsdedup: {message}", file=sys.stderr, flush=True)


def active_spark() -> object | None:
    """The process's Spark session, if one was started (pyspark not imported otherwise)."""
    if "pyspark.sql" not in sys.modules:
        return None
    from pyspark.sql import SparkSession

    return SparkSession.getActiveSession()


def run_dbt(args: Sequence[str]) -> int:
    """Run dbt in-process; returns dbt's exit code (0 ok, 1 failures, 2 error)."""
    from dbt.cli.main import dbtRunner

    with Heartbeat(interval_from_environment(), active_spark()) as heartbeat:
        result = dbtRunner(callbacks=[heartbeat.on_event]).invoke(list(args))
    if result.exception is not None:
        return 2
    return 0 if result.success else 1
