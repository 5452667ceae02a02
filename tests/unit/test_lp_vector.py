"""The vectorized reader against the exact one: the same rows for every file.

``chunk_table`` (plain lines read in Arrow arrays, the rest by the exact parser)
must give exactly the rows ``chunk_rows`` (the exact parser alone) gives: every
point with its position, measurement, tags, typed fields and time, every reject
with its text and reason, every column first use, the chunk's counts. The
transport's text maps are decoded here as ``raw_chunks`` decodes them (the
Spark side of that decoding is checked in tests/integration/test_end_to_end.py).
"""

from __future__ import annotations

import json
import math
import random
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from python_udfs.chunk_reader import ChunkStats, validate_names
from python_udfs.chunk_rows import COLUMNS, chunk_rows
from python_udfs.chunk_table import MAP_COLUMNS, SCHEMA, chunk_table, read_plain_first
from python_udfs.line_protocol import Point, format_line
from python_udfs.lp_vector import read_plain_lines, split_lines
from tests.unit.test_line_protocol import points

INGEST_NS = 1_700_000_000_123_456_789
NAMES = [name for name, _ in COLUMNS]
_TRUE = {"t", "T", "true", "True", "TRUE"}


def _decode_text_map(text: str, value_type: str) -> dict[str, Any]:
    """A ``k=v,k=v`` map as raw_chunks decodes it (macro chunk_map)."""
    if text == "":
        return {}
    pairs = dict(item.split("=") for item in text.split(","))
    if value_type == "double":
        return {k: float(v) for k, v in pairs.items()}
    if value_type == "bigint":
        return {k: int(v[:-1]) for k, v in pairs.items()}
    if value_type == "decimal(20, 0)":
        return {k: Decimal(int(v[:-1])) for k, v in pairs.items()}
    if value_type == "boolean":
        return {k: v in _TRUE for k, v in pairs.items()}
    return pairs


def _decode_json_map(text: str, value_type: str) -> dict[str, Any]:
    values = json.loads(text)
    if value_type == "decimal(20, 0)":
        return {k: Decimal(v) for k, v in values.items()}
    return values


def decoded_rows(table: pa.Table) -> list[tuple[Any, ...]]:
    """The transport table's rows in the layout of udtf.COLUMNS."""
    assert table.schema == SCHEMA
    rows = []
    for record in table.to_pylist():
        for name, value_type in MAP_COLUMNS.items():
            text = record[name]
            if text is not None:
                decode = _decode_json_map if record["maps_as_json"] else _decode_text_map
                record[name] = decode(text, value_type)
        rows.append(tuple(record[name] for name in NAMES))
    return rows


def _key(row: tuple[Any, ...]) -> str:
    return repr(tuple(sorted(v.items()) if isinstance(v, dict) else v for v in row))


def _canonical(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Rows in one order, with maps compared as sets of items (-0.0 kept apart)."""

    def norm(value: Any) -> Any:
        if isinstance(value, float):
            return (value, math.copysign(1.0, value))
        if isinstance(value, dict):
            return sorted((k, norm(v)) for k, v in value.items())
        return value

    return sorted((tuple(norm(v) for v in row) for row in rows), key=repr)


def assert_same_rows(name: str, content: bytes, precision: str = "ns") -> None:
    # chunk_table falls back to the exact reader when the vectorized one fails:
    # called here directly, a failure of the vectorized reader fails the test.
    read_plain_first(name, content, precision, INGEST_NS, ChunkStats())
    exact = list(chunk_rows(name, content, precision, INGEST_NS))
    both = decoded_rows(chunk_table(name, content, precision, INGEST_NS))
    assert _canonical(both) == _canonical(exact), content[:2000]


def plain_lines_read(content: bytes, precision: str = "ns") -> int:
    stats = ChunkStats()
    read = read_plain_first("f.lp", content, precision, INGEST_NS, stats)
    assert read is not None
    return len(read[0].line_index)


# --- plain lines: the shape the vectorized reader takes ---------------------------------------

_plain_name = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters=',= \\"#\u2028'),
    min_size=1,
    max_size=8,
)
_digits = st.text(alphabet="0123456789", min_size=1, max_size=25)
_float_text = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.builds(
        lambda sign, whole, frac, exp: f"{sign}{whole}{frac}{exp}",
        st.sampled_from(["", "-"]),
        _digits,
        st.sampled_from(["", "."]) | _digits.map(lambda d: "." + d),
        st.sampled_from(["", "e5", "E-3", "e+308", "e309", "e-400", "e0", "e"]),
    ),
    st.sampled_from([".5", "-.5", "5.", "-0", "0.0", "1e400", "-1e-400", "1.7976931348623157e308"]),
)
_value_text = st.one_of(
    _float_text,
    st.integers(-(2**63), 2**63 - 1).map(lambda v: f"{v}i"),
    st.integers(-(10**20), 10**20).map(lambda v: f"{v}i"),
    st.integers(0, 2**64 - 1).map(lambda v: f"{v}u"),
    st.integers(-5, 10**21).map(lambda v: f"{v}u"),
    st.sampled_from(["t", "T", "true", "True", "TRUE", "f", "F", "false", "False", "FALSE"]),
    st.sampled_from(["tRue", "yes", "1x", "nan", "inf", "-inf", "0x10", "1_0", "+1", "--1"]),
)
_stamp = st.one_of(
    st.none(),
    st.integers(-(2**63), 2**63 - 1).map(str),
    st.integers(-(10**19) * 2, 10**19 * 2).map(str),
    st.sampled_from(["0", "-0", "0000000000000000001", "9223372036854775807", "1.5", "12a"]),
)


@st.composite
def plain_line(draw: st.DrawFn) -> str:
    tags = draw(st.lists(st.tuples(_plain_name, _plain_name), max_size=4))
    fields = draw(st.lists(st.tuples(_plain_name, _value_text), min_size=1, max_size=4))
    head = draw(_plain_name) + "".join(f",{k}={v}" for k, v in tags)
    line = head + " " + ",".join(f"{k}={v}" for k, v in fields)
    stamp = draw(_stamp)
    return line if stamp is None else f"{line} {stamp}"


_delimiters = st.sampled_from([" ", ",", "=", "\\", '"', "#", "\t", "\r", "\n", "", "  "])


@st.composite
def mutated(draw: st.DrawFn, line: str) -> str:
    """A line with a few characters replaced, inserted or removed."""
    chars = list(line)
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(chars)))
        what = draw(st.sampled_from(["insert", "replace", "delete"]))
        piece = draw(_delimiters)
        if what == "insert":
            chars.insert(at, piece)
        elif chars and at < len(chars):
            if what == "replace":
                chars[at] = piece
            else:
                del chars[at]
    return "".join(chars)


def _formatted(point: Point) -> str:
    try:
        return format_line(point)
    except ValueError:
        return "m v=1"


_any_line = st.one_of(
    plain_line(),
    plain_line().flatmap(mutated),
    points().map(_formatted),
    points().map(_formatted).flatmap(mutated),
    st.sampled_from(["", "# comment", "   ", " m v=1 1", "m v=1 1 ", "m,t=a v=1\r", 'm s="a']),
)


@st.composite
def files(draw: st.DrawFn) -> tuple[str, str]:
    lines = draw(st.lists(_any_line, min_size=0, max_size=12))
    end = draw(st.sampled_from(["\n", "", "\r\n"]))
    precision = draw(st.sampled_from(["ns", "us", "ms", "s"]))
    separator = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    return separator.join(lines) + (end if lines else ""), precision


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files())
def test_vectorized_and_exact_readers_give_the_same_rows(file: tuple[str, str]) -> None:
    text, precision = file
    assert_same_rows("f.lp", text.encode("utf-8", "surrogatepass"), precision)


@settings(max_examples=300, deadline=None)
@given(st.lists(plain_line(), min_size=1, max_size=20))
def test_plain_lines_of_valid_values_are_read_without_the_exact_parser(lines: list[str]) -> None:
    content = ("\n".join(lines) + "\n").encode()
    assert_same_rows("f.lp", content)
    # The lines the exact parser accepts and whose values are plain are all read here.
    exact = [row for row in chunk_rows("f.lp", content, "ns", INGEST_NS) if row[0] == "point"]
    assert plain_lines_read(content) <= len(exact)


def test_the_common_line_is_read_whole_in_arrays() -> None:
    lines = [
        "cpu,host=a,region=eu usage=1.5,idle=98.25 1700000000000000000",
        "cpu,host=b,region=eu usage=-0.5e3,idle=.5 1700000000000000001",
        "mem,host=a used=12i,total=64u,ok=true,pct=12.5 1700000000000000002",
        "mem,host=b used=-3i,ok=F",
        "disk free=1 -1",
    ]
    content = ("\n".join(lines) + "\n").encode()
    assert plain_lines_read(content) == len(lines)
    assert_same_rows("f.lp", content)
    table = chunk_table("f.lp", content, "ns", INGEST_NS)
    points = table.filter(pa.compute.equal(table["row_kind"], "point")).to_pylist()
    assert {p["maps_as_json"] for p in points} == {False}
    mem = next(p for p in points if p["position"] == 3)
    assert (mem["fields_int"], mem["fields_uint"], mem["fields_bool"], mem["fields_float"]) == (
        "used=12i",
        "total=64u",
        "ok=true",
        "pct=12.5",
    )
    last = next(p for p in points if p["position"] == 4)
    assert last["time_from_ingest"] is True and last["time_ns"] == INGEST_NS


@pytest.mark.parametrize(
    "line",
    [
        'm s="x" 1',  # a string field
        "m\\ x v=1 1",  # an escape
        "m v=1  1",  # two spaces
        "m v=1 1 ",  # a trailing space
        " m v=1 1",  # a leading space
        "m,t=a,t=b v=1 1",  # a repeated tag: rejected
        "m v=1,v=2i 1",  # a repeated field: the last wins
        "m,time=a v=1 1",  # a reserved name: rejected
        "m,T=a t=1 1",  # names that differ only in case: rejected
        "m v=1e400 1",  # out of range: rejected
        "m v=9223372036854775808i 1",  # out of range: rejected
        "m v=1 9223372036854775808",  # out of range: rejected
        "m v=1 12345678901234567890123",
        "m,t=a=b v=1 1",
        "m, v=1 1",
        "m v= 1",
        "m =1 1",
        "m v=1,",
        "m v=1\r",
    ],
)
def test_other_lines_go_to_the_exact_parser(line: str) -> None:
    content = f"cpu v=1 1\n{line}\ncpu v=2 2\n".encode()
    assert plain_lines_read(content) == 2
    assert_same_rows("f.lp", content)


@pytest.mark.parametrize(
    ("text", "as_float", "as_integer"),
    [
        # The names of line 1 are first read on line 4: the field's first use as
        # a float is still line 2, where another set of names has it.
        ("m,t=a f=1 X\nm f=1 1\nm f=2i 2\nm,t=a f=1 1\n", 2, 3),
        # The same names inside a string value (lines 1-3) are no point at all.
        ('x s="\nm,t=a f=1 1\n" 1\nm f=1 1\nm f=2i 2\nm,t=a f=1 1\n', 4, 5),
    ],
)
def test_a_column_is_first_used_where_the_file_first_uses_it(
    text: str, as_float: int, as_integer: int
) -> None:
    assert_same_rows("f.lp", text.encode())
    table = chunk_table("f.lp", text.encode(), "ns", INGEST_NS).to_pylist()
    first = {
        (r["column_name"], r["column_type"]): r["position"]
        for r in table
        if r["row_kind"] == "column"
    }
    assert (first[("f", "float")], first[("f", "integer")]) == (as_float, as_integer)


def test_a_string_over_several_lines_takes_plain_looking_lines_with_it() -> None:
    text = 'm v=1 1\nm s="first\nm v=2 2\nlast" 3\nm v=4 4\n'
    assert plain_lines_read(text.encode()) == 2
    assert_same_rows("f.lp", text.encode())


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("f.lp", b"m v=1 1\n\xff\xfe v=2 2\n"),  # not UTF-8: the exact reader alone
        ("f.lp.gz", b"not gzip"),
        ("f.csv", b"time,v\n1,2\n"),
        ("f_ms_us.lp", b"m v=1 1\n"),  # two precisions in the name
        ("f_ms.lp", b"m v=1 1\nm v=1 9223372036854776\n"),  # precision from the name
        ("f.lp", b""),
        ("f.lp", b"\n\n"),
    ],
)
def test_files_the_vectorized_reader_does_not_take_give_the_same_rows(
    name: str, content: bytes
) -> None:
    assert_same_rows(name, content)


def test_split_lines_counts_lines_as_the_exact_reader_does() -> None:
    for text, count in (("", 0), ("a", 1), ("a\n", 1), ("a\n\n", 2), ("a\nb", 2), ("\n", 1)):
        lines = split_lines(text.encode())
        assert lines.count == count
        assert lines.lines.to_pylist() == text.split("\n")[:count]


def test_names_are_checked_once_per_distinct_set() -> None:
    asked: list[str] = []

    def check(measurement: str, tags: tuple[str, ...], fields: tuple[str, ...]) -> str | None:
        asked.append(measurement)
        return validate_names(measurement, tags, fields)

    content = "".join(f"cpu,host=h{i % 3} v={i} {i}\n" for i in range(300)).encode()
    plain, read_here = read_plain_lines(split_lines(content), "ns", check)
    assert read_here.all() and len(plain.line_index) == 300
    assert asked == ["cpu"]


def test_random_feed_of_many_shapes() -> None:
    """A larger file mixing every kind of line, seeded for reproducibility."""
    generator = random.Random(7)
    pieces = [
        "cpu,host=h{0} usage={0}.5,n={0}i {0}",
        "cpu,host=h{0} usage={0}.5,n={0}i",
        'log,host=h{0} msg="hello {0}" {0}',
        "bad line {0}",
        "# comment {0}",
        "",
        "mem ok=t,free={0}u {0}",
        "w\\ x v={0} {0}",
    ]
    text = "\n".join(generator.choice(pieces).format(i) for i in range(2000)) + "\n"
    assert_same_rows("feed.lp", text.encode())


def test_the_bundled_sample_files_give_the_same_rows() -> None:
    landing = Path(__file__).resolve().parents[2] / "seeds" / "sample_landing"
    for path in sorted(landing.iterdir()):
        assert_same_rows(path.name, path.read_bytes())
