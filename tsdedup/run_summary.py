"""What a ``tsdedup run`` or ``tsdedup build`` did, in a few lines after dbt's
own output: the files it ingested, what it did to each measurement table, and
how its models and tests ended.

Everything comes from what the run left behind: dbt's ``run_results.json`` (the
status of every node and the run's invocation ids: a build that discovers
measurements runs dbt twice), the raw log's chunk rows of those invocations
(as ``stg_chunks`` holds them) and their points per measurement, in one scan
(the invocation id's column statistics skip other runs' files), the chunks
among them whose timestamps look wrong (``rpt_suspect_times``), the
measurements and which have no table (``rpt_measurements``, with the reasons
discovery gave) and the rows of ``run_statistics`` (written from metadata).
Nothing scans a measurement table, and a run whose raw log took no file reads
none of its rows.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tsdedup.invocation import Invocation
from tsdedup.sql_quoting import quote_identifier, string_literals
from tsdedup.text_table import text_table

# How run_results.json names node kinds (the first part of a unique id) in a summary.
KIND_NAMES = {
    "model": "models",
    "test": "tests",
    "unit_test": "unit tests",
    "seed": "seeds",
    "snapshot": "snapshots",
}


# The summary names at most this many measurements of the ingest (the report lists all).
MAX_MEASUREMENTS_LISTED = 30

# dbt's message for a model that found nothing new and wrote nothing
# (macros/materializations/incremental.sql).
NOTHING_NEW = "OK (nothing new)"


@dataclass(frozen=True)
class Ingested:
    """The files (chunks) one run ingested."""

    files: int
    lines: int
    bytes: int
    # Points per measurement, in name order.
    points: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class TableChange:
    """What one run did to one measurement table (its run_statistics rows, added up)."""

    model: str
    days: int
    points_merged: int
    duplicates_removed: int
    rows_after: int
    seconds: float


def read_run_results(target: Path, since: float) -> dict[str, Any] | None:
    """``target/run_results.json`` if dbt wrote it at or after ``since`` (epoch seconds)."""
    path = target / "run_results.json"
    try:
        if path.stat().st_mtime < since:
            return None
        return dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


def status_counts(run_results: Mapping[str, Any]) -> dict[str, Counter[str]]:
    """Per kind of node (models, tests, ...), how many ended in each status."""
    counts: dict[str, Counter[str]] = {}
    for result in run_results.get("results", []):
        kind = str(result.get("unique_id", "")).split(".", 1)[0]
        name = KIND_NAMES.get(kind, kind + "s")
        counts.setdefault(name, Counter())[str(result.get("status"))] += 1
    return counts


def format_counts(counts: Mapping[str, Counter[str]]) -> str:
    """``models: 19 success; tests: 40 pass, 1 fail`` (kinds in the order of KIND_NAMES)."""
    order = list(KIND_NAMES.values())
    kinds = sorted(counts, key=lambda k: (order.index(k) if k in order else len(order), k))
    parts = []
    for kind in kinds:
        statuses = ", ".join(f"{n} {status}" for status, n in sorted(counts[kind].items()))
        parts.append(f"{kind}: {statuses}")
    return "; ".join(parts) if parts else "no models or tests ran"


def format_bytes(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class SuspectChunk:
    """A chunk of the run whose times look wrong (rpt_suspect_times)."""

    chunk_seq: int
    source_file: str
    points: int
    problem: str


@dataclass(frozen=True)
class LandedMeasurement:
    """A measurement with points in the raw log (a row of rpt_measurements)."""

    measurement: str
    points: int
    is_discovered: bool
    models: tuple[str, ...]
    problem: str | None = None

    @property
    def has_table(self) -> bool:
        return bool(self.models)


def format_summary(
    run_results: Mapping[str, Any],
    ingested: Ingested | None,
    changes: Sequence[TableChange],
    suspects: Sequence[SuspectChunk] = (),
    measurements: Sequence[LandedMeasurement] = (),
) -> str:
    """The summary printed after a run: a heading, the ingest, the measurements
    (with a warning per measurement that has no table, and per chunk whose
    timestamps look wrong), one table row per measurement table the run
    changed, and the nodes' statuses."""
    elapsed = float(run_results.get("elapsed_time") or 0.0)
    lines = [f"tsdedup: summary of this run ({elapsed:.1f} s)"]
    if ingested is not None:
        if ingested.files:
            lines.append(
                f"  ingested {ingested.files} file(s): {ingested.lines} lines, "
                f"{format_bytes(ingested.bytes)}"
            )
        else:
            lines.append("  ingested no new file")
        if ingested.points:
            shown = [f"{m} {n:,}" for m, n in ingested.points[:MAX_MEASUREMENTS_LISTED]]
            more = len(ingested.points) - len(shown)
            lines.append(
                "  points per measurement: " + ", ".join(shown) + (f", {more} more" if more else "")
            )
    if measurements:
        tabled = [m for m in measurements if m.has_table]
        discovered = sum(1 for m in tabled if m.is_discovered)
        lines.append(
            f"  {len(measurements)} measurement(s) in the raw log, {len(tabled)} with a table "
            f"({discovered} discovered, {len(tabled) - discovered} from model files)"
        )
    for missing in (m for m in measurements if not m.has_table):
        call = "{{ tsdedup.measurement(" + json.dumps(missing.measurement) + ") }}"
        reason = missing.problem or "no model builds it"
        lines.append(
            f"  warning: measurement {missing.measurement!r} has {missing.points:,} point(s) in "
            f"the raw log and no table: {reason}; give it one with a model file, "
            f"models/measurements/<table name>.sql: {call}"
        )
    for suspect in suspects:
        lines.append(
            f"  warning: chunk {suspect.chunk_seq} ({suspect.source_file}, {suspect.points} "
            f"points): {suspect.problem}"
        )
    if changes:
        rows = [
            [
                c.model,
                c.days,
                c.points_merged,
                c.duplicates_removed,
                c.rows_after,
                f"{c.seconds:.1f}",
            ]
            for c in changes
        ]
        headers = ["table", "days changed", "points merged", "duplicates removed"]
        headers += ["rows in those days", "seconds"]
        lines.append(text_table(rows, headers, indent="  "))
    elif ingested is not None or any(
        str(r.get("unique_id", "")).startswith("model.") for r in run_results.get("results", [])
    ):
        lines.append("  no measurement table changed")
    lines.append("  " + format_counts(status_counts(run_results)))
    return "\n".join(lines)


def _model_results(run_results: Mapping[str, Any], model: str) -> list[Mapping[str, Any]]:
    return [
        r
        for r in run_results.get("results", [])
        if str(r.get("unique_id", "")).startswith("model.")
        and str(r.get("unique_id", "")).endswith(f".{model}")
    ]


def model_ran(run_results: Mapping[str, Any], model: str) -> bool:
    """Whether the run built ``model`` successfully."""
    return any(r.get("status") == "success" for r in _model_results(run_results, model))


def wrote_nothing(run_results: Mapping[str, Any], model: str) -> bool:
    """Whether every build of ``model`` in the run found nothing new and wrote
    nothing (its message, as the incremental materialization sets it)."""
    results = _model_results(run_results, model)
    return bool(results) and all(r.get("message") == NOTHING_NEW for r in results)


def read_tables(
    spark: Any,
    schema: str,
    run_results: Mapping[str, Any],
    refused: Mapping[str, str],
    landed: Sequence[LandedMeasurement] | None = None,
) -> tuple[Ingested | None, list[SuspectChunk], list[LandedMeasurement], list[TableChange]]:
    """What the summary reads from the tables: the ingest, its suspect chunks,
    the landed measurements and the table changes, each only when the run
    built the model it comes from. A raw log that took no new file answers
    for the first two without a query: these invocations have no chunk.
    ``landed``: rpt_measurements as read since the run ended, if it was."""
    ids = run_results["invocation_ids"]
    nothing_landed = wrote_nothing(run_results, "raw_chunks")
    # The queries are small and independent: each is mostly Spark's fixed cost
    # per statement, so they run at once, one thread each.
    with ThreadPoolExecutor(max_workers=4, thread_name_prefix="tsdedup-summary") as pool:

        def ask(ran: bool, query: Callable[..., Any], *args: Any) -> Future[Any] | None:
            return pool.submit(query, spark, schema, *args) if ran else None

        ingested_query = ask(
            model_ran(run_results, "raw_chunks") and not nothing_landed, query_ingested, ids
        )
        suspects_query = ask(
            model_ran(run_results, "rpt_suspect_times") and not nothing_landed, query_suspects, ids
        )
        measurements_query = ask(
            model_ran(run_results, "rpt_measurements") and landed is None,
            query_measurements,
            refused,
        )
        changes = query_changes(spark, schema, ids)
        ingested = Ingested(0, 0, 0) if nothing_landed else None
        if ingested_query is not None:
            ingested = ingested_query.result()
        suspects = suspects_query.result() if suspects_query is not None else []
        if ingested is not None and not ingested.files:
            suspects = []  # the invocations landed no chunk: none can be suspect
        measurements: list[LandedMeasurement] = []
        if measurements_query is not None:
            measurements = measurements_query.result()
        elif landed is not None and model_ran(run_results, "rpt_measurements"):
            measurements = [replace(m, problem=refused.get(m.measurement)) for m in landed]
        return ingested, suspects, measurements, changes


def query_ingested(spark: Any, schema: str, invocation_ids: Sequence[str]) -> Ingested:
    """The invocations' chunks and their points per measurement, in one scan of
    the raw log (its chunk rows, as stg_chunks holds them, and its point rows):
    the raw log is all a run that selects only it has built."""
    rows = spark.sql(
        "select row_kind, measurement, count(*), coalesce(sum(lines_read), 0), "
        f"coalesce(sum(source_bytes), 0) from {quote_identifier(schema)}.raw_chunks "
        f"where invocation_id in ({string_literals(invocation_ids)}) "
        "and row_kind in ('chunk', 'point') group by row_kind, measurement "
        "order by row_kind, measurement"
    ).collect()
    chunks = [r for r in rows if r[0] == "chunk"]
    files, lines, size = (sum(int(r[i]) for r in chunks) for i in (2, 3, 4))
    points = tuple((str(r[1]), int(r[2])) for r in rows if r[0] == "point")
    return Ingested(files, lines, size, points)


def query_suspects(
    spark: Any, schema: str, invocation_ids: Sequence[str] | None = None
) -> list[SuspectChunk]:
    """The rows of rpt_suspect_times: of some invocations' chunks, or all."""
    where = ""
    if invocation_ids is not None:
        where = f"where invocation_id in ({string_literals(invocation_ids)}) "
    rows = spark.sql(
        "select chunk_seq, source_file, points, problem "
        f"from {quote_identifier(schema)}.rpt_suspect_times {where}order by chunk_seq"
    ).collect()
    return [SuspectChunk(int(r[0]), str(r[1]), int(r[2]), str(r[3])) for r in rows]


def query_measurements(
    spark: Any, schema: str, refused: Mapping[str, str]
) -> list[LandedMeasurement]:
    """The rows of rpt_measurements, with why a measurement has no table."""
    rows = spark.sql(
        "select measurement, points_landed, is_discovered, model_names "
        f"from {quote_identifier(schema)}.rpt_measurements order by measurement"
    ).collect()
    return [
        LandedMeasurement(
            str(r[0]), int(r[1]), bool(r[2]), tuple(map(str, r[3])), refused.get(str(r[0]))
        )
        for r in rows
    ]


def query_changes(spark: Any, schema: str, invocation_ids: Sequence[str]) -> list[TableChange]:
    rows = spark.sql(
        "select model_name, count(*), sum(points_merged), sum(duplicates_removed), "
        f"sum(rows_after), max(seconds) from {quote_identifier(schema)}.run_statistics "
        f"where invocation_id in ({string_literals(invocation_ids)}) "
        "group by model_name order by model_name"
    ).collect()
    return [
        TableChange(str(r[0]), int(r[1]), int(r[2]), int(r[3]), int(r[4]), float(r[5] or 0.0))
        for r in rows
    ]


def merge_run_results(runs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Several dbt invocations of one command as one: all their results, their
    times added, and every invocation id (``invocation_ids``)."""
    return {
        "elapsed_time": sum(float(r.get("elapsed_time") or 0.0) for r in runs),
        "results": [result for r in runs for result in r.get("results", [])],
        "invocation_ids": [
            str(r["metadata"]["invocation_id"])
            for r in runs
            if r.get("metadata", {}).get("invocation_id")
        ],
    }


def print_run_summary(
    invocation: Invocation,
    since: float,
    earlier: Sequence[Mapping[str, Any]] = (),
    refused: Mapping[str, str] | None = None,
    landed: Sequence[LandedMeasurement] | None = None,
) -> None:
    """Print the summary of the dbt run that started at ``since`` (epoch seconds),
    together with the ``earlier`` invocations of the same command and why the
    ``refused`` measurements have no table; nothing when it left no
    run_results.json (it failed before running nodes). ``landed``:
    rpt_measurements as read since the run ended, if it was."""
    from pyspark.errors import PySparkException
    from pyspark.sql import SparkSession

    last = read_run_results(invocation.target_path, since)
    if last is None:
        return
    run_results = merge_run_results([*earlier, last])
    invocation_ids = run_results["invocation_ids"]
    spark = SparkSession.getActiveSession()
    ingested: Ingested | None = None
    changes: list[TableChange] = []
    suspects: list[SuspectChunk] = []
    measurements: list[LandedMeasurement] = []
    note = ""
    if spark is not None and invocation_ids:
        try:
            ingested, suspects, measurements, changes = read_tables(
                spark, invocation.schema(), run_results, refused or {}, landed
            )
        except PySparkException as exc:
            note = "\n  (tables not read: " + str(exc).strip().splitlines()[0] + ")"
    print(
        "\n" + format_summary(run_results, ingested, changes, suspects, measurements) + note,
        flush=True,
    )
