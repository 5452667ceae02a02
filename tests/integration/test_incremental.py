"""Incremental runs: each merges only the new chunks into the day partitions they
touch, and always equals the full semantics (and a full rebuild).

Chunks are random (a fixed seed, or TSDEDUP_TEST_SEED): overlapping series and
timestamps, partial-field re-deliveries, exact replays, a tag that appears late.
"""

from __future__ import annotations

import os
import random

import pytest

from tests.integration.conftest import Workspace
from tests.reference import expected_from_files

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

DAY0 = 1_793_491_200_000_000_000  # 2026-11-01T00:00:00Z
DAY = 86_400 * 10**9
MINUTE = 60 * 10**9
SEED = int(os.environ.get("TSDEDUP_TEST_SEED", "20261122"))


def random_chunk(rng: random.Random, days: list[int], late_tag: bool) -> str:
    lines = []
    for _ in range(rng.randint(5, 25)):
        tags = []
        host = rng.choice(["h1", "h2", "h3", None])
        if host:
            tags.append(f"host={host}")
        if late_tag and rng.random() < 0.5:
            tags.append(f"rack={rng.choice(['a', 'b'])}")
        fields = []
        if rng.random() < 0.8:
            fields.append(f"value={rng.randint(0, 99) / 4}")
        if rng.random() < 0.5:
            fields.append(f"count={rng.randint(0, 9)}i")
        if not fields:
            fields.append("ok=true")
        time_ns = DAY0 + rng.choice(days) * DAY + rng.randint(0, 4) * MINUTE + rng.choice([0, 0, 1])
        head = ",".join(["inc", *tags])
        lines.append(f"{head} {','.join(fields)} {time_ns}")
    return "\n".join(lines) + "\n"


COLUMNS = ["host", "rack", "value", "count", "ok", "time_ns"]


def table_state(ws: Workspace) -> tuple[list[dict[str, object]], ...]:
    # `select *`: a column the data has not brought yet (rack) is absent, read as None.
    return tuple(
        ws.sql(
            "select * from tsdedup.inc",
            "select * from tsdedup.inc_last",
            "select file_path, cast(partition.time_day as string) as day from tsdedup.inc.files",
        )
    )


def as_set(rows: list[dict[str, object]]) -> set[tuple[object, ...]]:
    return {tuple(row.get(c) for c in COLUMNS) for row in rows}


def expected_sets(landed: list[tuple[str, bytes]]) -> tuple[set[tuple[object, ...]], ...]:
    fields = expected_from_files(landed).rows("inc")
    last_row = expected_from_files(landed, mode="last_row").rows("inc")
    return as_set(fields), as_set(last_row)


def test_incremental_runs_equal_the_semantics_and_a_full_rebuild(workspace: Workspace) -> None:
    ws = workspace
    rng = random.Random(SEED)
    ws.add_measurement_model("inc", "inc")
    (ws.project / "models" / "measurements" / "inc_last.sql").write_text(
        "{{ tsdedup.measurement('inc', dedup_mode='last_row') }}\n", encoding="utf-8"
    )
    # Run 1 touches days 0-1, run 2 days 1-2 (and replays a chunk), run 3 day 3 only.
    runs = [([0, 1], False, 3), ([1, 2], True, 3), ([3], True, 2)]
    landed: list[tuple[str, bytes]] = []
    files_before_last_run: list[dict[str, object]] = []
    for run, (days, late_tag, chunks) in enumerate(runs, start=1):
        batch = [
            (f"run{run}_{i:02d}.lp", random_chunk(rng, days, late_tag).encode())
            for i in range(chunks)
        ]
        if run == 2:
            batch.append((f"run{run}_99_replay.lp", landed[0][1]))
        for name, content in batch:
            ws.land(name, content)
        landed.extend(sorted(batch))
        if run == len(runs):
            files_before_last_run = table_state(ws)[2]
        result = ws.build()
        if run > 1:
            assert "merging the chunks after chunk" in result.stdout
        fields_rows, last_rows, files = table_state(ws)
        want_fields, want_last = expected_sets(landed)
        assert len(fields_rows) == len(want_fields), f"run {run}"
        assert as_set(fields_rows) == want_fields, f"run {run}"
        assert as_set(last_rows) == want_last, f"run {run}"

    # The last run touched day 3 only: the other days' files were not rewritten.
    old_days = {r["day"]: r["file_path"] for r in files_before_last_run}
    new_days = {r["day"]: r["file_path"] for r in files}
    assert "2026-11-04" in new_days and "2026-11-04" not in old_days
    for day in ("2026-11-01", "2026-11-02", "2026-11-03"):
        before = sorted(str(r["file_path"]) for r in files_before_last_run if r["day"] == day)
        after = sorted(str(r["file_path"]) for r in files if r["day"] == day)
        assert before and before == after, day

    incremental = table_state(ws)
    ws.build("--full-refresh", "--select", "inc", "inc_last")
    rebuilt = table_state(ws)
    assert as_set(rebuilt[0]) == as_set(incremental[0])
    assert as_set(rebuilt[1]) == as_set(incremental[1])
