"""Hostile and broken files landed beside good ones: each gets its defined
outcome (its points loaded, with hostile names as correctly quoted columns, or
its lines rejected with a reason), the run succeeds, and nothing else in the
warehouse changes.

The reader's side of every case is unit-tested in tests/unit/test_hostile_input.py;
here the files go through the whole pipeline.
"""

from __future__ import annotations

import gzip
import hashlib
import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from python_udfs.line_protocol import Point, format_line
from tests.hostile_names import HOSTILE_NAMES, INJECTION
from tests.integration.conftest import Workspace, point_values
from tests.reference import expected_from_files

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

DAY0 = 1_793_491_200_000_000_000  # 2026-11-01T00:00:00Z
BIG = "x" * 10_000_000


def lp(measurement: str, tags: dict[str, str], fields: dict[str, object], time_ns: int) -> str:
    return format_line(Point(measurement, tags, fields, time_ns)) + "\n"


def parquet_with_bad_text() -> bytes:
    hosts = pa.array([b"p1", b"\xff\xfe"], type=pa.binary()).view(pa.string())
    table = pa.table(
        {
            "measurement": ["hostile", "hostile"],
            "time": pa.array([DAY0 + 50, DAY0 + 51], type=pa.int64()),
            "tag:host": hosts,
            "value": [5.0, 6.0],
        }
    )
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


NAMED = lp(
    "hostile",
    {"host": "a", **{name: f"tag {name}" for name in HOSTILE_NAMES[:6]}},
    {"value": 1.0, **{name + "_f": i for i, name in enumerate(HOSTILE_NAMES)}},
    DAY0 + 1,
)

# (file name, content, {line: reason expected in rpt_rejects}); every other line loads.
FILES: list[tuple[str, bytes, dict[int, str]]] = [
    # A file of 0 bytes is a chunk of 0 lines (Spark's file sources do not list
    # it; tsdedup_empty_files does), as are an empty gzip and blank lines.
    ("h01_empty.lp", b"", {}),
    ("h01_empty_gzip.lp.gz", gzip.compress(b""), {}),
    ("h01_blank_lines.lp", b"\n\n", {}),
    ("h02_truncated.lp.gz", gzip.compress(b"hostile,host=a value=1 1\n" * 500)[:-20], {0: "gzip"}),
    (
        "h03_utf8_and_nul.lp",
        b"hostile,host=a value=2 2\nhostile,host=\xff value=2 3\n"
        b'hostile\x00x value=2 4\nhostile,host=n\x00ul value=3,s="a\x00b" 5\n',
        {2: "not valid UTF-8", 3: "unexpected '\\x00'"},
    ),
    (
        "h04_numbers.lp",
        b"hostile,host=a value=NaN 6\nhostile,host=a value=inf 7\nhostile,host=a value=-inf 8\n"
        b"hostile,host=a count=9223372036854775808i 9\nhostile,host=a u=18446744073709551616u 10\n"
        b"hostile,host=a count=-9223372036854775808i,u=18446744073709551615u 11\n",
        {1: "'NaN'", 2: "'inf'", 3: "'-inf'", 4: "out of range for int64", 5: "uint64"},
    ),
    (
        "h05_times.lp",
        b"hostile,host=t value=1 9223372036854775807\nhostile,host=t value=1 -9223372036854775808\n"
        b"hostile,host=t value=1 9223372036854775808\nhostile,host=t value=1 1e18\n",
        {3: "timestamp out of range", 4: "invalid timestamp"},
    ),
    (
        "h06_keys.lp",
        b"hostile,host=a,host=b value=1 12\nhostile,host=k value=1,value=7 12\n"
        b"hostile,host=a,Host=b value=1 13\nhostile,host=a TIME=1 14\n",
        {1: "duplicate tag key 'host'", 3: "differ only in case", 4: "reserved column name"},
    ),
    (
        "h07_names.lp",
        (
            NAMED
            + "m" * 300
            + " value=1 15\n"
            + f"hostile,host=a {'f' * 1000}=1 16\n"
            + "hostile,Host=c value=9 17\n"  # `host` is the column's spelling
            + 'hostile,host=a value="text" 18\n'  # `value` is a float
        ).encode(),
        {2: "is too long", 3: "is too long", 4: "column name conflict", 5: "field type conflict"},
    ),
    (
        "h08_big.lp",
        (lp("big", {"k": "v"}, {"s": BIG}, DAY0) + f"big v={BIG} 1\n").encode(),
        {2: ""},
    ),
    (
        "h09_rows.csv",
        b"measurement,time,tag:host,value\nhostile,19,c1,1.5\nhostile,20,x\ry,1\n"
        b"hostile\x00,21,c2,1\nhostile,22,c3,NaN\n",
        {3: "not valid CSV", 4: "control character", 5: "non-finite"},
    ),
    ("h10_rows.parquet", parquet_with_bad_text(), {2: "not valid UTF-8"}),
    # Hostile file names: quotes, a backtick, glob characters, percent, plus, unicode.
    ("h11 `it's` [1]*?{a}.lp", b"hostile,host=file1 value=1 23\n", {}),
    ("h12 100% ü+plus.lp", b"hostile,host=file2 value=1 24\n", {}),
    ("h13 a%41b.lp", b"hostile,host=file3 value=1 25\n", {}),
    ("h14 new\nline.lp", b"hostile,host=file4 value=1 26\n", {}),
]


def canonical(rows: list[dict[str, object]]) -> list[tuple[tuple[str, str], ...]]:
    return sorted(tuple(sorted((k, str(v)) for k, v in row.items())) for row in rows)


def test_hostile_files_get_their_outcome_and_nothing_else_changes(workspace: Workspace) -> None:
    ws = workspace
    ws.add_measurement_model("good", "good")
    ws.add_measurement_model("hostile", "hostile")
    ws.add_measurement_model("big", "big")
    ws.add_measurement_model("injection", INJECTION)
    good = "".join(lp("good", {"host": f"g{i % 3}"}, {"v": float(i)}, DAY0 + i) for i in range(30))
    ws.land("g01_good.lp", good)
    ws.build()
    ws.tsdedup(
        "sql", "create table tsdedup.y (a int) using iceberg", "insert into tsdedup.y values (7)"
    ).check()
    before = ws.sql(
        "select * from tsdedup.good",
        "select file_path from tsdedup.good.data_files",
        "show tables in tsdedup",
        "select * from tsdedup.raw_chunks where chunk_seq = 1",
    )

    for name, content, _ in FILES:
        ws.land(name, content)
    # Hadoop cannot open a name with ':': the run leaves it and says so.
    ws.land("h15 colon:name.lp", "hostile,host=colon value=1 27\n")
    injection = lp(INJECTION, {INJECTION + " tag": INJECTION}, {INJECTION: 1.0}, DAY0)
    ws.land("i01_injection.lp", injection)
    result = ws.build()
    assert "Traceback" not in result.stdout + result.stderr
    assert "not ingesting h15 colon:name.lp: a file name with ':' cannot be read" in result.stdout

    after = ws.sql(
        "select * from tsdedup.good",
        "select file_path from tsdedup.good.data_files",
        "show tables in tsdedup",
        "select * from tsdedup.raw_chunks where chunk_seq = 1",
        "select * from tsdedup.y",
        "select source_file, line_number, reject_reason from tsdedup.rpt_rejects",
        "select * from tsdedup.rpt_chunk_accounting order by chunk_seq",
        "select * from tsdedup.hostile",
        "select length(s) as n, sha2(s, 256) as sha from tsdedup.big",
        "select * from tsdedup.injection",
        "select time_ns, date_format(`time`, 'yyyy-MM-dd HH:mm:ss.SSSSSS') as shown"
        " from tsdedup.hostile where host = 't'",
        "select time_ns, cast(partition_day as string) as day from tsdedup.raw_chunks"
        " where row_kind = 'point' and measurement = 'hostile' and tags['host'] = 't'",
    )
    (
        good_rows,
        good_files,
        tables,
        first_chunk,
        y,
        rejects,
        accounting,
        hostile,
        big,
        inj,
        shown_times,
        log_days,
    ) = after

    # Nothing else changed: the good table (rows and files), the tables of the
    # schema, the first chunk's rows, and the table `y` the names talk about.
    assert canonical(good_rows) == canonical(before[0])
    assert good_files == before[1]
    names_before = {r["tableName"] for r in before[2] if not r["isTemporary"]}
    names_after = {r["tableName"] for r in tables if not r["isTemporary"]}
    assert names_after == names_before | {"hostile", "big", "injection"}
    # (the columns the new points brought, decision 0025, are empty in its rows)
    kept = set(before[3][0])
    assert canonical([{k: v for k, v in r.items() if k in kept} for r in first_chunk]) == canonical(
        before[3]
    )
    assert all(v is None for r in first_chunk for k, v in r.items() if k not in kept)
    assert any(k not in kept for k in first_chunk[0])
    assert y == [{"a": 7}]

    # Every reject is the expected one, with its reason; nothing else was rejected.
    got = {(r["source_file"], r["line_number"]): str(r["reject_reason"]) for r in rejects}
    want = {(name, line): reason for name, _, lines in FILES for line, reason in lines.items()}
    assert set(got) == set(want)
    for where, reason in want.items():
        assert reason in got[where], (where, got[where])

    # Every chunk is accounted for: lines read = points + rejects + skipped, and
    # the points kept are the table rows plus the duplicates removed.
    landed = [(name, content) for name, content, _ in FILES]
    landed.append(("i01_injection.lp", injection.encode()))
    assert [r["source_file"] for r in accounting] == ["g01_good.lp", *sorted(n for n, _ in landed)]
    assert f"ingested {len(landed)} file(s)" in result.stdout
    blank = next(r for r in accounting if r["source_file"] == "h01_blank_lines.lp")
    assert (blank["lines_read"], blank["lines_skipped"]) == (2, 2)
    empty = next(r for r in accounting if r["source_file"] == "h01_empty.lp")
    assert (empty["lines_read"], empty["points_read"], empty["lines_rejected"]) == (0, 0, 0)
    for row in accounting:
        assert row["lines_skipped"] >= 0, row
        assert row["lines_read"] == (
            row["points_read"] + row["lines_rejected"] + row["lines_skipped"]
        ), row
    kept = sum(int(r["points_kept"]) for r in accounting)
    removed = sum(int(r["duplicates_removed"]) for r in accounting)
    assert kept == len(good_rows) + len(hostile) + len(big) + len(inj) + removed

    # The loaded points are exactly what the semantics say, hostile names as columns.
    expected = expected_from_files([("g01_good.lp", good.encode()), *sorted(landed)])
    assert canonical([without_time(r) for r in hostile]) == canonical(expected.rows("hostile"))
    for name in HOSTILE_NAMES:
        assert name + "_f" in hostile[0]
    named = next(r for r in hostile if r["time_ns"] == DAY0 + 1)
    assert named["'); drop table tsdedup.y; --_f"] == 4
    assert named["{{ 7 * 7 }}_f"] == 10
    assert named[INJECTION] == f"tag {INJECTION}"
    times = {r["time_ns"] for r in hostile if r["host"] == "t"}
    assert times == {2**63 - 1, -(2**63)}
    # The ends of the 64-bit range: `time` rounded towards the past, and the
    # raw log's day, without overflow.
    assert {r["time_ns"]: r["shown"] for r in shown_times} == {
        2**63 - 1: "2262-04-11 23:47:16.854775",
        -(2**63): "1677-09-21 00:12:43.145224",
    }
    assert {r["time_ns"]: r["day"] for r in log_days} == {
        2**63 - 1: "2262-04-11",
        -(2**63): "1677-09-21",
    }
    assert big == [{"n": len(BIG), "sha": hashlib.sha256(BIG.encode()).hexdigest()}]
    assert [without_time(r) for r in inj] == [
        {INJECTION + " tag": INJECTION, INJECTION: 1.0, "time_ns": DAY0}
    ]
    # Listed again unchanged, no file is a new chunk (the empty one included).
    assert "ingested no new file" in ws.build().stdout


def without_time(row: dict[str, object]) -> dict[str, object]:
    return point_values(row)
