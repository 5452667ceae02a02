"""Contender: DuckDB running Arc's compaction query on the raw Parquet.

    python -m bench.duckdb_arc --input DIR --output FILE

Arc (Basekick Labs) deduplicates when it compacts a partition's Parquet files:
it materializes the files in a temporary table, then writes one row per
tags + time, ``QUALIFY ROW_NUMBER() OVER (PARTITION BY <tags>, time ORDER BY
time DESC) = 1``, ordered by time, as ZSTD Parquet. Rows of one key tie on
``time``, so the copy kept is arbitrary. Here the time key is ``time_ns``.
Prints one JSON line with the in-process seconds of both statements.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import duckdb

from bench.schema import FIELDS, TAGS


def compaction_statements(sources: str, output: Path) -> list[str]:
    """The two statements: stage the raw rows, write the deduplicated ones."""
    columns = ", ".join((*TAGS, *FIELDS, "time_ns"))
    partition = ", ".join((*TAGS, "time_ns"))
    return [
        f"create or replace temp table compaction_staged as "
        f"select {columns} from read_parquet({sources})",
        f"""copy (
            select * from compaction_staged
            qualify row_number() over (partition by {partition} order by time_ns desc) = 1
            order by time_ns
        ) to '{output}' (format parquet, compression zstd, compression_level 3,
            row_group_size 122880)""",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", required=True, type=Path)
    parser.add_argument("--output", required=True, type=Path)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    con = duckdb.connect()
    con.execute(f"set threads = {args.threads}")
    con.execute(f"set temp_directory = '{args.output.parent / 'duckdb_tmp'}'")
    sources = "[" + ", ".join(f"'{p}'" for p in sorted(args.input.glob("*.parquet"))) + "]"
    started = time.monotonic()
    for statement in compaction_statements(sources, args.output):
        con.execute(statement)
    seconds = time.monotonic() - started
    rows = con.execute(f"select count(*) from read_parquet('{args.output}')").fetchall()[0]
    print(json.dumps({"seconds": seconds, "rows": int(rows[0])}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
