"""The product as a user meets it: the bundled sample built by the main command,
then queried, re-run and re-delivered. The tests share one workspace, built by
the first of them, and run in this order (in one process under pytest-xdist's
``--dist loadfile``).

Expected results come from tests/reference.py, an independent pure-Python
statement of the semantics, never from hard-coded copies of the output.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.integration.conftest import ROOT, Workspace, select_rows
from tests.reference import expected_from_files

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

SAMPLE = ROOT / "seeds" / "sample_landing"

MODEL_COLUMNS = {
    "h2o": ["location", "river", "level", "description", "time_ns"],
    "cpu": ["host", "region", "usage_user", "usage_system", "processes", "time_ns"],
    "weather": ["station", "sensor", "temperature", "humidity", "ok", "time_ns"],
}


def as_set(rows: list[dict[str, object]], columns: list[str]) -> set[tuple[object, ...]]:
    return {tuple(row.get(c) for c in columns) for row in rows}


def test_sample_build_deduplicates_and_accounts_for_every_line(
    module_workspace: Workspace,
) -> None:
    ws = module_workspace
    # The user's main command, in a process of its own.
    result = ws.tsdedup("sample", fresh_process=True).check()
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
