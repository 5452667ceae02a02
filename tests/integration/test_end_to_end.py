"""Scenarios of files a user lands: every format, bad lines, hostile names,
bad configuration. Each scenario has a workspace of its own.

Expected results come from tests/reference.py, an independent pure-Python
statement of the semantics, never from hard-coded copies of the output.
"""

from __future__ import annotations

import gzip
import io
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.integration.conftest import Workspace, select_rows
from tests.reference import expected_from_files

pytestmark = [pytest.mark.spark, pytest.mark.dbt]


def as_set(rows: list[dict[str, object]], columns: list[str]) -> set[tuple[object, ...]]:
    return {tuple(row.get(c) for c in columns) for row in rows}


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
        (
            "e_conflict.lp",
            'mixed,host=l1,a=b value="text",n=2i,ok=true 30\nmixed,host=l1 value=3.0 31\n',
        ),
    ]
    # A point without a timestamp (another measurement, so the expected table
    # above does not depend on the ingest time).
    ws.land("f_untimed.lp", "untimed,host=u1 value=1\n")
    # Milliseconds: read as nanoseconds they land in 1970 and are flagged; a name
    # that declares them reads them right.
    millis = "clock,host=c value=1 1764028800123\nclock,host=c value=2 1764028801123\n"
    ws.land("g_millis.lp", millis)
    ws.land("h_2026-11-25_ms_feed.lp", millis.replace("host=c", "host=d"))
    for name, content in files:
        ws.land(name, content)
    ws.add_measurement_model("mixed", "mixed")
    result = ws.build()
    summary = result.stdout
    assert "warning: chunk 7 (g_millis.lp, 2 points): points from 1970-01-01 00:29:24" in summary
    assert "read in ns, lie far from the ingest time" in summary
    assert ": the timestamps look like milliseconds (a file with _ms_ in its name" in summary
    assert "h_2026-11-25_ms_feed.lp" not in summary.split("summary of this run")[1]
    # Measurements without a model file are discovered: the same build gives them tables.
    assert "building the tables of 2 new measurement(s): clock, untimed" in result.stderr
    assert "3 measurement(s) in the raw log, 3 with a table (2 discovered, 1 from model files)" in (
        summary
    )
    assert "no table" not in summary

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
    # The first build reads the raw log's flat columns (decision 0025), and a
    # point that writes `value` as a string has a value in that pair's column.
    built_path = ws.project / "target/run/tsdedup/models/measurements/mixed.sql"
    built = built_path.read_text(encoding="utf-8")
    assert "p.`float__value` as `value`" in built and "p.`tag__host` as `host`" in built
    assert "and p.`string__value` is null" in built
    assert "fields_" not in built and "tags[" not in built
    # Reading the maps instead gives the same table. A rebuild from the maps
    # tests each point's keys only in the maps of the types some chunk writes
    # in conflict: `value` as a string, so the string fields' map.
    ws.tsdedup(
        "run", "--select", "mixed", "--full-refresh", "--vars", "{tsdedup_read_flat_columns: false}"
    ).check()
    built = built_path.read_text(encoding="utf-8")
    assert "and (fields_string is null or size(fields_string) = 0)" in built
    assert "-- no chunk writes a tag, float, integer, unsigned, boolean column with" in built
    assert "map_keys(" not in built and "size(fields_int)" not in built
    (from_maps,) = ws.sql(select_rows("mixed", columns))
    assert as_set(from_maps, columns) == as_set(got, columns)
    assert len(untimed) == 1
    assert untimed[0]["time_from_ingest"] is True
    assert untimed[0]["time_ns"] == untimed[0]["ingest_us"] * 1000

    (clock,) = ws.sql(
        "select tags['host'] as host, cast(time_ns as string) as t from tsdedup.stg_points"
        " where measurement = 'clock' order by host, t"
    )
    assert [(r["host"], r["t"]) for r in clock] == [
        ("c", "1764028800123"),
        ("c", "1764028801123"),
        ("d", "1764028800123000000"),
        ("d", "1764028801123000000"),
    ]

    where = [(r["source_file"], r["line_number"]) for r in rejects]
    assert where == [("a_lines.lp", 2), ("c_table.csv", 3), ("e_conflict.lp", 1)]
    assert rejects[0]["line_text"] == "mixed,host=l1 value= 11"
    assert "column 21: missing value for field 'value'" in str(rejects[0]["reject_reason"])
    assert "field type conflict" in str(rejects[-1]["reject_reason"])
    assert "float" in str(rejects[-1]["reject_reason"])
    # the point written back as line protocol: tags and fields in name order
    assert rejects[-1]["line_text"] == 'mixed,a=b,host=l1 n=2i,ok=true,value="text" 30'


def test_names_from_data_are_quoted_never_executed(
    own_workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = own_workspace  # its commands run in processes of their own
    hostile = "x`; drop table y; --"
    lines = [
        f"we\\ ird\\,m,{hostile.replace(' ', chr(92) + ' ')}=v1,sel\\=ect=s value=1 1",
        'we\\ ird\\,m,tag\\ with\\ space=ü value=2,"quoted"=3i 2',
        "we\\ ird\\,m,tag\\ with\\ space=ü from=4i,it's=5i,back\\slash=6i 2",
    ]
    ws.land("names.lp", "\n".join(lines) + "\n")
    ws.add_measurement_model("weird", "we ird,m")
    # Timestamps in seconds this time. The build runs as a user runs it, a new
    # `tsdedup` process, which says what it does from its first second and, with
    # progress lines every second, while each model runs.
    monkeypatch.setenv("TSDEDUP_PROGRESS_SECONDS", "1")
    monkeypatch.setenv("TSDEDUP_JVM_MODE", "auto")  # the JVM's own choice (conftest sets short)
    build = ws.tsdedup("build", "--vars", "{tsdedup_precision: s}", fresh_process=True).check()
    first, second = build.stderr.splitlines()[:2]
    assert first == "tsdedup: starting Spark (target local, master local[2])"
    assert second.startswith("tsdedup: Spark started in ")
    assert re.search(r"^tsdedup: still running raw_chunks \(\d s\)", build.stdout, re.M)
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
    # A run with little landed since the successful build starts a JVM tuned for
    # a short life (tsdedup/jvm_mode.py), with the same results.
    ws.land("more.lp", "we\\ ird\\,m,tag\\ with\\ space=ü value=7 3\n")
    run = ws.tsdedup("run", "--vars", "{tsdedup_precision: s}", fresh_process=True).check()
    assert run.stderr.splitlines()[0] == (
        "tsdedup: starting Spark (target local, master local[2]; "
        "a short-lived JVM: 0.0 MB landed since the last run)"
    )
    (rows,) = ws.sql(select_rows("weird", ["value", "time_ns"]))
    assert {r["time_ns"]: r["value"] for r in rows}[3_000_000_000] == 7.0


def test_bad_dedup_mode_is_a_clear_compile_error(workspace: Workspace, tmp_path: Path) -> None:
    ws = workspace
    (ws.project / "models" / "measurements" / "bad.sql").write_text(
        "{{ tsdedup.measurement('bad', dedup_mode='newest') }}\n", encoding="utf-8"
    )
    result = ws.tsdedup("compile", "--select", "bad")
    assert result.code != 0
    assert "dedup mode must be one of fields, last_row; got 'newest'" in result.stdout
