"""View models are created again only when their SQL changed: a run with
nothing new keeps them (no drop and create in the metastore), a changed model
replaces its view, and a view that selects `*` is always created again (its
columns follow its source's)."""

from __future__ import annotations

import json

import pytest

from tests.integration.conftest import Workspace

pytestmark = [pytest.mark.spark, pytest.mark.dbt]


def view_messages(ws: Workspace) -> dict[str, str]:
    results = json.loads((ws.project / "target" / "run_results.json").read_text())
    return {
        r["unique_id"].split(".")[-1]: str(r["message"])
        for r in results["results"]
        if r["unique_id"].startswith("model.")
    }


def test_views_are_created_again_only_when_their_sql_changed(workspace: Workspace) -> None:
    ws = workspace
    reports = ws.project / "models" / "reports"
    (reports / "my_files.sql").write_text("select chunk_seq from {{ ref('stg_chunks') }}\n")
    (reports / "my_star.sql").write_text("select * from {{ ref('stg_chunks') }}\n")
    ws.add_measurement_model("v", "v")
    ws.land("a.lp", "v,host=a x=1 1\n")
    ws.build()
    first = view_messages(ws)
    assert first["stg_points"] == "OK" and first["my_files"] == "OK"

    ws.build("--vars", "{unused: 1}")  # the same project: nothing to create again
    kept = view_messages(ws)
    for view in ("stg_points", "stg_chunks", "rpt_rejects", "rpt_suspect_times", "my_files"):
        assert kept[view] == "OK (unchanged)", (view, kept[view])
    assert kept["my_star"] == "OK", "a view that selects * is created again"

    # A changed model replaces its view; the new column is there.
    (reports / "my_files.sql").write_text(
        "select chunk_seq, source_file from {{ ref('stg_chunks') }}\n"
    )
    ws.build("--vars", "{unused: 2}")
    assert view_messages(ws)["my_files"] == "OK"
    (rows,) = ws.sql("select chunk_seq, source_file from tsdedup.my_files")
    assert rows == [{"chunk_seq": 1, "source_file": "a.lp"}]
    # New data changes no view's SQL.
    ws.land("b.lp", "v,host=a x=2 2\n")
    ws.build()
    assert view_messages(ws)["stg_points"] == "OK (unchanged)"
