"""InfluxDB line protocol: a strict parser and an encoder.

    measurement[,tag=value...] field=value[,field=value...] [timestamp]

The grammar follows the reference decoder (``influxdata/line-protocol`` v2):

* a backslash escapes the characters that would otherwise end the token
  (``,`` and space in a measurement; ``,``, ``=`` and space in tag keys, tag
  values and field keys); before any other character it is a literal backslash;
* in a string field value ``\\"`` is a quote and ``\\\\`` a backslash; a string may
  span physical lines;
* field values are floats (``1``, ``-1.5e3``, ``.5``), integers (``1i``),
  unsigned integers (``1u``), booleans (``t``, ``true``, ``True``, ``TRUE`` and the
  ``f`` forms) or strings; NaN and infinities are not numbers here;
* the timestamp is a signed 64-bit integer in the given precision and must still
  fit in 64 bits once converted to nanoseconds;
* measurement names and keys must not contain ASCII control characters; a tag key
  may appear only once per line.

Leading spaces are skipped, a line whose first non-space character is ``#`` is a
comment, and blank lines are ignored. Every error names the column where the
problem was found.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

FieldValue = float | int | str | bool

PRECISION_FACTORS: dict[str, int] = {
    "ns": 1,
    "us": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
UINT64_MAX = 2**64 - 1

_CONTROL = r"\x00-\x1f\x7f"
_MEASUREMENT = re.compile(rf"(?:[^,\\ {_CONTROL}]|\\[, ]|\\)+")
_KEY = re.compile(rf"(?:[^,=\\ {_CONTROL}]|\\[,= ]|\\)+")
_TAG_VALUE = re.compile(r"(?:[^,=\\ \n\r]|\\[,= ]|\\)+")
_UNQUOTED_VALUE = re.compile(r"[^, \n\r]*")
_STRING_BODY = re.compile(r'(?:[^"\\]|\\.|\\$)*', re.DOTALL)
_SPACES = re.compile(r" +")
_TIMESTAMP = re.compile(r"-?[0-9]+")
_TIMESTAMP_TOKEN = re.compile(r"[^ \n\r]+")
_FLOAT = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_INTEGER = re.compile(r"-?[0-9]+")
_UNSIGNED = re.compile(r"[0-9]+")
_SURROGATE = re.compile(r"[\udc80-\udcff]")
_IDENT_UNESCAPE = re.compile(r"\\([,= ])")
_MEASUREMENT_UNESCAPE = re.compile(r"\\([, ])")
_STRING_UNESCAPE = re.compile(r'\\(["\\])')

_TRUE = frozenset({"t", "T", "true", "True", "TRUE"})
_FALSE = frozenset({"f", "F", "false", "False", "FALSE"})


class LineProtocolError(ValueError):
    """A line that is not valid line protocol; ``column`` is 1-based within its line."""

    def __init__(self, reason: str, column: int | None = None) -> None:
        self.reason = reason
        self.column = column
        super().__init__(reason if column is None else f"column {column}: {reason}")


@dataclass(frozen=True, slots=True)
class Point:
    """One parsed point. ``field_types`` maps each field to its line-protocol type:
    float, integer, unsigned, string or boolean (``int`` alone cannot tell the
    two integer types apart)."""

    measurement: str
    tags: dict[str, str]
    fields: dict[str, FieldValue]
    time_ns: int | None
    field_types: dict[str, str] = field(default_factory=dict)


def scale_timestamp(value: int, precision: str) -> int:
    """``value`` in ``precision`` as nanoseconds; ValueError when it leaves int64."""
    try:
        factor = PRECISION_FACTORS[precision]
    except KeyError:
        names = ", ".join(PRECISION_FACTORS)
        raise ValueError(f"unknown precision {precision!r}; use one of {names}") from None
    if not INT64_MIN <= value <= INT64_MAX:
        raise ValueError("timestamp out of range (must fit in a signed 64-bit integer)")
    scaled = value * factor
    if not INT64_MIN <= scaled <= INT64_MAX:
        raise ValueError(
            f"timestamp out of range: {value} {precision} does not fit in int64 nanoseconds"
        )
    return scaled


def default_time(ingest_ns: int, precision: str) -> int:
    """The timestamp given to a point without one: the ingest time truncated to the
    chunk's precision, as if the writer had sent it in that precision."""
    factor = PRECISION_FACTORS[precision]
    return ingest_ns - ingest_ns % factor


class _Scanner:
    """Parses one point of ``text`` starting at ``pos``; ``line_start`` is where the
    physical line begins (for column numbers)."""

    __slots__ = ("line_start", "pos", "precision", "text")

    def __init__(self, text: str, pos: int, line_start: int, precision: str) -> None:
        self.text = text
        self.pos = pos
        self.line_start = line_start
        self.precision = precision

    def fail(self, reason: str, pos: int | None = None) -> LineProtocolError:
        at = self.pos if pos is None else pos
        line_start = self.text.rfind("\n", 0, at) + 1 if at > self.line_start else self.line_start
        return LineProtocolError(reason, at - line_start + 1)

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def at_line_end(self) -> bool:
        char = self.peek()
        return char in ("", "\n") or (char == "\r" and self.text.startswith("\r\n", self.pos))

    def describe_here(self) -> str:
        char = self.peek()
        if char == "":
            return "end of line"
        if char == "\n":
            return "end of line"
        return repr(char)

    def token(self, pattern: re.Pattern[str]) -> str:
        match = pattern.match(self.text, self.pos)
        if match is None:
            return ""
        self.pos = match.end()
        return match.group()

    def point(self) -> Point:
        measurement = self.measurement()
        tags = self.tags()
        if self.peek() != " ":
            if self.at_line_end():
                raise self.fail("missing fields: a point needs at least one field")
            raise self.fail(f"unexpected {self.describe_here()} after the measurement and tags")
        self.token(_SPACES)
        if self.at_line_end():
            raise self.fail("missing fields: a point needs at least one field")
        fields, types = self.fields()
        time_ns = self.timestamp()
        return Point(measurement, tags, fields, time_ns, types)

    def measurement(self) -> str:
        start = self.pos
        raw = self.token(_MEASUREMENT)
        if not raw:
            raise self.fail(f"invalid character {self.describe_here()} at start of measurement")
        if raw.startswith("#"):
            raise self.fail("a measurement name cannot start with '#'", start)
        return _MEASUREMENT_UNESCAPE.sub(r"\1", raw)

    def tags(self) -> dict[str, str]:
        tags: dict[str, str] = {}
        while self.peek() == ",":
            self.pos += 1
            key_at = self.pos
            key = self.key("tag key")
            if self.peek() != "=":
                raise self.fail(f"expected '=' after tag key {key!r}, found {self.describe_here()}")
            self.pos += 1
            value_at = self.pos
            raw_value = self.token(_TAG_VALUE)
            if not raw_value:
                raise self.fail(f"missing value for tag {key!r}", value_at)
            if key in tags:
                raise self.fail(f"duplicate tag key {key!r}", key_at)
            tags[key] = _IDENT_UNESCAPE.sub(r"\1", raw_value)
        return tags

    def key(self, what: str) -> str:
        raw = self.token(_KEY)
        if not raw:
            if self.at_line_end():
                raise self.fail(f"expected a {what}, found end of line")
            raise self.fail(f"invalid character {self.describe_here()} at start of {what}")
        return _IDENT_UNESCAPE.sub(r"\1", raw)

    def fields(self) -> tuple[dict[str, FieldValue], dict[str, str]]:
        fields: dict[str, FieldValue] = {}
        types: dict[str, str] = {}
        while True:
            name = self.key("field key")
            if self.peek() != "=":
                raise self.fail(
                    f"expected '=' after field key {name!r}, found {self.describe_here()}"
                )
            self.pos += 1
            value, type_ = self.field_value(name)
            # A repeated field key: the last value on the line wins, as in InfluxDB.
            fields.pop(name, None)
            fields[name] = value
            types[name] = type_
            if self.peek() != ",":
                return fields, types
            self.pos += 1

    def field_value(self, name: str) -> tuple[FieldValue, str]:
        start = self.pos
        if self.peek() == '"':
            body = _STRING_BODY.match(self.text, start + 1)
            end = body.end() if body else start + 1
            if end >= len(self.text) or self.text[end] != '"':
                raise self.fail(f"unterminated string value for field {name!r}", start)
            self.pos = end + 1
            if not (self.peek() in (",", " ") or self.at_line_end()):
                raise self.fail(f"unexpected {self.describe_here()} after string field {name!r}")
            return _STRING_UNESCAPE.sub(r"\1", self.text[start + 1 : end]), "string"
        raw = self.token(_UNQUOTED_VALUE)
        if not raw:
            raise self.fail(f"missing value for field {name!r}", start)
        try:
            return _typed_value(raw)
        except ValueError as exc:
            raise self.fail(f"field {name!r}: {exc}", start) from None

    def timestamp(self) -> int | None:
        if self.peek() == " ":
            self.token(_SPACES)
        if self.at_line_end():
            return None
        start = self.pos
        raw = self.token(_TIMESTAMP_TOKEN)
        if _TIMESTAMP.fullmatch(raw) is None:
            raise self.fail(f"invalid timestamp {raw!r}: expected an integer", start)
        try:
            value = scale_timestamp(int(raw), self.precision)
        except ValueError as exc:
            raise self.fail(str(exc), start) from None
        if self.peek() == " ":
            self.token(_SPACES)
        if not self.at_line_end():
            raise self.fail(f"unexpected text after the timestamp: {self.describe_here()}")
        return value


def _typed_value(raw: str) -> tuple[FieldValue, str]:
    first = raw[0]
    if first in "-.0123456789":
        last = raw[-1]
        if last in "0123456789." and raw.isascii() and "_" not in raw:
            # The common float, without the grammar check: for ASCII text without
            # underscores that starts with a digit, '-' or '.', Python's float()
            # accepts exactly the grammar's floats, plus NaN and infinity spelt
            # with a '-', which the finiteness check turns away below.
            try:
                number = float(raw)
            except ValueError:
                pass
            else:
                if math.isfinite(number):
                    return number, "float"
        if raw.endswith("i"):
            if _INTEGER.fullmatch(raw[:-1]) is None:
                raise ValueError(f"invalid integer {raw!r}")
            value = int(raw[:-1])
            if not INT64_MIN <= value <= INT64_MAX:
                raise ValueError(f"integer {raw!r} is out of range for int64")
            return value, "integer"
        if raw.endswith("u"):
            if _UNSIGNED.fullmatch(raw[:-1]) is None:
                raise ValueError(f"invalid unsigned integer {raw!r}")
            value = int(raw[:-1])
            if value > UINT64_MAX:
                raise ValueError(f"unsigned integer {raw!r} is out of range for uint64")
            return value, "unsigned"
        if _FLOAT.fullmatch(raw) is None:
            raise ValueError(f"invalid number {raw!r}")
        number = float(raw)
        if math.isinf(number):
            raise ValueError(f"float {raw[:40]!r} is out of range for a 64-bit float")
        return number, "float"
    if raw in _TRUE:
        return True, "boolean"
    if raw in _FALSE:
        return False, "boolean"
    shown = raw if len(raw) <= 40 else raw[:40] + "..."
    raise ValueError(
        f"unrecognized value {shown!r} (expected a number, 1i, 1u, true/false or a quoted string)"
    )


def _check_precision(precision: str) -> None:
    if precision not in PRECISION_FACTORS:
        names = ", ".join(PRECISION_FACTORS)
        raise ValueError(f"unknown precision {precision!r}; use one of {names}")


def _check_utf8(text: str, line_start: int, end: int) -> None:
    bad = _SURROGATE.search(text, line_start, end)
    if bad is not None:
        byte = ord(bad.group()) - 0xDC00
        raise LineProtocolError(
            f"not valid UTF-8 (byte 0x{byte:02x})", bad.start() - line_start + 1
        )


_NEEDS_SCANNER = re.compile(r'[\\"\x00-\x1f\x7f\udc80-\udcff]|  ')


def _parse_plain(line: str, precision: str) -> Point | None:
    """A fast path for the common line: no escapes, no quotes, no control
    characters, single spaces, no repeated key. Returns the point only when the
    line is valid; None sends the line to the full scanner, which decides (and
    explains errors).
    """
    if _NEEDS_SCANNER.search(line) is not None:
        return None
    parts = line.split(" ")
    if len(parts) not in (2, 3):
        return None
    head = parts[0].split(",")
    measurement = head[0]
    if not measurement or measurement[0] == "#":
        return None
    try:
        # dict() refuses an item that is not exactly one key=value pair.
        tags = dict(item.split("=") for item in head[1:])
        pairs = [item.split("=") for item in parts[1].split(",")]
        fields: dict[str, FieldValue] = {}
        types: dict[str, str] = {}
        for name, raw in pairs:
            if not raw:
                return None
            fields[name], types[name] = _typed_value(raw)
    except ValueError:
        return None
    if (
        len(tags) != len(head) - 1
        or len(fields) != len(pairs)
        or "" in tags
        or "" in fields
        or "" in tags.values()
    ):
        return None
    time_ns = None
    if len(parts) == 3:
        if _TIMESTAMP.fullmatch(parts[2]) is None:
            return None
        try:
            time_ns = scale_timestamp(int(parts[2]), precision)
        except ValueError:
            return None
    return Point(measurement, tags, fields, time_ns, types)


def parse_line(line: str, precision: str = "ns") -> Point:
    """Parse one line of line protocol (a trailing newline is allowed).

    Raises LineProtocolError for anything that is not exactly one valid point,
    including blank and comment lines.
    """
    _check_precision(precision)
    end = len(line)
    if line.endswith("\n"):
        end -= 2 if line.endswith("\r\n") else 1
    _check_utf8(line, 0, end)
    pos = len(line) - len(line.lstrip(" "))
    if pos >= end:
        raise LineProtocolError("empty line: no point", 1)
    if line[pos] == "#":
        raise LineProtocolError("comment line: no point", pos + 1)
    scanner = _Scanner(line[:end], pos, 0, precision)
    point = scanner.point()
    if scanner.pos != end:
        raise scanner.fail("more than one line: use iter_lines for multi-line text")
    return point


def iter_lines(
    text: str, precision: str = "ns", start: int = 0, first_line: int = 1
) -> Iterator[tuple[int, str, Point | LineProtocolError | None]]:
    """Parse every line of ``text``.

    Yields ``(line_number, raw_text, result)`` in order: ``result`` is a Point, a
    LineProtocolError (the line is rejected; parsing continues on the next line) or
    None for a blank or comment line. ``line_number`` is the 1-based physical line
    where the point starts; a point whose string value contains newlines covers
    several physical lines and is yielded once. ``start`` (a line's first
    character) and ``first_line`` (its number) begin the reading at that line.
    """
    _check_precision(precision)
    pos, line_no, size = start, first_line, len(text)
    while pos < size:
        start = pos
        newline = text.find("\n", pos)
        line_end = size if newline < 0 else newline
        content_end = line_end - 1 if line_end > start and text[line_end - 1] == "\r" else line_end
        first = pos
        while first < content_end and text[first] == " ":
            first += 1
        if first >= content_end or text[first] == "#":
            yield line_no, text[start:content_end], None
            pos, line_no = line_end + 1, line_no + 1
            continue
        line = text[first:content_end]
        quick = _parse_plain(line, precision)
        if quick is not None:
            yield line_no, text[start:content_end], quick
            pos, line_no = line_end + 1, line_no + 1
            continue
        scanner = _Scanner(text, first, start, precision)
        try:
            _check_utf8(text, start, content_end)
            point = scanner.point()
            _check_utf8(text, start, scanner.pos)
        except LineProtocolError as error:
            # Resume after the line end that follows the failure. A failure on the
            # point's first physical line resumes on the next physical line, so an
            # unbalanced quote cannot swallow the rest of the file.
            failed_at = max(scanner.pos, content_end)
            resume = text.find("\n", failed_at)
            resume = size if resume < 0 else resume
            raw = text[start:resume].removesuffix("\r")
            yield line_no, raw, error
            line_no += raw.count("\n") + 1
            pos = resume + 1
            continue
        end = scanner.pos
        raw = text[start:end]
        yield line_no, raw, point
        line_no += raw.count("\n") + 1
        pos = end + 1 if end < size and text[end] == "\n" else (end + 2 if end < size else size)


class EncodeError(ValueError):
    """A point that line protocol cannot represent."""


def _encode_ident(value: str, chars: str, what: str) -> str:
    if value == "":
        raise EncodeError(f"empty {what}")
    if re.search(f"[{_CONTROL}]", value) and what != "tag value":
        raise EncodeError(f"{what} {value!r} contains a control character")
    if "\n" in value or "\r" in value:
        raise EncodeError(f"{what} {value!r} contains a line break")
    if value.endswith("\\"):
        # `\` right before a separator would read as an escape.
        raise EncodeError(f"{what} {value!r} ends with a backslash")
    # A literal backslash is written as is: before an escaped separator it reads
    # back as itself because `\\` is not an escape sequence.
    return "".join("\\" + char if char in chars else char for char in value)


def _encode_value(value: FieldValue, type_: str) -> str:
    if type_ == "boolean":
        return "true" if value else "false"
    if type_ == "integer":
        return f"{int(value)}i"
    if type_ == "unsigned":
        return f"{int(value)}u"
    if type_ == "string":
        escaped = str(value).replace("\\", "\\\\").replace('"', '\\"')
        return f'"{escaped}"'
    number = float(value)
    if not math.isfinite(number):
        raise EncodeError(f"float {number} cannot be written in line protocol")
    return repr(number)


def _default_type(value: FieldValue) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, str):
        return "string"
    return "float"


def format_line(point: Point) -> str:
    """Encode ``point`` as one line of line protocol (nanosecond timestamp).

    ``parse_line(format_line(p)) == p`` for every point line protocol can hold;
    EncodeError otherwise (for example a measurement starting with ``#``).
    """
    if point.measurement.startswith("#") or point.measurement.startswith(" "):
        raise EncodeError(f"measurement {point.measurement!r} cannot start with '#' or a space")
    if not point.fields:
        raise EncodeError("a point needs at least one field")
    head = [_encode_ident(point.measurement, ", ", "measurement")]
    for key, value in point.tags.items():
        head.append(
            _encode_ident(key, ",= ", "tag key") + "=" + _encode_ident(value, ",= ", "tag value")
        )
    fields = []
    for key, value in point.fields.items():
        type_ = point.field_types.get(key) or _default_type(value)
        fields.append(_encode_ident(key, ",= ", "field key") + "=" + _encode_value(value, type_))
    line = ",".join(head) + " " + ",".join(fields)
    if point.time_ns is not None:
        line += f" {point.time_ns}"
    return line
