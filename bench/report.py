"""Ratios against the targets, the summary table and docs/benchmarks.md, all
computed from the result document alone (so the page can be regenerated from
a saved JSON)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

GIB_MB = 1024.0
ROW_KINDS = ("total", "originals", "exact_copies", "partial_copies")
LABELS = {
    "tsdedup_incremental": "tsdedup incremental run (1 % delta)",
    "tsdedup_rebuild": "tsdedup rebuild (--full-refresh)",
    "dbt_merge": "dbt-spark stock merge model (delta)",
    "spark_dropduplicates": "Spark dropDuplicates (full recompute)",
    "duckdb_arc": "DuckDB, Arc's compaction query (full recompute)",
}


def _ratio(numerator: float | None, denominator: float | None) -> float | None:
    if not numerator or not denominator:
        return None
    return round(numerator / denominator, 2)


def ratios(doc: dict[str, Any]) -> dict[str, float | None]:
    s = doc["seconds"]
    growth = sorted(doc["growth"], key=lambda g: g["table_points"])
    largest = growth[-1]
    tenth = [g for g in growth if g["table_points"] * 10 == largest["table_points"]]
    return {
        "rebuild_over_incremental": _ratio(s["tsdedup_rebuild"], s["tsdedup_incremental"]),
        "merge_over_incremental": _ratio(s["dbt_merge"], s["tsdedup_incremental"]),
        "growth_10x_table": _ratio(
            largest["tsdedup_incremental_seconds"],
            tenth[0]["tsdedup_incremental_seconds"] if tenth else None,
        ),
        "rebuild_over_duckdb": _ratio(s["tsdedup_rebuild"], s["duckdb_arc"]),
        "rebuild_over_dropduplicates": _ratio(s["tsdedup_rebuild"], s["spark_dropduplicates"]),
    }


def targets(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The project's speed and memory targets, measure by measure: target,
    value, met (None: reported, not judged)."""
    r = ratios(doc)
    peak = max(
        [
            *doc["peak_rss_mb"].values(),
            *(g["peak_rss_mb"] for g in doc["growth"]),
            doc.get("fixed_cost_peak_rss_mb", 0.0),
            *_engine_peaks(doc),
            *(run["peak_rss_mb"] for run in doc.get("chain") or []),
        ]
    )
    engine = doc.get("engine") or {}

    def row(measure: str, target: str, value: float | None, met: bool | None) -> dict[str, Any]:
        return {"measure": measure, "target": target, "value": value, "met": met}

    def at_least(value: float | None, bound: float) -> bool | None:
        return None if value is None else value >= bound

    def below(value: float | None, bound: float) -> bool | None:
        return None if value is None else value < bound

    def at_most(value: float | None, bound: float) -> bool | None:
        return None if value is None else value <= bound

    ingest = doc.get("ingest") or {}
    wall = doc.get("wall_seconds") or {}

    return [
        row(
            "incremental vs rebuild",
            ">= 10x faster",
            r["rebuild_over_incremental"],
            at_least(r["rebuild_over_incremental"], 10),
        ),
        row(
            "incremental vs stock dbt merge",
            ">= 3x faster",
            r["merge_over_incremental"],
            at_least(r["merge_over_incremental"], 3),
        ),
        row(
            "growth: incremental time when the table grows 10x",
            "< 1.5x",
            r["growth_10x_table"],
            below(r["growth_10x_table"], 1.5),
        ),
        row(
            "full build: tsdedup rebuild vs Spark dropDuplicates, same run",
            "within 1.25x",
            r["rebuild_over_dropduplicates"],
            at_most(r["rebuild_over_dropduplicates"], 1.25),
        ),
        row(
            "full build: tsdedup rebuild vs DuckDB (Arc's query), single-node reference",
            "reported, not a target",
            r["rebuild_over_duckdb"],
            None,
        ),
        row(
            "ingest: lines per second into `raw_chunks`, building the table",
            ">= 100,000",
            ingest.get("lines_per_second"),
            at_least(ingest.get("lines_per_second"), 100_000),
        ),
        row(
            "1 % incremental run, whole command (wall s)",
            "<= 30 s",
            wall.get("tsdedup_incremental"),
            at_most(wall.get("tsdedup_incremental"), 30),
        ),
        row(
            "fixed cost: `tsdedup run` with nothing to do, skipped before Spark starts (wall s)",
            "< 20 s",
            doc.get("skip_wall_seconds"),
            below(doc.get("skip_wall_seconds"), 20),
        ),
        row(
            "fixed cost: dbt run with no new file, JVM and metastore start included (wall s)",
            "<= 20 s",
            doc.get("fixed_cost_wall_seconds"),
            at_most(doc.get("fixed_cost_wall_seconds"), 20),
        ),
        *_engine_targets(engine, row, at_most),
        *_chain_targets(doc.get("chain") or [], row, at_most),
        row("memory: peak RSS of any run (MiB)", "<= 8 GiB", round(peak, 1), peak <= 8 * GIB_MB),
    ]


def _engine_targets(
    engine: dict[str, Any], row: Callable[..., dict[str, Any]], at_most: Callable[..., Any]
) -> list[dict[str, Any]]:
    """The run-time targets met in the resident engine (when the run measured it)."""
    if not engine:
        return []
    replay = engine["replay"]["wall_seconds"]
    noop = engine["noop_wall_seconds"]
    return [
        row(
            "1 % re-delivery run in the resident engine, whole command (wall s)",
            "<= 30 s",
            replay,
            at_most(replay, 30),
        ),
        row(
            "fixed cost: dbt run with no new file in the resident engine (wall s)",
            "<= 20 s",
            noop,
            at_most(noop, 20),
        ),
    ]


def _chain_targets(
    chain: list[dict[str, Any]],
    row: Callable[..., dict[str, Any]],
    at_most: Callable[..., Any],
) -> list[dict[str, Any]]:
    """The 1 % run's target, met by every run of the chain (when it ran)."""
    if not chain:
        return []
    slowest = max(run["wall_seconds"] for run in chain)
    return [
        row(
            "1 % runs in a chain, each re-delivering points of the last: the slowest, "
            "whole command (wall s)",
            "<= 30 s",
            slowest,
            at_most(slowest, 30),
        )
    ]


def _engine_peaks(doc: dict[str, Any]) -> list[float]:
    engine = doc.get("engine")
    if not engine:
        return []
    return [engine["noop_peak_rss_mb"], engine["replay"]["peak_rss_mb"]]


def with_verdicts(doc: dict[str, Any]) -> dict[str, Any]:
    """The document with ``ratios``, ``turn_ratios`` and ``targets`` (re)computed."""
    return {**doc, "ratios": ratios(doc), "turn_ratios": turn_ratios(doc), "targets": targets(doc)}


def _fmt(value: Any, digits: int = 1) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return str(value)


def _table(headers: list[str], rows: list[list[str]], align: str = "") -> list[str]:
    spec = align or "l" + "r" * (len(headers) - 1)
    rule = ["---:" if a == "r" else "---" for a in spec]
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines


def _scale_note(doc: dict[str, Any]) -> list[str]:
    if doc["scale"] == "full":
        return []
    return [
        f"> These numbers are from the `{doc['scale']}` scale, a table of "
        f"{doc['table_points']:,} points, not the",
        "> 10 M-point table the targets are stated for: read the ratios as a first look.",
        "",
    ]


def _node_rows(doc: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Where each run's wall time goes: dbt's seconds per node, then the rest of
    the command (Spark's start, dbt's parse, the summary)."""
    engine = doc.get("engine") or {}
    runs = [
        (
            "incremental run s",
            doc["details"]["incremental_nodes"],
            doc["wall_seconds"].get("tsdedup_incremental"),
        ),
        (
            "run with nothing to do s",
            doc["details"].get("noop_nodes", {}),
            doc.get("fixed_cost_wall_seconds"),
        ),
    ]
    if engine:
        runs += [
            (
                "engine: 1 % re-delivery s",
                engine["replay"]["nodes"],
                engine["replay"]["wall_seconds"],
            ),
            ("engine: nothing to do s", engine["noop_nodes"], engine["noop_wall_seconds"]),
        ]
    first = runs[0][1]
    names = sorted(
        set().union(*(nodes for _, nodes, _ in runs)), key=lambda n: (-first.get(n, 0.0), n)
    )
    rows = [
        [n.removeprefix("hook:operation."), *(_fmt(nodes.get(n), 2) for _, nodes, _ in runs)]
        for n in names
    ]
    outside = [
        "outside the nodes: Spark start, dbt parse, summary",
        *(_fmt(None if wall is None else wall - sum(nodes.values()), 2) for _, nodes, wall in runs),
    ]
    total = ["**whole command (wall)**", *(_fmt(wall, 2) for _, _, wall in runs)]
    return ["node", *(label for label, _, _ in runs)], [*rows, outside, total]


def _out_path(command: str) -> str:
    """The result file a bench command line writes (``--out FILE``)."""
    words = command.split()
    for before, word in itertools.pairwise(words):
        if before == "--out":
            return word
    return "bench/results/latest.json"


def _skip_lines(doc: dict[str, Any]) -> list[str]:
    if doc.get("skip_wall_seconds") is None:
        return []
    return [
        f"Repeated with nothing changed in between, the same `tsdedup run` stopped before "
        f"starting Spark, in {doc['skip_wall_seconds']:,.1f} s wall (docs/operations.md, "
        '"A run with nothing to do").',
        "",
    ]


def _engine_lines(doc: dict[str, Any]) -> list[str]:
    engine = doc.get("engine")
    if not engine:
        return []
    return [
        f"The resident engine started in {engine['start_wall_seconds']:,.1f} s; its first run "
        f"with nothing to do took {engine['first_noop_wall_seconds']:,.1f} s wall (the JVM's "
        f"code still cold), the next {engine['noop_wall_seconds']:,.1f} s.",
        "",
    ]


def _chain_lines(doc: dict[str, Any]) -> list[str]:
    chain = doc.get("chain")
    if not chain:
        return []
    return [
        "### A chain of 1 % runs",
        "",
        f"Once the tables were exported for the checks, {len(chain)} more 1 % deltas into the",
        "main table, one run each, as a feed's scheduled runs meet them: each delta is the",
        "benchmark's delta moved later by its new points' span, so its new points continue",
        "after the last delta's and its re-deliveries fall on points the run before wrote",
        "(bench/chain.py). `write` is the write mode the model chose (docs/internals.md).",
        "",
        *_table(
            ["delta", "write", "incremental model s", "wall s", "peak RSS MiB"],
            [
                [
                    str(k),
                    str(run.get("write_mode", "n/a")),
                    _fmt(run["seconds"]),
                    _fmt(run["wall_seconds"]),
                    _fmt(run["peak_rss_mb"], 0),
                ]
                for k, run in enumerate(chain, start=1)
            ],
        ),
        "",
    ]


def turn_ratios(doc: dict[str, Any]) -> dict[str, list[float | None]]:
    """The targets' ratios turn by turn, when the main table's contenders ran
    in turns (each turn's runs met the same moments of the machine); the
    targets judge the ratios of the medians (ratios)."""
    repeats = doc.get("repeats") or {}
    incremental = repeats.get("tsdedup_incremental") or []
    rebuild = repeats.get("tsdedup_rebuild") or []
    spark = repeats.get("spark_dropduplicates") or []
    if not doc.get("in_turns") or len(rebuild) < 2:
        return {}
    found: dict[str, list[float | None]] = {}
    if len(incremental) == len(rebuild):
        found["rebuild_over_incremental"] = [
            _ratio(b, a) for a, b in zip(incremental, rebuild, strict=True)
        ]
    if len(spark) == len(rebuild):
        found["rebuild_over_dropduplicates"] = [
            _ratio(b, d) for b, d in zip(rebuild, spark, strict=True)
        ]
    return found


def _turn_lines(doc: dict[str, Any]) -> list[str]:
    found = turn_ratios(doc)
    said = []
    if "rebuild_over_incremental" in found:
        said.append(f"{_fmt_list(found['rebuild_over_incremental'])} times the incremental run")
    if "rebuild_over_dropduplicates" in found:
        said.append(f"{_fmt_list(found['rebuild_over_dropduplicates'])} times `dropDuplicates`")
    if not said:
        return []
    return [
        f"Turn by turn, the rebuild took {' and '.join(said)}; the targets judge the ratios "
        "of the medians.",
        "",
    ]


def _fmt_list(values: list[float | None]) -> str:
    shown = [_fmt(v, 2) for v in values]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def _repeated(doc: dict[str, Any]) -> dict[str, list[float]]:
    """The seconds of every run of each contender that ran more than once."""
    return {k: v for k, v in (doc.get("repeats") or {}).items() if len(v) > 1}


def _repeat_lines(doc: dict[str, Any]) -> list[str]:
    """Every run of the contenders that ran more than once, and which one the
    tables show."""
    repeats = _repeated(doc)
    if not repeats:
        return []
    runs = "; ".join(
        f"{LABELS[key].split(' (')[0]} {', '.join(_fmt(s) for s in seconds)}"
        for key, seconds in repeats.items()
    )
    incremental = repeats.get("tsdedup_incremental")
    recomputes = [len(v) for k, v in repeats.items() if k != "tsdedup_incremental"]
    said = []
    if doc.get("in_turns") and incremental and recomputes:
        said.append(
            f"On the largest table the contenders ran in {max(len(incremental), *recomputes)} "
            "turns, each an incremental run (from the same state: the table as built, the "
            "delta landed again), then the full recomputes on Spark, so that each ratio "
            "compares runs of the same moments of the machine; on the other tables the "
            f"incremental run ran {len(incremental)} times, each from the same state"
        )
    else:
        if incremental:
            said.append(
                f"The incremental run ran {len(incremental)} times on each table, each time "
                "from the same state (the table as built, the delta landed again)"
            )
        if recomputes:
            said.append(
                f"the full recomputes on Spark {max(recomputes)} times each, one after the "
                "other in turn"
            )
    text = "; ".join(said)
    return [
        f"{text[0].upper()}{text[1:]}, since one run varies by more than its margin to a "
        "target between identical runs; the tables show each one's median run (peak RSS: "
        f"the largest of its runs). Model s of every run, in order: {runs}.",
        "",
    ]


def _ingest_lines(doc: dict[str, Any]) -> list[str]:
    ingest = doc.get("ingest") or {}
    if not ingest.get("lines_per_second"):
        return []
    return [
        f"Building the table first ingested its {ingest['table_lines']:,} lines in "
        f"{ingest['table_files']:,} files ({ingest['runs']} run(s)): "
        f"{ingest['raw_chunks_seconds']:,.0f} s in `raw_chunks`, "
        f"{ingest['lines_per_second']:,} lines/s.",
        "",
    ]


def contender_rows(doc: dict[str, Any]) -> list[list[str]]:
    rows = []
    for key, label in LABELS.items():
        diff = doc["differences"].get(key, {})
        rows.append(
            [
                label,
                _fmt(doc["seconds"][key]),
                _fmt(doc["wall_seconds"][key]),
                _fmt(doc["points_per_second"][key]),
                _fmt(doc["peak_rss_mb"][key], 0),
                _fmt(diff.get("total")),
            ]
        )
    return rows


CONTENDER_HEADERS = ["contender", "model s", "wall s", "rows/s", "peak RSS MiB", "keys differing"]


def summary(doc: dict[str, Any]) -> str:
    """A short plain-text summary for the end of a run."""
    doc = with_verdicts(doc)
    lines = [
        f"scale {doc['scale']}: table {doc['table_points']:,} points, "
        f"delta {doc['delta_points']:,} points ({doc['duplicate_share']:.0%} re-delivered)",
    ]
    widths = [48, 9, 9, 11, 13, 15]
    lines.append("".join(h.ljust(w) for h, w in zip(CONTENDER_HEADERS, widths, strict=True)))
    for row in contender_rows(doc):
        lines.append("".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
    growth = ", ".join(
        f"{g['table_points']:,}: {g['tsdedup_incremental_seconds']:.1f} s" for g in doc["growth"]
    )
    lines.append(f"growth (incremental, model s): {growth}")
    for key, seconds in _repeated(doc).items():
        runs = ", ".join(f"{s:.1f}" for s in seconds)
        lines.append(f"{key}: every run {runs} s (the table shows the median)")
    for key, values in turn_ratios(doc).items():
        lines.append(f"{key} turn by turn: {', '.join(_fmt(v, 2) for v in values)}")
    ingest = doc.get("ingest") or {}
    if ingest.get("lines_per_second"):
        lines.append(
            f"ingest of the table's {ingest['table_lines']:,} lines: "
            f"{ingest['raw_chunks_seconds']:.0f} s in raw_chunks, "
            f"{ingest['lines_per_second']:,} lines/s"
        )
    for t in doc["targets"]:
        lines.append(
            f"target {t['measure']} {t['target']}: {_fmt(t['value'], 2)} -> "
            f"{'met' if t['met'] else 'NOT met' if t['met'] is False else 'n/a'}"
        )
    return "\n".join(lines)


def markdown(doc: dict[str, Any], command: str) -> str:
    """docs/benchmarks.md."""
    doc = with_verdicts(doc)
    w = doc["workload"]
    m = doc["machine"]
    run = doc.get("run", {})
    load = run.get("load_average", {})
    out: list[str] = [
        "# Benchmarks",
        "",
        "How fast tsdedup turns re-delivered time-series points into a deduplicated",
        "table, beside the usual alternatives, measured in one run on the same data.",
        "This page is generated by `python -m bench` from the result JSON the command",
        f"under Rerun wrote (scale `{doc['scale']}`, run started {run.get('started_at', 'n/a')}).",
        "",
        *_scale_note(doc),
        "## Workload",
        "",
        f'The TSBS "cpu-only" schema: measurement `cpu`, 10 tags, 10 float fields, '
        f"{w['hosts']} hosts reporting every {w['interval_seconds']} s; one line-protocol "
        f"file per {w['chunk_points']:,} points (seed {w['seed']}).",
        "",
        *_table(
            ["", "lines", "originals", "exact copies", "partial copies"],
            [
                [label, *(_fmt(w[key][c]) for c in ROW_KINDS)]
                for label, key in (("table's chunks", "table_rows"), ("delta", "delta_rows"))
            ],
        ),
        "",
        f"* The table holds {doc['table_points']:,} points; its chunks carry one re-delivered",
        "  point per ten (copies from the same chunk or the one before: retries of recent writes).",
        f"* The delta is 1 % of the table, {doc['delta_points']:,} points: "
        f"{1 - doc['duplicate_share']:.0%} new points after the table's end and "
        f"{doc['duplicate_share']:.0%} re-deliveries",
        f"  of points from the table's last {w['recent_window_seconds'] // 60} minutes, since "
        "real-time re-deliveries are retries of recent writes.",
        f"* {w['partial_share']:.0%} of all re-deliveries are partial-field copies (some fields, "
        "new values); the rest are exact copies.",
        "* Every table ends at 12:00 UTC, so its newest day partition is half full whatever",
        "  its size.",
        "",
        "## Results",
        "",
        "`model s` is the execution time dbt records for the model (`target/run_results.json`),",
        "or the in-process time of the same work for Spark and DuckDB (their start excluded);",
        "`wall s` is the whole command, start-up included (each `tsdedup` command follows one",
        "with the same settings, as a user's runs do, so dbt reuses its parse of the project).",
        "`rows/s` is the raw rows each",
        "contender reads (the delta for incremental ones, every raw row for full recomputes)",
        "per model second. Peak RSS is the whole process tree (Python, JVM, workers).",
        "`keys differing` counts keys whose kept values are not the reference semantics",
        "(per field, the last non-null value in ingestion order), plus missing or extra keys.",
        "",
        *_table(CONTENDER_HEADERS, contender_rows(doc)),
        "",
        *_repeat_lines(doc),
        *_turn_lines(doc),
        "### Growth: the same delta into tables of different sizes",
        "",
        *_table(
            ["table points", "incremental model s", "every run", "wall s", "peak RSS MiB"],
            [
                [
                    _fmt(g["table_points"]),
                    _fmt(g["tsdedup_incremental_seconds"]),
                    ", ".join(_fmt(r) for r in g.get("runs_seconds") or [])
                    or _fmt(g["tsdedup_incremental_seconds"]),
                    _fmt(g["wall_seconds"]),
                    _fmt(g["peak_rss_mb"], 0),
                ]
                for g in doc["growth"]
            ],
        ),
        "",
        *_chain_lines(doc),
        "### Targets",
        "",
        *_table(
            ["measure", "target", "measured", "met"],
            [
                [
                    t["measure"],
                    t["target"],
                    _fmt(t["value"], 2),
                    "n/a" if t["met"] is None else ("yes" if t["met"] else "**no**"),
                ]
                for t in doc["targets"]
            ],
            "llrl",
        ),
        "",
        "### Differences from the reference semantics, per field",
        "",
    ]
    field_names = list(next(iter(doc["differences"].values()))["fields_differing"])
    out += _table(
        [
            "contender",
            "keys differing",
            "missing",
            "extra",
            "duplicates",
            *[f.removeprefix("usage_") for f in field_names],
        ],
        [
            [
                LABELS[k].split(" (")[0],
                _fmt(d["keys_differing"]),
                _fmt(d["missing_keys"]),
                _fmt(d["extra_keys"]),
                _fmt(d["duplicate_rows"]),
                *[_fmt(d["fields_differing"][f]) for f in field_names],
            ]
            for k, d in doc["differences"].items()
        ],
    )
    out += [
        "",
        "tsdedup keeps the last non-null value of every field. The stock merge model keeps the",
        "last delivered row, so a partial copy blanks the fields it omits; `dropDuplicates` and",
        "Arc's query keep an arbitrary copy of each key.",
        "",
        "## Where the time goes",
        "",
        "dbt's seconds per node (models and hooks) of the incremental run and of a run with",
        "nothing to do, the slowest first, then the rest of each command's wall time; with a",
        "resident engine (docs/operations.md), the same for a 1 % re-delivery (the delta",
        "landed again under new names) and a run with nothing to do, each in the engine:",
        "",
        *_table(*_node_rows(doc)),
        "",
        *_engine_lines(doc),
        *_skip_lines(doc),
        *_ingest_lines(doc),
        "## Machine",
        "",
        f"{m['cores']} cores ({m['cpu']}), {m['memory_gib']} GiB memory, {m['system']}.",
        "",
        f"* `uptime` at start: `{run.get('uptime_at_start', 'n/a')}`",
        f"* `uptime` at end: `{run.get('uptime_at_end', 'n/a')}`",
        f"* 1-minute load average during the run: min {_fmt(load.get('min'), 2)}, "
        f"mean {_fmt(load.get('mean'), 2)}, max {_fmt(load.get('max'), 2)}. A load above the",
        "  2 cores means another job shared the machine and every number above is slower",
        "  than on an idle machine (all contenders ran one after the other, so all shared it).",
        f"* whole benchmark: {_fmt(run.get('total_seconds'), 0)} s",
        "",
        "Versions: " + ", ".join(f"{k} {v}" for k, v in doc["versions"].items()) + ".",
        "",
        "## Rerun",
        "",
        "```sh",
        command,
        f"python -m bench --from-json {_out_path(command)} --docs docs/benchmarks.md",
        "```",
        "",
        "`--scale small` runs every step on one 20 k-point table (no growth series),",
        "`--scale medium` on a 1 M-point table; `--scale full` is the 10 M-point table of",
        "the targets. The benchmark works in a",
        "temporary folder (`--work DIR` to choose it, `--keep` to keep it) with a private copy",
        "of the project.",
        "",
    ]
    for note in doc.get("notes", []):
        out.append(note)
    return "\n".join(out).rstrip() + "\n"
