"""The raw log's typed maps built in Arrow (python_udfs.raw_files, from the
vectorized reader's typed maps and the other points' JSON) are the maps
raw_chunks' macro chunk_map builds in Spark from the text transport table of
the same file, and partition folders are named as Spark's partition discovery
reads them."""

from __future__ import annotations

import datetime
import math
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from python_udfs.chunk_table import MAP_COLUMNS, chunk_parts, chunk_table
from python_udfs.raw_files import (
    MAP_TYPES,
    ROW_GROUP_ROWS,
    STORED_SCHEMA,
    LandedFile,
    PartitionWriters,
    Run,
    WriteChunks,
    _escape,
    partition_dir,
    point_days,
    stored_partitions,
    typed_maps,
)
from tests.hostile_names import HOSTILE_NAMES
from tests.unit.test_lp_vector import INGEST_NS, NAMES, decoded_rows, files


def _items(value: Any) -> Any:
    """A map as its sorted items (duplicates kept), floats with their sign."""
    if value is None:
        return None
    pairs = value.items() if isinstance(value, dict) else value
    return sorted((k, (v, math.copysign(1.0, v)) if isinstance(v, float) else v) for k, v in pairs)


def assert_same_maps(content: bytes, precision: str = "ns") -> None:
    """Both reads of a file give the same rows: the typed one's maps are the
    text one's decoded maps, and every other column is equal."""
    text = chunk_table("f.lp", content, precision, INGEST_NS)
    transport, plain = chunk_parts("f.lp", content, precision, INGEST_NS, typed=True)
    assert transport.drop_columns(list(MAP_COLUMNS)) == text.drop_columns(list(MAP_COLUMNS))
    maps = typed_maps(transport, plain)
    expected = decoded_rows(text)
    for column in MAP_COLUMNS:
        assert maps[column].type == MAP_TYPES[column]
        index = NAMES.index(column)
        got = [_items(v) for v in maps[column].to_pylist()]
        want = [_items(row[index]) for row in expected]
        assert got == want, column


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files())
def test_arrow_maps_equal_the_maps_spark_decodes(file: tuple[str, str]) -> None:
    text, precision = file
    assert_same_maps(text.encode("utf-8", "surrogatepass"), precision)


def test_a_feed_of_many_values_keeps_every_value() -> None:
    lines = [
        "m,host=a,region=eu f=1.5,g=-0.0,h=1e300,i=2i,u=18446744073709551615u,b=t,c=FALSE 1",
        "m,host=b f=5e-324,i=-9223372036854775808i 2",
        'm,host=c s="text, with = signs",f=3 3',
        "m f=1 4",
        "other,x=y v=0.1 5",
    ]
    assert_same_maps(("\n".join(lines) + "\n").encode())


def test_partition_folders_escape_what_spark_escapes() -> None:
    none = "__HIVE_DEFAULT_PARTITION__"
    assert (
        partition_dir("point", "cpu", 0)
        == "row_kind=point/measurement=cpu/partition_day=1970-01-01"
    )
    assert partition_dir("point", "cpu", -1).endswith("/partition_day=1969-12-31")
    assert partition_dir("point", "cpu", 16801).endswith("/partition_day=2016-01-01")
    assert partition_dir("chunk", None) == f"row_kind=chunk/measurement={none}/partition_day={none}"
    assert _escape("a/b=c%d") == "a%2Fb%3Dc%25d"
    assert _escape("tab\there") == "tab%09here"
    for name in HOSTILE_NAMES:
        folder = _escape(name)
        assert "/" not in folder and "=" not in folder, name


@pytest.mark.parametrize("row_group_rows", [ROW_GROUP_ROWS, 1])
def test_a_task_writes_one_file_per_partition_for_all_its_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, row_group_rows: int
) -> None:
    monkeypatch.setattr("python_udfs.raw_files.ROW_GROUP_ROWS", row_group_rows)
    function = WriteChunks()
    files = {
        "a.lp": b"m,host=a v=1 1\nbad line\nn,host=b v=2 2\n",
        "b.lp": b"m,host=c v=3 3\n",
    }
    for seq, (name, content) in enumerate(files.items(), start=1):
        path = tmp_path / "landing" / name
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(content)
        rows = list(
            function.eval(
                seq,
                name,
                f"file:{path}",
                len(content),
                0,
                None,
                "ns",
                5,
                "inv",
                str(tmp_path / "out"),
            )
        )
        assert rows == []
    written = list(function.terminate())
    partitions = sorted((f.row_kind, f.measurement, f.rows) for f in written)
    assert partitions == [
        ("chunk", None, 2),
        ("column", "m", 4),
        ("column", "n", 2),
        ("point", "m", 2),
        ("point", "n", 1),
        ("reject", None, 1),
    ]
    for path, kind, measurement, rows, point_columns in written:
        assert Path(path).parent.relative_to(tmp_path / "out") == Path(
            partition_dir(kind, measurement, 0 if kind == "point" else None)
        )
        table = pq.read_table(path)
        flat = ["float__v double", "tag__host string"] if kind == "point" else []
        assert table.schema.names == STORED_SCHEMA.names + [c.split()[0] for c in flat]
        assert sorted(point_columns.split(";") if point_columns else []) == flat
        assert len(table) == rows
    (points,) = [
        pq.read_table(f.path) for f in written if (f.row_kind, f.measurement) == ("point", "m")
    ]
    assert points.column("chunk_seq").to_pylist() == [1, 2]
    # add_files takes each file's bounds from its statistics: scans of the new
    # chunks only skip the older files by their chunk_seq bounds
    # (rows wait for a whole row group, unless the group is one row)
    (points_path,) = [f.path for f in written if (f.row_kind, f.measurement) == ("point", "m")]
    metadata = pq.ParquetFile(points_path).metadata
    assert metadata.num_row_groups == (2 if row_group_rows == 1 else 1)
    column = STORED_SCHEMA.names.index("chunk_seq")
    bounds = [
        metadata.row_group(i).column(column).statistics for i in range(metadata.num_row_groups)
    ]
    assert (min(b.min for b in bounds), max(b.max for b in bounds)) == (1, 2)
    assert points.column("tags").to_pylist() == [[("host", "a")], [("host", "c")]]
    assert set(points.column("invocation_id").to_pylist()) == {"inv"}
    assert list(function.terminate()) == []


SPARK_TYPES = {
    pa.int64(): "bigint",
    pa.string(): "string",
    pa.bool_(): "boolean",
    pa.float64(): "double",
    pa.decimal128(20, 0): "decimal(20,0)",
    pa.timestamp("us", tz="UTC"): "timestamp",
}


def _spark_type(type_: pa.DataType) -> str:
    if pa.types.is_map(type_):
        return f"map<{_spark_type(type_.key_type)},{_spark_type(type_.item_type)}>"
    return SPARK_TYPES[type_]


def test_the_yaml_types_of_the_raw_log_are_the_types_python_writes() -> None:
    # The first run in write mode `files` creates the raw log from the YAML's
    # data types (macro create_raw_files_table); the data files written from
    # Python must fit that table, column for column (Spark's own write is
    # compared with it in tests/integration/test_ingest_transport.py).
    yml = Path(__file__).resolve().parents[2] / "models" / "landing" / "_landing__models.yml"
    (model,) = [
        m for m in yaml.safe_load(yml.read_text("utf-8"))["models"] if m["name"] == "raw_chunks"
    ]
    declared = {column["name"]: column["data_type"] for column in model["columns"]}
    written = {field.name: _spark_type(field.type) for field in STORED_SCHEMA}
    # the partition columns come from the files' folders (partition_dir)
    partition_columns = {"row_kind": "string", "measurement": "string", "partition_day": "date"}
    assert {k: v for k, v in declared.items() if k not in partition_columns} == written
    assert {name: declared[name] for name in partition_columns} == partition_columns


def test_a_task_writes_each_day_of_points_to_a_file_of_its_own(tmp_path: Path) -> None:
    day = 86_400_000_000_000
    content = (
        f"m,host=a v=1 {-1}\n"  # the last nanosecond before the epoch: 1969-12-31
        f"m,host=a v=2 0\n"
        f"m,host=b v=3 {day - 1}\n"
        f"m,host=a v=4 {day}\n"
        f"n,host=a v=5 {3 * day + 7}\n"
    ).encode()
    path = tmp_path / "a.lp"
    path.write_bytes(content)
    function = WriteChunks()
    args = ("a.lp", f"file:{path}", len(content), 0, None, "ns", 5, "inv", str(tmp_path / "out"))
    assert list(function.eval(1, *args)) == []
    written = list(function.terminate())
    points = {
        Path(f.path).parent.relative_to(tmp_path / "out").as_posix(): pq.read_table(f.path)
        for f in written
        if f.row_kind == "point"
    }
    times = {folder: table.column("time_ns").to_pylist() for folder, table in points.items()}
    assert times == {
        "row_kind=point/measurement=m/partition_day=1969-12-31": [-1],
        "row_kind=point/measurement=m/partition_day=1970-01-01": [0, day - 1],
        "row_kind=point/measurement=m/partition_day=1970-01-02": [day],
        "row_kind=point/measurement=n/partition_day=1970-01-04": [3 * day + 7],
    }
    # rows other than points have no day
    for f in written:
        if f.row_kind != "point":
            assert Path(f.path).parent.name == "partition_day=__HIVE_DEFAULT_PARTITION__"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=-(2**63), max_value=2**63 - 1), min_size=1, max_size=40))
def test_each_point_goes_to_the_utc_day_of_its_time(times: list[int]) -> None:
    table = pa.table({"time_ns": pa.array(times, pa.int64()), "i": range(len(times))})
    seen: list[int] = []
    for day, rows in point_days(table):
        assert day is not None
        for time_ns, i in zip(rows["time_ns"].to_pylist(), rows["i"].to_pylist(), strict=True):
            # the day as a calendar computes it from the exact time
            when = datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=time_ns // 1000)
            assert (when.date() - datetime.date(1970, 1, 1)).days == day
            seen.append(i)
    assert sorted(seen) == list(range(len(times)))


def test_a_task_bounds_its_waiting_rows_and_open_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A backfill whose chunks span many days: a task keeps at most
    WAITING_ROWS rows in memory and OPEN_FILES files open, and loses no row."""
    monkeypatch.setattr("python_udfs.raw_files.ROW_GROUP_ROWS", 4)
    monkeypatch.setattr("python_udfs.raw_files.WAITING_ROWS", 6)
    monkeypatch.setattr("python_udfs.raw_files.OPEN_FILES", 3)
    day = 86_400_000_000_000
    writers = PartitionWriters(str(tmp_path), "task")
    expected: dict[int, list[int]] = {}
    opened = []
    real_writer = pq.ParquetWriter

    def counting_writer(*args: Any, **kwargs: Any) -> Any:
        opened.append(args[0])
        return real_writer(*args, **kwargs)

    monkeypatch.setattr(pq, "ParquetWriter", counting_writer)
    for seq in range(1, 13):
        # each chunk: two points on each of three days, the days moving on
        lines = []
        for d in (seq % 5, seq % 5 + 1, seq % 5 + 2):
            for i in range(2):
                time_ns = d * day + seq * 10 + i
                lines.append(f"m,host=h{seq} v={i} {time_ns}")
                expected.setdefault(d, []).append(time_ns)
        writers.write(_chunk(seq, "\n".join(lines) + "\n"))
        assert writers.waiting_rows <= 6
        assert sum(len(t) for w in writers.waiting.values() for t in w) == writers.waiting_rows
        assert writers.waiting_counts == {
            key: sum(len(t) for t in w) for key, w in writers.waiting.items()
        }
        assert len(writers.writers) <= 3
    written = [f for f in writers.close() if f.row_kind == "point"]
    found: dict[int, list[int]] = {}
    for f in written:
        folder = Path(f.path).parent.name.removeprefix("partition_day=")
        d = (datetime.date.fromisoformat(folder) - datetime.date(1970, 1, 1)).days
        times = pq.read_table(f.path).column("time_ns").to_pylist()
        assert len(times) == f.rows
        found.setdefault(d, []).extend(times)
    assert {d: sorted(t) for d, t in found.items()} == {d: sorted(t) for d, t in expected.items()}
    # more files than days: closed files went on in new ones, each named once
    assert len(written) > len(expected)
    opened_points = [path for path in opened if "/row_kind=point/" in path]
    assert len(set(opened)) == len(opened)
    assert sorted(opened_points) == sorted(f.path for f in written)


def _chunk(seq: int, text: str) -> dict[tuple[str, str | None], pa.Table]:
    content = text.encode()
    transport, plain = chunk_parts(f"{seq}.lp", content, "ns", INGEST_NS, typed=True)
    landed = LandedFile(seq, f"{seq}.lp", f"file:/{seq}.lp", len(content), 0)
    return stored_partitions(transport, plain, landed, Run(1, "i"))
