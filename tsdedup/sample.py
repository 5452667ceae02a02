"""``tsdedup sample``: build the bundled sample data end to end and say what happened."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tsdedup.dbt_runner import run_dbt
from tsdedup.invocation import Invocation
from tsdedup.profile import spark_parameters
from tsdedup.run_summary import format_counts, read_run_results, status_counts
from tsdedup.shared_catalog import SharedCatalog
from tsdedup.sql_quoting import quote_identifier
from tsdedup.text_table import text_table

SAMPLE_FOLDER = Path("seeds") / "sample_landing"


def run_sample(invocation: Invocation) -> int:
    """Ingest the sample files, build and test everything, print a summary.
    What follows ``sample`` on the command line goes to ``dbt build``."""
    landing = invocation.project_dir / SAMPLE_FOLDER
    os.environ["TSDEDUP_LANDING"] = str(landing)
    print(f"tsdedup: building the sample data in {landing}")
    settings = spark_parameters(invocation.profile_target()[1])
    catalog = SharedCatalog.of(settings)
    if catalog is None:
        print(f"tsdedup: state (metastore and warehouse) in {invocation.home}")
    else:
        warehouse = settings.get("spark.sql.warehouse.dir", "?")
        print(f"tsdedup: catalog at {catalog.url}, warehouse in {warehouse}")
    started = time.monotonic()
    started_at = time.time()
    since = datetime.now(UTC).replace(tzinfo=None)
    code = run_dbt(["build", *invocation.args[1:]])
    elapsed = time.monotonic() - started
    if code != 0:
        print(f"tsdedup: the build failed (dbt exit code {code}); see the messages above")
        return code
    print_summary(invocation.schema(), since)
    results = read_run_results(invocation.target_path, started_at)
    statuses = "" if results is None else "; " + format_counts(status_counts(results))
    print(f"tsdedup: sample built and tested in {elapsed:.0f} s{statuses}")
    return 0


def print_summary(schema: str, since: datetime) -> None:
    """Print the per-chunk accounting, the measurement tables and the rejects."""
    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession()
    if spark is None:
        return
    q = quote_identifier(schema)
    chunks = spark.sql(
        f"select chunk_seq, source_file, lines_read, points_read, lines_rejected, lines_skipped, "
        f"type_conflicts, duplicates_removed from {q}.rpt_chunk_accounting order by chunk_seq"
    ).collect()
    print("\nChunks ingested (one per file, in ingestion order):")
    headers = ["chunk", "file", "lines", "points", "unreadable", "blank/comment"]
    headers += ["type conflicts", "duplicates removed"]
    print(text_table([list(r) for r in chunks], headers))
    measurements = spark.sql(
        f"select measurement, count(*) as points from {q}.int_accepted_points "
        "group by measurement order by measurement"
    ).collect()
    rows = []
    kept_total = 0
    for m in measurements:
        name = m["measurement"]
        if not spark.catalog.tableExists(f"{schema}.{name}"):
            rows.append([name, m["points"], "", "no model: add models/measurements/<name>.sql"])
            continue
        table = f"{q}.{quote_identifier(name)}"
        kept = spark.sql(f"select count(*) from {table}").collect()[0][0]
        kept_total += kept
        rows.append([name, m["points"], kept, _location(spark, table)])
    print("\nDeduplicated measurement tables:")
    print(text_table(rows, ["measurement", "points", "rows", "table location"]))
    points = sum(r["points_read"] for r in chunks)
    duplicates = sum(r["duplicates_removed"] for r in chunks)
    conflicts = sum(r["type_conflicts"] for r in chunks)
    unreadable = sum(r["lines_rejected"] for r in chunks)
    balanced = points == kept_total + duplicates + conflicts
    print(
        f"\nAccounting: {points} points read = {kept_total} rows kept + {duplicates} duplicates "
        f"removed + {conflicts} rejected for a type conflict"
        + ("" if balanced else "  (DOES NOT BALANCE: a measurement has no model?)")
        + f"; {unreadable} unreadable lines rejected."
    )
    print_run_statistics(spark, q, since)
    rejects = spark.sql(
        f"select source_file, line_number, reject_reason from {q}.rpt_rejects "
        "order by chunk_seq, line_number"
    ).collect()
    if rejects:
        print(f"\nRejected ({len(rejects)}; all of them in {schema}.rpt_rejects):")
        print(text_table([[f"{r[0]}:{r[1]}", r[2]] for r in rejects[:20]], ["where", "reason"]))


def print_run_statistics(spark: Any, schema: str, since: datetime) -> None:
    """Print what the run started after ``since`` (UTC) did to each measurement
    table, partition by partition."""
    stats = spark.sql(
        "select model_name, cast(partition_day as string), chunks_merged, points_merged, "
        "rows_before, rows_after, duplicates_removed, files_rewritten, files_written, "
        f"format_number(seconds, 1) from {schema}.run_statistics "
        f"where run_started_at >= timestamp'{since.isoformat(sep=' ')}' "
        "order by model_name, partition_day"
    ).collect()
    if not stats:
        print("\nThis run changed no measurement table (nothing new to merge).")
        return
    print(f"\nThis run, per table and day partition (history in {schema}.run_statistics):")
    headers = ["table", "day", "chunks", "points", "rows before", "rows after"]
    headers += ["duplicates removed", "files rewritten", "files written", "seconds"]
    print(text_table([list(r) for r in stats], headers))


def _location(spark: Any, table: str) -> str:
    for row in spark.sql(f"describe table extended {table}").collect():
        if row[0] == "Location":
            return str(row[1])
    return ""
