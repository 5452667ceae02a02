"""View models are created again only when their SQL changed: a run with
nothing new keeps them (no drop and create in the metastore), a changed model
replaces its view, and a view that selects `*` is always created again (its
columns follow its source's)."""

from __future__ import annotations

import json
import re

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


# Prints some relations of the schema as dbt's relation cache lists them.
RELATION_KINDS = """
{% macro relation_kinds() %}
    {%- for name in ['raw_chunks', 'v', 'stg_points', 'my_files'] -%}
        {%- set relation = adapter.get_relation(none, target.schema, name) -%}
        {{ print('relation ' ~ relation.identifier ~ ' ' ~ relation.type
            ~ (' iceberg' if relation.is_iceberg else '')
            ~ (' located' if 'Location: file:' in relation.information else '')) }}
    {%- endfor -%}
{% endmacro %}
"""


# Puts the metastore's text of view my_files back to its first SQL.
STALE_VIEW_TEXT = """
{% macro stale_view_text() %}
    {%- set view = adapter.get_relation(none, target.schema, 'my_files') -%}
    {%- do adapter.tsdedup_set_view_text(view, 'select chunk_seq from tsdedup.stg_chunks') -%}
{% endmacro %}
"""


def relation_kinds(ws: Workspace) -> tuple[dict[str, str], str]:
    """Each relation's kind as dbt lists it, and the dbt log of that listing."""
    (ws.project / "macros" / "relation_kinds.sql").write_text(RELATION_KINDS)
    out = ws.tsdedup("run-operation", "relation_kinds").check().stdout
    log = (ws.project / "logs" / "dbt.log").read_text(encoding="utf-8")
    kinds = dict(re.findall(r"^relation (\S+) (.+)$", out, re.M))
    return kinds, log[log.rindex("Running with dbt") :]


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
    # One statement lists the schema for dbt: tables known as Iceberg (or dbt
    # would drop and recreate them), with the location the raw log's files go to.
    kinds, log = relation_kinds(ws)
    assert kinds["raw_chunks"] == kinds["v"] == "table iceberg located", kinds
    assert kinds["stg_points"] == kinds["my_files"] == "view located", kinds
    assert "show table extended in `tsdedup` like '*'" in log
    assert "describe extended" not in log

    ws.build("--vars", "{unused: 1}")  # the same project: nothing to create again
    kept = view_messages(ws)
    # Nor do the on-run-start hooks create their tables again (create_table_if_missing).
    log = (ws.project / "logs" / "dbt.log").read_text(encoding="utf-8")
    log = log[log.rindex("Running with dbt") :]
    assert "create table if not exists" not in log
    assert "create schema if not exists" not in log
    for view in ("stg_points", "stg_chunks", "rpt_rejects", "rpt_suspect_times", "my_files"):
        assert kept[view] == "OK (unchanged)", (view, kept[view])
    assert kept["my_star"] == "OK", "a view that selects * is created again"

    # A changed model replaces its view; the new column is there.
    (before,) = ws.sql("show tblproperties tsdedup.my_files ('uuid')")
    (reports / "my_files.sql").write_text(
        "select chunk_seq, source_file from {{ ref('stg_chunks') }}\n"
    )
    ws.build("--vars", "{unused: 2}")
    assert view_messages(ws)["my_files"] == "OK"
    (rows,) = ws.sql("select chunk_seq, source_file from tsdedup.my_files")
    assert rows == [{"chunk_seq": 1, "source_file": "a.lp"}]
    # Replaced in place, never dropped (a reader would find no view in between):
    # the same Iceberg view, and the metastore's text of it is the new SQL.
    log = (ws.project / "logs" / "dbt.log").read_text(encoding="utf-8")
    assert "drop view" not in log[log.rindex("Running with dbt") :]
    after, described = ws.sql(
        "show tblproperties tsdedup.my_files ('uuid')", "describe extended tsdedup.my_files"
    )
    assert after == before
    texts = {r["col_name"]: r["data_type"] for r in described if "Text" in str(r["col_name"])}
    assert set(texts) == {"View Text", "View Original Text"}, texts
    assert all("source_file" in text for text in texts.values()), texts
    # A run that died between a view's replace and its metastore text left the
    # new MD5 beside the old text: the next run replaces the view again.
    (ws.project / "macros" / "stale_view_text.sql").write_text(STALE_VIEW_TEXT)
    ws.tsdedup("run-operation", "stale_view_text").check()
    ws.build("--vars", "{unused: 3}")
    assert view_messages(ws)["my_files"] == "OK"
    (rows,) = ws.sql("select chunk_seq, source_file from tsdedup.my_files")
    assert rows == [{"chunk_seq": 1, "source_file": "a.lp"}]
    # New data changes no view's SQL.
    ws.land("b.lp", "v,host=a x=2 2\n")
    ws.build()
    assert view_messages(ws)["stg_points"] == "OK (unchanged)"


def test_a_measurement_without_new_points_keeps_its_state_and_live_view(
    workspace: Workspace,
) -> None:
    """Points of one measurement land: the other measurement's table, state
    record and live view stay as they are (its watermark does not follow the
    raw log's head), and its next points are merged from where it stopped."""
    ws = workspace
    for name in ("v", "w"):
        ws.add_measurement_model(name, name)
        (ws.project / "models" / "live" / f"{name}_live.sql").write_text(
            f"{{{{ tsdedup.live_measurement(ref('{name}')) }}}}\n", encoding="utf-8"
        )
    ws.land("a.lp", "v,host=a x=1 1\nw,host=a y=1,z=1 1\n")
    ws.build()

    def history(table: str) -> int:
        (rows,) = ws.sql(f"select count(*) as n from tsdedup.{table}.metadata_log_entries")
        return int(str(rows[0]["n"]))

    def watermark(table: str) -> str:
        (props,) = ws.sql(f"show tblproperties tsdedup.{table}")
        return {p["key"]: p["value"] for p in props}["tsdedup.last_chunk_seq"]

    assert watermark("w") == watermark("v") == "1"
    w_history = history("w")
    ws.land("b.lp", "v,host=a x=2 2\n")
    ws.build()
    messages = view_messages(ws)
    assert messages["w"] == "OK (nothing new)"
    assert messages["w_live"] == "OK (unchanged)"
    assert messages["v_live"] == "OK", "v's watermark moved: its live view is new"
    assert (watermark("v"), watermark("w")) == ("2", "1")
    assert history("w") == w_history, "w's state record was not written"
    compiled = ws.project / "target" / "compiled" / "tsdedup" / "models" / "measurements"
    header = (compiled / "w.sql").read_text("utf-8").lstrip().splitlines()[0]
    assert header == "/* tsdedup write mode: none; state record current */"

    # w's next points: a re-delivery of its point with one field, and a new one.
    ws.land("c.lp", "w,host=a z=3 1\nw,host=b y=4 1\n")
    ws.build()
    assert watermark("w") == "3"
    want = [
        {"host": "a", "y": 1.0, "z": 3.0, "time_ns": 1},
        {"host": "b", "y": 4.0, "z": None, "time_ns": 1},
    ]
    for relation in ("w", "w_live"):
        (rows,) = ws.sql(f"select host, y, z, time_ns from tsdedup.{relation} order by host")
        assert rows == want, relation


def test_a_live_view_is_kept_while_its_table_moved_little(workspace: Workspace) -> None:
    """A live view built at an earlier watermark is kept while the table is at
    most var('tsdedup_live_view_lag') of its watermark ahead: it reads the
    chunks since again, which changes none of its rows (decision 0027)."""
    ws = workspace
    ws.add_measurement_model("lv", "lv")
    (ws.project / "models" / "live" / "lv_live.sql").write_text(
        "{{ tsdedup.live_measurement(ref('lv')) }}\n", encoding="utf-8"
    )
    t1, t2 = 1_700_000_000_000_000_000, 1_700_000_000_000_000_001
    compiled = ws.project / "target" / "compiled" / "tsdedup" / "models" / "live" / "lv_live.sql"
    query = "select host, x, time_ns from tsdedup.{} order by time_ns"

    ws.land("1.lp", f"lv,host=a x=1 {t1}\n")
    ws.tsdedup("run").check()
    assert "-- the chunks after chunk 1, the table's watermark" in compiled.read_text()

    # Chunk 2 re-delivers (a, t1) with a new value and brings (a, t2); the
    # table moves from chunk 1 to 2, half of its watermark.
    ws.land("2.lp", f"lv,host=a x=2 {t1}\nlv,host=a x=3 {t2}\n")
    result = ws.tsdedup("run", "--vars", "{tsdedup_live_view_lag: 0.5}").check()
    assert view_messages(ws)["lv_live"] == "OK (unchanged)", result.stdout
    assert "-- the chunks after chunk 1, the table's watermark" in compiled.read_text()
    table, live = ws.sql(query.format("lv"), query.format("lv_live"))
    expected = [{"host": "a", "x": 2.0, "time_ns": t1}, {"host": "a", "x": 3.0, "time_ns": t2}]
    assert table == live == expected

    # Ingested, not merged yet: the kept view shows it over the table.
    ws.land("3.lp", f"lv,host=a x=4 {t2}\n")
    ws.tsdedup("run", "--select", "raw_chunks").check()
    (live,) = ws.sql(query.format("lv_live"))
    assert live == [expected[0], {"host": "a", "x": 4.0, "time_ns": t2}]

    # The default lag (0.1 of watermark 3) is exceeded: the view is built again
    # at the table's watermark, with the same rows as the table.
    ws.tsdedup("run").check()
    assert view_messages(ws)["lv_live"] == "OK"
    assert "-- the chunks after chunk 3, the table's watermark" in compiled.read_text()
    table, live = ws.sql(query.format("lv"), query.format("lv_live"))
    assert table == live == [expected[0], {"host": "a", "x": 4.0, "time_ns": t2}]
