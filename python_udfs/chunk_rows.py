"""The rows of one chunk as the exact reader gives them, one Python tuple each.

A chunk's rows, in this order:

* ``point`` rows — one per accepted point, with typed field maps;
* ``reject`` rows — one per line that could not be read, with the line text and reason;
* ``column`` rows — the first position at which each (measurement, column, type)
  appears in the chunk; they let later models decide field-type conflicts and
  discover columns without scanning points;
* one ``chunk`` row — lines read, points and rejects counted by the reader.

``tsdedup_read_chunk`` hands Spark the same rows as Arrow batches
(python_udfs.chunk_table); these tuples are the definition it is tested against.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import Any

from python_udfs.chunk_reader import (
    ChunkFormatError,
    ChunkStats,
    Record,
    Reject,
    printable,
    read_chunk,
)
from python_udfs.column_types import FIELD_TYPES

COLUMNS: tuple[tuple[str, str], ...] = (
    ("row_kind", "string"),
    ("position", "bigint"),
    ("measurement", "string"),
    ("tags", "map<string, string>"),
    ("fields_float", "map<string, double>"),
    ("fields_int", "map<string, bigint>"),
    ("fields_uint", "map<string, decimal(20, 0)>"),
    ("fields_string", "map<string, string>"),
    ("fields_bool", "map<string, boolean>"),
    ("time_ns", "bigint"),
    ("time_from_ingest", "boolean"),
    ("line_text", "string"),
    ("reject_reason", "string"),
    ("column_name", "string"),
    ("column_type", "string"),
    ("lines_read", "bigint"),
)
RETURN_TYPE = ", ".join(f"{name} {type_}" for name, type_ in COLUMNS)

# Positions are 1-based and must stay below 2^32: the dedup models order points
# by chunk_seq * 2^32 + position (macro ingestion_order), one bigint.
MAX_POSITION = 2**32 - 1

# The leading columns of a point row, in the order _point_row writes them.
_POINT_COLUMNS = (
    "row_kind",
    "position",
    "measurement",
    "tags",
    "fields_float",
    "fields_int",
    "fields_uint",
    "fields_string",
    "fields_bool",
    "time_ns",
    "time_from_ingest",
)
if tuple(name for name, _ in COLUMNS[: len(_POINT_COLUMNS)]) != _POINT_COLUMNS:
    raise ImportError("udtf.COLUMNS and _POINT_COLUMNS disagree on the order of point columns")
_NO_VALUES = (None,) * (len(COLUMNS) - len(_POINT_COLUMNS))
_INDEX = {name: index for index, (name, _) in enumerate(COLUMNS)}


class _TooManyLines(Exception):
    """A chunk reached MAX_POSITION lines or rows."""


def _row(**values: Any) -> tuple[Any, ...]:
    row: list[Any] = [None] * len(COLUMNS)
    for name, value in values.items():
        row[_INDEX[name]] = value
    return tuple(row)


def _stopped(stats: ChunkStats, reason: str) -> tuple[Any, ...]:
    """The reject row of a file whose reading stopped part way, counted as one reject."""
    stats.rejects += 1
    done = stats.points + stats.rejects - 1
    return _row(
        row_kind="reject",
        position=0,
        reject_reason=f"reading stopped after {done} point(s) and reject(s): {reason}",
    )


def chunk_rows(
    source_file: str, content: bytes, precision: str, ingest_time_ns: int
) -> Iterator[tuple[Any, ...]]:
    """All rows of one chunk, read by the exact reader alone (plain Python,
    unit-testable without Spark)."""
    stats = ChunkStats()
    items = read_chunk(source_file, content, precision, ingest_time_ns, stats)
    yield from item_rows(items, stats, {})


def item_rows(
    items: Iterable[Record | Reject],
    stats: ChunkStats,
    first_seen: dict[tuple[str, str, str], int],
) -> Iterator[tuple[Any, ...]]:
    """The rows of a chunk's items, then its column rows (``first_seen`` may
    hold first uses found elsewhere in the chunk) and its chunk row."""
    # Column signatures (measurement, tag keys, field keys and types) already
    # recorded in first_seen: most lines repeat the one before, so they skip that.
    seen_signatures: set[tuple[Any, ...]] = set()
    try:
        for item in items:
            if item.position > MAX_POSITION:
                # the reader counted this item, which is not emitted
                if isinstance(item, Reject):
                    stats.rejects -= 1
                else:
                    stats.points -= 1
                raise _TooManyLines
            if isinstance(item, Reject):
                yield _row(
                    row_kind="reject",
                    position=item.position,
                    line_text=item.text,
                    reject_reason=item.reason,
                )
                continue
            yield _point_row(item, first_seen, seen_signatures)
    except ChunkFormatError as exc:
        stats.rejects += 1
        yield _row(row_kind="reject", position=0, reject_reason=f"whole file rejected: {exc}")
    except _TooManyLines:
        yield _stopped(
            stats,
            f"the file has more than {MAX_POSITION} lines or rows; "
            "split it into smaller files and land them again",
        )
    except Exception as exc:  # a reader bug must not stop the other files of the run
        yield _stopped(
            stats,
            f"unexpected {type(exc).__name__}: {printable(str(exc))}; "
            "the rest of the file was not read",
        )
    for (measurement, name, type_), position in first_seen.items():
        yield _row(
            row_kind="column",
            position=position,
            measurement=measurement,
            column_name=name,
            column_type=type_,
        )
    # A file rejected whole counts as one line read, so that the chunk's lines
    # read are its points, rejects and skipped lines, as for every other file.
    lines_read = max(stats.lines_read, stats.points + stats.rejects)
    yield _row(row_kind="chunk", position=0, lines_read=lines_read)


def _point_row(
    record: Record,
    first_seen: dict[tuple[str, str, str], int],
    seen_signatures: set[tuple[Any, ...]],
) -> tuple[Any, ...]:
    point = record.point
    types = point.field_types
    signature = (point.measurement, *point.tags, None, *types.items())
    if signature not in seen_signatures:
        seen_signatures.add(signature)
        keys = [(point.measurement, name, type_) for name, type_ in types.items()]
        keys += [(point.measurement, name, "tag") for name in point.tags]
        for key in keys:
            # the earliest position: first_seen may hold uses found elsewhere
            if record.position < first_seen.get(key, MAX_POSITION + 1):
                first_seen[key] = record.position
    by_type: dict[str, dict[str, Any] | None] = dict.fromkeys(FIELD_TYPES)
    kinds = set(types.values())
    if len(kinds) == 1 and "unsigned" not in kinds:
        # One type (the usual line): the parsed fields are that type's map as they are.
        by_type[kinds.pop()] = point.fields
    else:
        for name, value in point.fields.items():
            type_ = types[name]
            typed = by_type[type_]
            if typed is None:
                typed = by_type[type_] = {}
            typed[name] = Decimal(value) if type_ == "unsigned" else value
    return (
        "point",
        record.position,
        point.measurement,
        point.tags,
        by_type["float"],
        by_type["integer"],
        by_type["unsigned"],
        by_type["string"],
        by_type["boolean"],
        point.time_ns,
        record.time_from_ingest,
        *_NO_VALUES,
    )
