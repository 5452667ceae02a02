"""A chunk's rows as the raw log stores them, built in Arrow (draft: not wired in).

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
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

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
_ESCAPED = frozenset('"#%\'*/:=?\\\x7f{[]^') | frozenset(chr(code) for code in range(1, 32))
NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"


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
        values = [_json_map(text, value_type) for text in texts.take(pa.array(json_rows)).to_pylist()]
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
