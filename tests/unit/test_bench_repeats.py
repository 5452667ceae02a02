"""The benchmark's repeated incremental runs start from the same state each time."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from bench import tsdedup_steps as steps
from bench.runner import Benchmark
from bench.workspace import Workspace
from tests.unit.bench_scales import TINY


def _workspace(tmp_path: Path) -> Workspace:
    ws = Workspace(tmp_path / "ws")
    (ws.home / "warehouse").mkdir(parents=True)
    (ws.home / "warehouse" / "table.parquet").write_text("as built", encoding="utf-8")
    ws.landing.mkdir(parents=True)
    (ws.landing / "base-1.lp").write_text("base", encoding="utf-8")
    return ws


def test_each_incremental_run_starts_from_the_table_as_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = _workspace(tmp_path)
    delta_folder = tmp_path / "delta"
    delta_folder.mkdir()
    delta = [delta_folder / "d-1.lp", delta_folder / "d-2.lp"]
    for path in delta:
        path.write_text("delta", encoding="utf-8")
    seen: list[tuple[str, list[str], str]] = []

    def fake_run(ws: Workspace, files: list[Path], label: str) -> steps.Timed:
        ws.land(files)
        table = ws.home / "warehouse" / "table.parquet"
        seen.append((table.read_text(encoding="utf-8"), sorted(os.listdir(ws.landing)), label))
        # A run writes the table and adds files to the state folder.
        table.write_text(f"written by {label}", encoding="utf-8")
        (ws.home / "warehouse" / f"{label}.parquet").write_text("new", encoding="utf-8")
        return steps.Timed(float(len(seen)), 10.0, 100.0)

    monkeypatch.setattr(steps, "incremental_run", fake_run)
    runs = steps.incremental_runs(ws, delta, "a", 3)
    assert [t.seconds for t in runs] == [1.0, 2.0, 3.0]
    landed = ["base-1.lp", "d-1.lp", "d-2.lp"]
    assert seen == [
        ("as built", landed, "a-1"),
        ("as built", landed, "a-2"),
        ("as built", landed, "a-3"),
    ]
    # The workspace is left as the last run left it, and the copy is gone.
    assert (ws.home / "warehouse" / "table.parquet").read_text(encoding="utf-8") == "written by a-3"
    assert sorted(p.name for p in (ws.home / "warehouse").iterdir()) == [
        "a-3.parquet",
        "table.parquet",
    ]
    assert not (ws.root / "home.saved").exists()


def test_one_incremental_run_copies_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = _workspace(tmp_path)

    def fake_run(ws: Workspace, files: list[Path], label: str) -> steps.Timed:
        assert not (ws.root / "home.saved").exists()
        return steps.Timed(1.0, 10.0, 100.0)

    monkeypatch.setattr(steps, "incremental_run", fake_run)
    assert [t.seconds for t in steps.incremental_runs(ws, [], "a", 1)] == [1.0]


def test_the_step_after_each_run_sees_that_run_before_the_state_goes_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = _workspace(tmp_path)
    table = ws.home / "warehouse" / "table.parquet"

    def fake_run(ws: Workspace, files: list[Path], label: str) -> steps.Timed:
        table.write_text(f"written by {label}", encoding="utf-8")
        return steps.Timed(float(label[-1]), 10.0, 100.0)

    after: list[tuple[int, float, str]] = []

    def after_each(turn: int, run: steps.Timed) -> None:
        after.append((turn, run.seconds, table.read_text(encoding="utf-8")))
        # What runs in between (a rebuild) writes the state folder too.
        (ws.home / "warehouse" / f"rebuild-{turn}.parquet").write_text("new", encoding="utf-8")

    monkeypatch.setattr(steps, "incremental_run", fake_run)
    steps.incremental_runs(ws, [], "a", 3, after_each)
    assert after == [
        (1, 1.0, "written by a-1"),
        (2, 2.0, "written by a-2"),
        (3, 3.0, "written by a-3"),
    ]
    # Each turn started from the table as built: the steps in between are gone
    # but the last one's.
    assert sorted(p.name for p in (ws.home / "warehouse").iterdir()) == [
        "rebuild-3.parquet",
        "table.parquet",
    ]


@pytest.mark.parametrize(
    ("incremental", "full", "expected"),
    [
        (
            3,
            3,
            ["a-1", "b-1", "d-1", "a-2", "b-2", "d-2", "a-3", "c", "b-3", "d-3"],
        ),
        (1, 2, ["a", "c", "b-1", "d-1", "b-2", "d-2"]),
        (2, 1, ["a-1", "b", "d", "a-2", "c"]),
    ],
)
def test_the_main_table_contenders_run_in_turns(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    incremental: int,
    full: int,
    expected: list[str],
) -> None:
    """Each incremental run is followed by a rebuild and Spark's dropDuplicates,
    so each ratio compares runs of the same moments; the stock merge runs once,
    over the last incremental run's chunks."""
    ws = _workspace(tmp_path)
    order: list[str] = []

    def timed(name: str) -> steps.Timed:
        order.append(name)
        return steps.Timed(float(len(order)), 10.0, 100.0)

    monkeypatch.setattr(
        steps, "incremental_run", lambda ws, files, label: timed(label.replace("-incremental", ""))
    )
    monkeypatch.setattr(steps, "merge_run", lambda ws, label: timed("c"))
    monkeypatch.setattr(
        steps, "rebuild_run", lambda ws, label: timed(label.replace("-rebuild", ""))
    )
    bench = Benchmark(
        TINY.with_overrides(incremental_repeats=incremental, full_build_repeats=full), tmp_path
    )

    def spark(suffix: str = "", of: str = "") -> tuple[Any, dict[str, Any]]:
        order.append(f"d{suffix}")
        return None, {"seconds": 1.0}

    monkeypatch.setattr(bench, "run_spark", spark)
    incrementals, merge, rebuilds, sparks = bench.in_turns(ws, [])
    assert order == expected
    assert len(incrementals) == incremental
    assert len(rebuilds) == len(sparks) == full
    assert merge.seconds == float(expected.index("c") + 1)
