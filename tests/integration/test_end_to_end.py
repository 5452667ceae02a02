"""The product as a user meets it: land files, build, query deduplicated points.

Expected results come from tests/reference.py, an independent pure-Python
statement of the semantics, never from hard-coded copies of the output.
"""

from __future__ import annotations

import gzip
import io
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.integration.conftest import ROOT, Workspace
from tests.reference import expected_from_files

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

SAMPLE = ROOT / "seeds" / "sample_landing"


def select_rows(model: str, columns: list[str]) -> str:
    """A statement returning the given columns of a measurement table."""
    select = ", ".join(f"`{c.replace('`', '``')}`" for c in columns)
    return f"select {select} from tsdedup.`{model.replace('`', '``')}`"


def as_set(rows: list[dict[str, object]], columns: list[str]) -> set[tuple[object, ...]]:
    return {tuple(row.get(c) for c in columns) for row in rows}


MODEL_COLUMNS = {
    "h2o": ["location", "river", "level", "description", "time_ns"],
    "cpu": ["host", "region", "usage_user", "usage_system", "processes", "time_ns"],
    "weather": ["station", "sensor", "temperature", "humidity", "ok", "time_ns"],
}


def test_sample_build_deduplicates_and_accounts_for_every_line(
    module_workspace: Workspace,
) -> None:
    ws = module_workspace
    result = ws.tsdedup("sample").check()
    assert "Chunks ingested" in result.stdout
    assert "Deduplicated measurement tables" in result.stdout
    assert "DOES NOT BALANCE" not in result.stdout

    files = sorted(SAMPLE.iterdir())
    expected = expected_from_files((f.name, f.read_bytes()) for f in files)
    models = list(MODEL_COLUMNS)
    *tables, accounting, partitions = ws.sql(
        *(select_rows(m, MODEL_COLUMNS[m]) for m in models),
        "select * from tsdedup.rpt_chunk_accounting order by chunk_seq",
        "select partition.time_day as day from tsdedup.h2o.partitions",
    )
    for model, got in zip(models, tables, strict=True):
        columns = MODEL_COLUMNS[model]
        want = expected.rows(model)
        assert len(got) == len(want), model
        assert as_set(got, columns) == as_set(want, columns), model

    # Measurement tables are partitioned by day of `time`.
    days = {
        datetime.fromtimestamp(int(r["time_ns"]) // 10**9, tz=UTC).date().isoformat()
        for r in expected.rows("h2o")
    }
    assert {r["day"] for r in partitions} == days
    assert len(days) > 1

    assert [r["source_file"] for r in accounting] == [f.name for f in files]
    for row in accounting:
        assert (
            row["lines_read"] == row["points_read"] + row["lines_rejected"] + row["lines_skipped"]
        )
    assert sum(int(r["lines_rejected"]) for r in accounting) == expected.rejected
    assert sum(int(r["type_conflicts"]) for r in accounting) == expected.type_conflicts
    kept = sum(int(r["points_kept"]) for r in accounting)
    removed = sum(int(r["duplicates_removed"]) for r in accounting)
    assert removed > 0
    assert kept == sum(len(t) for t in tables) + removed
    # The sample shows the accounting identity it checked.
    assert f"+ {removed} duplicates removed" in result.stdout

    # The run's statistics: every table built from all its chunks, partition by
    # partition, adding up to the tables and the duplicates removed.
    assert "This run, per table and day partition" in result.stdout
    (stats,) = ws.sql("select * from tsdedup.run_statistics")
    assert {r["model_name"] for r in stats} == set(models)
    assert all(r["full_refresh"] and r["rows_before"] == 0 for r in stats)
    assert sum(int(r["rows_after"]) for r in stats) == sum(len(t) for t in tables)
    assert sum(int(r["duplicates_removed"]) for r in stats) == removed
    assert sum(int(r["points_merged"]) for r in stats) == kept


def test_show_returns_deduplicated_points(module_workspace: Workspace) -> None:
    ws = module_workspace
    rows = ws.query(
        "select location, river, time_ns, "
        "count(*) over (partition by location, river, time_ns) as copies "
        "from {{ ref('h2o') }}"
    )
    assert rows
    assert {r["copies"] for r in rows} == {1}


def test_sql_errors_are_one_line_not_a_traceback(module_workspace: Workspace) -> None:
    result = module_workspace.tsdedup("sql", "select 1", "select no_such_column from tsdedup.h2o")
    assert result.code == 1
    assert "tsdedup sql: statement 2 failed: [UNRESOLVED_COLUMN" in result.stderr
    assert "Traceback" not in result.stderr


def test_second_run_without_new_files_changes_nothing(module_workspace: Workspace) -> None:
    ws = module_workspace
    statements = (
        "select count(*) as n, max(chunk_seq) as last from tsdedup.raw_chunks",
        "select coalesce(summary['added-records'], '0') as added "
        "from tsdedup.raw_chunks.snapshots order by committed_at desc limit 1",
        select_rows("cpu", MODEL_COLUMNS["cpu"]),
    )
    before = ws.sql(*statements)
    # The sample folder again: every file is already ingested.
    result = ws.tsdedup("sample").check()
    assert "0 new file(s) to ingest" in result.stdout
    assert "This run changed no measurement table" in result.stdout
    after = ws.sql(*statements)
    assert after[0] == before[0]
    assert after[1] == [{"added": "0"}]  # the run's commit on the raw log added nothing
    columns = MODEL_COLUMNS["cpu"]
    assert as_set(after[2], columns) == as_set(before[2], columns)


def test_same_file_under_a_new_name_leaves_tables_unchanged(module_workspace: Workspace) -> None:
    ws = module_workspace
    columns = MODEL_COLUMNS["h2o"]
    (before,) = ws.sql(select_rows("h2o", columns))
    first = sorted(SAMPLE.iterdir())[0]
    ws.land("zz_redelivered_" + first.name, first.read_bytes())
    ws.build()
    after, chunks = ws.sql(
        select_rows("h2o", columns),
        "select source_file from tsdedup.stg_chunks order by chunk_seq",
    )
    assert len(after) == len(before)
    assert as_set(after, columns) == as_set(before, columns)
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
    # A point without a timestamp (another measurement, so the expected table
    # above does not depend on the ingest time).
    ws.land("f_untimed.lp", "untimed,host=u1 value=1\n")
    for name, content in files:
        ws.land(name, content)
    ws.add_measurement_model("mixed", "mixed")
    ws.build()

    expected = expected_from_files(
        (name, content.encode() if isinstance(content, str) else content) for name, content in files
    )
    columns = ["host", "value", "time_ns"]
    got, rejects, untimed = ws.sql(
        select_rows("mixed", columns),
        "select source_file, line_number, line_text, reject_reason from tsdedup.rpt_rejects "
        "order by source_file, line_number",
        "select p.time_ns, p.time_from_ingest, unix_micros(c.ingested_at) as ingest_us "
        "from tsdedup.stg_points as p join tsdedup.stg_chunks as c using (chunk_seq) "
        "where p.measurement = 'untimed'",
    )
    assert as_set(got, columns) == as_set(expected.rows("mixed"), columns)
    assert len(untimed) == 1
    assert untimed[0]["time_from_ingest"] is True
    assert untimed[0]["time_ns"] == untimed[0]["ingest_us"] * 1000

    where = [(r["source_file"], r["line_number"]) for r in rejects]
    assert where == [("a_lines.lp", 2), ("c_table.csv", 3), ("e_conflict.lp", 1)]
    assert rejects[0]["line_text"] == "mixed,host=l1 value= 11"
    assert "column 21: missing value for field 'value'" in str(rejects[0]["reject_reason"])
    assert "field type conflict" in str(rejects[-1]["reject_reason"])
    assert "float" in str(rejects[-1]["reject_reason"])


def test_names_from_data_are_quoted_never_executed(workspace: Workspace) -> None:
    ws = workspace
    hostile = "x`; drop table y; --"
    lines = [
        f"we\\ ird\\,m,{hostile.replace(' ', chr(92) + ' ')}=v1,sel\\=ect=s value=1 1",
        'we\\ ird\\,m,tag\\ with\\ space=ü value=2,"quoted"=3i 2',
        "we\\ ird\\,m,tag\\ with\\ space=ü from=4i,it's=5i,back\\slash=6i 2",
    ]
    ws.land("names.lp", "\n".join(lines) + "\n")
    ws.add_measurement_model("weird", "we ird,m")
    # Timestamps in seconds this time.
    ws.build("--vars", "{tsdedup_precision: s}")
    columns = [hostile, "sel=ect", "tag with space", "value", '"quoted"', "from", "it's"]
    (rows,) = ws.sql(select_rows("weird", [*columns, "back\\slash", "time_ns"]))
    by_time = {r["time_ns"]: r for r in rows}
    assert set(by_time) == {1_000_000_000, 2_000_000_000}
    assert by_time[1_000_000_000][hostile] == "v1"
    assert by_time[1_000_000_000]["sel=ect"] == "s"
    second = by_time[2_000_000_000]
    assert second["tag with space"] == "ü"
    assert (second["value"], second['"quoted"'], second["from"]) == (2.0, 3, 4)
    assert (second["it's"], second["back\\slash"]) == (5, 6)


def test_bad_dedup_mode_is_a_clear_compile_error(workspace: Workspace, tmp_path: Path) -> None:
    ws = workspace
    (ws.project / "models" / "measurements" / "h2o.sql").write_text(
        "{{ tsdedup.measurement('h2o', dedup_mode='newest') }}\n", encoding="utf-8"
    )
    result = ws.tsdedup("compile", "--select", "h2o")
    assert result.code != 0
    assert "dedup mode must be one of fields, last_row; got 'newest'" in result.stdout
