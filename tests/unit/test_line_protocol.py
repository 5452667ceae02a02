"""Line protocol parser: grammar, errors, line tracking and round trips."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from python_udfs.line_protocol import (
    EncodeError,
    LineProtocolError,
    Point,
    _parse_plain,
    default_time,
    format_line,
    iter_lines,
    parse_line,
    scale_timestamp,
)


def test_full_line() -> None:
    point = parse_line(
        'h2o,location=coyote\\ creek,river=a\\,b level=8.5,ok=t,n=-3i,u=7u,s="x\\"y" 42'
    )
    assert point.measurement == "h2o"
    assert point.tags == {"location": "coyote creek", "river": "a,b"}
    assert point.fields == {"level": 8.5, "ok": True, "n": -3, "u": 7, "s": 'x"y'}
    assert point.field_types == {
        "level": "float",
        "ok": "boolean",
        "n": "integer",
        "u": "unsigned",
        "s": "string",
    }
    assert point.time_ns == 42


def test_no_timestamp_leaves_time_unset() -> None:
    assert parse_line("m v=1").time_ns is None


@pytest.mark.parametrize(
    ("precision", "raw", "expected"),
    [("ns", 5, 5), ("us", 5, 5_000), ("ms", 5, 5_000_000), ("s", -5, -5_000_000_000)],
)
def test_precision_scales_to_nanoseconds(precision: str, raw: int, expected: int) -> None:
    assert parse_line(f"m v=1 {raw}", precision).time_ns == expected


def test_timestamp_that_overflows_after_scaling_is_rejected() -> None:
    with pytest.raises(LineProtocolError, match="timestamp out of range"):
        parse_line("m v=1 9223372036854775", "s")
    assert parse_line("m v=1 9223372036", "s").time_ns == 9_223_372_036_000_000_000


def test_unknown_precision() -> None:
    with pytest.raises(ValueError, match="unknown precision 'ps'"):
        parse_line("m v=1", "ps")


def test_default_time_is_truncated_to_the_precision() -> None:
    assert default_time(1_234_567_891, "ms") == 1_234_000_000
    assert default_time(1_234_567_891, "ns") == 1_234_567_891


@pytest.mark.parametrize(
    ("line", "column", "reason"),
    [
        ("m", 2, "missing fields"),
        ("m,t=1", 6, "missing fields"),
        ("m v=", 5, "missing value for field 'v'"),
        ("m v=NaN", 5, "unrecognized value 'NaN'"),
        ("m v=1.5i", 5, "invalid integer"),
        ("m v=-1u", 5, "invalid unsigned integer"),
        ("m v=9223372036854775808i", 5, "out of range for int64"),
        ("m v=1e400", 5, "out of range for a 64-bit float"),
        ('m v="abc', 5, "unterminated string"),
        ('m v="a"b', 8, "after string field"),
        ("m,t= v=1", 5, "missing value for tag 't'"),
        ("m,t=1,t=2 v=1", 7, "duplicate tag key 't'"),
        ("m v=1 12x", 7, "invalid timestamp '12x'"),
        ("m v=1 1 2", 9, "unexpected text after the timestamp"),
        ("\tm v=1", 1, "start of measurement"),
        ("m,=x v=1", 3, "start of tag key"),
        ("m =1", 3, "start of field key"),
    ],
)
def test_errors_name_column_and_reason(line: str, column: int, reason: str) -> None:
    with pytest.raises(LineProtocolError) as caught:
        parse_line(line)
    assert reason in caught.value.reason
    assert caught.value.column == column
    assert str(caught.value).startswith(f"column {column}: ")


def test_invalid_utf8_is_rejected_with_its_byte() -> None:
    text = b"m,t=caf\xe9 v=1".decode("utf-8", errors="surrogateescape")
    with pytest.raises(LineProtocolError, match="not valid UTF-8 \\(byte 0xe9\\)") as caught:
        parse_line(text)
    assert caught.value.column == 8


def test_blank_and_comment_lines_are_not_points() -> None:
    for line in ("", "   ", "# note"):
        with pytest.raises(LineProtocolError):
            parse_line(line)


def test_iter_lines_numbers_physical_lines_and_keeps_going() -> None:
    text = 'a v=1 1\r\n\n# c\nbad line\n  b v="x\ny" 2\nc v=3 3'
    results = list(iter_lines(text))
    assert [(n, type(r).__name__) for n, _, r in results] == [
        (1, "Point"),
        (2, "NoneType"),
        (3, "NoneType"),
        (4, "LineProtocolError"),
        (5, "Point"),
        (7, "Point"),
    ]
    assert results[0][1] == "a v=1 1"
    assert results[3][1] == "bad line"
    assert results[4][1] == '  b v="x\ny" 2'
    assert results[4][2].fields == {"v": "x\ny"}  # type: ignore[union-attr]


def test_stray_quote_rejects_only_its_own_line() -> None:
    text = 'a v="oops\nb v=2 2\nc v=3 3'
    results = [(n, r) for n, _, r in iter_lines(text)]
    assert isinstance(results[0][1], LineProtocolError)
    assert [(n, r.measurement) for n, r in results[1:]] == [(2, "b"), (3, "c")]  # type: ignore[union-attr]


def test_invalid_utf8_inside_multiline_string_is_rejected() -> None:
    text = b'a v="x\n\xff" 1\nb v=1 2'.decode("utf-8", errors="surrogateescape")
    results = list(iter_lines(text))
    assert isinstance(results[0][2], LineProtocolError)
    assert isinstance(results[-1][2], Point) and results[-1][0] == 3


def test_repeated_field_keeps_last_value() -> None:
    point = parse_line("m v=1,v=2i")
    assert point.fields == {"v": 2}
    assert point.field_types == {"v": "integer"}


def test_scale_timestamp_bounds() -> None:
    assert scale_timestamp(-(2**63), "ns") == -(2**63)
    with pytest.raises(ValueError):
        scale_timestamp(2**63, "ns")


# --- round trips --------------------------------------------------------------------------------

_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from("\\,= "),
    min_size=1,
    max_size=12,
).filter(lambda s: not s.endswith("\\"))
_measurement = _text.filter(lambda s: not s.startswith(("#", " ")))
_value = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(lambda v: (v, "float")),
    st.integers(-(2**63), 2**63 - 1).map(lambda v: (v, "integer")),
    st.integers(0, 2**64 - 1).map(lambda v: (v, "unsigned")),
    st.booleans().map(lambda v: (v, "boolean")),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12).map(
        lambda v: (v, "string")
    ),
)


@st.composite
def points(draw: st.DrawFn) -> Point:
    tags = draw(st.dictionaries(_text, _text, max_size=4))
    typed = draw(st.dictionaries(_text, _value, min_size=1, max_size=4))
    time_ns = draw(st.none() | st.integers(-(2**63), 2**63 - 1))
    return Point(
        measurement=draw(_measurement),
        tags=tags,
        fields={k: v for k, (v, _) in typed.items()},
        time_ns=time_ns,
        field_types={k: t for k, (_, t) in typed.items()},
    )


def _same(a: Point, b: Point) -> bool:
    def norm(p: Point) -> tuple[object, ...]:
        fields = {
            k: ("nan" if isinstance(v, float) and math.isnan(v) else v) for k, v in p.fields.items()
        }
        return p.measurement, p.tags, fields, p.field_types, p.time_ns

    return norm(a) == norm(b)


@settings(max_examples=300, deadline=None)
@given(points())
def test_format_then_parse_is_identity(point: Point) -> None:
    line = format_line(point)
    assert _same(parse_line(line), point), line


@settings(max_examples=200, deadline=None)
@given(st.lists(points(), min_size=1, max_size=5))
def test_iter_lines_reads_back_a_file_of_formatted_points(batch: list[Point]) -> None:
    text = "\n".join(format_line(p) for p in batch) + "\n"
    parsed = [r for _, _, r in iter_lines(text) if r is not None]
    assert len(parsed) == len(batch)
    assert all(isinstance(r, Point) and _same(r, p) for r, p in zip(parsed, batch, strict=True))


@given(st.text(max_size=40))
def test_parser_never_crashes(text: str) -> None:
    for _, _, result in iter_lines(text):
        assert result is None or isinstance(result, Point | LineProtocolError)


def test_format_refuses_what_cannot_round_trip() -> None:
    with pytest.raises(EncodeError):
        format_line(Point("#m", {}, {"v": 1.0}, None, {"v": "float"}))
    with pytest.raises(EncodeError):
        format_line(Point("m", {"k": "a\\"}, {"v": 1.0}, None, {"v": "float"}))
    with pytest.raises(EncodeError):
        format_line(Point("m", {}, {}, None, {}))


# --- the fast path for plain lines --------------------------------------------------------------

_lp_chars = st.text(alphabet='ab=, 1.5i-uTtf#\\"\t', min_size=1, max_size=30)


@settings(max_examples=1000, deadline=None)
@given(_lp_chars)
def test_fast_path_accepts_only_what_the_scanner_accepts_and_agrees(line: str) -> None:
    quick = _parse_plain(line, "ns")
    try:
        full: Point | None = parse_line(line)
    except LineProtocolError:
        full = None
    if quick is not None:
        assert full is not None and _same(quick, full), line


@settings(max_examples=300, deadline=None)
@given(points())
def test_fast_path_reads_formatted_points(point: Point) -> None:
    line = format_line(point)
    quick = _parse_plain(line, "ns")
    if quick is not None:
        assert _same(quick, point)


def test_fast_path_handles_the_common_line_and_defers_the_rest() -> None:
    line = "cpu,host=a,region=b usage=1.5,n=-2i,u=3u,ok=t 1700000000000000000"
    quick = _parse_plain(line, "ns")
    assert quick is not None and _same(quick, parse_line(line))
    assert quick.field_types == {"usage": "float", "n": "integer", "u": "unsigned", "ok": "boolean"}
    for other in (
        line.replace("cpu", "c\\ pu"),  # an escape
        'cpu s="x" 1',  # a string field
        "cpu v=1  1",  # two spaces
        "cpu v=1 1 ",  # a trailing space
        "cpu v=NaN 1",  # an error: the scanner explains it
        "cpu v=1 9223372036854775807",  # fine in ns, out of range in ms
    ):
        assert _parse_plain(other, "ms") is None, other
