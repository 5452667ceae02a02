"""The benchmark's workload generator: deterministic, with the re-deliveries it
promises, and line-protocol text that says exactly what the Parquet copy says."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.generator import Generator
from bench.layout import Layout
from bench.scales import SCALES, Scale
from bench.schema import FIELDS, TAGS
from python_udfs.chunk_reader import Record, read_chunk
from tests.unit.bench_scales import TINY

# Enough re-deliveries for the shares to be measurable.
SHARES = Scale(name="shares", hosts=10, growth_points=(20_000,), chunk_points=500)
KEY = ", ".join((*TAGS, "time_ns"))


@pytest.fixture
def tiny() -> Iterator[Generator]:
    generator = Generator(TINY)
    yield generator
    generator.close()


def _write(scale: Scale, points: int, folder: Path) -> dict[str, bytes]:
    generator = Generator(scale)
    rows = generator.build_rows(points)
    files = generator.write_chunks(rows, points, folder)
    generator.close()
    return {p.name: p.read_bytes() for p in [*files.base, *files.delta]}


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path: Path) -> None:
    first = _write(TINY, 800, tmp_path / "a")
    again = _write(TINY, 800, tmp_path / "b")
    other = _write(TINY.with_overrides(seed=7), 800, tmp_path / "c")
    assert first == again
    assert first.keys() == other.keys()
    assert first != other


def test_chunk_files_are_named_in_ingestion_order(tmp_path: Path) -> None:
    generator = Generator(TINY)
    files = generator.write_chunks(generator.build_rows(800), 800, tmp_path)
    names = [p.name for p in [*files.base, *files.delta]]
    assert names == sorted(names)
    assert len(files.base) == 800 // 40
    assert len(files.delta) == 1


def test_tables_of_every_size_share_their_recent_chunks(tmp_path: Path) -> None:
    small = _write(TINY, 400, tmp_path / "small")
    large = _write(TINY, 800, tmp_path / "large")
    # The oldest chunk of the smaller table differs (nothing to copy from before it).
    shared = sorted(small)[1:]
    assert all(small[name] == large[name] for name in shared)


def test_table_holds_the_promised_points_and_the_delta_adds_its_new_ones(
    tiny: Generator,
) -> None:
    raw = tiny.raw_relation_sql(tiny.build_rows(800), 800)
    base = tiny.con.execute(
        f"select count(*), count(distinct ({KEY})) from ({raw}) where not in_delta"
    ).fetchall()[0]
    total = tiny.con.execute(f"select count(distinct ({KEY})) from ({raw})").fetchall()[0]
    assert base[1] == 800
    assert base[0] == 800 + 80  # one re-delivery per ten points
    assert total[0] == 800 + TINY.new_delta_points


def test_duplicate_shares_and_exact_partial_split() -> None:
    generator = Generator(SHARES)
    counts = generator.counts(generator.build_rows(20_000), 20_000)
    base, delta = counts["base"], counts["delta"]
    assert base.originals == 20_000
    assert base.redeliveries == 2_000
    assert delta.rows == SHARES.delta_points == 200
    assert delta.redeliveries == SHARES.delta_duplicates == 20
    assert delta.originals == 180
    assert 0.45 < base.partial_copies / base.redeliveries < 0.55


def test_redelivered_points_share_keys_with_recent_originals() -> None:
    generator = Generator(SHARES)
    rows = generator.build_rows(20_000)
    lay = Layout(SHARES, 20_000)
    orphans = generator.con.execute(
        f"""
        select count(*) from {rows} as c
        where c.kind != 'original'
          and not exists (
            select 1 from {rows} as o where o.kind = 'original' and o.i = c.i and o.h = c.h)
        """
    ).fetchall()[0]
    assert orphans == (0,)
    # Base copies come from their own chunk or the one before; delta copies from
    # the table's last hour, never from the delta's new points.
    spans = generator.con.execute(
        f"""
        select
            max(case when c.n < {lay.delta_chunk} then c.n - o.n end),
            min(case when c.n < {lay.delta_chunk} then c.n - o.n end),
            min(case when c.n >= {lay.delta_chunk} then c.i end),
            max(case when c.n >= {lay.delta_chunk} then c.i end)
        from {rows} as c
        inner join {rows} as o on o.kind = 'original' and o.i = c.i and o.h = c.h
        where c.kind != 'original'
        """
    ).fetchall()[0]
    assert (spans[0], spans[1]) == (1, 0)
    assert lay.end - SHARES.recent_window_intervals <= spans[2] <= spans[3] < lay.end
    # A copy from the same chunk comes after its original.
    early = generator.con.execute(
        f"""
        select count(*) from {rows} as c
        inner join {rows} as o on o.kind = 'original' and o.i = c.i and o.h = c.h
        where c.kind != 'original' and c.n = o.n and c.position < o.position
        """
    ).fetchall()[0]
    assert early == (0,)


def test_exact_copies_repeat_the_original_partial_copies_carry_some_fields() -> None:
    generator = Generator(SHARES)
    rows = generator.build_rows(20_000)
    values = " and ".join(f"c.v{f} = o.v{f}" for f in range(len(FIELDS)))
    present = " + ".join(f"(c.v{f} is not null)::INTEGER" for f in range(len(FIELDS)))
    check = generator.con.execute(
        f"""
        select
            count(*) filter (where c.kind = 'exact' and not ({values})),
            min({present}) filter (where c.kind = 'partial'),
            max({present}) filter (where c.kind = 'partial')
        from {rows} as c
        inner join {rows} as o on o.kind = 'original' and o.i = c.i and o.h = c.h
        where c.kind != 'original'
        """
    ).fetchall()[0]
    exact_mismatches, fewest, most = check
    assert exact_mismatches == 0
    assert fewest >= 1 and most <= len(FIELDS) - 1


def test_line_protocol_and_parquet_rows_are_the_same_points(tiny: Generator) -> None:
    rows = tiny.build_rows(800)
    chunk = next(iter(tiny.iter_chunks(rows)))
    parsed = [r for r in read_chunk("x.lp", chunk[1].encode(), "ns", 0) if isinstance(r, Record)]
    raw = tiny.raw_relation_sql(rows, 800)
    expected = tiny.con.execute(
        f"select position, {', '.join(TAGS)}, {', '.join(FIELDS)}, time_ns from ({raw}) "
        "where chunk_seq = 1 order by position"
    ).fetchall()
    assert len(parsed) == len(expected) > 0
    for record, row in zip(parsed, expected, strict=True):
        point = record.point
        fields = [point.fields.get(f) for f in FIELDS]
        assert (record.position, *(point.tags[t] for t in TAGS), *fields, point.time_ns) == row
        assert all(isinstance(v, float) for v in point.fields.values())


def test_scales_are_consistent() -> None:
    for scale in SCALES.values():
        assert scale.table_points == max(scale.growth_points)
        # a growth series reaches down to a tenth of the table (small has no series)
        if len(scale.growth_points) > 1:
            assert scale.table_points // 10 in scale.growth_points
        assert scale.delta_points == scale.table_points // 100
        assert scale.delta_duplicates == scale.delta_points // 10
    with pytest.raises(ValueError, match="multiple"):
        Scale(name="bad", hosts=3, growth_points=(100,), chunk_points=30)
    with pytest.raises(ValueError, match="at least once"):
        SCALES["small"].with_overrides(full_build_repeats=0)


def test_chunk_text_does_not_depend_on_how_many_chunks_one_query_reads(tiny: Generator) -> None:
    rows = tiny.build_rows(800)
    one_by_one = list(tiny.iter_chunks(rows, chunks_per_query=1))
    some = list(tiny.iter_chunks(rows, chunks_per_query=3))
    all_at_once = list(tiny.iter_chunks(rows, chunks_per_query=10_000))
    assert [n for n, _ in all_at_once] == list(range(len(all_at_once)))
    assert one_by_one == some == all_at_once
