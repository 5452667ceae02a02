"""The benchmark's verdicts and pages come from the result document alone."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bench.__main__ import main
from bench.layout import RowCounts
from bench.merge_model import merge_model_sql
from bench.procs import Measured, run_measured, tree_rss_bytes
from bench.report import markdown, ratios, summary, targets, turn_ratios, with_verdicts
from bench.runner import assemble, median_run
from bench.schema import FIELDS, TAGS
from bench.tsdedup_steps import Build, Timed
from tests.unit.bench_scales import TINY

KEYS = ("tsdedup_incremental", "tsdedup_rebuild", "dbt_merge", "spark_dropduplicates", "duckdb_arc")


def _doc() -> dict[str, Any]:
    seconds = dict(zip(KEYS, (2.0, 40.0, 10.0, 30.0, 8.0), strict=True))
    no_diff = {
        "keys_compared": 10,
        "keys_differing": 0,
        "missing_keys": 0,
        "extra_keys": 0,
        "duplicate_rows": 0,
        "fields_differing": dict.fromkeys(FIELDS, 0),
        "total": 0,
    }
    rows = {"originals": 10, "exact_copies": 1, "partial_copies": 1, "total": 12}
    return {
        "scale": "small",
        "table_points": 1000,
        "delta_points": 10,
        "duplicate_share": 0.1,
        "seconds": seconds,
        "wall_seconds": {k: v + 20 for k, v in seconds.items()},
        "peak_rss_mb": dict.fromkeys(KEYS, 1500.0),
        "points_per_second": dict.fromkeys(KEYS, 100),
        "growth": [
            {"table_points": 100, "tsdedup_incremental_seconds": 1.8, "wall_seconds": 20.0,
             "peak_rss_mb": 1400.0},
            {"table_points": 1000, "tsdedup_incremental_seconds": 2.0, "wall_seconds": 21.0,
             "peak_rss_mb": 1500.0},
        ],
        "fixed_cost_wall_seconds": 25.0,
        "ingest": {"table_lines": 1100, "table_files": 11, "runs": 1, "raw_chunks_seconds": 0.022,
                   "lines_per_second": 50_000},
        "skip_wall_seconds": 1.5,
        "fixed_cost_peak_rss_mb": 1200.0,
        "differences": {k: no_diff for k in KEYS},
        "workload": {
            "hosts": 10, "interval_seconds": 10, "chunk_points": 100, "seed": 1,
            "partial_share": 0.5, "recent_window_seconds": 3600,
            "table_rows": rows, "delta_rows": rows,
        },
        "details": {"incremental_nodes": {"cpu": 2.0, "raw_chunks": 5.0}},
        "run": {"started_at": "2026-01-01T00:00:00+00:00", "load_average": {"mean": 1.0}},
        "machine": {"cores": 2, "memory_gib": 23.0, "cpu": "x", "system": "Linux"},
        "versions": {"duckdb": "2.0.0"},
    }  # fmt: skip


def test_ratios_and_targets() -> None:
    doc = _doc()
    r = ratios(doc)
    assert r["rebuild_over_incremental"] == 20.0
    assert r["merge_over_incremental"] == 5.0
    assert r["growth_10x_table"] == round(2.0 / 1.8, 2)
    assert r["rebuild_over_duckdb"] == 5.0
    assert r["rebuild_over_dropduplicates"] == round(40.0 / 30.0, 2)
    verdicts = targets(doc)
    met = {t["measure"].split(",")[0].split(":")[0]: t["met"] for t in verdicts}
    fixed = {t["measure"]: (t["value"], t["met"]) for t in verdicts if "fixed cost" in t["measure"]}
    assert sorted(fixed.values()) == [(1.5, True), (25.0, False)]
    assert met["incremental vs rebuild"] is True
    assert met["incremental vs stock dbt merge"] is True
    assert met["growth"] is True
    assert met["memory"] is True
    full_build = {
        t["measure"]: (t["value"], t["met"]) for t in verdicts if "full build" in t["measure"]
    }
    assert sorted(full_build.values(), key=str) == [(1.33, False), (5.0, None)]  # DuckDB: reported
    assert met["ingest"] is False  # 50,000 lines/s
    assert met["1 % incremental run"] is True  # 22 s wall
    doc["ingest"]["lines_per_second"] = 100_000
    doc["wall_seconds"]["tsdedup_incremental"] = 30.5
    met = {t["measure"].split(",")[0].split(":")[0]: t["met"] for t in targets(doc)}
    assert (met["ingest"], met["1 % incremental run"]) == (True, False)


def _engine() -> dict[str, Any]:
    return {
        "start_wall_seconds": 5.0,
        "first_noop_wall_seconds": 15.0,
        "noop_wall_seconds": 8.0,
        "noop_peak_rss_mb": 9000.0,
        "noop_nodes": {"cpu": 0.5, "raw_chunks": 1.0},
        "replay": {"seconds": 3.0, "wall_seconds": 31.0, "peak_rss_mb": 2000.0,
                   "nodes": {"cpu": 3.0, "raw_chunks": 2.0}},
    }  # fmt: skip


def test_runs_in_the_resident_engine_have_targets_and_a_column() -> None:
    doc = _doc()
    assert not [t for t in targets(doc) if "engine" in t["measure"]]
    doc["engine"] = _engine()
    verdicts = {t["measure"]: (t["value"], t["met"]) for t in targets(doc)}
    engine = {m.split(" in the")[0]: v for m, v in verdicts.items() if "engine" in m}
    assert engine == {
        "1 % re-delivery run": (31.0, False),
        "fixed cost: dbt run with no new file": (8.0, True),
    }
    assert verdicts["memory: peak RSS of any run (MiB)"] == (9000.0, False)  # the engine's
    page = markdown(with_verdicts(doc), "python -m bench --scale small --out x.json")
    assert (
        "| node | incremental run s | run with nothing to do s | engine: 1 % re-delivery s |"
        in page
    )
    # The rest of a command's wall time: 31 s wall, 5 s in nodes.
    assert (
        "| outside the nodes: Spark start, dbt parse, summary | 15.00 | 25.00 | 26.00 | 6.50 |"
        in page
    )
    assert "its first run with nothing to do took 15.0 s wall" in page


def test_a_chain_of_runs_has_its_target_its_table_and_its_memory() -> None:
    doc = _doc()
    assert not [t for t in targets(doc) if "chain" in t["measure"]]
    assert "A chain of 1 % runs" not in markdown(with_verdicts(doc), "python -m bench")
    doc["chain"] = [
        {"seconds": 6.8, "wall_seconds": 21.5, "peak_rss_mb": 2100.0, "write_mode": "merge"},
        {"seconds": 8.3, "wall_seconds": 30.5, "peak_rss_mb": 8400.0, "write_mode": "overwrite"},
    ]
    verdicts = {t["measure"]: (t["value"], t["met"]) for t in targets(doc)}
    chain = [v for m, v in verdicts.items() if "chain" in m]
    assert chain == [(30.5, False)]  # the slowest run is judged
    assert verdicts["memory: peak RSS of any run (MiB)"] == (8400.0, False)  # the chain's
    doc["chain"][1]["wall_seconds"] = 29.0
    assert [t["met"] for t in targets(doc) if "chain" in t["measure"]] == [True]
    page = markdown(with_verdicts(doc), "python -m bench --scale small --out x.json")
    assert "### A chain of 1 % runs" in page
    assert "| 1 | merge | 6.8 | 21.5 | 2,100 |" in page
    assert "| 2 | overwrite | 8.3 | 29.0 | 8,400 |" in page


def test_pages_render_from_the_document_alone(tmp_path: Path) -> None:
    doc = with_verdicts(_doc())
    page = markdown(doc, "python -m bench --scale small --out x.json")
    assert "| tsdedup incremental run (1 % delta) | 2.0 |" in page
    assert "**no**" in page and "python -m bench --from-json" in page
    assert "keys differing" in summary(doc)
    saved = tmp_path / "result.json"
    saved.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["--from-json", str(saved), "--docs", str(tmp_path / "page.md")]) == 0
    assert (tmp_path / "page.md").read_text(encoding="utf-8").startswith("# Benchmarks")


def test_merge_model_keys_on_every_tag_and_the_nanosecond_time() -> None:
    sql = merge_model_sql()
    assert "incremental_strategy='merge'" in sql
    for name in (*TAGS, "time_ns"):
        assert f"'{name}'" in sql.split("unique_key=")[1].split("]")[0]
    assert "chunk_seq > (select coalesce(max(chunk_seq), 0) from {{ this }})" in sql


def test_peak_memory_covers_the_process_tree(tmp_path: Path) -> None:
    assert tree_rss_bytes(os.getpid()) > 0
    child = (
        "import subprocess, sys;"
        "subprocess.run([sys.executable, '-c', "
        '\'import time; b = bytearray(300 * 2**20); b[::4096] = b"x" * len(b[::4096]); '
        "time.sleep(1.5)'])"
    )
    measured = run_measured([sys.executable, "-c", child], tmp_path / "child")
    assert measured.returncode == 0
    assert measured.peak_rss_mb > 250  # the grandchild's 300 MiB were counted


def no_exe(pid: int) -> str | None:
    return None


def test_a_child_sharing_its_parents_memory_is_counted_once() -> None:
    # 1 is the JVM, 2 a child it is spawning (vfork: the same pages, the same
    # figures), 3 a worker of its own; 2 also has a child of its own figures.
    figures = {1: (9000, 4000, 50, 1, 0, 8000, 0), 3: (300, 100, 10, 1, 0, 200, 0)}
    figures[2] = figures[1]
    figures[4] = (20, 7, 1, 1, 0, 10, 0)
    tree = {1: [2, 3], 2: [4]}
    page = os.sysconf("SC_PAGE_SIZE")
    assert tree_rss_bytes(1, lambda: tree, figures.get, no_exe) == (4000 + 100 + 7) * page
    # Once the child has its own memory, it counts.
    figures[2] = (9000, 3999, 50, 1, 0, 8000, 0)
    assert tree_rss_bytes(1, lambda: tree, figures.get, no_exe) == (4000 + 3999 + 100 + 7) * page
    # A process that is gone counts nothing, its children still count.
    del figures[2]
    assert tree_rss_bytes(1, lambda: tree, figures.get, no_exe) == (4000 + 100 + 7) * page


def test_a_jvms_child_before_its_exec_is_counted_once() -> None:
    # The JVM's memory moved between reading its figures and its spawning
    # child's: the child still runs the JVM's binary, so it shares the JVM's
    # memory. A Python daemon's forked worker runs the daemon's binary too,
    # and counts.
    java, python = "/usr/lib/jvm/java-17/bin/java", "/usr/bin/python3.11"
    figures = {
        1: (9000, 4000, 50, 1, 0, 8000, 0),
        2: (9004, 4003, 50, 1, 0, 8004, 0),
        3: (300, 100, 10, 1, 0, 200, 0),
        4: (280, 90, 10, 1, 0, 190, 0),
    }
    binaries = {1: java, 2: java, 3: python, 4: python}
    tree = {1: [2, 3], 3: [4]}
    page = os.sysconf("SC_PAGE_SIZE")
    assert tree_rss_bytes(1, lambda: tree, figures.get, binaries.get) == (4000 + 100 + 90) * page
    # Once it runs its own binary, it counts.
    binaries[2] = "/usr/bin/chmod"
    figures[2] = (30, 8, 1, 1, 0, 10, 0)
    assert (
        tree_rss_bytes(1, lambda: tree, figures.get, binaries.get) == (4000 + 8 + 100 + 90) * page
    )


def test_rerun_names_the_result_file_the_run_wrote() -> None:
    from bench.report import _out_path

    assert _out_path("python -m bench --scale medium --out bench/results/m.json") == (
        "bench/results/m.json"
    )
    assert _out_path("python -m bench --scale full") == "bench/results/latest.json"


def test_the_median_run_is_a_measured_run() -> None:
    runs = [("a", 62.0), ("b", 71.5), ("c", 60.1)]
    assert median_run(runs, lambda r: r[1]) == ("a", 62.0)
    # An even number: the faster of the two middle runs, not their average.
    assert median_run([*runs, ("d", 59.0)], lambda r: r[1]) == ("c", 60.1)
    assert median_run([("only", 5.0)], lambda r: r[1]) == ("only", 5.0)
    with pytest.raises(ValueError, match="no runs"):
        median_run([], lambda r: r[1])


def _timed(seconds: float, rss: float) -> Timed:
    return Timed(seconds, seconds + 10, rss, {"cpu_rebuild": seconds})


def _measured(wall: float, rss: float, tmp_path: Path) -> Measured:
    return Measured(0, wall, rss, tmp_path / "out", tmp_path / "err")


def test_repeated_full_recomputes_report_their_median_runs(tmp_path: Path) -> None:
    counts = {"base": RowCounts(900, 50, 50), "delta": RowCounts(9, 1, 0)}
    noop = SimpleNamespace(measured=_measured(15.0, 1000.0, tmp_path))
    engine = SimpleNamespace(as_dict=lambda: _engine())
    main_runs = {
        # In run order: 2.4, 2.0 (the largest memory), 2.1.
        "incrementals": [
            Timed(2.4, 20.5, 1500.0, {"cpu": 2.4, "raw_chunks": 1.2}),
            Timed(2.0, 21.0, 1700.0, {"cpu": 2.0, "raw_chunks": 1.0}),
            Timed(2.1, 20.0, 1500.0, {"cpu": 2.1, "raw_chunks": 0.9}),
        ],
        "merge": Timed(10.0, 30.0, 1600.0, {}),
        # In run order: 62, 71.5 (the largest memory), 60.1.
        "rebuilds": [_timed(62.0, 3000.0), _timed(71.5, 5000.0), _timed(60.1, 3100.0)],
        "sparks": [
            (_measured(50.0, 4000.0, tmp_path), {"seconds": 46.8}),
            (_measured(49.0, 4100.0, tmp_path), {"seconds": 44.9}),
            (_measured(52.0, 4200.0, tmp_path), {"seconds": 48.0}),
        ],
        "noop": noop,
        "skip": _measured(0.3, 100.0, tmp_path),
        "engine": engine,
        "build": Build(files=10, runs=1, nodes={"raw_chunks": 0.01}),
    }
    growth = {
        TINY.growth_points[0]: [Timed(1.9, 19.0, 1400.0)],
        TINY.table_points: main_runs["incrementals"],
    }
    checks = {"per_contender": _doc()["differences"], "reference_keys": 10}
    doc = assemble(
        TINY,
        {"started_at": "2026-01-01T00:00:00+00:00"},
        counts,
        main_runs,
        growth,
        {"duckdb_arc": (_measured(9.0, 900.0, tmp_path), {"seconds": 8.0})},
        checks,
        {"duckdb": "x"},
    )
    assert doc["seconds"]["tsdedup_incremental"] == 2.1
    assert doc["wall_seconds"]["tsdedup_incremental"] == 20.0
    assert doc["peak_rss_mb"]["tsdedup_incremental"] == 1700.0
    assert doc["ingest"]["delta_raw_chunks_seconds"] == 0.9  # of the median run
    assert doc["details"]["incremental_nodes"] == {"cpu": 2.1, "raw_chunks": 0.9}
    largest = doc["growth"][-1]
    assert largest["tsdedup_incremental_seconds"] == 2.1
    assert largest["runs_seconds"] == [2.4, 2.0, 2.1]
    assert largest["peak_rss_mb"] == 1700.0
    assert doc["growth"][0]["runs_seconds"] == [1.9]
    assert doc["seconds"]["tsdedup_rebuild"] == 62.0
    assert doc["wall_seconds"]["tsdedup_rebuild"] == 72.0  # the median run's own
    assert doc["seconds"]["spark_dropduplicates"] == 46.8
    assert doc["wall_seconds"]["spark_dropduplicates"] == 50.0
    assert doc["peak_rss_mb"]["tsdedup_rebuild"] == 5000.0  # memory: every run
    assert doc["peak_rss_mb"]["spark_dropduplicates"] == 4200.0
    assert doc["repeats"] == {
        "tsdedup_incremental": [2.4, 2.0, 2.1],
        "tsdedup_rebuild": [62.0, 71.5, 60.1],
        "spark_dropduplicates": [46.8, 44.9, 48.0],
    }
    assert doc["details"]["rebuild_nodes"] == {"cpu_rebuild": 62.0}
    assert ratios(doc)["rebuild_over_dropduplicates"] == round(62.0 / 46.8, 2)
    # On the main table the contenders ran in turns (Benchmark.in_turns).
    assert doc["in_turns"] is True
    page = markdown(with_verdicts(doc), "python -m bench --scale small --out x.json")
    assert (
        "On the largest table the contenders ran in 3 turns, each an incremental run (from "
        "the same state: the table as built, the delta landed again), then the full "
        "recomputes on Spark, so that each ratio compares runs of the same moments of the "
        "machine; on the other tables the incremental run ran 3 times, each from the same "
        "state, since one run varies" in " ".join(page.split())
    )
    # Each turn's runs met the same moments: the ratios turn by turn.
    assert turn_ratios(doc) == {
        "rebuild_over_incremental": [25.83, 35.75, 28.62],
        "rebuild_over_dropduplicates": [1.32, 1.59, 1.25],
    }
    assert (
        "Turn by turn, the rebuild took 25.83, 35.75 and 28.62 times the incremental run and "
        "1.32, 1.59 and 1.25 times `dropDuplicates`; the targets judge the ratios of the "
        "medians." in " ".join(page.split())
    )
    assert "rebuild_over_dropduplicates turn by turn: 1.32, 1.59, 1.25" in summary(doc)
    # A result of a run before the turns says what that run did.
    earlier = {k: v for k, v in doc.items() if k != "in_turns"}
    assert (
        "The incremental run ran 3 times on each table, each time from the same state "
        "(the table as built, the delta landed again); the full recomputes on Spark 3 times "
        "each, one after the other in turn"
        in " ".join(markdown(with_verdicts(earlier), "python -m bench").split())
    )
    assert turn_ratios(earlier) == {}
    assert "Turn by turn" not in markdown(with_verdicts(earlier), "python -m bench")
    assert "| 800 | 2.1 | 2.4, 2.0, 2.1 | 20.0 | 1,700 |" in page
    assert (
        "Model s of every run, in order: tsdedup incremental run 2.4, 2.0, 2.1; "
        "tsdedup rebuild 62.0, 71.5, 60.1; "
        "Spark dropDuplicates 46.8, 44.9, 48.0." in " ".join(page.split())
    )
    assert "tsdedup_rebuild: every run 62.0, 71.5, 60.1 s (the table shows the median)" in (
        summary(doc)
    )
    # One run of each (the smaller scales): nothing to say about repeats.
    assert "in order:" not in markdown(with_verdicts(_doc()), "python -m bench")


def test_repeats_below_one_are_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--scale", "small", "--out", str(tmp_path / "x.json"), "--repeats", "0"])
    assert stopped.value.code == 2
    assert "--repeats: 0: each recompute runs at least once" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_nodes_of_equal_time_are_listed_by_name() -> None:
    """The page is the same each time it is rendered from the same result:
    nodes that took the same time come in name order, not in a set's order."""
    doc = _doc()
    names = ["zeta", "alpha", "mid", "beta"]
    doc["details"]["incremental_nodes"] = {**dict.fromkeys(names, 0.01), "cpu": 2.0}
    page = markdown(with_verdicts(doc), "python -m bench")
    listed = [line.split(" | ")[0].lstrip("| ") for line in page.splitlines()]
    shown = [n for n in listed if n in (*names, "cpu")]
    assert shown == ["cpu", "alpha", "beta", "mid", "zeta"]
