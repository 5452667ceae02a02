"""One landed file as one Arrow table: what ``tsdedup_read_chunk`` hands to Spark.

The table function runs with Arrow transfer, so its rows cross into the JVM as
column batches rather than one pickled row at a time. Arrow columns of plain
types cross without a copy; maps would be converted value by value in Python.
So a point's tags and typed fields travel as text, and ``raw_chunks`` turns
them into the log's maps (macro ``chunk_map``):

* points read by the vectorized reader (``maps_as_json`` false): the line's own
  ``k=v,k=v`` text, one per field type, values as written (``2i``, ``t``);
* every other point (``maps_as_json`` true): a JSON object of typed values.

The rows are the same as :func:`python_udfs.chunk_rows.chunk_rows` gives (tested):
points, rejects, column first uses and one chunk row.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

import numpy as np
import pandas
import pyarrow as pa
import pyarrow.compute as pc

from python_udfs import chunk_rows as exact_rows
from python_udfs.chunk_reader import (
    CHUNK_PRECISIONS,
    ChunkFormatError,
    ChunkStats,
    Record,
    Reject,
    checked_item,
    decompress,
    detect_format,
    file_precision,
    printable,
    validate_names,
)
from python_udfs.chunk_rows import COLUMNS, chunk_rows, item_rows
from python_udfs.column_types import COLUMN_TYPES, MAP_OF_TYPE
from python_udfs.line_protocol import LineProtocolError, default_time, iter_lines
from python_udfs.lp_vector import PLAIN_TYPES, PlainLines, read_plain_lines, split_lines

# The log's map columns and the type of their values.
MAP_COLUMNS: dict[str, str] = dict(COLUMN_TYPES.values())
# The plain reader's field types and the map column each goes to.
_PLAIN_FIELD_COLUMNS = {name: MAP_OF_TYPE[name] for name in PLAIN_TYPES}
_ARROW_TYPES = {"string": pa.string(), "bigint": pa.int64(), "boolean": pa.bool_()}

TRANSPORT_COLUMNS: tuple[tuple[str, str], ...] = (
    *((name, "string" if name in MAP_COLUMNS else type_) for name, type_ in COLUMNS),
    # the SHA-256 of the file's bytes, on the chunk row
    ("content_sha256", "string"),
    ("maps_as_json", "boolean"),
)
RETURN_TYPE = ", ".join(f"{name} {type_}" for name, type_ in TRANSPORT_COLUMNS)
SCHEMA = pa.schema([(name, _ARROW_TYPES[type_]) for name, type_ in TRANSPORT_COLUMNS])
_POSITIONS = {name: index for index, (name, _) in enumerate(COLUMNS)}


def chunk_table(source_file: str, content: bytes, precision: str, ingest_time_ns: int) -> pa.Table:
    """All rows of one chunk, as the transport table (see the module's text),
    with the checksum of ``content`` on its chunk row."""
    return chunk_parts(source_file, content, precision, ingest_time_ns, typed=False)[0]


def chunk_parts(
    source_file: str, content: bytes, precision: str, ingest_time_ns: int, *, typed: bool
) -> tuple[pa.Table, dict[str, pa.Array]]:
    """:func:`chunk_table`, and with ``typed`` the maps of the points the
    vectorized reader read, typed, by map column (tags, fields_float...): those
    points are the table's first rows, and their map columns there are null.
    Without ``typed`` the maps are empty."""
    table, maps = _rows_of_chunk(source_file, content, precision, ingest_time_ns, typed)
    digest = hashlib.sha256(content).hexdigest()
    is_chunk = pc.equal(table["row_kind"], "chunk")
    checksum = pc.if_else(is_chunk, digest, pa.scalar(None, pa.string()))
    index = SCHEMA.get_field_index("content_sha256")
    return table.set_column(index, "content_sha256", checksum), maps


def _rows_of_chunk(
    source_file: str, content: bytes, precision: str, ingest_time_ns: int, typed: bool
) -> tuple[pa.Table, dict[str, pa.Array]]:
    stats = ChunkStats()
    try:
        read = read_plain_first(source_file, content, precision, ingest_time_ns, stats, typed=typed)
    except Exception:  # the exact reader reads the file and reports any problem
        read = None
    if read is None or stats.lines_read > exact_rows.MAX_POSITION:
        # (positions past the limit: the exact rows stop the file with a reject)
        return rows_table(chunk_rows(source_file, content, precision, ingest_time_ns)), {}
    plain, items = read
    fallback_ns = default_time(ingest_time_ns, file_precision(source_file, precision))
    others = rows_table(item_rows(items, stats, plain.first_use()))
    table = pa.concat_tables([plain_table(plain, fallback_ns), others]).combine_chunks()
    maps = {
        "tags" if type_ == "tag" else _PLAIN_FIELD_COLUMNS[type_]: values
        for type_, values in plain.maps.items()
    }
    return table, maps


def read_plain_first(
    file_name: str,
    content: bytes,
    precision: str,
    default_time_ns: int,
    stats: ChunkStats,
    *,
    typed: bool = False,
) -> tuple[PlainLines, list[Record | Reject]] | None:
    """A line-protocol file read whole in Arrow arrays where its lines are plain
    (python_udfs.lp_vector), and line by line by the exact parser elsewhere:
    the plain lines, then the other lines' items in order. The two together are
    what :func:`read_chunk` yields for the file. None when the file is not line
    protocol in valid UTF-8 (read_chunk reads it, and names what is wrong).
    ``typed``: the plain lines' tags and fields as typed maps."""
    try:
        if precision not in CHUNK_PRECISIONS or detect_format(file_name) != "lp":
            return None
        precision = file_precision(file_name, precision)
        data = decompress(file_name, content)
        text = data.decode("utf-8")
    except (ChunkFormatError, UnicodeDecodeError):
        return None
    lines = split_lines(data)
    plain, read_here = read_plain_lines(lines, precision, validate_names, typed=typed)
    stats.lines_read = lines.count
    fallback_ns = default_time(default_time_ns, precision)
    starts = lines.starts if len(text) == len(data) else _char_starts(text, lines.count)
    items: list[Record | Reject] = []
    continued = np.zeros(lines.count, dtype=bool)
    next_line = 0  # the first physical line not read yet by the exact parser
    for index in np.flatnonzero(~read_here).tolist():
        if index < next_line:
            continue
        for line_no, raw, result in iter_lines(
            text, precision, start=int(starts[index]), first_line=index + 1
        ):
            next_line = line_no + raw.count("\n")
            # A string value that runs over the next lines takes them with it.
            continued[line_no:next_line] = True
            if isinstance(result, LineProtocolError):
                items.append(checked_item(Reject(line_no, printable(raw), str(result)), 0, stats))
            elif result is not None:
                items.append(checked_item(Record(line_no, result), fallback_ns, stats))
            if next_line >= lines.count or read_here[next_line]:
                break
    if continued.any():
        plain = plain.take(~continued[plain.line_index])
    stats.points += len(plain.line_index)
    return plain, items


def _char_starts(text: str, count: int) -> np.ndarray:
    """Where each physical line of ``text`` starts, in characters."""
    lengths = np.fromiter((len(line) + 1 for line in text.split("\n")), dtype=np.int64)
    starts = np.zeros(len(lengths), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    return starts[:count]


def plain_table(plain: PlainLines, fallback_ns: int) -> pa.Table:
    """The point rows of the lines the vectorized reader read."""
    count = len(plain.line_index)
    columns: dict[str, pa.Array] = {
        name: pa.nulls(count, SCHEMA.field(name).type) for name in SCHEMA.names
    }
    columns["row_kind"] = pa.array(np.full(count, "point", dtype=object), pa.string())
    columns["position"] = pa.array(plain.line_index + 1, pa.int64())
    columns["measurement"] = plain.measurement
    if plain.tags is not None:
        columns["tags"] = plain.tags
    for type_, values in plain.fields.items():
        columns[_PLAIN_FIELD_COLUMNS[type_]] = values
    missing = pc.is_null(plain.time_ns)
    columns["time_ns"] = pc.fill_null(plain.time_ns, fallback_ns)
    columns["time_from_ingest"] = missing
    columns["maps_as_json"] = pa.array(np.zeros(count, dtype=bool))
    return pa.table([columns[name] for name in SCHEMA.names], schema=SCHEMA)


def rows_table(rows: Iterable[tuple[Any, ...]]) -> pa.Table:
    """Rows of :data:`python_udfs.chunk_rows.COLUMNS` as the transport table, with
    their maps as JSON."""
    values: list[list[Any]] = [[] for _ in SCHEMA.names]
    checksums, json_flags = values[-2], values[-1]
    map_positions = [_POSITIONS[name] for name in MAP_COLUMNS]
    for row in rows:
        for index, value in enumerate(row):
            if index in map_positions and value is not None:
                value = json.dumps(value, ensure_ascii=False, allow_nan=False, default=_number)
            values[index].append(value)
        checksums.append(None)
        json_flags.append(row[_POSITIONS["row_kind"]] == "point")
    return pa.table(values, schema=SCHEMA)


def _number(value: object) -> int:
    if isinstance(value, Decimal):
        return int(value)
    raise TypeError(f"{type(value).__name__} cannot be written as JSON")


class ReadChunk:
    """The UDTF class; Spark instantiates it on executors. It runs with Arrow
    transfer: each call returns the file's rows as one pandas frame backed by
    Arrow arrays, which Spark sends to the JVM without converting a value."""

    def eval(
        self,
        source_file: str,
        source_path: str,
        content: bytes | None,
        precision: str,
        ingest_time_ns: int,
    ) -> Any:
        data = landed_bytes(source_path, content)
        table = chunk_table(source_file, data, precision, int(ingest_time_ns))
        return table.to_pandas(types_mapper=pandas.ArrowDtype)


def landed_bytes(source_path: str, content: bytes | None) -> bytes:
    """A landed file's bytes: ``content`` when Spark read them, else read here
    from the file's path (a ``file:`` path, as Spark lists a local folder:
    reading it here spares copying the bytes from the JVM)."""
    if content is not None:
        return bytes(content)
    if not source_path.startswith("file:"):
        raise ValueError(f"tsdedup_read_chunk: no content given for {source_path!r}")
    path = source_path.removeprefix("file:")
    if path.startswith("//"):
        path = path[2:]
    with open(path, "rb") as file:
        return file.read()
