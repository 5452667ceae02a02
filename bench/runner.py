"""The whole benchmark, step by step: generate, build, time every contender on
the same data, check every contender's result against the reference."""

from __future__ import annotations

import json
import shutil
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import duckdb

from bench import tsdedup_steps as steps
from bench.chain import write_chain
from bench.generator import Generator
from bench.layout import RowCounts
from bench.machine import LoadSampler, machine, uptime, versions
from bench.merge_model import MODEL_NAME
from bench.procs import Measured, run_measured
from bench.progress import say
from bench.reference import count_differences, reference_sql
from bench.scales import Scale
from bench.schema import FIELDS, MEASUREMENT, TAGS
from bench.workspace import PROJECT_ROOT, Workspace

CONTENDERS = (
    "tsdedup_incremental",
    "tsdedup_rebuild",
    "dbt_merge",
    "spark_dropduplicates",
    "duckdb_arc",
)


T = TypeVar("T")


def median_run(runs: list[T], seconds: Callable[[T], float]) -> T:
    """The run whose seconds are the median of ``runs`` (of an even number, the
    faster of the two middle ones): a run that was measured, not an average."""
    if not runs:
        raise ValueError("no runs to take the median of")
    ordered = sorted(runs, key=seconds)
    return ordered[(len(ordered) - 1) // 2]


def _parquet_list(paths: list[str] | list[Path]) -> str:
    return "[" + ", ".join(f"'{p}'" for p in paths) + "]"


def _json_line(measured: Measured) -> dict[str, Any]:
    for line in reversed(measured.stdout.read_text(encoding="utf-8").splitlines()):
        if line.startswith("{"):
            return dict(json.loads(line))
    raise RuntimeError(f"no result line\n{measured.tail()}")


def _python_module(module: str, args: list[str], log: Path) -> tuple[Measured, dict[str, Any]]:
    measured = run_measured([sys.executable, "-m", module, *args], log, cwd=PROJECT_ROOT, env=None)
    if measured.returncode != 0:
        raise RuntimeError(f"{module} exited {measured.returncode}\n{measured.tail()}")
    return measured, _json_line(measured)


class Benchmark:
    """One run of the benchmark in a work folder."""

    def __init__(self, scale: Scale, work: Path) -> None:
        self.scale = scale
        self.work = work
        self.data = work / "data"
        self.out = work / "outputs"
        self.logs = work / "logs"
        self.result: dict[str, Any] = {}

    # --- data ----------------------------------------------------------------------------

    def generate(self) -> dict[int, Any]:
        s = self.scale
        say("generate", f"TSBS cpu-only, {s.hosts} hosts, tables of {list(s.growth_points)} points")
        generator = Generator(s, self.work / "generator.duckdb")
        started = time.monotonic()
        generator.build_originals()
        scenarios: dict[int, Any] = {}
        for points in sorted(s.growth_points):
            rows = generator.build_rows(points)
            files = generator.write_chunks(rows, points, self.data / str(points))
            counts = generator.counts(rows, points)
            if points == s.table_points:
                generator.write_parquet(rows, points, self.data / "parquet")
            generator.con.execute(f"drop table {rows}")
            scenarios[points] = (files, counts)
            say(
                "generate",
                f"{points} points: {len(files.base)} + {len(files.delta)} chunk files, "
                f"{counts['base'].rows} + {counts['delta'].rows} lines",
            )
        generator.close()
        (self.work / "generator.duckdb").unlink(missing_ok=True)
        self.result["generate_seconds"] = round(time.monotonic() - started, 1)
        return scenarios

    # --- contenders ----------------------------------------------------------------------

    def run_main_table(self, files: Any) -> dict[str, Any]:
        """Contenders (a), (b), (c) and the fixed cost, on the largest table."""
        ws = Workspace(self.work / "main", steps.main_models()).create()
        label = f"table of {self.scale.table_points} points"
        build = steps.build_table(ws, files.base, label)
        say(label, f"built in {build.wall_seconds:.0f} s wall ({build.runs} runs)")
        incrementals, merge, rebuilds, sparks = self.in_turns(ws, files.delta)
        say("fixed cost", "a run with no new file")
        noop = steps.noop_run(ws, "noop")
        self.result["noop_nodes"] = {k: round(v, 3) for k, v in sorted(noop.node_seconds.items())}
        say("fixed cost", f"{noop.measured.wall_seconds:.1f} s wall")
        say("fixed cost", "the same run again: nothing changed, so it is skipped")
        skip = steps.skip_run(ws, "noop-skip")
        say("fixed cost", f"skipped in {skip.wall_seconds:.1f} s wall")
        say("resident engine", "a run with no new file, then a 1 % re-delivery")
        engine = steps.engine_runs(ws, files.delta, "engine")
        say(
            "resident engine",
            f"started in {engine.start.wall_seconds:.1f} s; no new file "
            f"{engine.first_noop.measured.wall_seconds:.1f} s, then "
            f"{engine.noop.measured.wall_seconds:.1f} s; 1 % re-delivery "
            f"{engine.replay.wall_seconds:.1f} s wall",
        )
        say("outputs", "exporting each result as a reader sees it")
        tables = steps.export_tables(
            ws,
            {
                "tsdedup_incremental": MEASUREMENT,
                "tsdedup_rebuild": steps.REBUILD_MODEL,
                "dbt_merge": MODEL_NAME,
            },
            self.out / "tables",
        )
        chain = self.chain(ws, files.delta)
        return {
            "build": build,
            "incrementals": incrementals,
            "merge": merge,
            "rebuilds": rebuilds,
            "sparks": sparks,
            "noop": noop,
            "skip": skip,
            "engine": engine,
            "chain": chain,
            "files": tables,
        }

    def chain(self, ws: Workspace, delta: list[Path]) -> list[steps.ChainRun]:
        """A chain of 1 % runs on the main table (bench/chain.py), after its
        tables were exported for the checks: each run's delta re-delivers points
        of the one before."""
        count = self.scale.chain_deltas
        if count == 0:
            return []
        say("(g) chain", f"{count} more 1 % deltas, each re-delivering points of the last")
        folder = self.data / "chain"
        deltas = write_chain(self.scale, delta, count, folder)
        try:
            return steps.chain_runs(ws, deltas, "(g) chain")
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def run_growth(self, points: int, files: Any) -> list[steps.Timed]:
        ws = Workspace(self.work / f"growth-{points}").create()
        label = f"table of {points} points"
        build = steps.build_table(ws, files.base, label)
        say(label, f"built in {build.wall_seconds:.0f} s wall ({build.runs} runs)")
        runs = steps.incremental_runs(
            ws, files.delta, "incremental", self.scale.incremental_repeats
        )
        seconds = ", ".join(f"{t.seconds:.1f}" for t in runs)
        say("(f) growth", f"{points} points: incremental {seconds} s (cpu model)")
        return runs

    def in_turns(
        self, ws: Workspace, delta: list[Path]
    ) -> tuple[
        list[steps.Timed], steps.Timed, list[steps.Timed], list[tuple[Measured, dict[str, Any]]]
    ]:
        """Contenders (a), (b), (c) and (d) on the main table, in turns: each turn
        runs the incremental run (from the table as built, the delta landed),
        then the two full recomputes on Spark, so that the contenders of each
        ratio meet the same moments of the machine; the result reports each
        one's median run. The stock merge runs once, in the last incremental
        turn, over the same chunks."""
        s = self.scale
        turns = max(s.incremental_repeats, s.full_build_repeats)
        rebuilds: list[steps.Timed] = []
        sparks: list[tuple[Measured, dict[str, Any]]] = []
        merges: list[steps.Timed] = []

        def recompute(turn: int) -> None:
            if turn > s.full_build_repeats:
                return
            suffix = f"-{turn}" if s.full_build_repeats > 1 else ""
            of = f" (run {turn} of {s.full_build_repeats})" if s.full_build_repeats > 1 else ""
            say("(b) tsdedup rebuild", f"--full-refresh of the same table{of}")
            rebuild = steps.rebuild_run(ws, f"b-rebuild{suffix}")
            say("(b) tsdedup rebuild", f"{rebuild.seconds:.1f} s ({steps.REBUILD_MODEL} model)")
            rebuilds.append(rebuild)
            sparks.append(self.run_spark(suffix, of))

        def after_incremental(turn: int, run: steps.Timed) -> None:
            say("(a) tsdedup incremental", f"{run.seconds:.1f} s (cpu model)")
            if turn == s.incremental_repeats:
                say("(c) dbt merge", "stock merge model over the same chunks")
                merges.append(steps.merge_run(ws, "c-merge"))
                say("(c) dbt merge", f"{merges[0].seconds:.1f} s (cpu_merge model)")
            recompute(turn)

        say("(a) tsdedup incremental", f"{len(delta)} delta chunk files")
        incrementals = steps.incremental_runs(
            ws, delta, "a-incremental", s.incremental_repeats, after_incremental
        )
        for turn in range(s.incremental_repeats + 1, turns + 1):
            recompute(turn)
        return incrementals, merges[0], rebuilds, sparks

    def run_spark(self, suffix: str = "", of: str = "") -> tuple[Measured, dict[str, Any]]:
        say("(d) spark dropDuplicates", f"full recompute from the raw Parquet{of}")
        measured, line = _python_module(
            "bench.spark_dedup",
            ["--input", str(self.data / "parquet"), "--output", str(self.out / "spark")],
            self.logs / f"d-spark{suffix}",
        )
        say("(d) spark dropDuplicates", f"{line['seconds']:.1f} s")
        return measured, line

    def run_duckdb(self) -> tuple[Measured, dict[str, Any]]:
        say("(e) duckdb arc", "Arc's compaction query on the raw Parquet")
        measured, line = _python_module(
            "bench.duckdb_arc",
            ["--input", str(self.data / "parquet"), "--output", str(self.out / "duckdb.parquet")],
            self.logs / "e-duckdb",
        )
        say("(e) duckdb arc", f"{line['seconds']:.1f} s")
        return measured, line

    # --- correctness ---------------------------------------------------------------------

    def differences(self, table_files: dict[str, list[str]]) -> dict[str, Any]:
        say("check", "reference semantics (DuckDB) and differences per contender")
        con = duckdb.connect(str(self.work / "check.duckdb"))
        con.execute("set threads = 2")
        started = time.monotonic()
        raw = f"read_parquet({_parquet_list(sorted((self.data / 'parquet').glob('*.parquet')))})"
        con.execute(f"create or replace table reference as {reference_sql(raw)}")
        reference_seconds = time.monotonic() - started
        columns = ", ".join((*TAGS, *FIELDS, "time_ns"))
        outputs = {
            **{n: f"read_parquet({_parquet_list(paths)})" for n, paths in table_files.items()},
            "spark_dropduplicates": f"read_parquet('{self.out / 'spark'}/*.parquet')",
            "duckdb_arc": f"read_parquet('{self.out / 'duckdb.parquet'}')",
        }
        found: dict[str, Any] = {}
        for name in CONTENDERS:
            output = f"select {columns} from {outputs[name]}"
            diff = count_differences(con, "select * from reference", output)
            found[name] = diff.as_dict()
            say("check", f"{name}: {diff.total} keys differ from the reference")
        rows = con.execute("select count(*) from reference").fetchall()[0]
        con.close()
        (self.work / "check.duckdb").unlink(missing_ok=True)
        return {
            "reference_seconds": round(reference_seconds, 1),
            "reference_keys": int(rows[0]),
            "per_contender": found,
        }

    # --- all -----------------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        s = self.scale
        started = time.monotonic()
        load = LoadSampler().start()
        self.result.update(
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
            uptime_at_start=uptime(),
        )
        # The project's version as the run starts, not as it ends: the workspaces
        # copy the project when they start, so edit nothing while it runs.
        measured_versions = versions(PROJECT_ROOT)
        scenarios = self.generate()
        main_files, main_counts = scenarios[s.table_points]
        main = self.run_main_table(main_files)
        growth = {s.table_points: main["incrementals"]}
        for points in sorted(s.growth_points):
            if points != s.table_points:
                growth[points] = self.run_growth(points, scenarios[points][0])
        duck_measured, duck_line = self.run_duckdb()
        checks = self.differences(main["files"])
        self.result.update(uptime_at_end=uptime(), load_average=load.stop())
        self.result["total_seconds"] = round(time.monotonic() - started, 1)
        return assemble(
            s,
            self.result,
            main_counts,
            main,
            growth,
            {"duckdb_arc": (duck_measured, duck_line)},
            checks,
            measured_versions,
        )


def assemble(
    s: Scale,
    run_info: dict[str, Any],
    counts: dict[str, RowCounts],
    main: dict[str, Any],
    growth: dict[int, list[steps.Timed]],
    others: dict[str, tuple[Measured, dict[str, Any]]],
    checks: dict[str, Any],
    measured_versions: dict[str, str],
) -> dict[str, Any]:
    """The result document (see docs/benchmarks.md for the meaning of each key)."""
    rebuilds: list[steps.Timed] = main["rebuilds"]
    sparks: list[tuple[Measured, dict[str, Any]]] = main["sparks"]
    rebuild = median_run(rebuilds, lambda t: t.seconds)
    incrementals: list[steps.Timed] = main["incrementals"]
    incremental = median_run(incrementals, lambda t: t.seconds)
    growth_runs = {p: median_run(runs, lambda t: t.seconds) for p, runs in growth.items()}
    timed = {
        "tsdedup_incremental": incremental,
        "tsdedup_rebuild": rebuild,
        "dbt_merge": main["merge"],
    }
    seconds = {k: round(v.seconds, 3) for k, v in timed.items()}
    wall = {k: round(v.wall_seconds, 3) for k, v in timed.items()}
    rss = {k: round(v.peak_rss_mb, 1) for k, v in timed.items()}
    others = {
        "spark_dropduplicates": median_run(sparks, lambda run: float(run[1]["seconds"])),
        **others,
    }
    for name, (measured, line) in others.items():
        seconds[name] = round(float(line["seconds"]), 3)
        wall[name] = round(measured.wall_seconds, 3)
        rss[name] = round(measured.peak_rss_mb, 1)
    # Memory is judged on every run, not the median one.
    rss["tsdedup_incremental"] = round(max(t.peak_rss_mb for t in incrementals), 1)
    rss["tsdedup_rebuild"] = round(max(t.peak_rss_mb for t in rebuilds), 1)
    rss["spark_dropduplicates"] = round(max(m.peak_rss_mb for m, _ in sparks), 1)
    raw_total = counts["base"].rows + counts["delta"].rows
    processed = {
        "tsdedup_incremental": counts["delta"].rows,
        "dbt_merge": counts["delta"].rows,
        "tsdedup_rebuild": raw_total,
        "spark_dropduplicates": raw_total,
        "duckdb_arc": raw_total,
    }
    return {
        "scale": s.name,
        "table_points": s.table_points,
        "delta_points": s.delta_points,
        "duplicate_share": s.delta_duplicate_share,
        "seconds": {k: seconds[k] for k in CONTENDERS},
        # Every run of the contenders that ran more than once, in run order;
        # `seconds` and `wall_seconds` hold each one's median run. On the main
        # table they ran in turns: incremental, rebuild, dropDuplicates.
        "in_turns": True,
        "repeats": {
            "tsdedup_incremental": [round(t.seconds, 3) for t in incrementals],
            "tsdedup_rebuild": [round(t.seconds, 3) for t in rebuilds],
            "spark_dropduplicates": [round(float(line["seconds"]), 3) for _, line in sparks],
        },
        "wall_seconds": {k: wall[k] for k in CONTENDERS},
        "peak_rss_mb": {k: rss[k] for k in CONTENDERS},
        "points_per_second": {
            k: round(processed[k] / seconds[k]) if seconds[k] > 0 else None for k in CONTENDERS
        },
        "rows_processed": processed,
        "growth": [
            {
                "table_points": points,
                "tsdedup_incremental_seconds": round(t.seconds, 3),
                "wall_seconds": round(t.wall_seconds, 3),
                "peak_rss_mb": round(max(run.peak_rss_mb for run in growth[points]), 1),
                "runs_seconds": [round(run.seconds, 3) for run in growth[points]],
            }
            for points, t in sorted(growth_runs.items())
        ],
        "fixed_cost_wall_seconds": round(main["noop"].measured.wall_seconds, 3),
        "fixed_cost_peak_rss_mb": round(main["noop"].measured.peak_rss_mb, 1),
        "skip_wall_seconds": round(main["skip"].wall_seconds, 3),
        "engine": main["engine"].as_dict(),
        # More 1 % runs once the tables were exported for the checks, each
        # re-delivering points of the last (bench/chain.py), in run order.
        "chain": [t.as_dict() for t in main.get("chain", [])],
        "ingest": {
            "table_lines": counts["base"].rows,
            "table_files": main["build"].files,
            "runs": main["build"].runs,
            "raw_chunks_seconds": round(main["build"].nodes.get("raw_chunks", 0.0), 3),
            "lines_per_second": round(counts["base"].rows / main["build"].nodes["raw_chunks"])
            if main["build"].nodes.get("raw_chunks")
            else None,
            "delta_raw_chunks_seconds": round(incremental.nodes.get("raw_chunks", 0.0), 3),
        },
        "differences": checks["per_contender"],
        "reference": {k: v for k, v in checks.items() if k != "per_contender"},
        "workload": {
            "hosts": s.hosts,
            "interval_seconds": s.interval_ns // 1_000_000_000,
            "chunk_points": s.chunk_points,
            "seed": s.seed,
            "base_redelivery_share": s.base_redelivery_share,
            "delta_duplicate_share": s.delta_duplicate_share,
            "partial_share": s.partial_share,
            "recent_window_seconds": s.recent_window_intervals * s.interval_ns // 10**9,
            "table_rows": vars(counts["base"]) | {"total": counts["base"].rows},
            "delta_rows": vars(counts["delta"]) | {"total": counts["delta"].rows},
        },
        "details": {
            "incremental_nodes": incremental.as_dict()["nodes"],
            "rebuild_nodes": rebuild.as_dict()["nodes"],
            "merge_nodes": main["merge"].as_dict()["nodes"],
            "table_build": main["build"].as_dict(),
            "growth_nodes": {str(p): t.as_dict()["nodes"] for p, t in sorted(growth_runs.items())},
            "noop_nodes": run_info.pop("noop_nodes", {}),
        },
        "run": run_info,
        "machine": machine(),
        "versions": measured_versions,
    }
