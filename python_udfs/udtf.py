"""Spark table function that parses one landed file into chunk rows.

Registered as ``tsdedup_read_chunk`` and called from the ``raw_chunks`` model with
a lateral join, so parsing runs on the executors, one task per file::

    select ... from landed_files as f,
        lateral tsdedup_read_chunk(f.source_file, f.content, 'ns', 1700000000000000000) as r

It emits, per file, in this order:

* ``point`` rows — one per accepted point, with typed field maps;
* ``reject`` rows — one per line that could not be read, with the line text and reason;
* ``column`` rows — the first position at which each (measurement, column, type)
  appears in the chunk; they let later models decide field-type conflicts and
  discover columns without scanning points;
* one ``chunk`` row — lines read, points and rejects counted by the reader.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from decimal import Decimal
from typing import Any

from python_udfs.chunk_reader import (
    ChunkFormatError,
    ChunkStats,
    Record,
    Reject,
    file_precision,
    printable,
    read_chunk,
)

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

_FIELD_MAPS = ("float", "integer", "unsigned", "string", "boolean")
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
    """All rows of one chunk (plain Python, unit-testable without Spark)."""
    stats = ChunkStats()
    first_seen: dict[tuple[str, str, str], int] = {}
    # Column signatures (measurement, tag keys, field keys and types) already
    # recorded in first_seen: most lines repeat the one before, so they skip that.
    seen_signatures: set[tuple[Any, ...]] = set()
    try:
        for item in read_chunk(source_file, content, precision, ingest_time_ns, stats):
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
        for name, type_ in types.items():
            first_seen.setdefault((point.measurement, name, type_), record.position)
        for name in point.tags:
            first_seen.setdefault((point.measurement, name, "tag"), record.position)
    by_type: dict[str, dict[str, Any] | None] = dict.fromkeys(_FIELD_MAPS)
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


class ReadChunk:
    """The UDTF class; Spark instantiates it on executors."""

    def eval(
        self, source_file: str, content: bytes, precision: str, ingest_time_ns: int
    ) -> Iterator[tuple[Any, ...]]:
        yield from chunk_rows(source_file, bytes(content), precision, int(ingest_time_ns))


EMPTY_FILES_TYPE = "path string, modification_time timestamp"


def empty_files(folder: str) -> Iterator[tuple[str, datetime]]:
    """The files of 0 bytes directly in ``folder`` (a local path or a URI pyarrow
    can open), with their paths as Hadoop writes them and their modification
    times in milliseconds, as Hadoop's listing gives them. Spark's file
    sources list no such file (a file without bytes has no split to read).
    Names Hadoop hides (starting with `.` or `_`) are left out too. On a file
    system pyarrow cannot open there are none to report."""
    import pyarrow
    from pyarrow import fs

    try:
        if "://" in folder:
            filesystem, root = fs.FileSystem.from_uri(folder)
            prefix = folder.rstrip("/")
        else:
            filesystem, root = fs.LocalFileSystem(), folder
            prefix = "file:" + folder.rstrip("/")
        listed = filesystem.get_file_info(fs.FileSelector(root, allow_not_found=True))
    except (pyarrow.ArrowInvalid, pyarrow.ArrowNotImplementedError, OSError):
        return  # a file system pyarrow cannot open (HDFS without libhdfs, s3a://)
    for info in listed:
        hidden = info.base_name.startswith((".", "_"))
        if info.type == fs.FileType.File and info.size == 0 and info.mtime and not hidden:
            mtime = info.mtime.replace(microsecond=info.mtime.microsecond // 1000 * 1000)
            yield f"{prefix}/{info.base_name}", mtime


class EmptyFiles:
    """The UDTF class of ``empty_files``."""

    def eval(self, folder: str) -> Iterator[tuple[str, datetime]]:
        yield from empty_files(folder)


def precision_of_file(source_file: str | None, default: str | None) -> str | None:
    """The precision a chunk is read in (file_precision), NULL where its name
    declares two (the file is rejected whole)."""
    if source_file is None or default is None:
        return None
    try:
        return file_precision(source_file, default)
    except ChunkFormatError:
        return None


def register(spark: Any) -> None:
    """Register the project's functions in a Spark session (idempotent):
    ``tsdedup_read_chunk`` (the table function that reads a file),
    ``tsdedup_empty_files(folder)`` (the files of 0 bytes Spark does not list) and
    ``tsdedup_file_precision(source_file, default)`` (the precision it read
    the file in)."""
    from pyspark.sql.functions import udtf

    spark.udtf.register("tsdedup_read_chunk", udtf(ReadChunk, returnType=RETURN_TYPE))
    spark.udtf.register("tsdedup_empty_files", udtf(EmptyFiles, returnType=EMPTY_FILES_TYPE))
    spark.udf.register("tsdedup_file_precision", precision_of_file, "string")
