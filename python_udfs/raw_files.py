"""A chunk's rows written as the raw log's data files, from Python (decision 0021).

``tsdedup_read_chunk`` hands Spark maps as text (python_udfs/chunk_table.py), and
``raw_chunks`` decodes them in the JVM (macro ``chunk_map``). To write the raw
log's data files from Python instead, the maps are built here: the vectorized
reader gives the plain lines' maps typed (``read_plain_lines`` with ``typed``),
and the other points' JSON objects are decoded in Python. :func:`typed_maps`
gives exactly the maps ``chunk_map`` gives (``tests/unit/test_raw_files.py``).

:func:`partition_dir` names a data file's folder as Spark's partition
discovery reads it back (Hive-style,
``row_kind=point/measurement=cpu/partition_day=2016-01-01``): a point's day is
the UTC day of its time (:func:`point_days`, decision 0034); other rows have
none.
"""

from __future__ import annotations

import datetime
import json
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from python_udfs.chunk_reader import RESERVED_MEASUREMENT
from python_udfs.chunk_table import MAP_COLUMNS, chunk_parts, landed_bytes
from python_udfs.point_columns import SQL_TYPES, flat_column_name, with_flat_columns

# The raw log's map value types, in Arrow.
VALUE_TYPES: dict[str, pa.DataType] = {
    "string": pa.string(),
    "double": pa.float64(),
    "bigint": pa.int64(),
    "decimal(20, 0)": pa.decimal128(20, 0),
    "boolean": pa.bool_(),
}
MAP_TYPES: dict[str, pa.DataType] = {
    column: pa.map_(pa.string(), VALUE_TYPES[value_type])
    for column, value_type in MAP_COLUMNS.items()
}
# Characters Spark escapes in a partition folder's name (%XX), as its
# ExternalCatalogUtils.escapePathName does on Linux.
_ESCAPED = frozenset("\"#%'*/:=?\\\x7f{[]^") | frozenset(chr(code) for code in range(1, 32))
# A partition without a value (the reader refuses it as a measurement name).
NULL_PARTITION = RESERVED_MEASUREMENT


# Nanoseconds in a day: a point's day partition is floor(time_ns / DAY_NS).
DAY_NS = 86_400_000_000_000
_EPOCH = datetime.date(1970, 1, 1)


def partition_dir(row_kind: str, measurement: str | None, day: int | None = None) -> str:
    """The folder of a data file of one (row_kind, measurement, partition_day)
    partition; ``day`` counts days since 1970-01-01 (None: no day)."""
    day_text = None if day is None else (_EPOCH + datetime.timedelta(days=day)).isoformat()
    return (
        f"row_kind={_escape(row_kind)}/measurement={_escape(measurement)}"
        f"/partition_day={_escape(day_text)}"
    )


def point_days(table: pa.Table) -> Iterator[tuple[int | None, pa.Table]]:
    """A point partition's rows by UTC day, in days since 1970-01-01: floor
    division, so a time before the epoch falls on the day before, as
    raw_chunks' SQL computes it. A row without a time has no day (None).
    Rows keep their order within a day."""
    time_ns = table["time_ns"].combine_chunks()
    days = np.floor_divide(pc.fill_null(time_ns, 0).to_numpy(zero_copy_only=False), DAY_NS)
    timed = pc.is_valid(time_ns).to_numpy(zero_copy_only=False)
    if not timed.all():
        yield None, table.filter(pa.array(~timed))
        table, days = table.filter(pa.array(timed)), days[timed]
    if len(days) and (days == days[0]).all():  # the usual chunk: one day
        yield int(days[0]), table
        return
    # One stable sort, then a slice per day (not a filter of every row per day).
    order = np.argsort(days, kind="stable")
    found, starts = np.unique(days[order], return_index=True)
    ordered = table.take(pa.array(order))
    ends = [*starts[1:], len(order)]
    for day, start, end in zip(found, starts, ends, strict=True):
        yield int(day), ordered.slice(int(start), int(end - start))


def _escape(value: str | None) -> str:
    if value is None or value == "":
        return NULL_PARTITION
    return "".join(f"%{ord(char):02X}" if char in _ESCAPED else char for char in value)


def typed_maps(transport: pa.Table, plain: dict[str, pa.Array]) -> dict[str, pa.Array]:
    """Each map column of a chunk's rows as the raw log's typed map, from what
    :func:`python_udfs.chunk_table.chunk_parts` gives with ``typed``: the
    first rows' maps are ``plain`` (null where it has no such column), every
    later row's map is its JSON object, or null."""
    points = len(plain["tags"]) if plain else 0
    maps = {}
    for column, value_type in MAP_COLUMNS.items():
        map_type = MAP_TYPES[column]
        read = plain.get(column)
        first = pa.nulls(points, map_type) if read is None else read.cast(map_type)
        texts = transport[column].slice(points).to_pylist()
        later = pa.array([_json_map(text, value_type) for text in texts], type=map_type)
        maps[column] = pa.concat_arrays([first, later])
    return maps


def _json_map(text: str | None, value_type: str) -> list[tuple[str, Any]] | None:
    if text is None:
        return None
    values = json.loads(text)
    if value_type == "decimal(20, 0)":
        return [(key, Decimal(value)) for key, value in values.items()]
    return list(values.items())


# The raw log's columns as a data file holds them: every column but the
# partition columns (row_kind, measurement, partition_day), which Iceberg takes
# from the file's partition (its folder, when add_files imports it).
STORED_FIELDS: tuple[tuple[str, pa.DataType], ...] = (
    ("chunk_seq", pa.int64()),
    ("position", pa.int64()),
    ("source_file", pa.string()),
    *((column, MAP_TYPES[column]) for column in MAP_COLUMNS),
    ("time_ns", pa.int64()),
    ("time_from_ingest", pa.bool_()),
    ("line_text", pa.string()),
    ("reject_reason", pa.string()),
    ("column_name", pa.string()),
    ("column_type", pa.string()),
    ("flat_column", pa.string()),
    ("lines_read", pa.int64()),
    ("source_path", pa.string()),
    ("source_bytes", pa.int64()),
    ("source_modified_at", pa.timestamp("us", tz="UTC")),
    ("content_sha256", pa.string()),
    ("ingested_at", pa.timestamp("us", tz="UTC")),
    ("invocation_id", pa.string()),
)
STORED_SCHEMA = pa.schema(list(STORED_FIELDS))
# What the flat columns are made from: a column row's measurement and column.
_COLUMN_ROW_NAMES = ("measurement", "column_type", "column_name")
# Rows written to a data file as one row group (see PartitionWriters).
ROW_GROUP_ROWS = 128 * 1024
# What one task keeps at most, however many partitions its chunks touch (a
# backfill of a year is a point partition per day): rows waiting in memory,
# and open files (see PartitionWriters).
WAITING_ROWS = 4 * ROW_GROUP_ROWS
OPEN_FILES = 64
# How the data files are written (decision 0021, measured): zstd without
# dictionaries (smaller here, and a third less time), with statistics for
# the columns a scan may filter on and not for the maps' keys and values.
WRITER_OPTIONS: dict[str, Any] = {
    "compression": "zstd",
    "use_dictionary": False,
    "write_statistics": [name for name, _ in STORED_FIELDS if name not in MAP_COLUMNS],
}


@dataclass(frozen=True)
class LandedFile:
    """What the listing says of one new file, and its place in ingestion order."""

    chunk_seq: int
    source_file: str
    source_path: str
    source_bytes: int
    source_modified_us: int


@dataclass(frozen=True)
class Run:
    """The run's own columns: when it started, and its dbt invocation."""

    ingested_us: int
    invocation_id: str


def stored_partitions(
    transport: pa.Table, plain: dict[str, pa.Array], landed: LandedFile, run: Run
) -> dict[tuple[str, str | None], pa.Table]:
    """A chunk's rows (see typed_maps) as the raw log stores them, one table per
    (row_kind, measurement) partition. The file's listing columns are on its
    chunk row only, as raw_chunks writes them. Point rows have the flat
    columns of their measurement's columns too, after the stored ones, and
    each column row names its flat column (python_udfs.point_columns)."""
    count = len(transport)
    row_kind = transport["row_kind"].combine_chunks()
    is_chunk = pc.equal(row_kind, "chunk")

    def on_chunk_row(value: Any, type_: pa.DataType) -> pa.Array:
        return pc.if_else(is_chunk, pa.scalar(value, type_), pa.scalar(None, type_))

    def constant(value: Any, type_: pa.DataType) -> pa.Array:
        return pa.repeat(pa.scalar(value, type_), count)

    columns = {name: transport[name].combine_chunks() for name in transport.schema.names}
    columns.update(typed_maps(transport, plain))
    columns["chunk_seq"] = constant(landed.chunk_seq, pa.int64())
    columns["source_file"] = constant(landed.source_file, pa.string())
    columns["source_path"] = on_chunk_row(landed.source_path, pa.string())
    columns["source_bytes"] = on_chunk_row(landed.source_bytes, pa.int64())
    stamp = pa.timestamp("us", tz="UTC")
    columns["source_modified_at"] = on_chunk_row(landed.source_modified_us, stamp)
    columns["ingested_at"] = constant(run.ingested_us, stamp)
    columns["invocation_id"] = constant(run.invocation_id, pa.string())
    is_column = pc.fill_null(pc.equal(row_kind, "column"), False)
    column_rows = pa.table(
        {name: pc.filter(columns[name], is_column) for name in _COLUMN_ROW_NAMES}
    ).to_pylist()
    chunk_columns: dict[str | None, list[tuple[str, str]]] = {}
    for row in column_rows:
        pair = (row["column_type"], row["column_name"])
        chunk_columns.setdefault(row["measurement"], []).append(pair)
    columns["flat_column"] = pc.replace_with_mask(
        pa.nulls(count, pa.string()),
        is_column,
        pa.array(
            [flat_column_name(r["column_type"], r["column_name"]) for r in column_rows], pa.string()
        ),
    )
    stored = pa.table([columns[name] for name, _ in STORED_FIELDS], schema=STORED_SCHEMA)
    keys = pa.table({"row_kind": row_kind, "measurement": columns["measurement"]})
    partitions: dict[tuple[str, str | None], pa.Table] = {}
    for key in keys.group_by(["row_kind", "measurement"]).aggregate([]).to_pylist():
        kind, measurement = key["row_kind"], key["measurement"]
        mine = pc.equal(row_kind, kind)
        if measurement is None:
            mine = pc.and_(mine, pc.is_null(columns["measurement"]))
        else:
            mine = pc.and_(mine, pc.equal(columns["measurement"], measurement))
        partition = stored.filter(pc.fill_null(mine, False))
        if kind == "point":
            partition = with_flat_columns(partition, chunk_columns.get(measurement, []))
        partitions[(kind, measurement)] = partition
    return partitions


# A data file's partition: row_kind, measurement and (points only) the day.
PartitionKey = tuple[str, str | None, int | None]


class PartitionWriters:
    """One open Parquet file per partition for everything one task writes
    (many chunks go to few files, as Spark's fanout writer does); a point
    partition has a file per day of its points (point_days). Rows wait
    in memory until a partition has ``ROW_GROUP_ROWS`` of them, and are then
    written as one row group: a row group per chunk would make readers of
    the log set up a thousand small reads where Spark's write has a few.

    A point partition's file has the flat columns of every chunk written to
    it (NULL in rows whose chunk has no such column). A chunk that brings a
    flat column the open file lacks closes it, and the partition goes on in
    a new file with every column so far.

    Chunks that touch many partitions are bounded too: past ``WAITING_ROWS``
    rows waiting in all, the partition with the most is written (a smaller
    row group), and opening a file past ``OPEN_FILES`` closes the one
    written least recently (its partition goes on in a new file)."""

    def __init__(self, folder: str, name: str) -> None:
        self.folder = folder
        self.name = name
        self.writers: dict[PartitionKey, Any] = {}
        self.waiting: dict[PartitionKey, list[pa.Table]] = {}
        self.waiting_counts: dict[PartitionKey, int] = {}  # rows in each partition's waiting
        self.rows: dict[PartitionKey, int] = {}
        self.files: dict[PartitionKey, int] = {}
        self.written: list[WrittenFile] = []
        self.waiting_rows = 0

    def write(self, partitions: dict[tuple[str, str | None], pa.Table]) -> None:
        for (kind, measurement), table in partitions.items():
            by_day = point_days(table) if kind == "point" else iter([(None, table)])
            for day, rows in by_day:
                key = (kind, measurement, day)
                self.waiting.setdefault(key, []).append(rows)
                self.waiting_counts[key] = self.waiting_counts.get(key, 0) + len(rows)
                self.waiting_rows += len(rows)
                if self.waiting_counts[key] >= ROW_GROUP_ROWS:
                    self._flush(key)
        while self.waiting_rows > WAITING_ROWS:
            self._flush(max(self.waiting_counts, key=self.waiting_counts.__getitem__))

    def _flush(self, key: PartitionKey) -> None:
        import pyarrow.parquet as pq

        waiting = self.waiting.pop(key, [])
        self.waiting_rows -= self.waiting_counts.pop(key, 0)
        if not waiting:
            return
        table = pa.concat_tables(waiting, promote_options="default")
        writer = self.writers.get(key)
        if writer is not None and not set(table.schema.names) <= set(writer.schema.names):
            table = pa.concat_tables(
                [writer.schema.empty_table(), table], promote_options="default"
            )
            self._close(key)
            writer = None
        if writer is None:
            if len(self.writers) >= OPEN_FILES:
                self._close(next(iter(self.writers)))  # the least recently written
            count = self.files.get(key, 0)
            self.files[key] = count + 1
            suffix = f"-{count + 1}" if count else ""
            path = f"{self.folder}/{partition_dir(*key)}/{self.name}{suffix}.parquet"
            os.makedirs(os.path.dirname(path), exist_ok=True)
            writer = self.writers[key] = pq.ParquetWriter(path, table.schema, **WRITER_OPTIONS)
            self.rows[key] = 0
        table = pa.concat_tables([writer.schema.empty_table(), table], promote_options="default")
        writer.write_table(table.select(writer.schema.names), row_group_size=max(len(table), 1))
        self.rows[key] += len(table)
        self.writers[key] = self.writers.pop(key)  # now the most recently written

    def _close(self, key: PartitionKey) -> None:
        writer = self.writers.pop(key)
        writer.close()
        flat = writer.schema.names[len(STORED_FIELDS) :]
        self.written.append(
            WrittenFile(
                writer.where,
                *key[:2],
                self.rows.pop(key),
                ";".join(f"{name} {SQL_TYPES[writer.schema.field(name).type]}" for name in flat),
            )
        )

    def close(self) -> list[WrittenFile]:
        """Close every file, and name each file written."""
        for key in list(self.waiting):
            self._flush(key)
        for key in list(self.writers):
            self._close(key)
        written, self.written = self.written, []
        return written


class WrittenFile(NamedTuple):
    """A data file a task wrote: its partition, rows, and its flat columns as
    `name type` pairs joined by semicolons (empty for other rows than points)."""

    path: str
    row_kind: str
    measurement: str | None
    rows: int
    point_columns: str


WRITE_RETURN_TYPE = (
    "path string, row_kind string, measurement string, rows bigint, point_columns string"
)


class WriteChunks:
    """The table function ``tsdedup_write_chunks``: each call reads one landed
    file (as ``tsdedup_read_chunk`` does) and adds its rows to the task's open
    data files under ``folder``; at the end of the task it returns the files
    written, one row each, for ``add_files`` to commit in one snapshot."""

    def __init__(self) -> None:
        self.writers: PartitionWriters | None = None

    def eval(
        self,
        chunk_seq: int,
        source_file: str,
        source_path: str,
        source_bytes: int,
        source_modified_us: int,
        content: bytes | None,
        precision: str,
        ingested_us: int,
        invocation_id: str,
        folder: str,
    ) -> Iterator[tuple[Any, ...]]:
        data = landed_bytes(source_path, content)
        ingest_ns = int(ingested_us) * 1000
        transport, plain = chunk_parts(source_file, data, precision, ingest_ns, typed=True)
        landed = LandedFile(
            int(chunk_seq), source_file, source_path, int(source_bytes), int(source_modified_us)
        )
        if self.writers is None:
            self.writers = PartitionWriters(folder.removeprefix("file:"), uuid.uuid4().hex)
        self.writers.write(
            stored_partitions(transport, plain, landed, Run(int(ingested_us), invocation_id))
        )
        yield from ()

    def terminate(self) -> Iterator[tuple[Any, ...]]:
        if self.writers is not None:
            yield from self.writers.close()
            self.writers = None
