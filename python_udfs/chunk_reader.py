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
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal

from python_udfs.column_types import FIELD_TYPES
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
# Every measurement table has the columns `time`, `time_ns` and `series_hash`
# (decision 0026), and Iceberg names its day partition field `time_day`, which
# no column may share.
RESERVED_COLUMNS = frozenset({"time", "time_ns", "series_hash", "time_day"})
# Spark's name for a partition without a value: a measurement of this name
# could not be told from none in the raw log's partition folders (decision 0021).
RESERVED_MEASUREMENT = "__HIVE_DEFAULT_PARTITION__"
# Iceberg's metadata columns: a table column of one of these names breaks every
# row-level merge and delete of its table (Iceberg refuses to scan it).
ICEBERG_METADATA_COLUMNS = frozenset(
    {
        "_change_ordinal",
        "_change_type",
        "_commit_snapshot_id",
        "_deleted",
        "_file",
        "_last_updated_sequence_number",
        "_partition",
        "_pos",
        "_row_id",
        "_spec_id",
    }
)
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


# Names become SQL identifiers (tags and fields: columns of the measurement table,
# kept in the metastore, whose column names are at most 767 characters and
# compared without case) and partition folders (measurements: the raw log is
# partitioned by measurement, and a folder name is at most 255 bytes).
MAX_KEY_CHARS = 255
MAX_MEASUREMENT_FOLDER_CHARS = 240  # "measurement=" + this fits in 255 bytes
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_FOLDER_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-*_ ")


def folder_name_chars(name: str) -> int:
    """Characters of ``name`` as a partition folder name: percent-encoded UTF-8
    (Java's URLEncoder, which Iceberg uses), so every byte of a character other
    than a letter, digit, space or ``.-*_`` takes three."""
    return sum(1 if ch in _FOLDER_SAFE else 3 * len(ch.encode("utf-8")) for ch in name)


def _shown(name: str) -> str:
    text = printable(name)
    return repr(text if len(text) <= 60 else text[:60] + "...")


def name_problem(name: str, what: str) -> str | None:
    """Why ``name`` (a measurement, tag key or field key) cannot be stored, or None."""
    if not name:
        return f"empty {what}"
    if _SURROGATE.search(name):
        return f"{what} {_shown(name)} is not valid UTF-8"
    control = _CONTROL.search(name)
    if control:
        return f"{what} {_shown(name)} contains a control character (0x{ord(control.group()):02x})"
    if what == "measurement name":
        size = folder_name_chars(name)
        if size > MAX_MEASUREMENT_FOLDER_CHARS:
            return (
                f"{what} {_shown(name)} is too long: {size} characters as a folder name "
                f"(percent-encoded), at most {MAX_MEASUREMENT_FOLDER_CHARS}"
            )
    elif len(name) > MAX_KEY_CHARS:
        return f"{what} {_shown(name)} is too long: {len(name)} characters, at most {MAX_KEY_CHARS}"
    return None


def validate_point(point: Point) -> str | None:
    """Checks that hold for every format; returns a reason or None."""
    reason = validate_names(point.measurement, tuple(point.tags), tuple(point.fields))
    if reason is not None:
        return reason
    for name, value in point.fields.items():
        if isinstance(value, float) and not math.isfinite(value):
            return f"field {name!r} has a non-finite value ({value})"
    return None


@functools.lru_cache(maxsize=4096)
def validate_names(measurement: str, tags: tuple[str, ...], fields: tuple[str, ...]) -> str | None:
    """The checks on a point's names (most lines repeat the line before)."""
    problem = name_problem(measurement, "measurement name")
    if problem is not None:
        return problem
    if measurement == RESERVED_MEASUREMENT:
        return (
            f"{measurement!r} is a reserved measurement name "
            "(Spark's name for a partition without a value)"
        )
    for what, names in (("tag key", tags), ("field key", fields)):
        for name in names:
            problem = name_problem(name, what)
            if problem is not None:
                return problem
    for name in (*tags, *fields):
        if name.lower() in RESERVED_COLUMNS:
            return f"{name!r} is a reserved column name and cannot be a tag or field"
        if name.lower() in ICEBERG_METADATA_COLUMNS:
            return (
                f"{name!r} is a reserved column name (an Iceberg metadata column) "
                "and cannot be a tag or field"
            )
    both = set(tags) & set(fields)
    if both:
        return f"{sorted(both)[0]!r} is used as both a tag and a field"
    seen: dict[str, str] = {}
    for name in (*tags, *fields):
        other = seen.setdefault(name.lower(), name)
        if other != name:
            return (
                f"{other!r} and {name!r} differ only in case: column names are compared "
                "without case"
            )
    return None


_NAME_PARTS = re.compile(r"[_.]")


def file_precision(file_name: str, default: str) -> str:
    """The timestamp precision a file's name declares, else ``default``: a part
    of the name between `_` or `.` that is ``ns``, ``us``, ``ms`` or ``s``
    (``2026-11-25_ms_feed.lp``, ``feed.s.csv``). A name that declares two
    different precisions is refused."""
    declared = {part for part in _NAME_PARTS.split(file_name.rsplit("/", 1)[-1])}
    declared &= set(CHUNK_PRECISIONS)
    if len(declared) > 1:
        names = ", ".join(sorted(declared))
        raise ChunkFormatError(
            f"the file name declares more than one timestamp precision ({names})"
        )
    return declared.pop() if declared else default


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
    precision = file_precision(file_name, precision)
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
        yield checked_item(item, fallback_ns, stats)


def checked_item(item: Record | Reject, fallback_ns: int, stats: ChunkStats) -> Record | Reject:
    """A parsed item after the checks every format shares, counted in ``stats``."""
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
    return item


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
            if sep and tail in FIELD_TYPES and name.startswith("field:"):
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
            value = int(cell.strip())
        except ValueError as exc:
            raise ValueError(f"time {cell!r} is not an integer timestamp") from exc
        return scale_timestamp(value, precision)
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


def _physical_lines(text: str) -> list[str]:
    """Lines as the reader counts them: ended by ``\n`` only (so ``\r``, form feeds
    or U+2028 inside a cell neither split a row nor change the line count)."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line + "\n" for line in lines]


def _csv_rows(text: str) -> Iterator[tuple[int, list[str] | csv.Error]]:
    """(line number, cells or the CSV error of that row); a row that is not valid
    CSV is reported and reading goes on with the next line."""
    reader = csv.reader(_physical_lines(text))
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield reader.line_num, exc
            continue
        yield reader.line_num, cells


def _csv_points(text: str, precision: str, file_name: str) -> Iterator[Record | Reject]:
    rows = list(_csv_rows(text))
    if not rows:
        return
    header_line, header = rows.pop(0)
    if isinstance(header, csv.Error):
        raise ChunkFormatError(f"line {header_line}: the header is not valid CSV: {header}")
    _check_csv_header(header)
    columns = _parse_header(header)
    data_rows = [cells for _, cells in rows if isinstance(cells, list) and _has_data(cells)]
    typed = []
    for column in columns:
        if column.role == "field" and column.type is None:
            cells = [r[column.index] if column.index < len(r) else "" for r in data_rows]
            column = _Column(column.index, column.role, column.name, _infer_type(cells))
        typed.append(column)
    default = _default_measurement(file_name)
    lines = _physical_lines(text)
    for line_no, cells in rows:
        if isinstance(cells, csv.Error):
            raw = printable(lines[line_no - 1].rstrip("\r\n"))
            yield Reject(line_no, raw, f"not valid CSV: {cells}")
            continue
        if not _has_data(cells):
            continue
        raw = printable(",".join(cells))
        if any(_SURROGATE.search(cell) for cell in cells):
            yield Reject(line_no, raw, "the line is not valid UTF-8")
            continue
        try:
            point = _row_point(list(cells), typed, default, precision)
        except ValueError as exc:
            yield Reject(line_no, raw, str(exc))
            continue
        yield Record(line_no, point)


_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _check_csv_header(header: list[str]) -> None:
    """A CSV file's first row must name its columns: a file without a header
    would have its first point read as column names and every other row typed
    by them. A cell that is a number, or no `time` column, says it is data."""
    shown = printable(",".join(header))
    if len(shown) > 200:
        shown = shown[:200] + "..."
    numbers = [(i, c.strip()) for i, c in enumerate(header) if _NUMBER.fullmatch(c.strip())]
    if numbers:
        index, cell = numbers[0]
        why = f"column {index + 1} is named {cell!r}, a number"
    elif not any(cell.strip() == "time" for cell in header):
        why = "it has no `time` column"
    else:
        return
    raise ChunkFormatError(
        f"the first row is not a header ({shown}): {why}; a CSV file starts with a header "
        "row naming its columns: measurement, time, tag:<name> and the fields"
    )


def _has_data(cells: list[str]) -> bool:
    return any(cell.strip() for cell in cells)


def _parquet_points(
    content: bytes, precision: str, file_name: str, stats: ChunkStats
) -> Iterator[Record | Reject]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(io.BytesIO(content))
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise ChunkFormatError(f"cannot read Parquet file: {exc}") from exc
    columns = _parse_header(table.column_names)
    time_column = next((c for c in columns if c.role == "time"), None)
    precision_for_time = precision
    if time_column is not None:
        time_type = table.schema.field(time_column.index).type
        if pa.types.is_timestamp(time_type):
            # A timestamp column is read as integers in its own unit and scaled to
            # nanoseconds row by row, so a time outside the int64 nanosecond range
            # rejects its row, not the file.
            as_int = table.column(time_column.index).cast(pa.int64())
            table = table.set_column(time_column.index, "time", as_int)
            precision_for_time = time_type.unit
    # Text columns are read as bytes and decoded here, so a cell that is not valid
    # UTF-8 rejects its row instead of stopping the file.
    text_columns = set()
    for index, field_type in enumerate(table.schema.types):
        if pa.types.is_string(field_type) or pa.types.is_large_string(field_type):
            table = table.set_column(
                index, table.column_names[index], table.column(index).cast(pa.large_binary())
            )
            text_columns.add(index)
    stats.lines_read = table.num_rows
    position = 0
    for batch in table.to_batches():
        for row in batch.to_pylist():
            position += 1
            cells = list(row.values())
            for index in text_columns:
                if cells[index] is not None:
                    cells[index] = cells[index].decode("utf-8", "surrogateescape")
            shown = printable(str(dict(zip(table.column_names, cells, strict=True))))
            if any(isinstance(cell, str) and _SURROGATE.search(cell) for cell in cells):
                yield Reject(position, shown, "the row is not valid UTF-8")
                continue
            try:
                point = _row_point(
                    cells, columns, _default_measurement(file_name), precision_for_time
                )
            except ValueError as exc:
                yield Reject(position, shown, str(exc))
                continue
            yield Record(position, point)
