"""The benchmark's chain of deltas: each one moved later by the delta's span."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import tsdedup_steps as steps
from bench.chain import ChainError, shift_span_ns, shifted_line, write_chain
from bench.generator import Generator
from bench.procs import Measured
from bench.runner import Benchmark
from bench.workspace import DbtRun, Workspace
from python_udfs.line_protocol import parse_line
from tests.unit.bench_scales import TINY


def test_a_line_moves_by_its_timestamp_only() -> None:
    line = r'cpu,host=a\ b,rack=1 usage_user=1.5,note="x y" 1452686400000000000'
    assert shifted_line(line, 9_000_000_000_000) == (
        r'cpu,host=a\ b,rack=1 usage_user=1.5,note="x y" 1452695400000000000'
    )


@pytest.mark.parametrize("line", ["cpu usage_user=1.5", "cpu usage_user=1.5 12ab", "nothing"])
def test_a_line_without_a_timestamp_is_refused(line: str) -> None:
    with pytest.raises(ChainError, match="no timestamp at the end of the line"):
        shifted_line(line, 1)


def test_each_delta_of_the_chain_follows_the_one_before(tmp_path: Path) -> None:
    generator = Generator(TINY)
    generator.build_originals()
    points = TINY.table_points
    rows = generator.build_rows(points)
    files = generator.write_chunks(rows, points, tmp_path / "data")
    generator.close()
    span = shift_span_ns(TINY)
    assert span == TINY.new_delta_intervals * TINY.interval_ns

    def points_of(paths: list[Path]) -> list[tuple[str, int]]:
        found = []
        for path in paths:
            for line in path.read_text(encoding="utf-8").splitlines():
                head, _, stamp = line.rpartition(" ")
                found.append((head, int(stamp)))
        return found

    delta = points_of(files.delta)
    chain = write_chain(TINY, files.delta, 2, tmp_path / "chain")
    assert [[p.name for p in d] for d in chain] == [[p.name for p in files.delta]] * 2
    for k, paths in enumerate(chain, start=1):
        # The same lines in the same order and files, each k spans later.
        assert points_of(paths) == [(head, stamp + k * span) for head, stamp in delta]
    # Delta 1's new points start where delta 0's end: the delta's newest
    # point is one interval before the first point moved by one span.
    new_times = sorted({stamp for _, stamp in delta if stamp >= TINY.end_ns})
    assert new_times[0] == TINY.end_ns
    assert new_times[-1] + TINY.interval_ns == TINY.end_ns + span
    # Every moved line is still a point the project's parser accepts.
    for head, stamp in points_of(chain[1])[:50]:
        assert parse_line(f"{head} {stamp}").time_ns == stamp


def test_a_compressed_file_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "cpu-000001.lp.gz"
    source.write_bytes(b"\x1f\x8b")
    with pytest.raises(ChainError, match="plain line-protocol files"):
        write_chain(TINY, [source], 1, tmp_path / "chain")


def _compiled(ws: Workspace, header: str) -> None:
    path = ws.project / "target" / "compiled" / "tsdedup" / "models" / "measurements" / "cpu.sql"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{header}\nwith new_points as (", "utf-8")


def test_each_chain_run_lands_its_delta_then_reports_the_mode_it_chose(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = Workspace(tmp_path / "ws")
    ws.landing.mkdir(parents=True)
    chain = []
    for k in (1, 2):
        (tmp_path / str(k)).mkdir()
        chain.append([tmp_path / str(k) / "cpu-000009.lp"])
        chain[-1][0].write_text(f"delta {k}\n", encoding="utf-8")
    modes = iter(["merge, winner rule: fields, days: 2016-01-13", "overwrite"])
    landed: list[list[str]] = []

    def fake_dbt(self: Workspace, name: str, *args: str, **env: str) -> DbtRun:
        landed.append(sorted(p.name for p in self.landing.iterdir()))
        _compiled(self, f"/* tsdedup write mode: {next(modes)} */")
        measured = Measured(0, 12.5, 2000.0, tmp_path / "out", tmp_path / "err")
        return DbtRun(measured, {"cpu": 4.5, "raw_chunks": 2.0}, {"cpu": "success"})

    monkeypatch.setattr(Workspace, "dbt", fake_dbt)
    runs = steps.chain_runs(ws, chain, "chain")
    assert landed == [
        ["chain1-cpu-000009.lp"],
        ["chain1-cpu-000009.lp", "chain2-cpu-000009.lp"],
    ]
    assert [r.as_dict()["write_mode"] for r in runs] == ["merge", "overwrite"]
    assert runs[0].as_dict()["seconds"] == 4.5


def test_a_run_without_a_write_mode_header_is_an_error(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    with pytest.raises(RuntimeError, match="no write mode header"):
        steps.write_mode(ws, "cpu")
    _compiled(ws, "/* something else */")
    with pytest.raises(RuntimeError, match="no write mode header"):
        steps.write_mode(ws, "cpu")
    _compiled(ws, "/* tsdedup write mode: none; state record current */")
    assert steps.write_mode(ws, "cpu") == "none"


def test_a_negative_chain_is_refused_and_none_runs_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ValueError, match="no negative number of deltas"):
        TINY.with_overrides(chain_deltas=-1)

    def no_run(*args: object) -> list[steps.ChainRun]:
        raise AssertionError("a scale without a chain ran one")

    monkeypatch.setattr(steps, "chain_runs", no_run)
    bench = Benchmark(TINY.with_overrides(chain_deltas=0), tmp_path)
    assert bench.chain(Workspace(tmp_path / "ws"), [tmp_path / "cpu-000001.lp"]) == []
    assert not (tmp_path / "data" / "chain").exists()
