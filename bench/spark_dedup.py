"""Contender: Spark ``dropDuplicates`` on the raw Parquet, a full recompute.

    python -m bench.spark_dedup --input DIR --output DIR

Reads every raw row (tags, fields, time_ns), keeps one row per tags + time_ns
with ``dropDuplicates`` (an arbitrary copy: Spark keeps whichever row its
aggregation meets first) and writes Parquet. Spark runs as tsdedup's does:
``local[2]``, 4 GiB driver, 4 shuffle partitions. Prints one JSON line with the
in-process seconds of read + deduplicate + write (Spark's start excluded).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from bench.schema import FIELDS, TAGS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args(argv)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("bench-dropduplicates")
        .config("spark.driver.memory", "4g")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    started = time.monotonic()
    raw = spark.read.parquet(args.input).select(*TAGS, *FIELDS, "time_ns")
    raw.dropDuplicates([*TAGS, "time_ns"]).write.mode("overwrite").parquet(args.output)
    seconds = time.monotonic() - started
    rows = spark.read.parquet(args.output).count()
    print(json.dumps({"seconds": seconds, "rows": rows}))
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
