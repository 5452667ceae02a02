"""Every measurement gets a table with no file to write: a measurement that no
model file declares is discovered, and the same build generates its model and
live view and builds them with their tests; a name that cannot be a table name
is refused with a reason; a model file for a measurement takes over from the
generated one."""

from __future__ import annotations

import json

import pytest

from tests.integration.conftest import Workspace, point_values
from tests.integration.test_live_and_maintenance import canonical
from tests.reference import expected_from_files

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

T0 = 1_793_491_200_000_000_000  # 2026-11-01T00:00:00Z
SECOND = 10**9


def text(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode()


FIRST = (
    "d1.lp",
    text(
        [
            f"disk,host=h{h},path=/ used={h * 10 + s}i,free={s}.5 {T0 + s * SECOND}"
            for h in (1, 2)
            for s in range(4)
        ]
        + [f"disk,host=h1,path=/ used=99i {T0}"]  # a re-delivery: `used` wins, `free` stays
        + [f"Mem,host=h1 total=8i {T0 + s * SECOND}" for s in range(3)]
        + [f"disk-io,host=h1 reads=1i {T0}", f"stg_points,host=h1 x=1i {T0}"]
        + [f"swap,host=h1 in=1i {T0}", f"SWAP,host=h1 in=2i {T0}"]
        + [f"cpu,host=h1 usage_user=1.5 {T0}", f"h2o,location=x level=1.0 {T0}"]
        + [f"order,host=h1 qty=1i {T0}"]  # a keyword: `tsdedup.order` is a table name
    ),
)
SECOND_FILE = (
    "d2.lp",
    text(
        [f"disk,host=h2,path=/ used=7i {T0 + SECOND}", f"disk,host=h3 used=1i {T0}"]
        + [f"net,host=h1,if=eth0 rx=1i,tx=2i {T0 + s * SECOND}" for s in range(2)]
    ),
)
TABLE_FOLDER = ("models", "measurements", "discovered")


def rows(ws: Workspace, relation: str) -> list[dict[str, object]]:
    (found,) = ws.sql(f"select * from tsdedup.{relation}")
    return [point_values(row) for row in found]


def test_every_measurement_gets_a_table_in_the_build_that_lands_it(workspace: Workspace) -> None:
    ws = workspace  # the sample's models of cpu, h2o and weather are disabled
    ws.add_measurement_model("cpu_usage", "cpu")
    ws.land(*FIRST)
    result = ws.build()
    assert "building the tables of 4 new measurement(s): Mem, SWAP, disk, order" in result.stderr
    out = result.stdout
    assert "9 measurement(s) in the raw log, 5 with a table (4 discovered, 1 from model files)" in (
        out
    )
    assert (
        "points per measurement: Mem 3, SWAP 1, cpu 1, disk 9, disk-io 1, h2o 1, order 1, "
        "stg_points 1, swap 1"
    ) in out
    for name, reason in [
        ("disk-io", "its name cannot be a table name: the metastore takes letters, digits and _"),
        ("stg_points", "its table or live view would take the name of the project's stg_points"),
        ("swap", "its table or live view would take a name that measurement SWAP has (table"),
        ("h2o", "its model h2o is disabled"),
    ]:
        assert (
            f"warning: measurement '{name}' has 1 point(s) in the raw log and no table: {reason}"
            in (out)
        )
    expected = expected_from_files([FIRST])
    for measurement, table in [
        ("disk", "disk"),
        ("Mem", "mem"),
        ("order", "order"),
        ("SWAP", "swap"),
    ]:
        assert canonical(rows(ws, table)) == canonical(expected.rows(measurement))
        assert canonical(rows(ws, f"{table}_live")) == canonical(expected.rows(measurement))
    # Their tests ran in the same build and passed.
    results = json.loads((ws.project / "target" / "run_results.json").read_text())
    tests = {
        r["unique_id"]: r["status"]
        for r in results["results"]
        if r["unique_id"].startswith("test.")
    }
    for test in (
        "no_duplicate_points_disk",
        "rows_match_raw_keys_disk",
        "sort_keys_match_columns_Mem",
    ):
        assert [status for uid, status in tests.items() if f".{test}_." in uid] == ["pass"], tests
    assert any("no_duplicate_points_disk_live" in uid for uid in tests)
    (listed,) = ws.sql(
        "select measurement, is_discovered, model_names from tsdedup.rpt_measurements"
        " order by measurement"
    )
    assert [tuple(r.values()) for r in listed] == [
        ("Mem", True, ["Mem"]),
        ("SWAP", True, ["SWAP"]),
        ("cpu", False, ["cpu_usage"]),
        ("disk", True, ["disk"]),
        ("disk-io", False, []),
        ("h2o", False, []),
        ("order", True, ["order"]),
        ("stg_points", False, []),
        ("swap", False, []),
    ]

    # A later file: the known table grows incrementally, a new one is built.
    ws.land(*SECOND_FILE)
    result = ws.build()
    assert "building the tables of 1 new measurement(s): net" in result.stderr
    assert "disk: appending" in result.stdout or "disk: merging" in result.stdout, result.stdout
    expected = expected_from_files([FIRST, SECOND_FILE])
    for measurement in ("disk", "net"):
        assert canonical(rows(ws, measurement)) == canonical(expected.rows(measurement))

    # Like a declared table: run statistics for each run, its state recorded.
    stats, properties = ws.sql(
        "select count(distinct invocation_id) as runs from tsdedup.run_statistics"
        " where model_name = 'disk'",
        "show tblproperties tsdedup.disk",
    )
    assert stats == [{"runs": 2}]
    state = {p["key"]: p["value"] for p in properties}
    assert state["tsdedup.series_hash_column"] == "series_hash"
    assert state["tsdedup.written_snapshot_id"] == state["current-snapshot-id"]

    # Nothing new: one dbt invocation, no generated file rewritten.
    generated = ws.project.joinpath(*TABLE_FOLDER)
    before = {p.name: p.stat().st_mtime_ns for p in generated.iterdir()}
    result = ws.build()
    assert "new measurement" not in result.stderr
    assert {p.name: p.stat().st_mtime_ns for p in generated.iterdir()} == before

    # The docs site shows discovered measurements.
    ws.tsdedup("docs", "generate").check()
    manifest = json.loads((ws.project / "target" / "manifest.json").read_text())
    net = manifest["nodes"]["model.tsdedup.net"]
    assert "discovered in the data" in net["description"]
    catalog = json.loads((ws.project / "target" / "catalog.json").read_text())
    assert {"host", "if", "rx", "tx", "time", "time_ns"} <= set(
        catalog["nodes"]["model.tsdedup.net"]["columns"]
    )

    # A model file for a measurement takes over its table.
    ws.add_measurement_model("disk", "disk")
    result = ws.build()
    assert "a file of the project's now has the name of disk: generated model(s) removed" in (
        result.stderr
    )
    assert not generated.joinpath("disk.sql").exists()
    assert generated.joinpath("net.sql").exists()
    assert canonical(rows(ws, "disk")) == canonical(expected.rows("disk"))
    (listed,) = ws.sql(
        "select is_discovered from tsdedup.rpt_measurements where measurement = 'disk'"
    )
    assert listed == [{"is_discovered": False}]

    # Their tests are real: a lost row and a duplicated one fail them (the
    # duplicate is written through `mem`, read through `Mem`: one table).
    ws.tsdedup(
        "sql",
        "delete from tsdedup.net where time_ns = " + str(T0),
        "insert into tsdedup.mem select * from tsdedup.mem where time_ns = " + str(T0),
    ).check()
    failed = ws.tsdedup("test", "--select", "net", "Mem")
    assert failed.code == 1
    results = json.loads((ws.project / "target" / "run_results.json").read_text())
    statuses = {r["unique_id"].split(".")[2]: r["status"] for r in results["results"]}
    assert statuses["rows_match_raw_keys_net_"] == "fail"
    assert statuses["no_duplicate_points_Mem_"] == "fail"
    assert statuses["rows_match_raw_keys_Mem_"] == "fail"
    assert statuses["no_duplicate_points_net_"] == "pass"
