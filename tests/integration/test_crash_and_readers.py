"""Runs killed with SIGKILL, a second run started beside a first, a reader in
another process, and cleanup of versions and orphan files, on one table's history.

Per seed: batches of random chunks are landed; the run of each batch is
killed at a moment drawn from the seed (during ingest, the chunk catalog, the
dedup rewrite, right after a data commit, the state record, the run
statistics), then a normal run follows (a `build` with the project's dbt tests
after the last batch, a `run` before) and everything is checked against the
semantics (tests/reference.py) and the landed files: no point lost or
duplicated, every file ingested exactly once. Compaction, snapshot expiry and
orphan-file removal are killed the same way, then run again. All along, a
reader in this process reads the tables through their Iceberg metadata (no
Spark) and must only ever see whole versions: the table as the semantics give
it after some batch, the raw log with whole batches of chunks.

Seed 0 (CI) has two batches and kills both runs right after the measurement
table's data commit, the moment two crash bugs lived in, and the expiry at a
random moment; other seeds have three batches and a compaction, and draw every
moment at random: TSDEDUP_CRASH_SEEDS=N runs seeds 0..N-1 (make test-crash).
"""

from __future__ import annotations

import hashlib
import os
import random
import subprocess
import time
from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from python_udfs.chunk_rows import chunk_rows
from tests.integration.conftest import TSDEDUP, Workspace
from tests.integration.interrupt import Interrupted, Launched, Moment, run_and_kill
from tests.integration.test_incremental import random_chunk
from tests.integration.version_watch import VersionWatch
from tests.reference import expected_from_files
from tsdedup.iceberg_reader import load_table

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

SEEDS = list(range(int(os.environ.get("TSDEDUP_CRASH_SEEDS", "1"))))
AFTER_DATA_COMMIT = "data committed; recording its state"  # logged right after the data commit
BUILD_MOMENTS = [
    ("ingest", "Began running node model.tsdedup.raw_chunks", 8.0),
    ("ingest commit", "insert into table tsdedup.raw_chunks", 2.0),
    ("chunk catalog", "insert into table tsdedup.sort_key_catalog", 1.5),
    ("dedup rewrite", "Began running node model.tsdedup.inc", 10.0),
    ("after data commit", AFTER_DATA_COMMIT, 0.3),
    ("state record", "alter table tsdedup.inc set tblproperties", 1.0),
    ("run statistics", "insert into tsdedup.run_statistics", 1.0),
]
COMPACTION_MOMENT = ("compaction", "rewrite_data_files(", 4.0)
EXPIRY_MOMENT = ("expiry", "expire_snapshots(", 2.0)
ORPHANS_MOMENT = ("orphan removal", "remove_orphan_files(", 2.0)
TAGS = ["host", "rack"]
MODELS_YML = """version: 2
models:
  - name: inc
    data_tests: [no_duplicate_points, sort_keys_match_columns, rows_match_raw_keys]
"""

Row = frozenset[tuple[str, Any]]
# Columns that follow from the others: `time` from time_ns, the series hash from the tags.
IMPLIED = ("time", "series_hash")


def draw(rng: random.Random, moment: tuple[str, str, float]) -> Moment:
    phase, text, longest = moment
    return Moment(phase, text, round(rng.uniform(0, longest), 2))


@dataclass(frozen=True)
class Plan:
    """Where a seed kills each step (None: the step runs to its end)."""

    builds: list[Moment | None]
    compaction: Moment | None  # None: no compaction step
    expiry: Moment
    orphans: Moment | None


def plan(seed: int) -> Plan:
    rng = random.Random(seed)
    if seed == 0:
        after_commit = Moment("after data commit", AFTER_DATA_COMMIT, 0.0)
        return Plan([after_commit, after_commit], None, draw(rng, EXPIRY_MOMENT), None)
    return Plan(
        [draw(rng, rng.choice(BUILD_MOMENTS)) for _ in range(3)],
        draw(rng, COMPACTION_MOMENT),
        draw(rng, EXPIRY_MOMENT),
        draw(rng, ORPHANS_MOMENT),
    )


def batches(seed: int) -> list[list[tuple[str, bytes]]]:
    """Batch 1 creates the table; batch 2 brings later minutes, new series and the
    same new file twice at once (appended); batch 3 (seeds > 0) overlaps stored
    data and re-delivers an old file under a new name (merged)."""
    rng = random.Random(1000 + seed)
    first = [(f"b1_{i}.lp", random_chunk(rng, [0, 1], False).encode()) for i in range(3)]
    later = random_chunk(rng, [0, 1], True, minute0=30).encode()
    second = [("b2_0.lp", later), ("b2_1_again.lp", later)]
    second.append(("b2_2.lp", random_chunk(rng, [1], True, minute0=40).encode()))
    third = [(f"b3_{i}.lp", random_chunk(rng, [1, 2], True).encode()) for i in range(2)]
    third.append(("b3_9_redelivered.lp", first[0][1]))
    return [first, second] if seed == 0 else [first, second, third]


def canonical(rows: list[dict[str, Any]]) -> frozenset[Row]:
    """Rows whatever their column order, NULL the same as an absent column; the
    series hash is checked on its own (check_state)."""
    return frozenset(
        frozenset((k, v) for k, v in row.items() if k not in IMPLIED and v is not None)
        for row in rows
    )


def inc_version(table: Any) -> Hashable:
    rows = table.to_pylist()
    return (len(rows), canonical(rows))


def raw_version(table: Any) -> Hashable:
    return frozenset(Counter(table.column("chunk_seq").to_pylist()).items())


def raw_rows_per_chunk(landed: list[tuple[str, bytes]]) -> dict[int, int]:
    return {
        seq: sum(1 for _ in chunk_rows(name, content, "ns", 0))
        for seq, (name, content) in enumerate(landed, start=1)
    }


def check_state(ws: Workspace, landed: list[tuple[str, bytes]], label: str) -> frozenset[Row]:
    """The warehouse after a normal run equals what an uninterrupted run gives."""
    expected = expected_from_files(landed)
    want = expected.rows("inc")
    tags = sorted(name for (m, name), t in expected.column_types.items() if t == "tag")
    by_hand = ", ".join(f"if(`{t}` is null, null, '{t}'), `{t}`" for t in tags)
    rows, chunks, raw, catalog, props, wrong_hashes = ws.sql(
        "select * from tsdedup.inc",
        "select chunk_seq, source_file, content_sha256 from tsdedup.stg_chunks order by chunk_seq",
        "select chunk_seq, count(*) as n from tsdedup.raw_chunks group by chunk_seq",
        "select chunk_seq, partition_day from tsdedup.sort_key_catalog where measurement = 'inc'",
        "show tblproperties tsdedup.inc",
        f"select count(*) as n from tsdedup.inc where not series_hash <=> xxhash64({by_hand})",
    )
    assert len(rows) == len(want), label
    assert canonical(rows) == canonical(want), label
    # Every landed file is one chunk, in order: none ingested twice, none skipped.
    assert [(c["chunk_seq"], c["source_file"], c["content_sha256"]) for c in chunks] == [
        (seq, name, hashlib.sha256(content).hexdigest())
        for seq, (name, content) in enumerate(landed, start=1)
    ], label
    assert {r["chunk_seq"]: r["n"] for r in raw} == raw_rows_per_chunk(landed), label
    # The chunk catalog has each chunk's day partitions once.
    days = {(c["chunk_seq"], str(c["partition_day"])) for c in catalog}
    assert len(days) == len(catalog), label
    properties = {p["key"]: p["value"] for p in props}
    assert properties["tsdedup.last_chunk_seq"] == str(max(seq for seq, _ in days)), label
    # The record vouches for the table's snapshot, and every row's series hash
    # is its tags' (decision 0026).
    assert properties["tsdedup.written_snapshot_id"] == properties["current-snapshot-id"], label
    assert wrong_hashes == [{"n": 0}], label
    return canonical(want)


def run_beside_a_second_run(ws: Workspace, out: Path) -> None:
    """A normal run; while it holds the home, a second tsdedup process starts."""
    first = Launched(ws, ["run"], out)
    assert first.wait_for("Began running node", timeout=600)
    started = time.monotonic()
    second = subprocess.run(
        [str(TSDEDUP), "run"],
        cwd=ws.project,
        env=ws.env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    seconds = time.monotonic() - started
    assert first.process.poll() is None, "the first run was still running"
    assert second.returncode == 2
    assert seconds < 60, f"the second run took {seconds:.0f} s to give up"
    message = second.stderr.strip()
    assert message.startswith(f"tsdedup: another tsdedup run (process {first.process.pid}) ")
    assert "\n" not in message, "one paragraph"
    assert "give this run its own state folder with TSDEDUP_HOME" in message
    assert not any(word in second.stderr for word in ("Traceback", "Exception", "at org."))
    assert second.stdout == ""
    first.finish(timeout=900).check()


def report(killed: Interrupted, label: str) -> str:
    what = f"killed during {killed.running}" if killed.killed else "ended before the moment"
    return f"{label}: {killed.moment.phase} +{killed.moment.delay}s: {what} ({killed.seconds:.0f}s)"


def backdate(folder: Path, seconds: float) -> None:
    """Make every file look ``seconds`` older (each keeps its order)."""
    for path in folder.rglob("*"):
        if path.is_file():
            info = path.stat()
            os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns - int(seconds * 1e9)))


@pytest.mark.parametrize("seed", SEEDS)
def test_killed_runs_lose_nothing_and_readers_see_whole_versions(
    own_workspace: Workspace, seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every build really runs: a build whose kill moment came too late finishes
    # normally, and the next one, with nothing new, would otherwise be skipped.
    monkeypatch.setenv("TSDEDUP_RUN_ALWAYS", "1")
    ws = own_workspace  # its runs are processes of their own, killed
    ws.add_measurement_model("inc", "inc")
    (ws.project / "models" / "measurements" / "_inc__models.yml").write_text(MODELS_YML)
    steps = plan(seed)
    landed: list[tuple[str, bytes]] = []
    valid_inc: set[Hashable] = set()
    # The raw log's first run creates it empty and then commits the files it
    # wrote (decision 0021): a reader may see it with no chunk, never with a
    # part of a run's chunks.
    valid_raw: set[Hashable] = {frozenset()}
    versions: dict[int, frozenset[Row]] = {}  # snapshot id -> rows
    log: list[str] = []

    def current_snapshot() -> int:
        return int(load_table(ws.home, "inc").metadata.current_snapshot_id)

    watch = VersionWatch(ws.home, {"inc": inc_version, "raw_chunks": raw_version})
    with watch:
        all_batches = batches(seed)
        for number, (batch, moment) in enumerate(
            zip(all_batches, steps.builds, strict=True), start=1
        ):
            for name, content in batch:
                ws.land(name, content)
            landed.extend(sorted(batch))
            want = expected_from_files(landed).rows("inc")
            valid_inc.add((len(want), canonical(want)))
            valid_raw.add(frozenset(raw_rows_per_chunk(landed).items()))

            # Killed during a model or hook: dbt's tests come after, so `run`.
            if moment is not None:
                killed = run_and_kill(ws, ["run"], moment, tmp_path / f"killed{number}")
                log.append(report(killed, f"run {number}"))
                if killed.result is not None:
                    killed.result.check()
            if number == 1:
                run_beside_a_second_run(ws, tmp_path / "recovery1")
            elif number < len(all_batches):
                ws.tsdedup("run").check()
            else:  # the last one with the project's dbt tests
                ws.build()
            versions[current_snapshot()] = check_state(ws, landed, f"seed {seed} batch {number}")
        final = versions[current_snapshot()]

        if steps.compaction is not None:  # killed, then run again: it changes no row
            compact = ["run-operation", "compact_measurements"]
            killed = run_and_kill(ws, compact, steps.compaction, tmp_path / "compaction")
            log.append(report(killed, "compaction"))
            ws.tsdedup(*compact).check()
            versions[current_snapshot()] = check_state(ws, landed, "after compaction")
            assert versions[current_snapshot()] == final

        # Time travel to every version recorded so far returns it exactly.
        recorded = list(versions)
        travelled = ws.sql(*(f"select * from tsdedup.inc version as of {s}" for s in recorded))
        for snapshot, rows in zip(recorded, travelled, strict=True):
            assert canonical(rows) == versions[snapshot], snapshot

        # Expiry keeping the last two versions, and orphan removal, killed and
        # run again. Every file looks two days old, so the orphan files (a
        # killed run's uncommitted writes) are old enough to go.
        backdate(ws.home / "warehouse", 2 * 86_400)
        expire = ["run-operation", "expire_snapshots", "--args", "{retain_days: 0, retain_last: 2}"]
        log.append(report(run_and_kill(ws, expire, steps.expiry, tmp_path / "expiry"), "expiry"))
        ws.tsdedup(*expire).check()
        remove = ["run-operation", "remove_orphan_files", "--args", "{older_than_days: 1}"]
        if steps.orphans is not None:
            killed = run_and_kill(ws, remove, steps.orphans, tmp_path / "orphans")
            log.append(report(killed, "orphan removal"))
        ws.tsdedup(*remove).check()
    print("\n".join(log))

    snapshots, files, gone = _after_cleanup(ws, recorded[0])
    kept = [int(s["snapshot_id"]) for s in snapshots]
    assert len(kept) == 2 and kept[-1] == current_snapshot()
    # No file a kept version reads was deleted, and no orphan is left.
    referenced = {str(f["file_path"]).removeprefix("file:") for f in files}
    on_disk = {str(p) for p in (ws.home / "warehouse" / "tsdedup.db" / "inc" / "data").rglob("*")}
    on_disk = {p for p in on_disk if p.endswith(".parquet")}
    assert referenced == on_disk
    for snapshot in kept:  # read in full, through the metadata, every data file
        scan = load_table(ws.home, "inc").scan(snapshot_id=snapshot).to_arrow().to_pylist()
        # A kept version checked when it was current (the build before last, when
        # compaction had nothing to rewrite) holds what it held then.
        assert canonical(scan) == versions.get(snapshot, final), snapshot
    assert gone

    # The reader saw versions change, and only ever whole ones.
    assert not watch.errors, watch.errors
    inc_seen = [s.state for s in watch.seen.get("inc", [])]
    raw_seen = [s.state for s in watch.seen.get("raw_chunks", [])]
    assert len(set(inc_seen)) >= 2 and len(set(raw_seen)) >= 2, log
    assert set(inc_seen) <= valid_inc
    assert set(raw_seen) <= valid_raw


def _after_cleanup(ws: Workspace, expired: int) -> tuple[list[Any], list[Any], bool]:
    snapshots, files = ws.sql(
        "select snapshot_id from tsdedup.inc.snapshots order by committed_at",
        # data and delete files (a row-level merge writes position deletes)
        "select file_path from tsdedup.inc.all_files",
    )
    gone = ws.tsdedup("sql", f"select count(*) from tsdedup.inc version as of {expired}")
    return snapshots, files, gone.code != 0 and "Cannot find snapshot" in gone.stdout + gone.stderr
