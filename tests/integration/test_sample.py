"""The product as a user meets it: the bundled sample built by the main command,
then queried, re-run and re-delivered. The tests share one workspace, built by
the first of them, and run in this order (in one process under pytest-xdist's
``--dist loadfile``).

Expected results come from tests/reference.py, an independent pure-Python
statement of the semantics, never from hard-coded copies of the output.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.integration import docs_site
from tests.integration.conftest import ROOT, Workspace, select_rows
from tests.reference import expected_from_files
from tsdedup.warm_up import warm_up_statements

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

SAMPLE = ROOT / "seeds" / "sample_landing"
# Screenshots of the docs site, kept by CI (target/ is not committed).
ARTIFACTS = ROOT / "target" / "ci-artifacts"

# Scripts run in the docs site once it rendered: the lineage graph's nodes (drawn
# by cytoscape into canvases, so read from its instance) and a model page.
LINEAGE_GRAPH = """
var box = document.getElementById('cy');
var cy = box && box._cyreg && box._cyreg.cy;
if (!cy || cy.nodes(':visible').length === 0) { return null; }
return {nodes: cy.nodes(':visible').map(function (n) { return n.data('label'); }),
        edges: cy.edges().map(function (e) {
            return [e.source().data('label'), e.target().data('label')]; })};
"""
MODEL_PAGE = """
var title = document.querySelector('.app-title h1 .break');
var columns = {};
document.querySelectorAll('[ui-view] tr').forEach(function (row) {
    var cells = row.querySelectorAll(':scope > td');
    if (cells.length > 1 && cells[0].querySelector('span.text-dark')) {
        columns[cells[0].textContent.trim()] = cells[1].textContent.trim();
    }
});
if (!title || !title.textContent.trim() || Object.keys(columns).length === 0) { return null; }
return {title: title.textContent.trim(),
        text: document.querySelector('[ui-view]').textContent,
        columns: columns};
"""

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


def test_warm_up_statements_run_and_read_the_registry_files(module_workspace: Workspace) -> None:
    """Iceberg answers a bare count(*) from its metadata; the warm-up's scan of
    the chunk registry must run the Parquet reader the landing listing uses."""
    ws = module_workspace
    statements = warm_up_statements("tsdedup", str(ws.landing))
    registry_reads = [s for s in statements if s.startswith("select") and "raw_chunks" in s]
    assert registry_reads
    for statement in registry_reads:
        [row] = ws.query("explain " + statement)
        plan = str(row["plan"])
        assert "BatchScan spark_catalog.tsdedup.raw_chunks" in plan, plan
        assert "LocalTableScan" not in plan, plan
    # The warm-up skips a failing statement without a word: each must run.
    answers = ws.sql(*statements)
    assert [len(rows) > 0 for rows in answers] == [True] * len(statements)


def test_sql_errors_are_one_line_not_a_traceback(module_workspace: Workspace) -> None:
    result = module_workspace.tsdedup("sql", "select 1", "select no_such_column from tsdedup.h2o")
    assert result.code == 1
    assert "tsdedup sql: statement 2 failed: [UNRESOLVED_COLUMN" in result.stderr
    assert "Traceback" not in result.stderr


def test_second_run_without_new_files_changes_nothing(module_workspace: Workspace) -> None:
    ws = module_workspace
    statements = (
        "select count(*) as n, max(chunk_seq) as last from tsdedup.raw_chunks",
        "select count(*) as snapshots from tsdedup.raw_chunks.snapshots",
        select_rows("cpu", MODEL_COLUMNS["cpu"]),
    )
    before = ws.sql(*statements)
    # The sample folder again: every file is already ingested.
    result = ws.tsdedup("sample").check()
    assert "0 new file(s) to ingest" in result.stdout
    assert "This run changed no measurement table" in result.stdout
    after = ws.sql(*statements)
    assert after[0] == before[0]
    assert after[1] == before[1]  # no commit on the raw log, not even an empty one
    columns = MODEL_COLUMNS["cpu"]
    assert as_set(after[2], columns) == as_set(before[2], columns)


def test_touched_files_are_compared_by_content_in_one_statement(
    module_workspace: Workspace,
) -> None:
    """Files that keep their name but get a new time (a copy that does not keep
    times) are not ingested again if their content is the one ingested; one
    whose content changed is. All are compared in one statement."""
    ws = module_workspace
    (before,) = ws.sql("select max(chunk_seq) as last from tsdedup.raw_chunks")
    # The sample files, ingested from the sample folder, copied without their times.
    landed = [ws.land(path.name, path.read_bytes()) for path in sorted(SAMPLE.iterdir())]
    changed = next(p for p in landed if p.suffix == ".lp")
    changed.write_bytes(changed.read_bytes() + b"\n")  # the same points, new content
    log = ws.project / "logs" / "dbt.log"
    start = len(log.read_text(encoding="utf-8"))
    result = ws.tsdedup("run").check()
    assert "1 new file(s) to ingest" in result.stdout
    (chunks,) = ws.sql(
        "select source_file from tsdedup.stg_chunks"
        f" where chunk_seq > {before[0]['last']} order by chunk_seq"
    )
    assert [c["source_file"] for c in chunks] == [changed.name]
    assert len(landed) > 2
    assert log.read_text(encoding="utf-8")[start:].count("select distinct b.source_file") == 1


def test_same_file_under_a_new_name_leaves_tables_unchanged(module_workspace: Workspace) -> None:
    ws = module_workspace
    columns = MODEL_COLUMNS["h2o"]
    (before,) = ws.sql(select_rows("h2o", columns))
    first = sorted(SAMPLE.iterdir())[0]
    ws.land("zz_redelivered_" + first.name, first.read_bytes())
    build = ws.build()
    after, chunks = ws.sql(
        select_rows("h2o", columns),
        "select source_file, lines_read, invocation_id from tsdedup.stg_chunks order by chunk_seq",
    )
    assert len(after) == len(before)
    assert as_set(after, columns) == as_set(before, columns)
    assert chunks[-1]["source_file"] == "zz_redelivered_" + first.name

    # The command closes with a summary: the file it ingested, and per table what
    # run_statistics recorded for this run (every point a duplicate).
    (stats,) = ws.sql(
        "select model_name, count(*) as days, sum(points_merged) as points, "
        "sum(duplicates_removed) as removed from tsdedup.run_statistics "
        f"where invocation_id = '{chunks[-1]['invocation_id']}' group by model_name"
    )
    summary = build.stdout[build.stdout.index("tsdedup: summary of this run") :].splitlines()
    assert f"  ingested 1 file(s): {chunks[-1]['lines_read']} lines" in summary[1]
    assert stats
    for row in stats:
        assert row["removed"] == row["points"] and int(row["points"]) > 0
        (line,) = [s for s in summary if s.split()[:1] == [row["model_name"]]]
        assert line.split()[1:4] == [str(row["days"]), str(row["points"]), str(row["removed"])]
    assert summary[-1].startswith("  models: ") and "pass" in summary[-1]
    assert "error" not in summary[-1] and "fail" not in summary[-1]


def test_docs_site_shows_the_lineage_graph_and_a_measurement(module_workspace: Workspace) -> None:
    ws = module_workspace
    ws.tsdedup("docs", "generate").check()
    target = ws.project / "target"
    for name in ("index.html", "manifest.json", "catalog.json"):
        assert (target / name).is_file(), name
    # The catalog holds the columns of the built table, as the warehouse has them.
    catalog = json.loads((target / "catalog.json").read_text(encoding="utf-8"))
    h2o_columns = set(catalog["nodes"]["model.tsdedup.h2o"]["columns"])
    assert set(MODEL_COLUMNS["h2o"]) <= h2o_columns
    manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["macros"]["macro.tsdedup.measurement"]["description"]

    reason = docs_site.missing_browser()
    if reason is not None:
        pytest.skip(f"docs site not checked in a browser: {reason}")
    with docs_site.serve(target) as url, docs_site.browser() as browser:
        browser.open(url + "#!/overview?g_v=1")
        graph = browser.wait_for(LINEAGE_GRAPH)
        browser.screenshot(ARTIFACTS / "docs-lineage.png")
        browser.open("about:blank")  # a fresh page: the graph stays open across routes
        browser.open(url + "#!/model/model.tsdedup.h2o")
        page = browser.wait_for(MODEL_PAGE)
        browser.screenshot(ARTIFACTS / "docs-h2o.png")
    assert {"raw_chunks", "stg_points", "sort_key_catalog", *MODEL_COLUMNS} <= set(graph["nodes"])
    edges = {tuple(edge) for edge in graph["edges"]}
    assert {("raw_chunks", "stg_points"), ("stg_points", "h2o"), ("h2o", "h2o_live")} <= edges
    assert page["title"] == "h2o"
    assert "Water levels, deduplicated" in page["text"]
    # Columns with their types from the catalog (the built table), descriptions from YAML.
    assert set(MODEL_COLUMNS["h2o"]) <= set(page["columns"])
    assert page["columns"]["level"].lower() == "double"
    assert page["columns"]["time_ns"].lower() == "bigint"


def test_report_pictures_duplicates_and_chunk_overlap(
    module_workspace: Workspace, tmp_path: Path
) -> None:
    ws = module_workspace
    out = tmp_path / "report.html"
    result = ws.tsdedup("report", "--out", str(out)).check()
    assert f"report written to {out}" in result.stdout
    page = out.read_text(encoding="utf-8")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "tsdedup-report.html").write_text(page, encoding="utf-8")
    assert "<script" not in page and "<svg" in page

    stats, catalog, chunks = ws.sql(
        "select measurement, cast(partition_day as string) as day, "
        "sum(points_merged) as points, sum(duplicates_removed) as removed "
        "from tsdedup.run_statistics group by measurement, partition_day",
        "select measurement, cast(partition_day as string) as day, chunk_seq "
        "from tsdedup.sort_key_catalog",
        "select chunk_seq, source_file from tsdedup.stg_chunks",
    )
    # Duplicates per measurement and day: the numbers of run_statistics.
    shown = {
        (m, d): (int(p), int(r))
        for m, d, p, r in re.findall(
            r'<tr data-measurement="([^"]+)" data-day="([^"]+)" '
            r'data-points-merged="(\d+)" data-duplicates="(\d+)">',
            page,
        )
    }
    assert shown == {
        (r["measurement"], r["day"]): (int(r["points"]), int(r["removed"])) for r in stats
    }
    assert {m for m, _ in shown} == set(MODEL_COLUMNS)
    assert sum(r for _, r in shown.values()) > 0

    # Chunk overlap: one section per measurement, one row per chunk and day.
    sections = dict(
        re.findall(
            r'<section class="measurement" data-measurement="([^"]+)">(.*?)</section>', page, re.S
        )
    )
    assert set(sections) == set(MODEL_COLUMNS)
    for name, section in sections.items():
        rows = set(re.findall(r'<tr data-chunk="(\d+)" data-day="([^"]+)"', section))
        assert rows == {
            (str(r["chunk_seq"]), r["day"]) for r in catalog if r["measurement"] == name
        }
    # The re-delivered first file overlaps the first delivery wherever it has points.
    seq = {r["source_file"]: r["chunk_seq"] for r in chunks}
    redelivered = seq["zz_redelivered_" + sorted(SAMPLE.iterdir())[0].name]
    overlaps = re.findall(
        rf'<tr data-chunk="{redelivered}" data-day="[^"]+" data-overlaps="([^"]*)"', page
    )
    assert overlaps and all("1" in o.split() for o in overlaps)

    # The tables behind the pictures: the last run's problems (none) and every
    # reject of the sample, with its line.
    (rejects,) = ws.sql("select chunk_seq, line_number from tsdedup.rpt_rejects")
    assert "Every model and test of the last run succeeded." in page
    listed = re.findall(r'<tr data-chunk="(\d+)" data-line="(\d+)">', page)
    assert sorted(listed) == sorted((str(r["chunk_seq"]), str(r["line_number"])) for r in rejects)
    assert len(listed) >= 4
    assert "<code>this is not line protocol</code>" in page
    assert "No chunk has points far from its ingest time." in page
