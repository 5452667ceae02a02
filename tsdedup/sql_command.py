"""``tsdedup sql``: run Spark SQL statements against the project's tables.

    tsdedup sql "select * from tsdedup.h2o order by time_ns limit 10"
    tsdedup sql --json "select count(*) from tsdedup.cpu" "select count(*) from tsdedup.h2o"

Quicker than ``tsdedup show`` for ad-hoc looks (no dbt project parse) and able to
run several statements with one Spark start. Names are plain table names
(``<schema>.<model>``), not ``ref()``. With ``--json`` every statement prints one
line: ``{"statement": <index>, "rows": [{column: value, ...}, ...]}``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any

USAGE = 'usage: tsdedup sql [--json] [--limit N] "<statement>" ["<statement>" ...]'


class SqlUsageError(ValueError):
    """Bad arguments to ``tsdedup sql``."""


def parse_args(args: Sequence[str]) -> tuple[bool, int | None, list[str]]:
    as_json, limit, statements = False, 100, []
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--json":
            as_json = True
        elif arg == "--limit":
            if not rest:
                raise SqlUsageError(f"--limit needs a number\n{USAGE}")
            raw = rest.pop(0)
            try:
                limit = int(raw)
            except ValueError:
                raise SqlUsageError(f"--limit needs a number, got {raw!r}\n{USAGE}") from None
        elif arg.startswith("--"):
            raise SqlUsageError(f"unknown option {arg!r}\n{USAGE}")
        else:
            statements.append(arg)
    if not statements:
        raise SqlUsageError(f"no statement given\n{USAGE}")
    return as_json, (None if limit is not None and limit < 0 else limit), statements


def _plain(value: Any) -> Any:
    """A JSON-ready value: exact integers stay integers, decimals become strings."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, bytes | bytearray):
        return value.hex()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if hasattr(value, "asDict"):
        return {k: _plain(v) for k, v in value.asDict().items()}
    return value


def run_sql(spark: Any, args: Sequence[str]) -> int:
    """Run the statements in order; stop at the first that fails (exit code 1)."""
    from pyspark.errors import PySparkException

    as_json, limit, statements = parse_args(args)
    for index, statement in enumerate(statements):
        try:
            frame = spark.sql(statement)
            rows = frame.collect() if limit is None else frame.limit(limit).collect()
        except PySparkException as exc:
            reason = str(exc).strip().splitlines()[0]
            print(f"tsdedup sql: statement {index + 1} failed: {reason}", file=sys.stderr)
            return 1
        records = [{k: _plain(v) for k, v in row.asDict().items()} for row in rows]
        if as_json:
            print(json.dumps({"statement": index, "rows": records}, ensure_ascii=False))
            continue
        _print_table(frame.columns, records)
    return 0


def _print_table(columns: list[str], records: list[dict[str, Any]]) -> None:
    cells = [["" if r[c] is None else str(r[c]) for c in columns] for r in records]
    widths = [max([len(c), *(len(row[i]) for row in cells)]) for i, c in enumerate(columns)]
    print(" | ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)))
    print("-+-".join("-" * w for w in widths))
    for row in cells:
        print(" | ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)))
    print(f"({len(records)} row{'s' if len(records) != 1 else ''})\n")
