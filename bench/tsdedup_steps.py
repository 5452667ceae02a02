"""The tsdedup side of the benchmark: build a table from chunk files, then time
the runs that matter (incremental, rebuild, the stock merge model)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq

from bench.merge_model import MODEL_NAME, MODEL_PATH, merge_model_sql
from bench.procs import Measured
from bench.progress import say
from bench.schema import FIELDS, MEASUREMENT, TAGS
from bench.workspace import DbtRun, Workspace
from tsdedup.iceberg_reader import read_table

# Files ingested per run while a table is built (var tsdedup_max_files_per_run):
# half of tsdedup's default, so building the 10 M-point table shows progress
# between two runs of about 5 M lines each.
FILES_PER_RUN = 500
FILES_VAR = f"{{tsdedup_max_files_per_run: {FILES_PER_RUN}}}"
SCHEMA = "tsdedup"
# The rebuild contender: the same measurement model under another name, so the
# incremental run's table stays as it was, to be checked after every run.
REBUILD_MODEL = f"{MEASUREMENT}_rebuild"
REBUILD_PATH = f"models/measurements/{REBUILD_MODEL}.sql"
# Models of the benchmark's copy that a user's run does not have.
EXTRA = [MODEL_NAME, REBUILD_MODEL]
# The first line of a measurement model's compiled SQL names its write mode.
WRITE_MODE = re.compile(r"/\* tsdedup write mode: (\w+)")


def main_models() -> dict[str, str]:
    """The models the main workspace adds to its copy of the project."""
    return {
        MODEL_PATH: merge_model_sql(),
        REBUILD_PATH: f"{{{{ tsdedup.measurement('{MEASUREMENT}') }}}}\n",
    }


@dataclass
class Timed:
    """One measured step: dbt's seconds for the model that matters, the command's
    wall time and peak memory, and every node's seconds."""

    seconds: float
    wall_seconds: float
    peak_rss_mb: float
    nodes: dict[str, float] = field(default_factory=dict)

    @classmethod
    def of(cls, run: DbtRun, model: str) -> Timed:
        m = run.measured
        return cls(run.seconds(model), m.wall_seconds, m.peak_rss_mb, dict(run.node_seconds))

    def as_dict(self) -> dict[str, object]:
        return {
            "seconds": round(self.seconds, 3),
            "wall_seconds": round(self.wall_seconds, 3),
            "peak_rss_mb": round(self.peak_rss_mb, 1),
            "nodes": {k: round(v, 3) for k, v in sorted(self.nodes.items())},
        }


@dataclass
class Build:
    """The untimed build of a table from its chunk files (possibly several runs)."""

    files: int = 0
    runs: int = 0
    wall_seconds: float = 0.0
    peak_rss_mb: float = 0.0
    nodes: dict[str, float] = field(default_factory=dict)

    def add(self, run: DbtRun) -> None:
        self.runs += 1
        self.wall_seconds += run.measured.wall_seconds
        self.peak_rss_mb = max(self.peak_rss_mb, run.measured.peak_rss_mb)
        for node, seconds in run.node_seconds.items():
            self.nodes[node] = self.nodes.get(node, 0.0) + seconds

    def as_dict(self) -> dict[str, object]:
        return {
            "files": self.files,
            "runs": self.runs,
            "wall_seconds": round(self.wall_seconds, 3),
            "peak_rss_mb": round(self.peak_rss_mb, 1),
            "nodes": {k: round(v, 3) for k, v in sorted(self.nodes.items())},
        }


def build_table(ws: Workspace, files: list[Path], label: str) -> Build:
    """Land a table's chunk files and build everything but the rebuild contender:
    runs that only ingest while more than one run's worth of files waits, then
    one full ``run``. That last run is left with the project's own vars (the
    files it finds fit in one run by default), as the runs after it are: dbt
    parses a project again when its vars change, which a user's runs, all with
    the same settings, do not pay each time."""
    ws.land(files)
    build = Build(files=len(files))
    batches = max(1, -(-len(files) // FILES_PER_RUN))
    for batch in range(1, batches):
        say(f"{label}: ingest", f"run {batch} of {batches}, {FILES_PER_RUN} files each")
        run = ws.dbt(
            f"{label}-ingest-{batch}", "run", "--select", "raw_chunks", "--vars", FILES_VAR
        )
        build.add(run)
    say(f"{label}: build", f"run {batches} of {batches}: ingest the rest, build the tables")
    run = ws.dbt(f"{label}-build", "run", *_exclude(ws, [REBUILD_MODEL]))
    build.add(run)
    return build


def _exclude(ws: Workspace, models: list[str]) -> list[str]:
    present = [m for m in models if any(m in path for path in ws.extra_models)]
    return ["--exclude", *present] if present else []


def incremental_run(ws: Workspace, delta: list[Path], label: str) -> Timed:
    """Land the delta and run the project as a user does (``tsdedup run``); the
    other contenders' models, when the workspace has them, wait for their turn."""
    ws.land(delta)
    return Timed.of(ws.dbt(label, "run", *_exclude(ws, EXTRA)), MEASUREMENT)


def incremental_runs(
    ws: Workspace,
    delta: list[Path],
    label: str,
    repeats: int,
    after_each: Callable[[int, Timed], None] | None = None,
) -> list[Timed]:
    """``repeats`` incremental runs, each from the same state: the table as
    built, then the delta landed. ``after_each(turn, run)``, when given, runs
    after each one, before the state is put back for the next: other contenders
    measured in turn with it meet the same moments of the machine. The
    workspace is left as the last turn left it (every run writes the same
    table)."""
    saved = ws.save_state() if repeats > 1 else None
    runs: list[Timed] = []
    try:
        for turn in range(1, repeats + 1):
            if saved is not None:
                if turn > 1:
                    ws.restore_state(saved, delta)
                say(label, f"run {turn} of {repeats}")
            runs.append(incremental_run(ws, delta, f"{label}-{turn}" if saved else label))
            if after_each is not None:
                after_each(turn, runs[-1])
    finally:
        if saved is not None:
            shutil.rmtree(saved, ignore_errors=True)
    return runs


def merge_run(ws: Workspace, label: str) -> Timed:
    return Timed.of(ws.dbt(label, "run", "--select", MODEL_NAME), MODEL_NAME)


def rebuild_run(ws: Workspace, label: str) -> Timed:
    """``--full-refresh`` of the measurement model: every raw chunk, deduplicated
    and written again (as ``cpu_rebuild``, with the same code as ``cpu``)."""
    run = ws.dbt(label, "run", "--full-refresh", "--select", REBUILD_MODEL)
    return Timed.of(run, REBUILD_MODEL)


def noop_run(ws: Workspace, label: str) -> DbtRun:
    """A run with no new file, after other commands: dbt runs every model, so this
    is the fixed cost of a real run (JVM, metastore, dbt, each model's checks)."""
    return ws.dbt(label, "run", *_exclude(ws, EXTRA))


def skip_run(ws: Workspace, label: str) -> Measured:
    """The same run again, nothing changed in between: ``tsdedup`` skips it before
    starting Spark (tsdedup/up_to_date.py)."""
    measured = ws.command(label, "run", *_exclude(ws, EXTRA))
    if "nothing to do" not in measured.stdout.read_text(encoding="utf-8"):
        raise RuntimeError(f"tsdedup ran again though nothing had changed\n{measured.tail()}")
    return measured


@dataclass
class ChainRun:
    """One run of the chain: its times and the write mode the model chose."""

    timed: Timed
    write_mode: str

    def as_dict(self) -> dict[str, object]:
        return {**self.timed.as_dict(), "write_mode": self.write_mode}


def write_mode(ws: Workspace, model: str) -> str:
    """The write mode of a measurement model's last run, from the first line
    of its compiled SQL (``/* tsdedup write mode: merge, ... */``)."""
    path = (
        ws.project / "target" / "compiled" / "tsdedup" / "models" / "measurements" / f"{model}.sql"
    )
    found = WRITE_MODE.search(path.read_text(encoding="utf-8")) if path.is_file() else None
    if found is None:
        raise RuntimeError(f"{path}: no write mode header in the model's compiled SQL")
    return found.group(1)


def chain_runs(ws: Workspace, chain: list[list[Path]], label: str) -> list[ChainRun]:
    """One run per delta of the chain (bench/chain.py), each delta landed just
    before its run, as a feed's scheduled runs meet them: each run merges
    into what the run before it wrote. The workspace is left as the last run
    left it."""
    runs: list[ChainRun] = []
    for k, files in enumerate(chain, start=1):
        say(label, f"delta {k} of {len(chain)}: {len(files)} chunk files")
        ws.land(files, prefix=f"chain{k}-")
        timed = Timed.of(ws.dbt(f"{label}-{k}", "run", *_exclude(ws, EXTRA)), MEASUREMENT)
        runs.append(ChainRun(timed, write_mode(ws, MEASUREMENT)))
        say(
            label,
            f"{timed.seconds:.1f} s (cpu model, {runs[-1].write_mode}), "
            f"{timed.wall_seconds:.1f} s wall",
        )
    return runs


@dataclass
class EngineRuns:
    """Runs in the resident engine (tsdedup/engine.py): its start, the first
    run with no new file (the engine's JIT still cold), the same run again, and a
    1 % re-delivery (the delta again, under new names)."""

    start: Measured
    first_noop: DbtRun
    noop: DbtRun
    replay: Timed

    def as_dict(self) -> dict[str, object]:
        return {
            "start_wall_seconds": round(self.start.wall_seconds, 3),
            "first_noop_wall_seconds": round(self.first_noop.measured.wall_seconds, 3),
            "noop_wall_seconds": round(self.noop.measured.wall_seconds, 3),
            "noop_peak_rss_mb": round(self.noop.measured.peak_rss_mb, 1),
            "noop_nodes": {k: round(v, 3) for k, v in sorted(self.noop.node_seconds.items())},
            "replay": self.replay.as_dict(),
        }


def engine_runs(ws: Workspace, delta: list[Path], label: str) -> EngineRuns:
    """Start the engine, time runs in it, stop it. A re-delivery of the delta
    leaves the table as it was: every value it brings is already the last."""
    start = ws.command(f"{label}-start", "engine", "start")
    try:
        run_always = {"TSDEDUP_RUN_ALWAYS": "1"}
        first = ws.dbt(f"{label}-noop-first", "run", *_exclude(ws, EXTRA), **run_always)
        noop = ws.dbt(f"{label}-noop", "run", *_exclude(ws, EXTRA), **run_always)
        ws.land(delta, prefix="replay-")
        replay = Timed.of(ws.dbt(f"{label}-replay", "run", *_exclude(ws, EXTRA)), MEASUREMENT)
    finally:
        ws.command(f"{label}-stop", "engine", "stop")
    return EngineRuns(start, first, noop, replay)


def export_tables(ws: Workspace, tables: dict[str, str], folder: Path) -> dict[str, list[str]]:
    """Each ``name -> table`` as a reader sees it, as one Parquet file under
    ``folder`` for reading with another engine. The rows come through Iceberg's
    metadata (pyiceberg, tsdedup/iceberg_reader.py: no Spark start), not
    from the table's data files alone: a re-delivery merged row by row leaves
    position-delete files, which an engine reading the data files would miss."""
    folder.mkdir(parents=True, exist_ok=True)
    columns = (*TAGS, *FIELDS, "time_ns")
    found: dict[str, list[str]] = {}
    for name, table in tables.items():
        path = folder / f"{name}.parquet"
        pq.write_table(read_table(ws.home, table, SCHEMA, columns=columns), path)
        found[name] = [str(path)]
    return found
