"""A chunk's rows written as the raw log's data files, from Python (decision 0021).

``tsdedup_read_chunk`` hands Spark maps as text (python_udfs/chunk_table.py), and
``raw_chunks`` decodes them in the JVM (macro ``chunk_map``). To write the raw
log's data files from Python instead, the same decoding happens here, over
whole columns: a plain line's ``k=v,k=v`` sections with Arrow kernels, the
other points' JSON objects in Python. :func:`typed_maps` gives exactly the maps
``chunk_map`` gives (``tests/unit/test_raw_files.py``).

:func:`partition_dir` names a data file's folder as Spark's partition
discovery reads it back (Hive-style, ``row_kind=point/measurement=cpu``).
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from python_udfs.chunk_reader import RESERVED_MEASUREMENT
from python_udfs.chunk_table import MAP_COLUMNS

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
_TRUE = pa.array(["t", "T", "true", "True", "TRUE"])
# Characters Spark escapes in a partition folder's name (%XX), as its
# ExternalCatalogUtils.escapePathName does on Linux.
_ESCAPED = frozenset("\"#%'*/:=?\\\x7f{[]^") | frozenset(chr(code) for code in range(1, 32))
# A partition without a value (the reader refuses it as a measurement name).
NULL_PARTITION = RESERVED_MEASUREMENT


def partition_dir(row_kind: str, measurement: str | None) -> str:
    """The folder of a data file of one (row_kind, measurement) partition."""
    return f"row_kind={_escape(row_kind)}/measurement={_escape(measurement)}"


def _escape(value: str | None) -> str:
    if value is None or value == "":
        return NULL_PARTITION
    return "".join(f"%{ord(char):02X}" if char in _ESCAPED else char for char in value)


def typed_maps(transport: pa.Table) -> dict[str, pa.Array]:
    """Each map column of a transport table (python_udfs.chunk_table.SCHEMA) as
    the raw log's typed map: NULL stays NULL, an empty section is an empty map."""
    as_json = pc.fill_null(transport["maps_as_json"], False).to_numpy(zero_copy_only=False)
    return {
        column: _column_maps(transport[column].combine_chunks(), as_json, value_type)
        for column, value_type in MAP_COLUMNS.items()
    }


def _column_maps(texts: pa.Array, as_json: np.ndarray, value_type: str) -> pa.Array:
    map_type = MAP_TYPES[_column_of(value_type)]
    text_rows = np.flatnonzero(~as_json)
    json_rows = np.flatnonzero(as_json)
    parts = [_text_maps(texts.take(pa.array(text_rows)), value_type)]
    if len(json_rows):
        values = [
            _json_map(text, value_type) for text in texts.take(pa.array(json_rows)).to_pylist()
        ]
        parts.append(pa.array(values, type=map_type))
    joined = pa.concat_arrays(parts) if len(parts) > 1 else parts[0]
    # rows in their order again: text rows first in `joined`, then JSON rows
    where = np.empty(len(texts), dtype=np.int64)
    where[text_rows] = np.arange(len(text_rows))
    where[json_rows] = len(text_rows) + np.arange(len(json_rows))
    return joined.take(pa.array(where))


def _column_of(value_type: str) -> str:
    return next(column for column, type_ in MAP_COLUMNS.items() if type_ == value_type)


def _text_maps(texts: pa.Array, value_type: str) -> pa.Array:
    """``k=v,k=v`` sections as maps, values as written (``2i``, ``64u``, ``t``)."""
    items = pc.split_pattern(pc.fill_null(texts, ""), ",")
    offsets = items.offsets.to_numpy()
    flat = items.flatten()
    keep = pc.not_equal(flat, "").to_numpy(zero_copy_only=False)
    kept_before = np.zeros(len(keep) + 1, dtype=np.int64)
    np.cumsum(keep, out=kept_before[1:])
    pairs = pc.split_pattern(flat.filter(pa.array(keep)), "=", max_splits=1)
    keys = pc.list_element(pairs, 0)
    values = pc.list_element(pairs, 1)
    if value_type in ("bigint", "decimal(20, 0)"):
        values = pc.utf8_slice_codeunits(values, 0, -1)  # the i / u suffix
    if value_type == "boolean":
        values = pc.is_in(values, value_set=_TRUE)
    else:
        values = values.cast(VALUE_TYPES[value_type])
    return pa.MapArray.from_arrays(
        pa.array(kept_before[offsets], pa.int32()),
        keys,
        values,
        mask=pc.is_null(texts),
    )


def _json_map(text: str | None, value_type: str) -> list[tuple[str, Any]] | None:
    if text is None:
        return None
    values = json.loads(text)
    if value_type == "decimal(20, 0)":
        return [(key, Decimal(value)) for key, value in values.items()]
    return list(values.items())


# The raw log's columns as a data file holds them: every column but the
# partition columns (row_kind, measurement), which Iceberg takes from the
# file's partition (its folder, when add_files imports it).
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
    ("lines_read", pa.int64()),
    ("source_path", pa.string()),
    ("source_bytes", pa.int64()),
    ("source_modified_at", pa.timestamp("us", tz="UTC")),
    ("content_sha256", pa.string()),
    ("ingested_at", pa.timestamp("us", tz="UTC")),
    ("invocation_id", pa.string()),
)
STORED_SCHEMA = pa.schema(list(STORED_FIELDS))


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
    transport: pa.Table, landed: LandedFile, run: Run
) -> dict[tuple[str, str | None], pa.Table]:
    """A chunk's transport table as the raw log stores it, one table per
    (row_kind, measurement) partition. The file's listing columns are on its
    chunk row only, as raw_chunks writes them."""
    count = len(transport)
    row_kind = transport["row_kind"].combine_chunks()
    is_chunk = pc.equal(row_kind, "chunk")

    def on_chunk_row(value: Any, type_: pa.DataType) -> pa.Array:
        return pc.if_else(is_chunk, pa.scalar(value, type_), pa.scalar(None, type_))

    def constant(value: Any, type_: pa.DataType) -> pa.Array:
        return (
            pa.array(np.full(count, value, dtype=object), type_) if count else pa.array([], type_)
        )

    columns = {name: transport[name].combine_chunks() for name in transport.schema.names}
    columns.update(typed_maps(transport))
    columns["chunk_seq"] = pa.array(np.full(count, landed.chunk_seq, dtype=np.int64))
    columns["source_file"] = constant(landed.source_file, pa.string())
    columns["source_path"] = on_chunk_row(landed.source_path, pa.string())
    columns["source_bytes"] = on_chunk_row(landed.source_bytes, pa.int64())
    stamp = pa.timestamp("us", tz="UTC")
    columns["source_modified_at"] = on_chunk_row(landed.source_modified_us, stamp)
    columns["ingested_at"] = pa.array(np.full(count, run.ingested_us, dtype=np.int64)).cast(stamp)
    columns["invocation_id"] = constant(run.invocation_id, pa.string())
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
        partitions[(kind, measurement)] = stored.filter(pc.fill_null(mine, False))
    return partitions


class PartitionWriters:
    """One open Parquet file per partition for everything one task writes
    (many chunks go to few files, as Spark's fanout writer does)."""

    def __init__(self, folder: str, name: str) -> None:
        self.folder = folder
        self.name = name
        self.writers: dict[tuple[str, str | None], Any] = {}
        self.rows: dict[tuple[str, str | None], int] = {}

    def write(self, partitions: dict[tuple[str, str | None], pa.Table]) -> None:
        import pyarrow.parquet as pq

        for key, table in partitions.items():
            if key not in self.writers:
                path = f"{self.folder}/{partition_dir(*key)}/{self.name}.parquet"
                os.makedirs(os.path.dirname(path), exist_ok=True)
                self.writers[key] = pq.ParquetWriter(path, STORED_SCHEMA, compression="zstd")
                self.rows[key] = 0
            self.writers[key].write_table(table)
            self.rows[key] += len(table)

    def close(self) -> list[tuple[str, str, str | None, int]]:
        """Close every file: (path, row_kind, measurement, rows) each."""
        written = []
        for key, writer in self.writers.items():
            writer.close()
            written.append((writer.where, *key, self.rows[key]))
        self.writers.clear()
        return written


WRITE_RETURN_TYPE = "path string, row_kind string, measurement string, rows bigint"


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
        from python_udfs.chunk_table import chunk_table, landed_bytes

        data = landed_bytes(source_path, content)
        transport = chunk_table(source_file, data, precision, int(ingested_us) * 1000)
        landed = LandedFile(
            int(chunk_seq), source_file, source_path, int(source_bytes), int(source_modified_us)
        )
        if self.writers is None:
            self.writers = PartitionWriters(folder.removeprefix("file:"), uuid.uuid4().hex)
        self.writers.write(
            stored_partitions(transport, landed, Run(int(ingested_us), invocation_id))
        )
        yield from ()

    def terminate(self) -> Iterator[tuple[Any, ...]]:
        if self.writers is not None:
            yield from self.writers.close()
            self.writers = None
