"""``tsdedup report``: one self-contained HTML page of what deduplication did.

    tsdedup report                      writes target/tsdedup_report.html
    tsdedup report --out report.html

Two pictures, each with its numbers in a table below it:

* duplicates removed per measurement and day partition, added up over every run
  (``run_statistics``);
* chunk overlap: every chunk's time range per measurement (the chunk catalog,
  ``sort_key_catalog``, with file names from ``stg_chunks``). A chunk whose
  range overlaps an earlier chunk's may hold re-delivered points: those are the
  chunks that make a run merge instead of append.

Then the tables behind them: the models and tests of the last dbt run that did
not succeed (``target/run_results.json``), the chunks whose timestamps look
wrong (``rpt_suspect_times``) and the first rejects (``rpt_rejects``).

The page is plain HTML with inline SVG: no script, no style sheet or font from
elsewhere, so it opens anywhere, offline, and can be mailed as it is. Building
it reads only those small tables (and the registry partition of the raw log),
never a measurement table.
"""

from __future__ import annotations

import html
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tsdedup.discovery import refusals
from tsdedup.invocation import Invocation
from tsdedup.run_summary import (
    LandedMeasurement,
    SuspectChunk,
    query_measurements,
    query_suspects,
    read_run_results,
)
from tsdedup.sql_quoting import quote_identifier

USAGE = "usage: tsdedup report [--out FILE.html]"
DEFAULT_OUT = Path("target") / "tsdedup_report.html"
# At most this many chunks and day partitions per measurement in the overlap
# picture (the latest); the table below it lists them all.
MAX_CHUNKS_DRAWN = 200
MAX_DAYS_DRAWN = 6

PALETTE = ("#2b6cb0", "#6b46c1", "#2f855a", "#b83280", "#2c7a7b", "#975a16", "#4a5568")
NEW_RANGE = "#4a90c2"
OVERLAPPING = "#d9822b"


MAX_REJECTS_SHOWN = 100


class ReportUsageError(ValueError):
    """Bad arguments to ``tsdedup report``."""


@dataclass(frozen=True)
class DayDuplicates:
    """Run statistics of one measurement's day partition, over every run."""

    measurement: str
    day: str
    runs: int
    points_merged: int
    duplicates_removed: int


@dataclass(frozen=True)
class RejectRow:
    """One rejected line or point (rpt_rejects)."""

    chunk_seq: int
    source_file: str
    line_number: int
    reason: str
    line_text: str | None


@dataclass(frozen=True)
class NodeProblem:
    """A model or test of the last dbt run that did not succeed (run_results.json)."""

    unique_id: str
    status: str
    message: str


@dataclass(frozen=True)
class ChunkRange:
    """One chunk's points in one day partition of a measurement (chunk catalog)."""

    measurement: str
    day: str
    chunk_seq: int
    source_file: str
    points: int | None
    min_time_ns: int | None
    max_time_ns: int | None


def parse_args(args: Sequence[str]) -> Path | None:
    """The output path (None: the default)."""
    out: Path | None = None
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--out" and rest:
            out = Path(rest.pop(0))
        elif arg.startswith("--out="):
            out = Path(arg.split("=", 1)[1])
        elif arg == "--out":
            raise ReportUsageError(f"--out needs a file name\n{USAGE}")
        else:
            raise ReportUsageError(f"unknown argument {arg!r}\n{USAGE}")
    if out is not None and not out.name:
        raise ReportUsageError(f"--out needs a file name\n{USAGE}")
    return out


# ---------------------------------------------------------------- the numbers


def overlapping_earlier(chunks: Sequence[ChunkRange]) -> dict[tuple[str, int], list[int]]:
    """Per (measurement, chunk): the earlier chunks whose time range, in the same
    day partition, overlaps its own."""
    found: dict[tuple[str, int], set[int]] = {}
    by_partition: dict[tuple[str, str], list[ChunkRange]] = {}
    for chunk in chunks:
        by_partition.setdefault((chunk.measurement, chunk.day), []).append(chunk)
    for members in by_partition.values():
        members.sort(key=lambda c: c.chunk_seq)
        for i, later in enumerate(members):
            hits = found.setdefault((later.measurement, later.chunk_seq), set())
            for earlier in members[:i]:
                if _overlap(earlier, later):
                    hits.add(earlier.chunk_seq)
    return {key: sorted(value) for key, value in found.items()}


def _overlap(a: ChunkRange, b: ChunkRange) -> bool:
    if None in (a.min_time_ns, a.max_time_ns, b.min_time_ns, b.max_time_ns):
        return False
    assert a.min_time_ns is not None and a.max_time_ns is not None
    assert b.min_time_ns is not None and b.max_time_ns is not None
    return a.min_time_ns <= b.max_time_ns and b.min_time_ns <= a.max_time_ns


def _time_label(ns: int) -> str:
    moment = datetime.fromtimestamp(ns // 1_000_000_000, tz=UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def _clock(ns: int) -> str:
    return datetime.fromtimestamp(ns // 1_000_000_000, tz=UTC).strftime("%H:%M:%S")


def _number(value: int | None) -> str:
    return "" if value is None else f"{value:,}"


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


# ---------------------------------------------------------------- the pictures


def duplicates_svg(rows: Sequence[DayDuplicates]) -> str:
    """Bars of duplicates removed per day, one colour per measurement, grouped by day."""
    days = sorted({r.day for r in rows})
    measurements = sorted({r.measurement for r in rows})
    if not days:
        return "<p>No run has changed a measurement table yet.</p>"
    value = {(r.measurement, r.day): r.duplicates_removed for r in rows}
    top = max(max(value.values()), 1)
    left, right, upper, lower = 56, 16, 16, 64
    group = max(24, min(90, 720 // len(days)))
    bar = max(2, (group - 8) // max(len(measurements), 1))
    width = left + group * len(days) + right
    height = upper + 200 + lower
    base = upper + 200
    parts = [
        f'<svg width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" '
        'aria-label="Duplicates removed per measurement and day">',
        f'<line x1="{left}" y1="{base}" x2="{width - right}" y2="{base}" stroke="#444"/>',
        f'<line x1="{left}" y1="{upper}" x2="{left}" y2="{base}" stroke="#444"/>',
        f'<text x="{left - 6}" y="{upper + 4}" text-anchor="end" class="axis">{top:,}</text>',
        f'<text x="{left - 6}" y="{base}" text-anchor="end" class="axis">0</text>',
    ]
    for i, day in enumerate(days):
        x0 = left + i * group + 4
        for j, measurement in enumerate(measurements):
            count = value.get((measurement, day))
            if count is None:
                continue
            h = round(200 * count / top)
            x = x0 + j * bar
            colour = PALETTE[j % len(PALETTE)]
            parts.append(
                f'<rect x="{x}" y="{base - h}" width="{bar - 1}" height="{max(h, 1)}" '
                f'fill="{colour}"><title>{_e(measurement)} {_e(day)}: '
                f"{count:,} duplicates removed</title></rect>"
            )
        if len(days) <= 16 or i in (0, len(days) - 1):
            cx = left + i * group + group // 2
            parts.append(
                f'<text x="{cx}" y="{base + 14}" text-anchor="end" class="axis" '
                f'transform="rotate(-40 {cx} {base + 14})">{_e(day)}</text>'
            )
    parts.append("</svg>")
    legend = " ".join(
        f'<span class="key"><span class="swatch" style="background:{PALETTE[j % len(PALETTE)]}">'
        f"</span>{_e(m)}</span>"
        for j, m in enumerate(measurements)
    )
    return "".join(parts) + f'<p class="legend">{legend}</p>'


def overlap_svg(measurement: str, chunks: Sequence[ChunkRange], overlaps: dict[Any, Any]) -> str:
    """One panel per day partition (the latest MAX_DAYS_DRAWN), one row per chunk,
    a bar over the chunk's time range in that day; orange where it overlaps an
    earlier chunk's range in the same partition."""
    ranges = [c for c in chunks if c.min_time_ns is not None and c.max_time_ns is not None]
    days = sorted({c.day for c in ranges})[-MAX_DAYS_DRAWN:]
    ranges = [c for c in ranges if c.day in days]
    drawn = sorted({c.chunk_seq for c in ranges})[-MAX_CHUNKS_DRAWN:]
    ranges = [c for c in ranges if c.chunk_seq in drawn]
    if not ranges:
        return "<p>No time ranges recorded for this measurement.</p>"
    left, right, row, gap = 150, 16, 16, 12
    panel = max(120, 640 // len(days))
    top = 22
    width = left + len(days) * (panel + gap) + right
    height = top + row * len(drawn) + 22
    y_of = {seq: top + i * row for i, seq in enumerate(drawn)}
    files = {c.chunk_seq: c.source_file for c in chunks}
    parts = [
        f'<svg width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="Time range of each chunk of {_e(measurement)}, per day partition">'
    ]
    for seq in drawn:
        label = f"{seq} {files.get(seq, '')}"
        if len(label) > 22:
            label = label[:21] + "…"
        parts.append(
            f'<text x="{left - 6}" y="{y_of[seq] + row - 5}" text-anchor="end" class="axis">'
            f"{_e(label)}</text>"
        )
    bottom = top + row * len(drawn)
    for i, day in enumerate(days):
        x0 = left + i * (panel + gap)
        own = [c for c in ranges if c.day == day]
        start = min(c.min_time_ns for c in own if c.min_time_ns is not None)
        end = max(c.max_time_ns for c in own if c.max_time_ns is not None)
        span = max(end - start, 1)
        parts.append(
            f'<text x="{x0}" y="14" class="axis">{_e(day)}</text>'
            f'<rect x="{x0}" y="{top}" width="{panel}" height="{bottom - top}" fill="#f4f4f4"/>'
            f'<text x="{x0}" y="{bottom + 14}" class="axis">{_e(_clock(start))}</text>'
            f'<text x="{x0 + panel}" y="{bottom + 14}" text-anchor="end" class="axis">'
            f"{_e(_clock(end))}</text>"
        )
        for c in own:
            assert c.min_time_ns is not None and c.max_time_ns is not None
            x = x0 + panel * (c.min_time_ns - start) / span
            w = max(panel * (c.max_time_ns - c.min_time_ns) / span, 2.0)
            earlier = overlaps.get((c.measurement, c.chunk_seq), [])
            colour = OVERLAPPING if earlier else NEW_RANGE
            note = f"; overlaps chunk(s) {', '.join(map(str, earlier))}" if earlier else ""
            parts.append(
                f'<rect x="{x:.1f}" y="{y_of[c.chunk_seq] + 3}" width="{w:.1f}" '
                f'height="{row - 6}" fill="{colour}"><title>chunk {c.chunk_seq} '
                f"({_e(c.source_file)}), {_e(c.day)}: {_e(_number(c.points))} points, "
                f"{_e(_time_label(c.min_time_ns))} to {_e(_time_label(c.max_time_ns))}"
                f"{_e(note)}</title></rect>"
            )
    parts.append("</svg>")
    return "".join(parts)


# ---------------------------------------------------------------- the page

STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; max-width: 1100px; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; } h3 { font-size: 1em; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border-bottom: 1px solid #ddd; padding: 0.2em 0.8em; text-align: left;
         white-space: nowrap; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.axis { font-size: 11px; fill: #444; }
.legend { font-size: 0.9em; }
.key { margin-right: 1.2em; }
.swatch { display: inline-block; width: 0.9em; height: 0.9em; margin-right: 0.3em;
          vertical-align: middle; }
.muted { color: #666; font-size: 0.9em; }
"""


def _duplicates_table(rows: Sequence[DayDuplicates]) -> str:
    body = "".join(
        f'<tr data-measurement="{_e(r.measurement)}" data-day="{_e(r.day)}" '
        f'data-points-merged="{r.points_merged}" data-duplicates="{r.duplicates_removed}">'
        f"<td>{_e(r.measurement)}</td><td>{_e(r.day)}</td><td class='n'>{r.runs}</td>"
        f"<td class='n'>{r.points_merged:,}</td><td class='n'>{r.duplicates_removed:,}</td></tr>"
        for r in sorted(rows, key=lambda r: (r.measurement, r.day))
    )
    return (
        '<table id="duplicates"><thead><tr><th>measurement</th><th>day</th>'
        "<th class='n'>runs</th><th class='n'>points merged</th>"
        f"<th class='n'>duplicates removed</th></tr></thead><tbody>{body}</tbody></table>"
    )


def _chunk_table(measurement: str, chunks: Sequence[ChunkRange], overlaps: dict[Any, Any]) -> str:
    body = []
    for c in sorted(chunks, key=lambda c: (c.chunk_seq, c.day)):
        earlier = overlaps.get((c.measurement, c.chunk_seq), [])
        body.append(
            f'<tr data-chunk="{c.chunk_seq}" data-day="{_e(c.day)}" '
            f'data-overlaps="{" ".join(map(str, earlier))}">'
            f"<td class='n'>{c.chunk_seq}</td><td>{_e(c.source_file)}</td><td>{_e(c.day)}</td>"
            f"<td class='n'>{_number(c.points)}</td>"
            f"<td>{_e(_time_label(c.min_time_ns)) if c.min_time_ns is not None else ''}</td>"
            f"<td>{_e(_time_label(c.max_time_ns)) if c.max_time_ns is not None else ''}</td>"
            f"<td>{_e(', '.join(map(str, earlier)))}</td></tr>"
        )
    return (
        f'<table class="chunks" data-measurement="{_e(measurement)}"><thead><tr>'
        "<th class='n'>chunk</th><th>file</th><th>day</th><th class='n'>points</th>"
        "<th>from (UTC)</th><th>to (UTC)</th><th>overlaps earlier chunks</th></tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def _table(table_id: str, headers: Sequence[str], rows: Iterable[str]) -> str:
    """An HTML table of rendered ``<tr>`` rows; a header starting with ``#``
    heads a column of numbers (right-aligned)."""
    head = "".join(
        f'<th class="n">{_e(h[1:])}</th>' if h.startswith("#") else f"<th>{_e(h)}</th>"
        for h in headers
    )
    body = "".join(rows)
    return f'<table id="{table_id}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _rejects_section(rejects: Sequence[RejectRow], total: int) -> str:
    if not total:
        return '<p id="rejects">No line or point has been rejected.</p>'
    files = len({r.source_file for r in rejects})
    shown = (
        f"the first {len(rejects)} of {total:,}, by chunk and line"
        if total > len(rejects)
        else f"all {total:,}, in {files} file(s)"
    )
    rows = (
        f'<tr data-chunk="{r.chunk_seq}" data-line="{r.line_number}">'
        f'<td class="n">{r.chunk_seq}</td>'
        f"<td>{_e(r.source_file)}</td><td class='n'>{r.line_number}</td><td>{_e(r.reason)}</td>"
        f"<td><code>{_e(r.line_text or '')}</code></td></tr>"
        for r in rejects
    )
    return f'<p class="muted">{shown} (rpt_rejects has every one).</p>' + _table(
        "rejects", ["#chunk", "file", "#line", "reason", "line"], rows
    )


def _last_run_section(problems: Sequence[NodeProblem] | None) -> str:
    if problems is None:
        return '<p id="last-run">No dbt run has left its results in target/ yet.</p>'
    if not problems:
        return '<p id="last-run">Every model and test of the last run succeeded.</p>'
    rows = (
        f'<tr data-status="{_e(p.status)}"><td>{_e(p.unique_id)}</td><td>{_e(p.status)}</td>'
        f"<td>{_e(p.message)}</td></tr>"
        for p in problems
    )
    return _table("last-run", ["model or test", "status", "message"], rows)


def _suspects_section(suspects: Sequence[SuspectChunk]) -> str:
    if not suspects:
        return '<p id="suspect-times">No chunk has points far from its ingest time.</p>'
    rows = (
        f'<tr data-chunk="{s.chunk_seq}"><td class="n">{s.chunk_seq}</td>'
        f"<td>{_e(s.source_file)}</td><td class='n'>{s.points:,}</td><td>{_e(s.problem)}</td></tr>"
        for s in sorted(suspects, key=lambda s: s.chunk_seq)
    )
    return _table("suspect-times", ["#chunk", "file", "#points", "problem"], rows)


def _measurements_section(landed: Sequence[LandedMeasurement]) -> str:
    if not landed:
        return '<p id="measurements">No measurement has landed yet.</p>'
    rows = (
        f'<tr data-measurement="{_e(m.measurement)}"><td>{_e(m.measurement)}</td>'
        f"<td class='n'>{m.points:,}</td><td>{_e(', '.join(m.models))}</td>"
        f"<td>{'discovered' if m.is_discovered else 'model file' if m.models else ''}</td>"
        f"<td>{_e(m.problem or ('' if m.models else 'no model builds it'))}</td></tr>"
        for m in landed
    )
    headers = ["measurement", "#points landed", "tables", "from", "why no table"]
    return _table("measurements", headers, rows)


def render_report(
    duplicates: Sequence[DayDuplicates],
    chunks: Sequence[ChunkRange],
    schema: str,
    generated_at: datetime,
    suspects: Sequence[SuspectChunk] = (),
    rejects: Sequence[RejectRow] = (),
    rejects_total: int = 0,
    last_run: Sequence[NodeProblem] | None = None,
    landed: Sequence[LandedMeasurement] = (),
) -> str:
    """The whole page, from plain rows. ``last_run``: the models and tests of
    the last dbt run that did not succeed (None: no run results found);
    ``landed``: every measurement in the raw log (rpt_measurements)."""
    overlaps = overlapping_earlier(chunks)
    measurements = sorted({r.measurement for r in duplicates} | {c.measurement for c in chunks})
    total_removed = sum(r.duplicates_removed for r in duplicates)
    total_merged = sum(r.points_merged for r in duplicates)
    sections = []
    for measurement in measurements:
        own = [c for c in chunks if c.measurement == measurement]
        seqs = {c.chunk_seq for c in own}
        days = {c.day for c in own}
        late = {seq for seq in seqs if overlaps.get((measurement, seq))}
        shown = ""
        if len(seqs) > MAX_CHUNKS_DRAWN or len(days) > MAX_DAYS_DRAWN:
            shown = (
                f" (the picture shows at most the last {MAX_CHUNKS_DRAWN} chunks "
                f"and {MAX_DAYS_DRAWN} days)"
            )
        sections.append(
            f'<section class="measurement" data-measurement="{_e(measurement)}">'
            f"<h3>{_e(measurement)}</h3>"
            f'<p class="muted">{len(seqs)} chunk(s) in {len(days)} day partition(s){shown}; '
            f"{len(late)} overlap an earlier chunk in time.</p>"
            + overlap_svg(measurement, own, overlaps)
            + _chunk_table(measurement, own, overlaps)
            + "</section>"
        )
    stamp = generated_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>tsdedup report: {_e(schema)}</title>
<style>{STYLE}</style>
</head>
<body>
<h1>tsdedup report: schema {_e(schema)}</h1>
<h2>Last run</h2>
{_last_run_section(last_run)}
<p class="muted">Generated {stamp} from {_e(schema)}.run_statistics and the chunk catalog
({_e(schema)}.sort_key_catalog).</p>
<p>{len(measurements)} measurement(s); over every run, {total_merged:,} points merged and
{total_removed:,} duplicates removed.</p>
<h2>Measurements</h2>
<p class="muted">Every measurement in the raw log, its points (retracted and rejected ones
included) and the tables that hold it (rpt_measurements).</p>
{_measurements_section(landed)}
<h2>Duplicates removed per measurement and day</h2>
<p class="muted">Each run's points merged into a day partition minus the rows the partition
gained, added up over every run (run_statistics).</p>
{duplicates_svg(duplicates)}
{_duplicates_table(duplicates)}
<h2>Chunk overlap</h2>
<p class="muted">One row per chunk (landed file), a bar over the time range of its points in
each day partition. <span style="color:{OVERLAPPING}">Orange</span>: the range overlaps an
earlier chunk's in the same partition, so its points may repeat stored ones and the run merges;
<span style="color:{NEW_RANGE}">blue</span>: new time, appended.</p>
{"".join(sections) or "<p>No chunk has been ingested yet.</p>"}
<h2>Suspect timestamps</h2>
<p class="muted">Chunks whose points lie far from their ingest time, most often a file read in
the wrong precision (rpt_suspect_times).</p>
{_suspects_section(suspects)}
<h2>Rejects</h2>
{_rejects_section(rejects, rejects_total)}
</body>
</html>
"""


# ---------------------------------------------------------------- reading and writing


def read_duplicates(spark: Any, schema: str) -> list[DayDuplicates]:
    rows = spark.sql(
        "select measurement, cast(partition_day as string), count(distinct invocation_id), "
        "sum(points_merged), sum(duplicates_removed) "
        f"from {quote_identifier(schema)}.run_statistics where partition_day is not null "
        "group by measurement, partition_day"
    ).collect()
    return [DayDuplicates(str(r[0]), str(r[1]), int(r[2]), int(r[3]), int(r[4])) for r in rows]


def read_chunks(spark: Any, schema: str) -> list[ChunkRange]:
    q = quote_identifier(schema)
    rows = spark.sql(
        "select c.measurement, cast(c.partition_day as string), c.chunk_seq, s.source_file, "
        f"c.point_count, c.min_time_ns, c.max_time_ns from {q}.sort_key_catalog as c "
        f"left join {q}.stg_chunks as s on s.chunk_seq = c.chunk_seq"
    ).collect()
    return [
        ChunkRange(
            str(r[0]),
            str(r[1]),
            int(r[2]),
            "" if r[3] is None else str(r[3]),
            None if r[4] is None else int(r[4]),
            None if r[5] is None else int(r[5]),
            None if r[6] is None else int(r[6]),
        )
        for r in rows
    ]


def read_suspects(spark: Any, schema: str) -> list[SuspectChunk]:
    """Every chunk of rpt_suspect_times; none where the view does not exist yet."""
    if not spark.catalog.tableExists(f"{schema}.rpt_suspect_times"):
        return []
    return query_suspects(spark, schema)


def read_landed(spark: Any, schema: str, target: Path) -> list[LandedMeasurement]:
    """rpt_measurements, with why a measurement has no table (none before it exists)."""
    if _missing(spark, schema, ("rpt_measurements",)):
        return []
    landed = query_measurements(spark, schema, {})
    reasons = refusals(target, [m.measurement for m in landed])
    return [replace(m, problem=reasons.get(m.measurement)) for m in landed]


def read_rejects(spark: Any, schema: str) -> tuple[list[RejectRow], int]:
    """The first MAX_REJECTS_SHOWN rejects by chunk and line, and how many there are."""
    q = quote_identifier(schema)
    total = int(spark.sql(f"select count(*) from {q}.rpt_rejects").collect()[0][0])
    rows = spark.sql(
        "select chunk_seq, source_file, line_number, reject_reason, line_text "
        f"from {q}.rpt_rejects order by chunk_seq, line_number limit {MAX_REJECTS_SHOWN}"
    ).collect()
    return [
        RejectRow(int(r[0]), str(r[1]), int(r[2]), str(r[3]), None if r[4] is None else str(r[4]))
        for r in rows
    ], total


# dbt's statuses of a node that did not do its job
PROBLEM_STATUSES = ("error", "fail", "runtime error", "skipped", "warn")


def last_run_problems(run_results: dict[str, Any] | None) -> list[NodeProblem] | None:
    """The nodes of a dbt run (its run_results.json) that did not succeed."""
    if run_results is None:
        return None
    problems = []
    for result in run_results.get("results", []):
        status = str(result.get("status"))
        if status in PROBLEM_STATUSES:
            message = str(result.get("message") or "").strip().splitlines()
            problems.append(
                NodeProblem(str(result.get("unique_id")), status, message[0] if message else "")
            )
    return problems


def _missing(spark: Any, schema: str, tables: Iterable[str]) -> list[str]:
    return [t for t in tables if not spark.catalog.tableExists(f"{schema}.{t}")]


def run_report(spark: Any, invocation: Invocation) -> int:
    """Write the report; 0, or 1 with a one-line reason when there is nothing to read."""
    out = parse_args(invocation.args[1:]) or invocation.project_dir / DEFAULT_OUT
    schema = invocation.schema()
    missing = _missing(
        spark, schema, ("run_statistics", "sort_key_catalog", "stg_chunks", "rpt_rejects")
    )
    if missing:
        print(
            f"tsdedup report: {', '.join(f'{schema}.{t}' for t in missing)} not found; "
            "build the project first (tsdedup build)",
            file=sys.stderr,
        )
        return 1
    rejects, rejects_total = read_rejects(spark, schema)
    page = render_report(
        read_duplicates(spark, schema),
        read_chunks(spark, schema),
        schema,
        datetime.now(UTC),
        read_suspects(spark, schema),
        rejects,
        rejects_total,
        last_run_problems(read_run_results(invocation.target_path, 0.0)),
        read_landed(spark, schema, invocation.target_path),
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page, encoding="utf-8")
    print(f"tsdedup: report written to {out.resolve()}")
    return 0
