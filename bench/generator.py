"""A deterministic generator of the TSBS "cpu-only" workload, with re-deliveries.

Everything is computed in DuckDB from counter-based random numbers
(``hash(seed, stream, ...)``) and integer arithmetic, so the same seed, scale
and DuckDB version give byte-identical files however many threads run.

* Originals: every host has one point per interval (10 s); each field is a
  random walk with steps of about N(0, 1) (the sum of four uniform numbers),
  reflected into [0, 100] (TSBS clamps it; reflecting keeps the walk closed
  form). Values are multiples of 1e-12 and written with 12 decimals, so the
  line-protocol text and the Parquet double are the same number.
* Chunks: one file per ``chunk_points`` points (all hosts, consecutive
  intervals), aligned on the table's end so tables of different sizes share
  their recent chunks. Files are named ``cpu-NNNNNN.lp`` in time order, which is
  also the order tsdedup ingests them in.
* Re-deliveries (see bench.scales): copies of recent points, exact or partial
  (a non-empty, incomplete set of fields with new values), placed at random
  positions after the original when it is in the same chunk.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb

from bench.hosts import make_hosts
from bench.layout import ChunkFiles, Layout, RowCounts
from bench.scales import Scale
from bench.schema import FIELDS, MEASUREMENT, TAGS

UNITS = 1_000_000_000_000  # a value is an integer number of 1e-12
FIELD_MAX_UNITS = 100 * UNITS
# Irwin-Hall(4) of 16-bit uniforms: mean 2 * 65535, standard deviation ~37837.
_IRWIN_MEAN = 2 * 65_535
_STEP_SCALE = 26_429  # ~ UNITS / 37837: steps of standard deviation ~1.0

# Random streams (the second argument of every hash), one per decision.
_S_STEP, _S_START = 0, 100
_S_PREV, _S_PICK, _S_PARTIAL, _S_MASK, _S_SLOT, _S_VALUE = 201, 202, 203, 204, 206, 210
_S_D_INTERVAL, _S_D_HOST, _S_D_CHUNK, _S_D_SLOT = 301, 302, 303, 304
_S_D_PARTIAL, _S_D_MASK, _S_D_VALUE = 305, 306, 310


def _sql_list(items: list[str]) -> str:
    return ",\n        ".join(items)


class Generator:
    """Generates the workload of one scale into a DuckDB database, then writes
    chunk files (line protocol) and Parquet from it."""

    def __init__(self, scale: Scale, database: Path | str = ":memory:", threads: int = 2) -> None:
        self.scale = scale
        self.hosts = make_hosts(scale.hosts, scale.seed)
        self.con = duckdb.connect(str(database))
        self.con.execute(f"set threads = {int(threads)}")
        self.con.execute("set preserve_insertion_order = true")
        # Spill to disk rather than take most of the machine (the default is 80 %).
        self.con.execute("set memory_limit = '6GB'")
        self._originals_built = False

    def close(self) -> None:
        self.con.close()

    # --- random numbers -------------------------------------------------------------------

    def _hash(self, stream: int, *columns: str) -> str:
        args = ", ".join([f"{self.scale.seed}::BIGINT", f"{stream}::BIGINT"])
        args += "".join(f", ({c})::BIGINT" for c in columns)
        return f"hash({args})"

    def _rand(self, stream: int, modulus: str, *columns: str) -> str:
        """A uniform integer in [0, modulus)."""
        return f"({self._hash(stream, *columns)} % ({modulus})::UBIGINT)::BIGINT"

    # --- originals ------------------------------------------------------------------------

    def build_originals(self) -> None:
        """Table ``orig(i, h, v0..v9)``: every host's value of every field at every
        interval of the largest table and the delta (values in 1e-12 units)."""
        if self._originals_built:
            return
        s = self.scale
        layout = Layout(s, s.table_points)
        steps = []
        starts = []
        walks = []
        for f in range(len(FIELDS)):
            x = self._hash(_S_STEP + f, "h", "i")
            irwin = (
                f"((({x}) & 65535) + ((({x}) >> 16) & 65535) + ((({x}) >> 32) & 65535)"
                f" + (({x}) >> 48))::BIGINT"
            )
            steps.append(f"({irwin} - {_IRWIN_MEAN}) * {_STEP_SCALE} as s{f}")
            starts.append(f"{self._rand(_S_START + f, str(FIELD_MAX_UNITS), 'h')} as a{f}")
            period = 2 * FIELD_MAX_UNITS
            walk = f"(a{f} + sum(s{f}) over w)::BIGINT"
            folded = f"((({walk}) % {period}) + {period}) % {period}"
            walks.append(
                f"case when {folded} <= {FIELD_MAX_UNITS} then {folded}"
                f" else {period} - ({folded}) end as v{f}"
            )
        self.con.execute(
            f"""
            create or replace table orig as
            with grid as (
                select i.range::INTEGER as i, h.range::INTEGER as h
                from range(0, {layout.last_interval}) as i, range(0, {s.hosts}) as h
            ),
            steps as (
                select
                    i,
                    h,
                    {_sql_list(steps)},
                    {_sql_list(starts)}
                from grid
            )
            select
                i,
                h,
                {_sql_list(walks)}
            from steps
            window w as (partition by h order by i rows between unbounded preceding and current row)
            order by i, h
            """
        )
        self._originals_built = True

    # --- one table and its delta ----------------------------------------------------------

    def build_rows(self, table_points: int) -> str:
        """Table ``rows_<N>``: every row of the chunks of a table of ``table_points``
        and of the delta, with ``n`` (chunk), ``position`` (1-based line), ``kind``,
        ``i``, ``h`` and ``v0..v9`` (NULL where a partial copy has no value)."""
        self.build_originals()
        s = self.scale
        lay = Layout(s, table_points)
        c, pad, end, first = s.chunk_intervals, lay.pad, lay.end, lay.first
        name = f"rows_{table_points}"
        fields = range(len(FIELDS))
        share_permille = round(s.partial_share * 1000)

        def copy_values(prefix: str, partial: str, mask: str, value_stream: int, *keys: str) -> str:
            items = []
            for f in fields:
                new_value = self._rand(value_stream + f, str(FIELD_MAX_UNITS + 1), *keys)
                items.append(
                    f"case when not {partial} then {prefix}.v{f}"
                    f" when ({mask} >> {f}) & 1 = 1 then {new_value} end as v{f}"
                )
            return _sql_list(items)

        def mask_of(stream: int, *keys: str) -> str:
            raw = self._rand(stream, "1024", *keys)
            bit = f"(1 << {self._rand(stream + 50, str(len(FIELDS)), *keys)})"
            return f"case {raw} when 0 then {bit} when 1023 then 1023 - {bit} else {raw} end"

        v_cols = ", ".join(f"o.v{f}" for f in fields)
        self.con.execute(
            f"""
            create or replace table {name} as
            with chunks as (
                select
                    n,
                    greatest({first}, n * {c} - {pad}) as lo,
                    least((n + 1) * {c} - {pad}, {lay.last_interval}) as hi
                from range({lay.first_chunk}, {lay.delta_chunk + lay.delta_chunks}) as t(n)
            ),
            sized as (
                select n, lo, hi, (hi - lo) * {s.hosts} as points from chunks
            ),
            originals as (
                select
                    k.n, 2 * ((o.i - k.lo) * {s.hosts} + o.h) as skey, 0 as tie,
                    'original' as kind, o.i, o.h, {v_cols}
                from orig as o
                inner join sized as k on o.i >= k.lo and o.i < k.hi
            ),
            base_picks as (
                select
                    n, lo, points, k,
                    {self._rand(_S_PREV, "2", "n", "k")} = 0 and n > {lay.first_chunk} as use_prev
                from (
                    select n, lo, points,
                        unnest(range(round(points * {s.base_redelivery_share})::BIGINT)) as k
                    from sized
                    where n < {lay.delta_chunk}
                )
            ),
            base_sources as (
                select
                    p.*,
                    greatest({first}, (p.n - p.use_prev::INTEGER) * {c} - {pad}) as src_lo,
                    least((p.n - p.use_prev::INTEGER + 1) * {c} - {pad}, {end}) as src_hi
                from base_picks as p
            ),
            base_redeliveries as (
                select
                    b.n, b.lo, b.points, b.k, b.use_prev,
                    b.src_lo + pick // {s.hosts} as i,
                    pick % {s.hosts} as h,
                    {self._rand(_S_PARTIAL, "1000", "b.n", "b.k")} < {share_permille} as partial,
                    {mask_of(_S_MASK, "b.n", "b.k")} as mask
                from (
                    select *,
                        {self._rand(_S_PICK, f"(src_hi - src_lo) * {s.hosts}", "n", "k")} as pick
                    from base_sources
                ) as b
            ),
            base_copies as (
                select
                    r.n,
                    2 * (case when r.use_prev
                        then {self._rand(_S_SLOT, "r.points", "r.n", "r.k")}
                        else (r.i - r.lo) * {s.hosts} + r.h + {
                self._rand(_S_SLOT, f"r.points - ((r.i - r.lo) * {s.hosts} + r.h)", "r.n", "r.k")
            }
                    end) + 1 as skey,
                    r.k + 1 as tie,
                    case when r.partial then 'partial' else 'exact' end as kind,
                    r.i, r.h,
                    {copy_values("o", "r.partial", "r.mask", _S_VALUE, "r.n", "r.k")}
                from base_redeliveries as r
                inner join orig as o on o.i = r.i and o.h = r.h
            ),
            delta_picks as (
                select
                    k,
                    {lay.delta_chunk} + {self._rand(_S_D_CHUNK, str(lay.delta_chunks), "k")} as n,
                    {end} - 1 - {self._rand(_S_D_INTERVAL, str(s.recent_window_intervals), "k")}
                        as i,
                    {self._rand(_S_D_HOST, str(s.hosts), "k")} as h,
                    {self._rand(_S_D_PARTIAL, "1000", "k")} < {share_permille} as partial,
                    {mask_of(_S_D_MASK, "k")} as mask
                from range({s.delta_duplicates}) as t(k)
            ),
            delta_copies as (
                select
                    d.n,
                    2 * {self._rand(_S_D_SLOT, "z.points", "d.k")} + 1 as skey,
                    d.k + 1 as tie,
                    case when d.partial then 'partial' else 'exact' end as kind,
                    d.i, d.h,
                    {copy_values("o", "d.partial", "d.mask", _S_D_VALUE, "d.k")}
                from delta_picks as d
                inner join sized as z on z.n = d.n
                inner join orig as o on o.i = d.i and o.h = d.h
            ),
            all_rows as (
                select * from originals
                union all
                select * from base_copies
                union all
                select * from delta_copies
            )
            select
                n,
                row_number() over (partition by n order by skey, tie)::INTEGER as position,
                kind, i, h, {", ".join(f"v{f}" for f in fields)}
            from all_rows
            order by n, position
            """
        )
        return name

    # --- outputs --------------------------------------------------------------------------

    def _host_table(self) -> None:
        rows = [(h.index, h.line_prefix(), *(h.tags[t] for t in TAGS)) for h in self.hosts]
        cols = ", ".join(f"{t} VARCHAR" for t in TAGS)
        self.con.execute(f"create or replace table hosts (h INTEGER, prefix VARCHAR, {cols})")
        self.con.executemany(
            f"insert into hosts values ({', '.join(['?'] * (len(TAGS) + 2))})", rows
        )

    def _time_sql(self, column: str) -> str:
        s = self.scale
        return f"({s.end_ns}::BIGINT - ({s.table_intervals} - {column})::BIGINT * {s.interval_ns})"

    def _line_sql(self) -> str:
        parts = []
        for f, name in enumerate(FIELDS):
            whole = f"(r.v{f} // {UNITS})::VARCHAR"
            text = f"{whole} || '.' || lpad((r.v{f} % {UNITS})::VARCHAR, 12, '0')"
            parts.append(f"'{name}=' || {text}")
        fields_sql = "concat_ws(',', " + ", ".join(parts) + ")"
        return f"x.prefix || ' ' || {fields_sql} || ' ' || {self._time_sql('r.i')}::VARCHAR"

    def iter_chunks(self, rows_table: str, chunks_per_query: int = 32) -> Iterator[tuple[int, str]]:
        """``(chunk number, file content)`` of every chunk of ``rows_table``, in order.

        A few chunks per query: the text of a 10 M-point table is several GB, more
        than the aggregation of all chunks at once can hold in memory."""
        self._host_table()
        found = self.con.execute(f"select max(n) from {rows_table}").fetchone()
        last = -1 if found is None or found[0] is None else int(found[0])
        for first in range(0, last + 1, chunks_per_query):
            rows = self.con.execute(
                f"""
                select n, string_agg(line, '' order by position) as content
                from (
                    select r.n, r.position, {self._line_sql()} || chr(10) as line
                    from {rows_table} as r inner join hosts as x on x.h = r.h
                    where r.n >= {first} and r.n < {first + chunks_per_query}
                )
                group by n
                order by n
                """
            ).fetchall()
            for n, content in rows:
                yield int(n), str(content)

    def write_chunks(
        self, rows_table: str, table_points: int, folder: Path, compress: bool = False
    ) -> ChunkFiles:
        """Write every chunk as a file: ``folder/base/`` for the table's chunks,
        ``folder/delta/`` for the delta's."""
        lay = Layout(self.scale, table_points)
        files = ChunkFiles()
        for sub in ("base", "delta"):
            (folder / sub).mkdir(parents=True, exist_ok=True)
        for n, content in self.iter_chunks(rows_table):
            is_delta = n >= lay.delta_chunk
            name = f"{MEASUREMENT}-{n:06d}.lp" + (".gz" if compress else "")
            path = folder / ("delta" if is_delta else "base") / name
            data = content.encode("utf-8")
            if compress:
                data = gzip.compress(data, compresslevel=6, mtime=0)
            tmp = path.with_name("." + path.name)
            tmp.write_bytes(data)
            os.replace(tmp, path)
            (files.delta if is_delta else files.base).append(path)
        return files

    def raw_relation_sql(self, rows_table: str, table_points: int) -> str:
        """The rows as a tsdedup-like raw log: chunk_seq (1-based ingestion order),
        position, the ten tags, the ten fields (DOUBLE, NULL when absent), time_ns,
        and ``in_delta``."""
        self._host_table()
        lay = Layout(self.scale, table_points)
        tags = ", ".join(f"x.{t}" for t in TAGS)
        values = ", ".join(
            f"r.v{f}::DOUBLE / {UNITS}::DOUBLE as {name}" for f, name in enumerate(FIELDS)
        )
        return f"""
            select
                (r.n - {lay.first_chunk} + 1)::INTEGER as chunk_seq,
                r.position,
                {tags},
                {values},
                {self._time_sql("r.i")} as time_ns,
                r.n >= {lay.delta_chunk} as in_delta
            from {rows_table} as r inner join hosts as x on x.h = r.h
        """

    def write_parquet(self, rows_table: str, table_points: int, folder: Path) -> dict[str, Path]:
        """``base.parquet`` and ``delta.parquet``: the raw rows of the table's chunks
        and of the delta, in ingestion order."""
        folder.mkdir(parents=True, exist_ok=True)
        relation = self.raw_relation_sql(rows_table, table_points)
        out = {}
        for part, condition in (("base", "not in_delta"), ("delta", "in_delta")):
            path = folder / f"{part}.parquet"
            self.con.execute(
                f"""
                copy (
                    select * exclude (in_delta) from ({relation})
                    where {condition}
                    order by chunk_seq, position
                ) to '{path}' (format parquet, compression zstd, row_group_size 122880)
                """
            )
            out[part] = path
        return out

    def counts(self, rows_table: str, table_points: int) -> dict[str, RowCounts]:
        """Row kinds in the table's chunks (``base``) and the delta's."""
        lay = Layout(self.scale, table_points)
        result: dict[str, Any] = {}
        rows = self.con.execute(
            f"""
            select n >= {lay.delta_chunk} as in_delta, kind, count(*)
            from {rows_table} group by all
            """
        ).fetchall()
        for part, in_delta in (("base", False), ("delta", True)):
            by_kind = {kind: int(n) for d, kind, n in rows if bool(d) == in_delta}
            result[part] = RowCounts(
                by_kind.get("original", 0), by_kind.get("exact", 0), by_kind.get("partial", 0)
            )
        return result
