"""The raw log's flat point columns (python_udfs.point_columns, decision 0025):
one column per (column type, name), never shared by two of them, holding on
each point row exactly the value of that column's map entry."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from python_udfs.chunk_table import chunk_parts
from python_udfs.point_columns import (
    MAP_OF_TYPE,
    MAX_FLAT_NAME_CHARS,
    flat_column_name,
)
from python_udfs.raw_files import (
    STORED_SCHEMA,
    LandedFile,
    PartitionWriters,
    Run,
    stored_partitions,
)
from tests.hostile_names import HOSTILE_NAMES
from tests.unit.test_lp_vector import INGEST_NS, files

TYPES = sorted(MAP_OF_TYPE)
_names = st.one_of(
    st.text(min_size=1, max_size=80),
    st.from_regex(r"[a-zA-Z0-9_]{1,20}", fullmatch=True),
    st.sampled_from(HOSTILE_NAMES),
)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(TYPES), _names), min_size=2, max_size=8, unique=True))
def test_no_two_columns_share_a_flat_column(pairs: list[tuple[str, str]]) -> None:
    flat = [flat_column_name(type_, name) for type_, name in pairs]
    named = [name for name in flat if name is not None]
    # Spark resolves names without case: no two may differ in case only
    assert len({name.lower() for name in named}) == len(named)
    for name in named:
        assert re.fullmatch(r"[a-z0-9_]+", name) and len(name) <= MAX_FLAT_NAME_CHARS
        # never one of the log's own columns
        assert name not in STORED_SCHEMA.names and name not in {"row_kind", "measurement"}


def test_plain_names_read_as_they_are_and_others_in_hex() -> None:
    assert flat_column_name("tag", "host") == "tag__host"
    assert flat_column_name("float", "usage_user") == "float__usage_user"
    assert flat_column_name("tag", "Host") == "tag_x_486f7374"
    assert flat_column_name("string", "a b") == "string_x_612062"
    assert flat_column_name("tag", "x" * 200) is None
    assert flat_column_name("tag", "é" * 60) is None  # 120 bytes, 240 hex digits


def _value(value: Any) -> Any:
    return (value, math.copysign(1.0, value)) if isinstance(value, float) else value


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files())
def test_each_point_holds_its_map_values_in_its_columns_flat_columns(
    file: tuple[str, str],
) -> None:
    text, precision = file
    content = text.encode("utf-8", "surrogatepass")
    transport, plain = chunk_parts("f.lp", content, precision, INGEST_NS, typed=True)
    partitions = stored_partitions(
        transport, plain, LandedFile(7, "f.lp", "file:/f.lp", len(content), 0), Run(1, "i")
    )
    columns: dict[str | None, set[tuple[str, str]]] = {}
    for (kind, measurement), table in partitions.items():
        if kind != "column":
            if kind != "point":
                assert table.schema.names == STORED_SCHEMA.names, kind
            assert table["flat_column"].null_count == len(table)
            continue
        for row in table.to_pylist():
            assert row["flat_column"] == flat_column_name(row["column_type"], row["column_name"])
            columns.setdefault(measurement, set()).add((row["column_type"], row["column_name"]))
    for (kind, measurement), table in partitions.items():
        if kind != "point":
            continue
        mine = columns[measurement]
        expected = {flat: (t, n) for t, n in mine if (flat := flat_column_name(t, n)) is not None}
        flat_names = table.schema.names[len(STORED_SCHEMA.names) :]
        assert sorted(flat_names) == sorted(expected)
        for row in table.to_pylist():
            for flat in flat_names:
                type_, name = expected[flat]
                entries = dict(row[MAP_OF_TYPE[type_]] or [])
                assert _value(row[flat]) == _value(entries.get(name)), (flat, row)
            # every entry of every map is in its column, unless its name is too long
            for type_, map_column in MAP_OF_TYPE.items():
                for name, value in row[map_column] or []:
                    flat = flat_column_name(type_, name)
                    assert (type_, name) in mine
                    if flat is not None:
                        assert _value(row[flat]) == _value(value)


def _chunk(seq: int, text: str) -> dict[tuple[str, str | None], pa.Table]:
    content = text.encode()
    transport, plain = chunk_parts(f"{seq}.lp", content, "ns", INGEST_NS, typed=True)
    landed = LandedFile(seq, f"{seq}.lp", f"file:/{seq}.lp", len(content), 0)
    return stored_partitions(transport, plain, landed, Run(1, "i"))


def test_a_chunk_with_a_new_column_goes_on_in_a_new_file(tmp_path: Path) -> None:
    writers = PartitionWriters(str(tmp_path), "task")
    writers.write(_chunk(1, "m,host=a v=1 1\n"))
    writers._flush(("point", "m", 0))  # the first chunk's rows are in the file
    writers.write(_chunk(2, "m,host=b,rack=r v=2,w=3i 2\n"))
    writers.write(_chunk(3, "m v=4 3\n"))
    written = [f for f in writers.close() if f.row_kind == "point"]
    assert [Path(f.path).name for f in written] == ["task.parquet", "task-2.parquet"]
    first, second = (pq.read_table(f.path) for f in written)
    assert sorted(written[0].point_columns.split(";")) == ["float__v double", "tag__host string"]
    assert sorted(written[1].point_columns.split(";")) == [
        "float__v double",
        "integer__w bigint",
        "tag__host string",
        "tag__rack string",
    ]
    assert first.select(["chunk_seq", "tag__host", "float__v"]).to_pylist() == [
        {"chunk_seq": 1, "tag__host": "a", "float__v": 1.0}
    ]
    flat = ["chunk_seq", "tag__host", "tag__rack", "float__v", "integer__w"]
    assert second.select(flat).to_pylist() == [
        {"chunk_seq": 2, "tag__host": "b", "tag__rack": "r", "float__v": 2.0, "integer__w": 3},
        {"chunk_seq": 3, "tag__host": None, "tag__rack": None, "float__v": 4.0, "integer__w": None},
    ]
    assert [f.rows for f in written] == [1, 2]
