"""The raw log's flat point columns (decision 0025).

Beside its maps, a point row written by the table function stores each
column its point writes as a typed column of its own: tag ``host`` in
``tag__host``, float field ``usage_user`` in ``float__usage_user``. Iceberg
reads flat columns vectorized, and maps row by row, so a measurement model
that reads only flat columns scans its points several times faster.

The column's name is a function of (column type, name) alone, the same in
every chunk, so no dictionary is needed: :func:`flat_column_name` is the one
definition, and each column row records it (``flat_column``) for the readers.
A name of lower-case letters, digits and ``_`` is kept as it is; any other
name is spelled in hexadecimal UTF-8 (``tag_x_486f7374`` for ``Host``), so two
names never share a column, not even names that differ in case only (Spark
resolves column names without case). A column whose flat name would be
longer than :data:`MAX_FLAT_NAME_CHARS` has none: its column row's
``flat_column`` is NULL, and readers read the maps for that measurement.
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from python_udfs.column_types import MAP_OF_TYPE

# A flat column's Spark SQL type, by its Arrow type.
SQL_TYPES: dict[pa.DataType, str] = {
    pa.string(): "string",
    pa.float64(): "double",
    pa.int64(): "bigint",
    pa.decimal128(20, 0): "decimal(20, 0)",
    pa.bool_(): "boolean",
}
# Longest flat column name; the metastore keeps column names of up to 767
# characters, and names this short keep compiled SQL readable.
MAX_FLAT_NAME_CHARS = 128
_PLAIN_NAME = re.compile(r"[a-z0-9_]+\Z")


def flat_column_name(column_type: str, name: str) -> str | None:
    """The raw log's column for values of ``column_type`` named ``name``, or
    None when the name is too long to have one."""
    if column_type not in MAP_OF_TYPE:
        raise ValueError(f"unknown column type {column_type!r}")
    if _PLAIN_NAME.match(name):
        flat = f"{column_type}__{name}"
    else:
        flat = f"{column_type}_x_{name.encode('utf-8', 'surrogatepass').hex()}"
    return flat if len(flat) <= MAX_FLAT_NAME_CHARS else None


def with_flat_columns(points: pa.Table, columns: list[tuple[str, str]]) -> pa.Table:
    """One measurement's point rows (``points``, with the typed maps) with a
    flat column appended for each of its ``columns`` (column type, name) that
    has a flat name, holding the value of its map's entry."""
    by_map: dict[str, list[tuple[str, str]]] = {}
    for column_type, name in columns:
        flat_name = flat_column_name(column_type, name)
        if flat_name is not None:
            by_map.setdefault(MAP_OF_TYPE[column_type], []).append((name, flat_name))
    for map_column, names in by_map.items():
        values = _map_values(points[map_column].combine_chunks(), [name for name, _ in names])
        for (_, flat_name), column in zip(names, values, strict=True):
            points = points.append_column(flat_name, column)
    return points


def _map_values(maps: pa.MapArray, names: list[str]) -> list[pa.Array]:
    """Each name's value in each map (NULL where a map has no such key), in
    one pass over the maps' entries: the keys are dictionary-encoded once,
    then each name takes its entries' values to their rows."""
    offsets = maps.offsets.to_numpy()
    start, end = int(offsets[0]), int(offsets[-1])
    keys = maps.keys.slice(start, end - start)
    items = maps.items.slice(start, end - start)
    rows = np.repeat(np.arange(len(maps)), np.diff(offsets))
    if maps.null_count:  # a null map's entries, if any, are no values
        rows = np.where(maps.is_valid().to_numpy(zero_copy_only=False)[rows], rows, -1)
    encoded = pc.dictionary_encode(keys)
    codes = encoded.indices.to_numpy(zero_copy_only=False)
    code_of = {key: code for code, key in enumerate(encoded.dictionary.to_pylist())}
    found = []
    for name in names:
        at = np.full(len(maps), -1, dtype=np.int64)
        code = code_of.get(name)
        if code is not None:
            entries = np.flatnonzero(codes == code)
            entries = entries[rows[entries] >= 0]
            at[rows[entries]] = entries
        found.append(pc.take(items, pa.array(at, mask=at < 0)))
    return found
