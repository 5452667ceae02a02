"""The product as a user meets it: land files, build, query deduplicated points.

Expected results come from tests/reference.py, an independent pure-Python
statement of the semantics, never from hard-coded copies of the output.
"""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.integration.conftest import ROOT, Workspace
from tests.reference import expected_from_files

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

SAMPLE = ROOT / "seeds" / "sample_landing"


def table_rows(ws: Workspace, model: str, columns: list[str]) -> list[dict[str, object]]:
    """All rows of a measurement model, as dicts of the given columns."""
    select = ", ".join(f"`{c.replace('`', '``')}`" for c in columns)
    rows = ws.query(f"select to_json(struct({select})) as j from {{{{ ref('{model}') }}}}")
    return [json.loads(str(r["j"])) for r in rows]


def as_set(rows: list[dict[str, object]], columns: list[str]) -> set[tuple[object, ...]]:
    return {tuple(row.get(c) for c in columns) for row in rows}


def test_sample_build_deduplicates_and_is_idempotent(module_workspace: Workspace) -> None:
    ws = module_workspace
    result = ws.tsdedup("sample").check()
    assert "Chunks ingested" in result.stdout
    assert "Deduplicated measurement tables" in result.stdout

    files = sorted(SAMPLE.iterdir())
    expected = expected_from_files((f.name, f.read_bytes()) for f in files)
    for model, columns in {
        "h2o": ["location", "river", "level", "description", "time_ns"],
        "cpu": ["host", "region", "usage_user", "usage_system", "processes", "time_ns"],
    }.items():
        got = table_rows(ws, model, columns)
        want = expected.rows(model)
        assert len(got) == len(want)
        assert as_set(got, columns) == as_set(want, columns)

    accounting = ws.query("select * from {{ ref('rpt_chunk_accounting') }} order by chunk_seq")
    assert [r["source_file"] for r in accounting] == [f.name for f in files]
    for row in accounting:
        assert (
            row["lines_read"] == row["points_read"] + row["lines_rejected"] + row["lines_skipped"]
        )
    assert sum(int(r["lines_rejected"]) for r in accounting) == expected.rejected
    assert sum(int(r["type_conflicts"]) for r in accounting) == expected.type_conflicts
    kept = sum(int(r["points_kept"]) for r in accounting)
    removed = sum(int(r["duplicates_removed"]) for r in accounting)
    table_total = sum(len(expected.rows(m)) for m in ("h2o", "cpu", "weather"))
    assert kept == table_total + removed


def test_second_run_without_new_files_changes_nothing(module_workspace: Workspace) -> None:
    ws = module_workspace
    before = ws.query("select count(*) as n, max(chunk_seq) as last from {{ ref('raw_chunks') }}")
    cpu_before = table_rows(ws, "cpu", ["host", "usage_user", "time_ns"])
    # The sample folder again: every file is already ingested.
    ws.tsdedup("sample").check()
    after = ws.query("select count(*) as n, max(chunk_seq) as last from {{ ref('raw_chunks') }}")
    assert after == before
    cpu_after = table_rows(ws, "cpu", ["host", "usage_user", "time_ns"])
    assert as_set(cpu_after, ["host", "usage_user", "time_ns"]) == as_set(
        cpu_before, ["host", "usage_user", "time_ns"]
    )


def test_same_file_under_a_new_name_leaves_tables_unchanged(module_workspace: Workspace) -> None:
    ws = module_workspace
    columns = ["location", "river", "level", "description", "time_ns"]
    before = table_rows(ws, "h2o", columns)
    first = sorted(SAMPLE.iterdir())[0]
    ws.land("zz_redelivered_" + first.name, first.read_bytes())
    ws.build()
    after = table_rows(ws, "h2o", columns)
    assert as_set(after, columns) == as_set(before, columns)
    chunks = ws.query("select source_file from {{ ref('stg_chunks') }} order by chunk_seq")
    assert chunks[-1]["source_file"] == "zz_redelivered_" + first.name


def _parquet_bytes() -> bytes:
    table = pa.table(
        {
            "measurement": ["mixed"] * 3,
            "time": pa.array([10, 20, 10], type=pa.int64()),
            "tag:host": ["p1", "p1", "p1"],
            "value": [1.0, 2.0, 3.0],
        }
    )
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def test_every_format_loads_and_bad_lines_are_rejected_with_reasons(workspace: Workspace) -> None:
    ws = workspace
    files = [
        ("a_lines.lp", "mixed,host=l1 value=1.5 10\nmixed,host=l1 value= 11\nmixed value=2.5 10\n"),
        (
            "b_lines.lp.gz",
            gzip.compress(b"mixed,host=l1 value=9.5 10\nmixed,host=g1 value=4.0 10\n"),
        ),
        ("c_table.csv", "measurement,time,tag:host,value\nmixed,10,c1,7.25\nmixed,oops,c1,1\n"),
        ("d_rows.parquet", _parquet_bytes()),
        ("e_conflict.lp", 'mixed,host=l1 value="text" 30\nmixed,host=l1 value=3.0 31\n'),
    ]
    for name, content in files:
        ws.land(name, content)
    ws.add_measurement_model("mixed", "mixed")
    ws.build()

    expected = expected_from_files(
        (name, content.encode() if isinstance(content, str) else content) for name, content in files
    )
    columns = ["host", "value", "time_ns"]
    got = table_rows(ws, "mixed", columns)
    assert as_set(got, columns) == as_set(expected.rows("mixed"), columns)

    rejects = ws.query(
        "select source_file, line_number, reject_reason from {{ ref('rpt_rejects') }} "
        "order by source_file, line_number"
    )
    where = [(r["source_file"], r["line_number"]) for r in rejects]
    assert where == [("a_lines.lp", 2), ("c_table.csv", 3), ("e_conflict.lp", 1)]
    assert "field type conflict" in str(rejects[-1]["reject_reason"])
    assert "float" in str(rejects[-1]["reject_reason"])


def test_names_from_data_are_quoted_never_executed(workspace: Workspace) -> None:
    ws = workspace
    hostile = "x`; drop table y; --"
    lines = [
        f"we\\ ird\\,m,{hostile.replace(' ', chr(92) + ' ')}=v1,sel\\=ect=s value=1 1",
        'we\\ ird\\,m,tag\\ with\\ space=ü value=2,"quoted"=3i 2',
        "we\\ ird\\,m,tag\\ with\\ space=ü from=4i 2",
    ]
    ws.land("names.lp", "\n".join(lines) + "\n")
    ws.add_measurement_model("weird", "we ird,m")
    ws.build()
    rows = table_rows(
        ws, "weird", [hostile, "sel=ect", "tag with space", "value", '"quoted"', "from"]
    )
    by_time = {r.get("value"): r for r in rows}
    assert by_time[1.0][hostile] == "v1"
    assert by_time[2.0]["tag with space"] == "ü"
    assert by_time[2.0]['"quoted"'] == 3
    assert by_time[2.0]["from"] == 4


def test_bad_dedup_mode_is_a_clear_compile_error(workspace: Workspace, tmp_path: Path) -> None:
    ws = workspace
    (ws.project / "models" / "measurements" / "h2o.sql").write_text(
        "{{ tsdedup.measurement('h2o', dedup_mode='newest') }}\n", encoding="utf-8"
    )
    result = ws.tsdedup("compile", "--select", "h2o")
    assert result.code != 0
    assert "dedup mode must be one of fields, last_row; got 'newest'" in result.stdout
