"""The benchmark's reference semantics (DuckDB) agree with tests/reference.py, and
its difference counter counts what it says."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa

from bench.generator import Generator
from bench.reference import count_differences, reference_sql
from bench.schema import FIELDS, TAGS
from python_udfs.chunk_reader import Record, read_chunk
from tests.reference import expected_from_files
from tests.unit.bench_scales import TINY


def _as_map(
    rows: list[dict[str, object]], tags: list[str], fields: list[str]
) -> dict[tuple[object, ...], tuple[object, ...]]:
    return {
        (*(r.get(t) for t in tags), r["time_ns"]): tuple(r.get(f) for f in fields) for r in rows
    }


def _duckdb_reference(
    con: duckdb.DuckDBPyConnection, raw: str, tags: list[str], fields: list[str]
) -> dict[tuple[object, ...], tuple[object, ...]]:
    cursor = con.execute(reference_sql(raw, tags, fields))
    names = [d[0] for d in cursor.description]
    return _as_map([dict(zip(names, row, strict=True)) for row in cursor.fetchall()], tags, fields)


def test_reference_matches_the_python_semantics_on_generated_chunks(tmp_path: Path) -> None:
    generator = Generator(TINY)
    rows = generator.build_rows(800)
    files = generator.write_chunks(rows, 800, tmp_path)
    chunks = [(p.name, p.read_bytes()) for p in [*files.base, *files.delta]]
    expected = expected_from_files(chunks).rows("cpu")
    raw = generator.raw_relation_sql(rows, 800)
    ours = _duckdb_reference(generator.con, f"({raw})", list(TAGS), list(FIELDS))
    generator.close()
    assert len(ours) == 800 + TINY.new_delta_points
    assert ours == _as_map(expected, list(TAGS), list(FIELDS))


# Chunks with what the generator never makes: missing tags (NULL = NULL), a partial
# copy in a later chunk, a copy later in the same chunk, nanosecond neighbours.
HANDMADE = [
    (
        "a.lp",
        "m,host=a,dc=x f=1,g=1 1000\n"
        "m,host=a f=2,g=2 1000\n"
        "m,host=a,dc=x g=9 1000\n"
        "m,host=a,dc=x f=3 1001\n",
    ),
    (
        "b.lp",
        "m,host=a f=5 1000\nm,host=a,dc=x f=7,g=7 1001\nm f=8 1000\nm,host=a,dc=x f=4 1000\n",
    ),
    ("c.lp", "m g=6 1000\nm,dc=x f=0 1000\n"),
]


def _handmade_raw() -> pa.Table:
    tags, fields = ["dc", "host"], ["f", "g"]
    columns: dict[str, list[object]] = {c: [] for c in ["chunk_seq", "position", *tags, *fields]}
    columns["time_ns"] = []
    for seq, (name, text) in enumerate(HANDMADE, start=1):
        for item in read_chunk(name, text.encode(), "ns", 0):
            assert isinstance(item, Record)
            columns["chunk_seq"].append(seq)
            columns["position"].append(item.position)
            for t in tags:
                columns[t].append(item.point.tags.get(t))
            for f in fields:
                columns[f].append(item.point.fields.get(f))
            columns["time_ns"].append(item.point.time_ns)
    return pa.table(columns)


def test_reference_matches_the_python_semantics_with_null_tags() -> None:
    tags, fields = ["dc", "host"], ["f", "g"]
    con = duckdb.connect()
    con.register("handmade", _handmade_raw())
    ours = _duckdb_reference(con, "handmade", tags, fields)
    chunks = [(name, text.encode()) for name, text in HANDMADE]
    expected = _as_map(expected_from_files(chunks).rows("m"), tags, fields)
    assert ours == expected
    assert ours[("x", "a", 1000)] == (4.0, 9.0)  # later chunk wins, a missing field stays
    assert ours[(None, "a", 1000)] == (5.0, 2.0)
    assert ours[(None, None, 1000)] == (8.0, 6.0)  # NULL tags are one series


def _relation(con: duckdb.DuckDBPyConnection, name: str, rows: list[tuple[object, ...]]) -> str:
    con.register(
        name,
        pa.table(
            {
                "dc": [r[0] for r in rows],
                "host": [r[1] for r in rows],
                "f": [r[2] for r in rows],
                "g": [r[3] for r in rows],
                "time_ns": [r[4] for r in rows],
            }
        ),
    )
    return f"select * from {name}"


def test_difference_counter() -> None:
    con = duckdb.connect()
    reference = _relation(
        con,
        "ref",
        [
            ("x", "a", 1.0, 2.0, 10),
            (None, "a", 1.0, None, 10),
            (None, None, 3.0, 4.0, 10),
            ("x", "a", 5.0, 6.0, 11),
            ("x", "b", 7.0, 8.0, 10),
        ],
    )
    tags, fields = ["dc", "host"], ["f", "g"]
    same = _relation(
        con,
        "same",
        [
            ("x", "b", 7.0, 8.0, 10),
            (None, None, 3.0, 4.0, 10),
            ("x", "a", 5.0, 6.0, 11),
            (None, "a", 1.0, None, 10),
            ("x", "a", 1.0, 2.0, 10),
        ],
    )
    clean = count_differences(con, reference, same, tags, fields)
    assert clean.total == 0 and clean.keys_compared == 5
    other = _relation(
        con,
        "other",
        [
            ("x", "a", 1.0, 9.0, 10),  # g differs
            (None, "a", 1.0, 0.0, 10),  # NULL vs a value differs
            (None, None, 3.0, 4.0, 10),  # NULL tags match NULL tags
            (None, None, 3.0, 4.0, 10),  # ... twice: one surplus row
            ("x", "a", 5.0, 6.0, 12),  # 11 missing, 12 extra (nanosecond key)
        ],
    )
    diff = count_differences(con, reference, other, tags, fields)
    assert diff.keys_compared == 3
    assert diff.keys_differing == 2
    assert diff.fields_differing == {"f": 0, "g": 2}
    assert diff.missing_keys == 2  # (x, a, 11) and (x, b, 10)
    assert diff.extra_keys == 1
    assert diff.duplicate_rows == 1
    assert diff.total == 6
    assert diff.as_dict()["total"] == 6
