"""Reading landed files into points and rejects (no Spark)."""

from __future__ import annotations

import gzip
import hashlib
import io
import os
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from python_udfs import chunk_rows as chunk_rows_module
from python_udfs.chunk_reader import (
    ChunkFormatError,
    ChunkStats,
    Record,
    Reject,
    detect_format,
    file_precision,
    read_chunk,
)
from python_udfs.chunk_rows import COLUMNS, chunk_rows
from python_udfs.chunk_table import chunk_table, landed_bytes
from python_udfs.landing_functions import empty_files, precision_of_file
from tests.unit.test_lp_vector import assert_same_rows

INGEST_NS = 1_700_000_000_123_456_789


def read(name: str, content: bytes | str, precision: str = "ns") -> list[Record | Reject]:
    data = content.encode("utf-8") if isinstance(content, str) else content
    return list(read_chunk(name, data, precision, INGEST_NS))


def test_line_protocol_positions_are_physical_line_numbers() -> None:
    stats = ChunkStats()
    text = "# header comment\n\nm,t=a v=1 10\nnot valid\nm v=2i\n"
    items = list(read_chunk("a.lp", text.encode(), "ns", INGEST_NS, stats))
    assert [(type(i).__name__, i.position) for i in items] == [
        ("Record", 3),
        ("Reject", 4),
        ("Record", 5),
    ]
    assert stats.lines_read == 5
    assert (stats.points, stats.rejects) == (2, 1)
    reject = items[1]
    assert isinstance(reject, Reject)
    assert reject.text == "not valid"
    assert reject.reason


def test_points_without_timestamp_get_the_ingest_time() -> None:
    first, second = read("a.lp", "m v=1 5\nm v=2\n")
    assert isinstance(first, Record) and isinstance(second, Record)
    assert (first.point.time_ns, first.time_from_ingest) == (5, False)
    assert (second.point.time_ns, second.time_from_ingest) == (INGEST_NS, True)


def test_precision_scales_timestamps_exactly() -> None:
    (item,) = read("a.lp", "m v=1 1700000000\n", precision="s")
    assert isinstance(item, Record)
    assert item.point.time_ns == 1_700_000_000 * 10**9


def test_unknown_precision_is_refused() -> None:
    with pytest.raises(ChunkFormatError, match="precision"):
        read("a.lp", "m v=1 1\n", precision="minutes")


@pytest.mark.parametrize(
    ("name", "precision"),
    [
        ("2026-11-25_ms_feed.lp", "ms"),
        ("feed.s.csv", "s"),
        ("landing/sub/x_us.lp.gz", "us"),
        ("ns_first.parquet", "ns"),
        ("plain.lp", "ns"),
        ("sms_mus_s1.lp", "ns"),  # parts that merely contain a unit
        ("s3://bucket/ms/feed.lp", "ns"),  # a folder does not count
    ],
)
def test_a_file_name_can_declare_its_timestamp_precision(name: str, precision: str) -> None:
    assert file_precision(name, "ns") == precision


def test_a_file_name_with_two_precisions_is_refused() -> None:
    with pytest.raises(ChunkFormatError, match=r"more than one timestamp precision \(ms, s\)"):
        file_precision("a_ms_b_s.lp", "ns")


def test_the_sql_function_gives_the_precision_a_chunk_was_read_in() -> None:
    # tsdedup_file_precision (int_chunk_times): the reader's rule; NULL where the
    # name declares two (the file was rejected whole) or a value is NULL.
    assert precision_of_file("feed_ms.lp", "ns") == "ms"
    assert precision_of_file("feed.lp", "us") == "us"
    assert precision_of_file("a_ms_b_s.lp", "ns") is None
    assert precision_of_file(None, "ns") is None


def test_the_declared_precision_scales_the_files_timestamps() -> None:
    (record,) = read("2026-11-25_ms_feed.lp", "m v=1 1764028800123\n")
    assert isinstance(record, Record)
    assert record.point.time_ns == 1_764_028_800_123_000_000
    (row,) = read("x.s.csv", "measurement,time,v\nm,1764028800,1\n")
    assert isinstance(row, Record) and row.point.time_ns == 1_764_028_800 * 10**9


def test_gzip_files_are_decompressed() -> None:
    (item,) = read("a.lp.gz", gzip.compress(b"m,t=x v=1.5 7\n"))
    assert isinstance(item, Record)
    assert item.point.fields == {"v": 1.5}


def test_truncated_gzip_rejects_the_whole_file_with_a_reason() -> None:
    broken = gzip.compress(b"m v=1 1\n" * 1000)[:-20]
    rows = list(chunk_rows("broken.lp.gz", broken, "ns", INGEST_NS))
    kinds = [r[0] for r in rows]
    assert kinds == ["reject", "chunk"]
    reason = rows[0][[name for name, _ in COLUMNS].index("reject_reason")]
    assert "whole file rejected" in reason and "gzip" in reason


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("m time=1 1", "reserved"),
        ("m,time=a v=1 1", "reserved"),
        ("m,v=a v=1 1", "both a tag and a field"),
    ],
)
def test_points_that_cannot_become_columns_are_rejected(line: str, reason: str) -> None:
    (item,) = read("a.lp", line + "\n")
    assert isinstance(item, Reject)
    assert reason in item.reason


def test_invalid_utf8_is_rejected_and_shown_escaped() -> None:
    (good, bad) = read("a.lp", b"m v=1 1\nm,t=\xff v=2 2\n")
    assert isinstance(good, Record)
    assert isinstance(bad, Reject)
    assert "\\xff" in bad.text
    assert "UTF-8" in bad.reason


def test_unsupported_file_type_is_named() -> None:
    with pytest.raises(ChunkFormatError, match=r"unsupported file type 'a\.json'"):
        detect_format("a.json")


CSV = (
    "measurement,time,tag:host,tag:dc,usage,field:count:integer,field:ok:boolean,note\n"
    "cpu,10,h1,d1,1.5,3,true,hello\n"
    "cpu,11,h2,,2.5,,false,\n"
    ",12,h3,d1,0.5,4,t,x\n"
    "cpu,13,h4,d1,3.5,nope,true,x\n"
    "\n"
    "cpu,,h5,d1,nan,1,true,x\n"
)


def test_csv_columns_follow_the_header_conventions() -> None:
    items = read("stations.csv", CSV)
    first, second, third = (i for i in items if isinstance(i, Record))
    assert first.point.measurement == "cpu"
    assert first.point.tags == {"host": "h1", "dc": "d1"}
    assert first.point.fields == {"usage": 1.5, "count": 3, "ok": True, "note": "hello"}
    assert first.point.field_types == {
        "usage": "float",
        "count": "integer",
        "ok": "boolean",
        "note": "string",
    }
    # empty cells: absent tag, absent field
    assert second.point.tags == {"host": "h2"}
    assert "count" not in second.point.fields
    # empty measurement cell: the file name up to its first dot
    assert third.point.measurement == "stations"
    assert third.position == 4


def test_csv_bad_cells_are_rejected_with_line_numbers() -> None:
    rejects = [i for i in read("stations.csv", CSV) if isinstance(i, Reject)]
    assert [r.position for r in rejects] == [5, 7]
    assert "count" in rejects[0].reason
    assert "non-finite" in rejects[1].reason


@pytest.mark.parametrize(
    ("content", "why"),
    [
        # a file written without its header: the first point would be the names
        ("cpu,1793491200000000000,h1,1.5\ncpu,1793491200000000001,h1,2.5\n", "column 2"),
        ("h,-3.5e2,x\n", "column 2 is named '-3.5e2', a number"),
        ("measurement,tag:host,usage\ncpu,h1,1.5\n", "it has no `time` column"),
    ],
)
def test_a_csv_file_whose_first_row_is_not_a_header_is_rejected_whole(
    content: str, why: str
) -> None:
    with pytest.raises(ChunkFormatError) as raised:
        list(read_chunk("x.csv", content.encode(), "ns", 0))
    message = str(raised.value)
    assert message.startswith("the first row is not a header (" + content.split("\n")[0][:20])
    assert why in message
    # through the table function: one reject for the file, naming the header; no point
    names = [name for name, _ in COLUMNS]
    rows = [
        dict(zip(names, r, strict=True)) for r in chunk_rows("x.csv", content.encode(), "ns", 0)
    ]
    assert [r["row_kind"] for r in rows] == ["reject", "chunk"]
    assert "whole file rejected: the first row is not a header" in str(rows[0]["reject_reason"])


def test_a_csv_header_may_name_columns_with_digits_in_them() -> None:
    (record,) = read("x.csv", "measurement,time,tag:h1,v2,3d\ncpu,5,a,1,2\n")
    assert record.point.fields == {"v2": 1.0, "3d": 2.0}


def _parquet(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def test_parquet_rows_become_points_with_exact_nanoseconds() -> None:
    table = pa.table(
        {
            "measurement": ["m", "m"],
            "time": pa.array([1_700_000_000_000_000_001, 2], type=pa.timestamp("ns")),
            "tag:host": ["a", None],
            "value": [1.0, None],
            "count": pa.array([5, 6], type=pa.int64()),
            "big": pa.array([2**63, 1], type=pa.uint64()),
        }
    )
    first, second = read("data.parquet", _parquet(table))
    assert isinstance(first, Record) and isinstance(second, Record)
    assert first.point.time_ns == 1_700_000_000_000_000_001
    assert first.point.tags == {"host": "a"}
    assert first.point.field_types["big"] == "unsigned"
    assert second.point.tags == {}
    assert second.point.fields == {"count": 6, "big": 1}


def test_corrupt_parquet_is_a_whole_file_reject() -> None:
    rows = list(chunk_rows("x.parquet", b"PAR1 not really", "ns", INGEST_NS))
    assert [r[0] for r in rows] == ["reject", "chunk"]


def test_chunk_rows_emit_points_rejects_columns_and_one_chunk_row() -> None:
    text = "m,t=a v=1,n=2i 1\nbroken\nm,t=b v=2,u=3u 2\nm v=1i 3\n"
    rows = list(chunk_rows("c.lp", text.encode(), "ns", INGEST_NS))
    names = [name for name, _ in COLUMNS]
    assert all(len(r) == len(names) for r in rows)
    by_kind: dict[str, list[dict[str, object]]] = {}
    for row in rows:
        record = dict(zip(names, row, strict=True))
        by_kind.setdefault(str(record["row_kind"]), []).append(record)
    assert [p["position"] for p in by_kind["point"]] == [1, 3, 4]
    assert by_kind["point"][1]["fields_uint"] == {"u": Decimal(3)}
    assert by_kind["reject"][0]["position"] == 2
    columns = {(c["column_name"], c["column_type"]): c["position"] for c in by_kind["column"]}
    # `v` is float at line 1 and integer at line 4: both are recorded, with first positions
    assert columns == {
        ("t", "tag"): 1,
        ("v", "float"): 1,
        ("n", "integer"): 1,
        ("u", "unsigned"): 3,
        ("v", "integer"): 4,
    }
    (chunk,) = by_kind["chunk"]
    assert chunk["lines_read"] == 4
    assert rows[-1][0] == "chunk"


def test_a_chunk_longer_than_the_ingestion_order_allows_stops_with_a_reject(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Positions must stay below 2^32 (ingestion order is chunk_seq * 2^32 + position);
    # the limit is lowered here so that a 5-line file crosses it.
    monkeypatch.setattr(chunk_rows_module, "MAX_POSITION", 3)
    text = "m v=1 1\nbroken\nm v=3 3\nm v=4 4\nm v=5 5\n"
    rows = list(chunk_rows("long.lp", text.encode(), "ns", INGEST_NS))
    names = [name for name, _ in COLUMNS]
    records = [dict(zip(names, row, strict=True)) for row in rows]
    assert [r["position"] for r in records if r["row_kind"] == "point"] == [1, 3]
    rejects = [r for r in records if r["row_kind"] == "reject"]
    assert [r["position"] for r in rejects] == [2, 0]
    assert rejects[1]["reject_reason"] == (
        "reading stopped after 3 point(s) and reject(s): the file has more than 3 lines or"
        " rows; split it into smaller files and land them again"
    )
    (chunk,) = [r for r in records if r["row_kind"] == "chunk"]
    assert chunk["lines_read"] == 5  # lines 4-5 were not read: the accounting shows the gap
    # The vectorized reader leaves such a file to the exact one: the same rows.
    assert_same_rows("long.lp", text.encode())


def test_a_reader_failure_stops_only_its_file_with_a_reject(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A bug in the reader must not stop the run: the points read so far stay, the
    # file gets a reject naming the error, and its accounting shows the gap.
    real = chunk_rows_module.read_chunk

    def failing(*args: object) -> object:
        items = real(*args)  # type: ignore[arg-type]
        yield next(items)
        yield next(items)
        raise KeyError("boom")  # while reading the third line

    monkeypatch.setattr(chunk_rows_module, "read_chunk", failing)
    text = "m v=1 1\nm v=2 2\nm v=3 3\nm v=4 4\n"
    rows = list(chunk_rows("bug.lp", text.encode(), "ns", INGEST_NS))
    names = [name for name, _ in COLUMNS]
    records = [dict(zip(names, row, strict=True)) for row in rows]
    assert [r["position"] for r in records if r["row_kind"] == "point"] == [1, 2]
    (reject,) = [r for r in records if r["row_kind"] == "reject"]
    assert reject["position"] == 0
    assert reject["reject_reason"] == (
        "reading stopped after 2 point(s) and reject(s): unexpected KeyError: 'boom';"
        " the rest of the file was not read"
    )


def test_repeated_column_signatures_keep_first_positions_and_types() -> None:
    text = (
        "m u=3u 1\n"  # only unsigned fields: still decimals
        "m u=4u 2\n"  # same columns as line 1
        "q,t=x v=1 3\n"
        "m,t=y v=2 4\n"  # `t` and `v` are new for m, though q had them
        "m,t=z v=3 5\n"
        "m v=1,v=2i,w=t 6\n"  # repeated field key: the last value and its type win
        "m,t=a,t=b v=1 7\n"  # repeated tag key: rejected
    )
    rows = list(chunk_rows("c.lp", text.encode(), "ns", INGEST_NS))
    names = [name for name, _ in COLUMNS]
    records = [dict(zip(names, row, strict=True)) for row in rows]
    points = [r for r in records if r["row_kind"] == "point"]
    assert [p["fields_uint"] for p in points[:2]] == [{"u": Decimal(3)}, {"u": Decimal(4)}]
    assert points[5]["fields_int"] == {"v": 2}
    assert points[5]["fields_bool"] == {"w": True}
    assert points[5]["fields_float"] is None
    (reject,) = [r for r in records if r["row_kind"] == "reject"]
    assert reject["position"] == 7 and "duplicate tag key 't'" in str(reject["reject_reason"])
    columns = {
        (c["measurement"], c["column_name"], c["column_type"]): c["position"]
        for c in records
        if c["row_kind"] == "column"
    }
    assert columns == {
        ("m", "u", "unsigned"): 1,
        ("q", "t", "tag"): 3,
        ("q", "v", "float"): 3,
        ("m", "t", "tag"): 4,
        ("m", "v", "float"): 4,
        ("m", "v", "integer"): 6,
        ("m", "w", "boolean"): 6,
    }


def test_empty_files_lists_only_files_of_0_bytes_as_hadoop_does(tmp_path: Path) -> None:
    folder = tmp_path / "land ing %41 #1"  # characters a URI would read otherwise
    folder.mkdir()
    (folder / "empty.lp").write_bytes(b"")
    (folder / "data.lp").write_bytes(b"m v=1 1\n")
    for hidden in ("_tmp.lp", ".part.lp"):  # Hadoop's listing leaves these out
        (folder / hidden).write_bytes(b"")
    (folder / "sub").mkdir()
    (folder / "sub" / "nested.lp").write_bytes(b"")
    os.utime(folder / "empty.lp", ns=(1_700_000_000_123_456_789, 1_700_000_000_123_456_789))
    listed = list(empty_files(str(folder)))
    assert [path for path, _ in listed] == [f"file:{folder}/empty.lp"]
    (_, mtime) = listed[0]
    # Hadoop's local listing has milliseconds; the time must compare equal to it.
    assert mtime == datetime(2023, 11, 14, 22, 13, 20, 123000, tzinfo=UTC)
    assert list(empty_files(str(tmp_path / "missing"))) == []
    assert list(empty_files("s3a://bucket/landing")) == []  # not a file system pyarrow opens


def test_the_table_function_reads_a_local_file_itself(tmp_path: Path) -> None:
    folder = tmp_path / "a b%c#d"
    folder.mkdir()
    (folder / "x y.lp").write_bytes(b"m v=1 1\n")
    path = f"file:{folder}/x y.lp"  # as Spark lists a local folder
    assert landed_bytes(path, None) == b"m v=1 1\n"
    assert landed_bytes(f"file://{folder}/x y.lp", None) == b"m v=1 1\n"
    # Content Spark read is used as it is, wherever the file lives.
    assert landed_bytes("s3a://bucket/x.lp", b"m v=2 2\n") == b"m v=2 2\n"
    with pytest.raises(ValueError, match=r"no content given for 's3a://bucket/x\.lp'"):
        landed_bytes("s3a://bucket/x.lp", None)
    with pytest.raises(FileNotFoundError):
        landed_bytes(f"file:{folder}/gone.lp", None)


def test_the_chunk_row_carries_the_checksum_of_the_bytes_read() -> None:
    content = b"m v=1 1\nnot valid\n"
    table = chunk_table("c.lp", content, "ns", INGEST_NS).to_pylist()
    checksums = {(row["row_kind"], row["content_sha256"]) for row in table}
    assert checksums == {
        ("point", None),
        ("reject", None),
        ("column", None),
        ("chunk", hashlib.sha256(content).hexdigest()),
    }
