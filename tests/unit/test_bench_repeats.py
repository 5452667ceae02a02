"""The benchmark's repeated incremental runs start from the same state each time."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench import tsdedup_steps as steps
from bench.workspace import Workspace


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
