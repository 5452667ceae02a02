"""Hostile and broken input: every file gives a defined outcome (points loaded
as they were written, or rows rejected with a reason), and no input stops the
reader, whose failure would stop every other file of the run.

The end-to-end counterpart (tests/integration/test_hostile_input.py) lands such
files beside good ones and checks the warehouse.
"""

from __future__ import annotations

import gzip
import io
import math
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from python_udfs.chunk_reader import (
    ICEBERG_METADATA_COLUMNS,
    MAX_KEY_CHARS,
    MAX_MEASUREMENT_FOLDER_CHARS,
    MAX_TEXT,
    Record,
    Reject,
    folder_name_chars,
    name_problem,
    read_chunk,
)
from python_udfs.chunk_rows import COLUMNS, chunk_rows
from python_udfs.line_protocol import Point, format_line
from tests.hostile_names import HOSTILE_NAMES

INGEST_NS = 1_700_000_000_123_456_789
NAMES = [name for name, _ in COLUMNS]


def read(name: str, content: bytes | str, precision: str = "ns") -> list[Record | Reject]:
    data = content.encode("utf-8") if isinstance(content, str) else content
    return list(read_chunk(name, data, precision, INGEST_NS))


def rows(name: str, content: bytes | str) -> list[dict[str, Any]]:
    data = content.encode("utf-8") if isinstance(content, str) else content
    return [dict(zip(NAMES, row, strict=True)) for row in chunk_rows(name, data, "ns", INGEST_NS)]


def only(items: list[Record | Reject]) -> Record | Reject:
    assert len(items) == 1, items
    return items[0]


def rejected(item: Record | Reject, reason: str) -> Reject:
    assert isinstance(item, Reject), item
    assert reason in item.reason, item.reason
    return item


def accepted(item: Record | Reject) -> Record:
    assert isinstance(item, Record), item
    return item


def parquet(columns: dict[str, pa.Array | list[Any]]) -> bytes:
    sink = io.BytesIO()
    pq.write_table(pa.table(columns), sink)
    return sink.getvalue()


# --- empty and broken files ---------------------------------------------------------------------


EMPTY_FILES = [
    ("empty.lp", b""),
    ("empty.txt", b"\n\n"),
    ("empty.csv", b""),
    ("header_only.csv", b"measurement,time,value\n"),
    ("empty.lp.gz", gzip.compress(b"", mtime=0)),
    ("comments.lp", b"# nothing but a comment\n   \n"),
]


@pytest.mark.parametrize(("name", "content"), EMPTY_FILES, ids=[n for n, _ in EMPTY_FILES])
def test_empty_files_are_empty_chunks(name: str, content: bytes) -> None:
    (chunk,) = rows(name, content)
    assert chunk["row_kind"] == "chunk"
    assert chunk["lines_read"] == (0 if name.endswith(".gz") else content.count(b"\n"))


UNREADABLE_FILES = [
    ("empty.parquet", b"", "cannot read Parquet file"),
    ("zero.lp.gz", b"not gzip at all", "cannot decompress gzip file"),
    ("truncated.lp.gz", gzip.compress(b"m v=1 1\n" * 1000, mtime=0)[:-20], "cannot decompress"),
    ("garbage_after.csv.gz", gzip.compress(b"m,v\n", mtime=0) + b"\x00junk", "cannot decompress"),
    ("torn.parquet", parquet({"time": [1], "v": [1.0]})[:-30], "cannot read Parquet file"),
]


@pytest.mark.parametrize(
    ("name", "content", "reason"), UNREADABLE_FILES, ids=[n for n, _, _ in UNREADABLE_FILES]
)
def test_unreadable_files_are_rejected_whole_with_a_reason(
    name: str, content: bytes, reason: str
) -> None:
    reject, chunk = rows(name, content)
    assert (reject["row_kind"], reject["position"]) == ("reject", 0)
    assert reject["reject_reason"].startswith("whole file rejected: ")
    assert reason in reject["reject_reason"]
    # The file counts as one line read, and rejected: the accounting balances.
    assert (chunk["row_kind"], chunk["lines_read"]) == ("chunk", 1)


# --- bytes that are not text --------------------------------------------------------------------


def test_invalid_utf8_rejects_its_line_in_every_place_and_format() -> None:
    lp = b'm v=1 1\nm\xff v=1 2\nm,t=\xc3 v=1 3\nm s="\xe9" 4\nm,t=a v=1 5\n'
    items = read("bad.lp", lp)
    assert [i.position for i in items if isinstance(i, Record)] == [1, 5]
    for item, column in zip(items[1:4], (2, 5, 6), strict=True):
        assert rejected(item, "not valid UTF-8").reason.startswith(f"column {column}: ")
        assert "\\x" in item.text  # the byte is shown, escaped
    csv_items = read("bad.csv", b"measurement,time,v\nm,1,1\nm,2,\xff\n")
    rejected(csv_items[1], "not valid UTF-8")
    header = read("bad_header.csv", b"measurement,time,v\xff\nm,1,1\n")
    assert "is not valid UTF-8" in rejected(only(header), "field key").reason
    cells = pa.array([b"ok", b"\xff\xfe"], type=pa.binary()).view(pa.string())
    table = read("bad.parquet", parquet({"measurement": ["m", "m"], "tag:t": cells, "v": [1, 2]}))
    assert accepted(table[0]).point.tags == {"t": "ok"}
    assert rejected(table[1], "not valid UTF-8").position == 2


def test_nul_bytes_are_rejected_in_names_and_kept_in_values() -> None:
    items = read(
        "nul.lp",
        b'm\x00x v=1 1\nm,t\x00=a v=1 2\nm,t=a\x00b v=1 3\nm s="a\x00b" 4\nm v=1 5\x00\n',
    )
    rejected(items[0], "column 2: unexpected '\\x00'")
    rejected(items[1], "expected '=' after tag key")
    assert accepted(items[2]).point.tags == {"t": "a\x00b"}
    assert accepted(items[3]).point.fields == {"s": "a\x00b"}
    rejected(items[4], "invalid timestamp")
    csv = read("nul.csv", b"measurement,time,tag:t\x00,v\nm\x00,1,a,1\n")
    rejected(only(csv), "contains a control character (0x00)")


# --- sizes --------------------------------------------------------------------------------------


def test_a_ten_megabyte_line_loads_or_is_rejected_with_a_shortened_text() -> None:
    big = "x" * 10_000_000
    value = accepted(only(read("big.lp", f'm,t=a s="{big}" 1\n'))).point
    assert value.fields["s"] == big
    line = f"m v={big} 1"
    garbage = only(read("garbage.lp", line + "\n"))
    rejected(garbage, "unrecognized value 'xxxx")
    assert garbage.text == line[:MAX_TEXT] + f"... [{len(line) - MAX_TEXT} more characters]"
    key = only(read("key.lp", f"m {big}=1 1\n"))
    rejected(key, f"is too long: {len(big)} characters, at most {MAX_KEY_CHARS}")


def test_name_length_limits() -> None:
    assert name_problem("k" * MAX_KEY_CHARS, "tag key") is None
    assert "too long" in str(name_problem("k" * (MAX_KEY_CHARS + 1), "tag key"))
    # A measurement names a partition folder: percent-encoded, at most 240 characters.
    assert folder_name_chars("a b.c-d*e_f") == 11
    assert folder_name_chars("ü") == 6
    assert folder_name_chars("`") == 3
    assert name_problem("m" * MAX_MEASUREMENT_FOLDER_CHARS, "measurement name") is None
    assert name_problem("ü" * (MAX_MEASUREMENT_FOLDER_CHARS // 6), "measurement name") is None
    too_long = name_problem("ü" * (MAX_MEASUREMENT_FOLDER_CHARS // 6 + 1), "measurement name")
    assert "is too long: 246 characters as a folder name" in str(too_long)
    item = only(read("long.lp", "m" * 300 + " v=1 1\n"))
    rejected(item, "measurement name 'mmmm")


def test_csv_rows_end_at_newlines_only_and_bad_rows_are_rejected_alone() -> None:
    text = (
        "measurement,time,note\n"
        "m,1,a\u2028b\x0cc\n"  # a line separator and a form feed inside a cell
        "m,2,x\ry\n"  # a carriage return inside an unquoted cell
        'm,3,"two\nlines"\n'
        f"m,4,{'z' * 200_000}\n"  # longer than a CSV cell may be
        "m,5,last\n"
    )
    items = read("c.csv", text)
    assert [(type(i).__name__, i.position) for i in items] == [
        ("Record", 2),
        ("Reject", 3),
        ("Record", 5),
        ("Reject", 6),
        ("Record", 7),
    ]
    assert accepted(items[0]).point.fields == {"note": "a\u2028b\x0cc"}
    assert rejected(items[1], "not valid CSV: new-line character").text == "m,2,x\ry"
    assert accepted(items[2]).point.fields == {"note": "two\nlines"}
    rejected(items[3], "not valid CSV: field larger than field limit")
    (chunk,) = [r for r in rows("c.csv", text) if r["row_kind"] == "chunk"]
    assert chunk["lines_read"] == 7


# --- numbers and times --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("NaN", "unrecognized value 'NaN'"),
        ("nan", "unrecognized value 'nan'"),
        ("inf", "unrecognized value 'inf'"),
        ("+inf", "unrecognized value '+inf'"),
        ("-inf", "invalid number '-inf'"),
        ("1e400", "out of range for a 64-bit float"),
        ("-1e400", "out of range for a 64-bit float"),
        ("9223372036854775808i", "out of range for int64"),
        ("-9223372036854775809i", "out of range for int64"),
        ("18446744073709551616u", "out of range for uint64"),
    ],
)
def test_non_finite_and_overflowing_numbers_are_rejected_in_line_protocol(
    value: str, reason: str
) -> None:
    rejected(only(read("n.lp", f"m v={value} 1\n")), reason)


def test_number_bounds_are_exact_in_line_protocol() -> None:
    point = accepted(
        only(
            read("n.lp", "m a=9223372036854775807i,b=-9223372036854775808i,c=18446744073709551615u")
        )
    ).point
    assert point.fields == {"a": 2**63 - 1, "b": -(2**63), "c": 2**64 - 1}
    assert point.field_types == {"a": "integer", "b": "integer", "c": "unsigned"}


def test_non_finite_and_overflowing_numbers_are_rejected_in_csv_and_parquet() -> None:
    csv = read(
        "n.csv",
        "measurement,time,v,field:i:integer,field:u:unsigned\n"
        "m,1,NaN,1,1\nm,2,inf,1,1\nm,3,-Infinity,1,1\nm,4,1,9223372036854775808,1\n"
        "m,5,1,1,-1\nm,6,1,1,18446744073709551616\nm,7,1,-9223372036854775808,18446744073709551615\n",
    )
    for item, reason in zip(
        csv,
        [
            "non-finite value (nan)",
            "non-finite value (inf)",
            "non-finite value (-inf)",
            "out of range for integer",
            "out of range for unsigned",
            "out of range for unsigned",
        ],
        strict=False,
    ):
        rejected(item, reason)
    assert accepted(csv[6]).point.fields == {"v": 1.0, "i": -(2**63), "u": 2**64 - 1}
    table = read("n.parquet", parquet({"time": [1, 2, 3], "v": [math.nan, math.inf, 1.5]}))
    rejected(table[0], "non-finite value (nan)")
    rejected(table[1], "non-finite value (inf)")
    assert accepted(table[2]).point.fields == {"v": 1.5}


def test_timestamps_outside_int64_nanoseconds_are_rejected_in_every_format() -> None:
    lp = read(
        "t.lp",
        "m v=1 9223372036854775807\nm v=1 -9223372036854775808\nm v=1 9223372036854775808\n"
        "m v=1 -9223372036854775809\nm v=1 99999999999999999999999\n",
    )
    assert [accepted(i).point.time_ns for i in lp[:2]] == [2**63 - 1, -(2**63)]
    for item in lp[2:]:
        rejected(item, "timestamp out of range")
    seconds = read("s.lp", "m v=1 9223372036\nm v=1 9223372037\n", precision="s")
    assert accepted(seconds[0]).point.time_ns == 9_223_372_036 * 10**9
    rejected(seconds[1], "does not fit in int64 nanoseconds")
    csv = read("t.csv", "time,v\n9223372036854775808,1\n-5,1\n")
    rejected(csv[0], "timestamp out of range")
    assert accepted(csv[1]).point.time_ns == -5
    times = pa.array([-(2**62), 2**62], type=pa.timestamp("us"))
    table = read("t.parquet", parquet({"time": times, "v": [1.0, 2.0]}))
    rejected(table[0], "does not fit in int64 nanoseconds")
    rejected(table[1], "does not fit in int64 nanoseconds")


# --- keys ---------------------------------------------------------------------------------------


def test_duplicate_keys_inside_one_line() -> None:
    rejected(only(read("d.lp", "m,t=a,t=b v=1 1\n")), "duplicate tag key 't'")
    # A repeated field: the last value on the line wins, as in InfluxDB.
    point = accepted(only(read("d.lp", "m v=1,v=2i 1\n"))).point
    assert (point.fields, point.field_types) == ({"v": 2}, {"v": "integer"})
    rejected(only(read("d.lp", "m,v=a v=1 1\n")), "'v' is used as both a tag and a field")
    rejected(only(read("d.csv", "time,tag:v,v\n1,a,1\n")), "used as both a tag and a field")


@pytest.mark.parametrize(
    "line",
    ["m,host=a,Host=b v=1 1", "m v=1,V=2 1", "m,Host=a host=1 1", "m,ünï=a ÜNÏ=1 1"],
)
def test_names_differing_only_in_case_are_rejected(line: str) -> None:
    rejected(only(read("c.lp", line + "\n")), "differ only in case")


@pytest.mark.parametrize(
    "name",
    ["time", "TIME", "Time_NS", "time_ns", "time_day", "Time_Day", "series_hash", "Series_Hash"],
)
def test_reserved_names_in_any_case_are_rejected(name: str) -> None:
    rejected(only(read("r.lp", f"m {name}=1 1\n")), "reserved column name")
    rejected(only(read("r.lp", f"m,{name}=a v=1 1\n")), "reserved column name")


@pytest.mark.parametrize("name", [*sorted(ICEBERG_METADATA_COLUMNS), "_FILE", "_Pos"])
def test_iceberg_metadata_column_names_are_rejected(name: str) -> None:
    for line in (f"m {name}=1 1\n", f"m,{name}=a v=1 1\n"):
        rejected(only(read("r.lp", line)), "reserved column name (an Iceberg metadata column)")
    rejected(only(read("r.csv", f"measurement,time,{name}\nm,1,1\n")), "Iceberg metadata column")


@pytest.mark.parametrize("name", ["_", "_x", "__file", "_file_", "file", "pos"])
def test_other_names_starting_with_an_underscore_are_accepted(name: str) -> None:
    (record,) = read("r.lp", f"m,{name}=a {name}_f=1 1\n")
    assert record.point.tags == {name: "a"}


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_hostile_names_are_read_exactly(name: str) -> None:
    written = Point(name, {name: name}, {name + "_f": 1}, 1, {name + "_f": "integer"})
    point = accepted(only(read("h.lp", format_line(written) + "\n"))).point
    assert point == written
    quoted = name.replace('"', '""')
    header = f'"tag:{quoted}","{quoted}_f",time'
    csv = accepted(only(read("h.csv", f"{header}\nv,1.5,1\n"))).point
    assert (csv.tags, csv.fields) == ({name: "v"}, {name + "_f": 1.5})


# --- no input stops the reader ------------------------------------------------------------------

_LP_PIECES = st.sampled_from(
    [
        "m",
        ",",
        "=",
        " ",
        "\\",
        '"',
        "\n",
        "\r\n",
        "#",
        "t",
        "v",
        "1",
        "-",
        ".",
        "e",
        "i",
        "u",
        "true",
        "9223372036854775808",
        "\x00",
        "\xff",
        "ü",
        "`",
    ]
)


def _bytes_from_pieces(pieces: list[str]) -> bytes:
    return "".join(pieces).encode("utf-8", "surrogateescape").replace("\xc3\xbf".encode(), b"\xff")


def check_rows_are_storable(name: str, content: bytes) -> None:
    """chunk_rows never raises, every string is valid UTF-8, every stored name obeys
    the rules, and the points, rejects and one chunk row account for the file."""
    out = rows(name, content)
    assert out[-1]["row_kind"] == "chunk"
    assert [r["row_kind"] for r in out].count("chunk") == 1
    for row in out:
        for value in row.values():
            texts = (
                [*value.keys(), *(v for v in value.values() if isinstance(v, str))]
                if isinstance(value, dict)
                else [value]
            )
            for text in texts:
                if isinstance(text, str):
                    text.encode("utf-8")  # raises on a lone surrogate
    for row in out:
        if row["row_kind"] == "point":
            assert name_problem(row["measurement"], "measurement name") is None
            for key in row["tags"]:
                assert name_problem(key, "tag key") is None
    kinds = [r["row_kind"] for r in out]
    assert kinds.count("point") + kinds.count("reject") <= out[-1]["lines_read"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_LP_PIECES, max_size=60))
def test_no_line_protocol_input_stops_the_reader(pieces: list[str]) -> None:
    check_rows_are_storable("fuzz.lp", _bytes_from_pieces(pieces))


@settings(max_examples=200, deadline=None)
@given(st.lists(_LP_PIECES, max_size=60))
def test_no_csv_input_stops_the_reader(pieces: list[str]) -> None:
    content = _bytes_from_pieces(pieces).replace(b" ", b",")
    check_rows_are_storable("fuzz.csv", b"measurement,time,tag:t,v\n" + content)
    check_rows_are_storable("fuzz.csv", content)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_no_bytes_stop_the_reader_in_any_format(content: bytes) -> None:
    for name in ("fuzz.lp", "fuzz.csv", "fuzz.lp.gz", "fuzz.parquet"):
        check_rows_are_storable(name, content)
    check_rows_are_storable("fuzz.lp.gz", gzip.compress(content, mtime=0))


def test_the_name_spark_gives_a_partition_without_value_is_no_measurement() -> None:
    rejected(only(read("r.lp", "__HIVE_DEFAULT_PARTITION__ v=1 1\n")), "reserved measurement name")
    assert isinstance(only(read("r.lp", "__hive_default_partition__ v=1 1\n")), Record)
