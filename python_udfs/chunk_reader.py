"""Turn one landed file (its raw bytes) into the records of one chunk.

A chunk is one input file. Each data line (or CSV/Parquet row) becomes either a
point or a reject; nothing is dropped silently. The reader never looks at data
ingested before: whether a field's type conflicts with earlier chunks is decided
later, from the ``column`` records this reader emits (first use of each
column/type pair in the chunk).

Supported formats, chosen by file name:

* ``*.lp`` / ``*.lp.gz`` / ``*.txt`` — InfluxDB line protocol;
* ``*.csv`` / ``*.csv.gz`` — a header row, then one point per row (see
  :func:`_csv_points`);
* ``*.parquet`` — one point per row, same column conventions as CSV.
"""

from __future__ import annotations

import csv
import functools
import gzip
import io
import math
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal

from python_udfs.line_protocol import (
    INT64_MAX,
    INT64_MIN,
    UINT64_MAX,
    LineProtocolError,
    Point,
    default_time,
    iter_lines,
    scale_timestamp,
)

CHUNK_PRECISIONS = ("ns", "us", "ms", "s")
RESERVED_COLUMNS = frozenset({"time", "time_ns"})
MAX_TEXT = 4_096  # rejected line text kept in the rejects table (characters)


class ChunkFormatError(ValueError):
    """The file as a whole cannot be read (unknown format, corrupt compression)."""


@dataclass(frozen=True, slots=True)
class Reject:
    """A line that could not become a point."""

    position: int
    text: str
    reason: str


@dataclass(frozen=True, slots=True)
class Record:
    """One accepted point at its position in the chunk (1-based line or row)."""

    position: int
    point: Point
    time_from_ingest: bool = False


def detect_format(file_name: str) -> str:
    """Return ``lp``, ``csv`` or ``parquet`` from a file name, or raise."""
    name = file_name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    for suffix, fmt in ((".lp", "lp"), (".txt", "lp"), (".csv", "csv"), (".parquet", "parquet")):
        if name.endswith(suffix):
            return fmt
    raise ChunkFormatError(
        f"unsupported file type {file_name!r}: expected .lp, .lp.gz, .csv, .csv.gz or .parquet"
    )


def decompress(file_name: str, content: bytes) -> bytes:
    """Gunzip ``content`` when the name ends in ``.gz``; a truncated or corrupt
    archive raises :class:`ChunkFormatError` naming the problem."""
    if not file_name.lower().endswith(".gz"):
        return content
    try:
        return gzip.decompress(content)
    except (OSError, EOFError, zlib.error) as exc:
        raise ChunkFormatError(f"cannot decompress gzip file: {exc}") from exc


def printable(text: str) -> str:
    """Make text safe to store: undecodable bytes (surrogate escapes) become
    ``\\xNN``, and very long lines are shortened with a marker."""
    safe = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    if len(safe) > MAX_TEXT:
        return safe[:MAX_TEXT] + f"... [{len(safe) - MAX_TEXT} more characters]"
    return safe


def validate_point(point: Point) -> str | None:
    """Checks that hold for every format; returns a reason or None."""
    reason = _validate_names(tuple(point.tags), tuple(point.fields))
    if reason is not None:
        return reason
    for name, value in point.fields.items():
        if isinstance(value, float) and not math.isfinite(value):
            return f"field {name!r} has a non-finite value ({value})"
    return None


@functools.lru_cache(maxsize=4096)
def _validate_names(tags: tuple[str, ...], fields: tuple[str, ...]) -> str | None:
    """The checks on a point's column names (most lines repeat the line before)."""
    for name in (*tags, *fields):
        if name in RESERVED_COLUMNS:
            return f"{name!r} is a reserved column name and cannot be a tag or field"
    both = set(tags) & set(fields)
    if both:
        return f"{sorted(both)[0]!r} is used as both a tag and a field"
    return None


@dataclass(slots=True)
class ChunkStats:
    """Counts the reader fills in while a chunk is read."""

    lines_read: int = 0
    points: int = 0
    rejects: int = 0


def read_chunk(
    file_name: str,
    content: bytes,
    precision: str,
    default_time_ns: int,
    stats: ChunkStats | None = None,
) -> Iterator[Record | Reject]:
    """Yield the records of one file in order.

    Lines without a timestamp get ``default_time_ns`` (the chunk's ingest time)
    truncated to ``precision``. ``stats``, when given, counts the physical lines
    (or Parquet rows) read and the points and rejects yielded."""
    stats = stats if stats is not None else ChunkStats()
    if precision not in CHUNK_PRECISIONS:
        raise ChunkFormatError(f"unknown precision {precision!r}; use one of ns, us, ms, s")
    fallback_ns = default_time(default_time_ns, precision)
    fmt = detect_format(file_name)
    rows: Iterator[Record | Reject]
    if fmt == "parquet":
        rows = _parquet_points(content, precision, file_name, stats)
    else:
        text = decompress(file_name, content).decode("utf-8", "surrogateescape")
        stats.lines_read = text.count("\n") + (0 if not text or text.endswith("\n") else 1)
        if fmt == "lp":
            rows = _lp_points(text, precision)
        else:
            rows = _csv_points(text, precision, file_name)
    for item in rows:
        if isinstance(item, Record):
            reason = validate_point(item.point)
            if reason is not None:
                item = Reject(item.position, printable(_describe(item.point)), reason)
            elif item.point.time_ns is None:
                item = Record(item.position, _with_time(item.point, fallback_ns), True)
        if isinstance(item, Reject):
            stats.rejects += 1
        else:
            stats.points += 1
        yield item


def _with_time(point: Point, time_ns: int) -> Point:
    return Point(
        measurement=point.measurement,
        tags=point.tags,
        fields=point.fields,
        time_ns=time_ns,
        field_types=point.field_types,
    )


def _describe(point: Point) -> str:
    tags = ",".join(f"{k}={v}" for k, v in point.tags.items())
    fields = ",".join(f"{k}={v!r}" for k, v in point.fields.items())
    head = point.measurement + ("," + tags if tags else "")
    return f"{head} {fields} {'' if point.time_ns is None else point.time_ns}".rstrip()


def _lp_points(text: str, precision: str) -> Iterator[Record | Reject]:
    for line_no, line, result in iter_lines(text, precision):
        if result is None:
            continue
        if isinstance(result, LineProtocolError):
            yield Reject(line_no, printable(line), str(result))
        else:
            yield Record(line_no, result)


# --- CSV and Parquet -------------------------------------------------------------------------
#
# Column conventions (the same for both):
#   measurement            the measurement (else the file name up to its first dot)
#   time                   integer timestamp in the chunk's precision (Parquet: also a
#                          timestamp column); empty = the chunk's ingest time
#   tag:<name>             a tag; an empty cell means the point does not carry it
#   field:<name> or <name> a field; an empty cell means the point does not write it
# A field column may name its type, `field:<name>:<type>` with type one of float, integer,
# unsigned, string, boolean. A CSV column without a type is typed from all its cells in the
# file (see _infer_type); annotate types when a column must not depend on the data.

_TYPE_NAMES = ("float", "integer", "unsigned", "string", "boolean")


@dataclass(frozen=True, slots=True)
class _Column:
    index: int
    role: str  # measurement | time | tag | field
    name: str
    type: str | None = None


def _parse_header(header: list[str]) -> list[_Column]:
    columns: list[_Column] = []
    for index, raw in enumerate(header):
        name = raw.strip()
        if name == "measurement":
            columns.append(_Column(index, "measurement", name))
        elif name == "time":
            columns.append(_Column(index, "time", name))
        elif name.startswith("tag:"):
            columns.append(_Column(index, "tag", name[4:]))
        else:
            base = name[6:] if name.startswith("field:") else name
            type_ = None
            head, sep, tail = base.rpartition(":")
            if sep and tail in _TYPE_NAMES and name.startswith("field:"):
                base, type_ = head, tail
            columns.append(_Column(index, "field", base, type_))
        if not columns[-1].name:
            raise ChunkFormatError(f"column {index + 1} of the header has an empty name")
    names = [(c.role, c.name) for c in columns]
    if len(set(names)) != len(names):
        raise ChunkFormatError("the header names the same column twice")
    return columns


def _csv_value(cell: str, type_: str | None) -> tuple[object, str]:
    if type_ is None:
        low = cell.lower()
        if low in ("true", "false"):
            return low == "true", "boolean"
        try:
            value = float(cell)
        except ValueError:
            return cell, "string"
        return value, "float"
    if type_ == "float":
        return float(cell), type_
    if type_ in ("integer", "unsigned"):
        value = int(cell)
        low, high = (INT64_MIN, INT64_MAX) if type_ == "integer" else (0, UINT64_MAX)
        if not low <= value <= high:
            raise ValueError(f"{cell} is out of range for {type_}")
        return value, type_
    if type_ == "boolean":
        low = cell.lower()
        if low not in ("true", "false", "t", "f"):
            raise ValueError(f"{cell!r} is not a boolean")
        return low in ("true", "t"), type_
    return cell, "string"


def _row_point(
    cells: list[object], columns: list[_Column], default_measurement: str, precision: str
) -> Point:
    measurement = default_measurement
    tags: dict[str, str] = {}
    fields: dict[str, object] = {}
    types: dict[str, str] = {}
    time_ns: int | None = None
    for column in columns:
        cell = cells[column.index] if column.index < len(cells) else None
        if cell is None or cell == "":
            continue
        if column.role == "measurement":
            measurement = str(cell)
        elif column.role == "time":
            time_ns = _cell_time(cell, precision)
        elif column.role == "tag":
            tags[column.name] = str(cell)
        else:
            try:
                value, type_ = _typed_cell(cell, column.type)
            except ValueError as exc:
                raise ValueError(f"field {column.name!r}: {exc}") from exc
            fields[column.name] = value
            types[column.name] = type_
    if not fields:
        raise ValueError("the row has no field values")
    return Point(
        measurement=measurement, tags=tags, fields=fields, time_ns=time_ns, field_types=types
    )


def _cell_time(cell: object, precision: str) -> int:
    if hasattr(cell, "value") and hasattr(cell, "unit"):  # pyarrow-like timestamp scalar
        raise ValueError("unexpected timestamp object")
    if isinstance(cell, str):
        try:
            return scale_timestamp(int(cell.strip()), precision)
        except ValueError as exc:
            raise ValueError(f"time {cell!r} is not an integer timestamp") from exc
    if isinstance(cell, bool) or not isinstance(cell, int):
        raise ValueError(f"time {cell!r} is not an integer timestamp")
    return scale_timestamp(cell, precision)


def _typed_cell(cell: object, type_: str | None) -> tuple[object, str]:
    if isinstance(cell, str):
        return _csv_value(cell, type_)
    if isinstance(cell, bool):
        return cell, "boolean"
    if isinstance(cell, int):
        if type_ == "unsigned" or cell > INT64_MAX:
            if not 0 <= cell <= UINT64_MAX:
                raise ValueError(f"{cell} is out of range for unsigned")
            return cell, "unsigned"
        return cell, "integer"
    if isinstance(cell, float):
        return cell, "float"
    if isinstance(cell, Decimal):
        return float(cell), "float"
    return str(cell), "string"


def _default_measurement(file_name: str) -> str:
    return file_name.rsplit("/", 1)[-1].split(".", 1)[0]


def _infer_type(cells: list[str]) -> str:
    """Type of an unannotated CSV field column, from all its non-empty cells in
    the file: boolean if all are true/false, float if all are numbers, else string."""
    values = [c for c in cells if c != ""]
    if values and all(v.lower() in ("true", "false") for v in values):
        return "boolean"
    try:
        for value in values:
            float(value)
    except ValueError:
        return "string"
    return "float"


def _csv_points(text: str, precision: str, file_name: str) -> Iterator[Record | Reject]:
    reader = csv.reader(text.splitlines(keepends=True))
    try:
        header = next(reader)
    except StopIteration:
        return
    columns = _parse_header(header)
    rows = [(reader.line_num, cells) for cells in reader]
    data_rows = [cells for _, cells in rows if any(cell.strip() for cell in cells)]
    typed = []
    for column in columns:
        if column.role == "field" and column.type is None:
            cells = [r[column.index] if column.index < len(r) else "" for r in data_rows]
            column = _Column(column.index, column.role, column.name, _infer_type(cells))
        typed.append(column)
    default = _default_measurement(file_name)
    for line_no, cells in rows:
        if not any(cell.strip() for cell in cells):
            continue
        raw = printable(",".join(cells))
        if any("\udc80" <= ch <= "\udcff" for cell in cells for ch in cell):
            yield Reject(line_no, raw, "the line is not valid UTF-8")
            continue
        try:
            point = _row_point(list(cells), typed, default, precision)
        except ValueError as exc:
            yield Reject(line_no, raw, str(exc))
            continue
        yield Record(line_no, point)


def _parquet_points(
    content: bytes, precision: str, file_name: str, stats: ChunkStats
) -> Iterator[Record | Reject]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(io.BytesIO(content))
    except (pa.ArrowException, OSError) as exc:
        raise ChunkFormatError(f"cannot read Parquet file: {exc}") from exc
    columns = _parse_header(table.column_names)
    time_column = next((c for c in columns if c.role == "time"), None)
    if time_column is not None and pa.types.is_timestamp(
        table.schema.field(time_column.index).type
    ):
        # Timestamps are read as integer nanoseconds since the epoch, exact.
        as_ns = table.column(time_column.index).cast(pa.timestamp("ns")).cast(pa.int64())
        table = table.set_column(time_column.index, "time", as_ns)
        precision_for_time = "ns"
    else:
        precision_for_time = precision
    stats.lines_read = table.num_rows
    position = 0
    for batch in table.to_batches():
        for row in batch.to_pylist():
            position += 1
            cells = list(row.values())
            try:
                point = _row_point(
                    cells, columns, _default_measurement(file_name), precision_for_time
                )
            except ValueError as exc:
                yield Reject(position, printable(str(row)), str(exc))
                continue
            yield Record(position, point)
