"""The raw log holds exactly the rows the exact reader gives.

``tsdedup_read_chunk`` hands its rows to Spark as Arrow batches with maps as text
(python_udfs/chunk_table.py), and ``raw_chunks`` turns the text into typed maps
in the JVM (macro chunk_map): a plain line's values as written, every other
point's as JSON. This checks that path on values chosen to break it (doubles
that need 17 digits, subnormals, long mantissas, integers at the limits of the
plain reader, every boolean spelling, names outside ASCII) against
python_udfs.chunk_rows, read back from the Iceberg files without Spark.
"""

from __future__ import annotations

import hashlib
import math
import random
import struct
from collections import Counter
from decimal import Decimal
from typing import Any

import pytest

from python_udfs.chunk_rows import COLUMNS, chunk_rows
from python_udfs.point_columns import flat_column_name
from tests.integration.conftest import Workspace
from tsdedup.iceberg_reader import read_table

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

NAMES = [name for name, _ in COLUMNS]
_MAPS = ("tags", "fields_float", "fields_int", "fields_uint", "fields_string", "fields_bool")


def _random_double(rng: random.Random) -> float:
    while True:
        (value,) = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))
        if math.isfinite(value):
            return value


def _float_texts(rng: random.Random) -> list[str]:
    fixed = [
        "-0",
        "0.0",
        ".5",
        "-.5",
        "5.",
        "007.50",
        "1e-320",
        "4.9e-324",
        "2.2250738585072011e-308",
        "2.2250738585072012e-308",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "0.1",
        "9007199254740993",
        "123456789012345678901234567890.123456789e-10",
        "1E+5",
    ]
    drawn = [repr(_random_double(rng)) for _ in range(200)]
    long = [
        "".join(rng.choice("0123456789") for _ in range(rng.randint(18, 40)))
        + "."
        + "".join(rng.choice("0123456789") for _ in range(rng.randint(0, 30)))
        + rng.choice(["", f"e{rng.randint(-330, 300)}"])
        for _ in range(100)
    ]
    return fixed + drawn + long


def landed_file(seed: int) -> str:
    rng = random.Random(seed)
    hosts = ["a", "é", "中文", "🙂", "x.y-z_1"]
    lines = []
    for number, value in enumerate(_float_texts(rng)):
        lines.append(f"vals,host={rng.choice(hosts)} f={value} {number}")
    integers = ["0i", "-0i", "007i", "999999999999999999i", "-999999999999999999i"]
    integers += [f"{rng.randint(-(10**18) + 1, 10**18 - 1)}i" for _ in range(50)]
    unsigned = ["0u", "9999999999999999999u", "000u"]
    unsigned += [f"{rng.randint(0, 10**19 - 1)}u" for _ in range(50)]
    booleans = ["t", "T", "true", "True", "TRUE", "f", "F", "false", "False", "FALSE"]
    for number, (i, u, b) in enumerate(zip(integers, unsigned * 2, booleans * 6, strict=False)):
        lines.append(f"mixed,host={hosts[number % 5]} i={i},u={u},b={b},f={number}.25 {number}")
    # Points the exact reader takes, maps as JSON: escapes, strings, the limits.
    lines += [
        'strs,host=a s="quote \\" backslash \\\\ tab \t é 🙂",n=1i 1',
        "strs,host=a\\,b\\=c\\ d i=9223372036854775807i,u=18446744073709551615u 2",
        "strs,host=a i=-9223372036854775808i,f=1e-320 3",
        "strs,tab=a\tb v=1 4",
        # longer than Jackson's default limit for one JSON string (20 M characters)
        f'strs,host=big s="{"x" * 20_000_001}" 5',
        "vals v=1 9223372036854775807",
        # the first partial day of the 64-bit range: its day without overflow
        "vals v=1 -9223372036854775808",
        "vals v=1 -9223372036854775001",
        "not a point",
        "",
        "# comment",
    ]
    return "\n".join(lines) + "\n"


def _normalized(row: dict[str, Any]) -> tuple[Any, ...]:
    values = []
    for name in NAMES:
        value = row[name]
        if name in _MAPS and value is not None:
            items = value.items() if isinstance(value, dict) else value
            value = sorted(
                (k, (v, math.copysign(1.0, v)) if isinstance(v, float) else v) for k, v in items
            )
        values.append(value)
    return tuple(values)


def test_raw_chunks_hold_the_exact_readers_rows(workspace: Workspace) -> None:
    ws = workspace
    content = landed_file(seed=11).encode()
    ws.land("values.lp", content)
    first = ws.tsdedup("run", "--select", "raw_chunks").check()
    # The first run creates the log and writes its rows as data files itself.
    assert compiled_header(ws) == "/* tsdedup write mode: files */"

    stored = read_table(ws.home, "raw_chunks").to_pylist()
    mine = [row for row in stored if row["source_file"] == "values.lp"]
    expected = [
        dict(zip(NAMES, row, strict=True)) for row in chunk_rows("values.lp", content, "ns", 0)
    ]
    # The summary of a run that built the raw log alone (no staging view exists
    # yet) reads what it ingested from the log itself.
    (expected_chunk,) = [row for row in expected if row["row_kind"] == "chunk"]
    per_measurement = Counter(row["measurement"] for row in expected if row["row_kind"] == "point")
    assert f"ingested 1 file(s): {expected_chunk['lines_read']} lines" in first.stdout
    shown = ", ".join(f"{m} {n:,}" for m, n in sorted(per_measurement.items()))
    assert f"points per measurement: {shown}" in first.stdout
    assert "tables not read" not in first.stdout
    for row in expected:
        for name in _MAPS:
            if isinstance(row[name], dict) and name == "fields_uint":
                row[name] = {k: Decimal(v) for k, v in row[name].items()}
    got = sorted((_normalized(row) for row in mine), key=repr)
    want = sorted((_normalized(row) for row in expected), key=repr)
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert a == b
    points = [row for row in expected if row["row_kind"] == "point"]
    assert len(points) > 350  # the file's values were read, not rejected
    (chunk,) = [row for row in mine if row["row_kind"] == "chunk"]
    assert chunk["content_sha256"] == hashlib.sha256(content).hexdigest()

    # The raw log is written without an exchange before the write, and read with
    # each small file a task of its own; a log created before it was configured
    # so gets the properties at its next run.
    def write_properties() -> dict[object, object]:
        (rows,) = ws.sql("show tblproperties tsdedup.raw_chunks")
        wanted = (
            "write.distribution-mode",
            "write.spark.fanout.enabled",
            "read.split.open-file-cost",
        )
        return {row["key"]: row["value"] for row in rows if row["key"] in wanted}

    assert write_properties() == {
        "write.distribution-mode": "none",
        "write.spark.fanout.enabled": "true",
        "read.split.open-file-cost": "16777216",
    }
    ws.sql(
        "alter table tsdedup.raw_chunks unset tblproperties"
        " ('write.distribution-mode', 'write.spark.fanout.enabled', 'read.split.open-file-cost')"
    )
    assert write_properties() == {}
    ws.land("more.lp", "vals,host=a f=1.5 1\n")
    ws.tsdedup("run", "--select", "raw_chunks").check()
    assert write_properties() == {
        "write.distribution-mode": "none",
        "write.spark.fanout.enabled": "true",
        "read.split.open-file-cost": "16777216",
    }
    stored = read_table(ws.home, "raw_chunks").to_pylist()
    assert {row["source_file"] for row in stored} == {"values.lp", "more.lp"}


def test_both_writes_of_the_raw_log_store_the_same_rows(workspace: Workspace) -> None:
    # A local run writes its rows as data files from Python and commits them
    # with add_files (write mode `files`); Spark's own write (var
    # tsdedup_raw_write: spark) must store the same rows for the same content,
    # every column but the file's own, and create the same table.
    ws = workspace
    content = landed_file(seed=12).encode()
    spark_write = ("run", "--select", "raw_chunks", "--vars", "{tsdedup_raw_write: spark}")
    ws.land("first.lp", content)
    ws.tsdedup(*spark_write).check()  # Spark creates the log from the query
    assert "write mode" not in compiled_header(ws)
    created_by_spark = table_layout(ws)
    ws.land("by_python.lp", content)
    ws.tsdedup("run", "--select", "raw_chunks").check()
    assert compiled_header(ws) == "/* tsdedup write mode: files */"
    ws.land("by_spark.lp", content)
    ws.tsdedup(*spark_write).check()
    assert "write mode" not in compiled_header(ws)

    stored = read_table(ws.home, "raw_chunks").to_pylist()
    own = {"chunk_seq", "source_file", "source_path", "source_modified_at"}
    own |= {"ingested_at", "invocation_id"}
    # The table function also keeps each point's values in flat columns, and
    # names them on the column rows (decision 0025); Spark's write keeps the
    # maps alone, and its rows read NULL there.
    flat = {row["flat_column"] for row in stored if row["row_kind"] == "column"} - {None}
    assert {"tag__host", "float__f"} <= flat
    for row in stored:
        if row["source_file"] != "by_python.lp":
            assert row["flat_column"] is None and all(row[name] is None for name in flat)
        elif row["row_kind"] == "column":
            assert row["flat_column"] == flat_column_name(row["column_type"], row["column_name"])
        elif row["row_kind"] == "point":
            maps = {"tag": row["tags"], "float": row["fields_float"], "integer": row["fields_int"]}
            maps |= {"string": row["fields_string"], "boolean": row["fields_bool"]}
            maps["unsigned"] = row["fields_uint"]
            written = {
                flat_column_name(type_, key): value
                for type_, entries in maps.items()
                for key, value in (entries.items() if isinstance(entries, dict) else entries or [])
            }
            assert {name: row[name] for name in flat if row[name] is not None} == written
    own |= {"flat_column"} | flat
    names = [name for name in stored[0] if name not in own]

    def rows_of(source_file: str) -> list[tuple[Any, ...]]:
        mine = [row for row in stored if row["source_file"] == source_file]
        assert len(mine) > 350, source_file
        return sorted((_normalized_columns(row, names) for row in mine), key=repr)

    by_python, by_spark = rows_of("by_python.lp"), rows_of("by_spark.lp")
    assert len(by_python) == len(by_spark)
    for a, b in zip(by_python, by_spark, strict=True):
        assert a == b
    # each file's own columns, on its chunk row
    chunks = {row["source_file"]: row for row in stored if row["row_kind"] == "chunk"}
    assert chunks["by_python.lp"]["source_path"].endswith("/by_python.lp")
    assert chunks["by_python.lp"]["source_bytes"] == len(content)
    python_run = chunks["by_python.lp"]["invocation_id"]
    assert {row["invocation_id"] for row in stored if row["source_file"] == "by_python.lp"} == {
        python_run
    }

    # A log that write mode `files` creates (from the YAML's data types) is the
    # table Spark creates from the query: columns, types, partitioning and
    # properties; and it holds the same rows.
    ws.sql("drop table tsdedup.raw_chunks")
    ws.tsdedup("run", "--select", "raw_chunks").check()
    assert compiled_header(ws) == "/* tsdedup write mode: files */"
    assert table_layout(ws, leave_out=flat) == created_by_spark
    again = read_table(ws.home, "raw_chunks").to_pylist()
    mine = [r for r in again if r["source_file"] == "by_python.lp"]
    assert sorted((_normalized_columns(r, names) for r in mine), key=repr) == by_python


def compiled_header(ws: Workspace) -> str:
    compiled = ws.project / "target" / "compiled" / "tsdedup" / "models" / "landing"
    return (compiled / "raw_chunks.sql").read_text("utf-8").lstrip().splitlines()[0]


def table_layout(
    ws: Workspace, leave_out: set[str] | frozenset[str] = frozenset()
) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """The raw log's columns and partition fields as `describe` lists them
    (but those in ``leave_out``), and its table properties but those a write
    adds (add_files' name mapping)."""
    described, properties = ws.sql(
        "describe table tsdedup.raw_chunks", "show tblproperties tsdedup.raw_chunks"
    )
    columns = [
        (str(r["col_name"]), str(r["data_type"]))
        for r in described
        if r["col_name"] not in leave_out
    ]
    kept = {
        str(r["key"]): str(r["value"])
        for r in properties
        if r["key"] not in ("schema.name-mapping.default", "current-snapshot-id")
    }
    return columns, kept


def _normalized_columns(row: dict[str, Any], names: list[str]) -> tuple[Any, ...]:
    return tuple(
        sorted(
            (k, (v, math.copysign(1.0, v)) if isinstance(v, float) else v)
            for k, v in (row[n].items() if isinstance(row[n], dict) else row[n])
        )
        if n in _MAPS and row[n] is not None
        else row[n]
        for n in names
    )


def test_a_first_run_without_the_column_types_stops_before_writing(workspace: Workspace) -> None:
    # Write mode `files` creates the log from the YAML's data types: a column
    # without one is a clear error naming it, before any table or file exists;
    # with the type back, the same file loads.
    ws = workspace
    yml = ws.project / "models" / "landing" / "_landing__models.yml"
    declared = yml.read_text("utf-8")
    typed = "      - name: lines_read\n        data_type: bigint\n"
    assert typed in declared
    yml.write_text(declared.replace(typed, "      - name: lines_read\n"), "utf-8")
    ws.land("one.lp", "vals,host=a f=1.5 1\n")
    failed = ws.tsdedup("run", "--select", "raw_chunks")
    assert failed.code == 1, failed.stdout
    assert "creates the table from the data_type of every column" in failed.stdout
    assert "missing for: lines_read" in failed.stdout
    (tables,) = ws.sql("show tables in tsdedup like 'raw_chunks'")
    assert tables == []
    assert not (ws.home / "warehouse" / "tsdedup.db" / "raw_chunks").exists()

    yml.write_text(declared, "utf-8")
    ws.tsdedup("run", "--select", "raw_chunks").check()
    assert compiled_header(ws) == "/* tsdedup write mode: files */"
    stored = read_table(ws.home, "raw_chunks").to_pylist()
    assert [row["fields_float"] for row in stored if row["row_kind"] == "point"] == [[("f", 1.5)]]
