"""Tag and field names that the project uses itself are data like any other.

Measurements carry every internal column name of the project (collected from
its YAML and SQL by tests.internal_names, in alternating case): two share them
as tags, two as fields (one measurement with all of them would make a live view
too long for the embedded metastore, which a last measurement checks is a
clear error). Through a first
build, a row-level merge, an append, an overwrite, a full refresh and a live
view, each name is a column of its table
holding exactly the reference semantics' values, and the dbt tests pass.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from python_udfs.line_protocol import Point, format_line
from tests.integration.conftest import Workspace, local_path, point_values
from tests.integration.test_live_and_maintenance import canonical
from tests.internal_names import internal_column_names
from tests.reference import expected_from_files

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

ROOT = Path(__file__).resolve().parents[2]
DAY0 = 1_793_491_200_000_000_000  # 2026-11-01T00:00:00Z
DAY = 86_400 * 10**9
MINUTE = 60 * 10**9
NAMES = [n if i % 2 == 0 else n.upper() for i, n in enumerate(internal_column_names(ROOT))]
# measurement -> its tags: half of the names each
# (halves, so that each has names in both cases)
TAG_MEASUREMENTS = {"clash_tags": NAMES[: len(NAMES) // 2], "clash_tags2": NAMES[len(NAMES) // 2 :]}
TAG_MEASUREMENT = "clash_tags"  # the one whose write modes the build output names
FIELD_NAMES = [n for n in NAMES if n.lower() != "host"]
# measurement -> its fields: half of the names each
FIELD_MEASUREMENTS = {"clash_fields": FIELD_NAMES[0::2], "clash_fields2": FIELD_NAMES[1::2]}

MEASUREMENTS = [*TAG_MEASUREMENTS, *FIELD_MEASUREMENTS]
TESTS = "[no_duplicate_points, sort_keys_match_columns, rows_match_raw_keys]"
MODELS_YML = "version: 2\nmodels:\n" + "".join(
    f"  - name: {m}\n    description: Internal names.\n    data_tests: {TESTS}\n"
    for m in MEASUREMENTS
)
LIVE_YML = "version: 2\nmodels:\n" + "".join(
    f"  - name: {m}_live\n    description: Live view.\n    data_tests:\n"
    f"      - no_duplicate_points: {{arguments: {{measurement: {m}}}}}\n"
    for m in MEASUREMENTS
)


def tag_points(series: int, minute: int, value: float, day: int = 0) -> list[str]:
    """One point per tag measurement. Series 3 leaves every other tag out
    (NULL, equal to NULL)."""
    out = []
    for measurement, names in TAG_MEASUREMENTS.items():
        tags = {n: f"s{series}-{i % 3}" for i, n in enumerate(names) if series != 3 or i % 2 == 0}
        time_ns = DAY0 + day * DAY + minute * MINUTE
        out.append(format_line(Point(measurement, tags, {"value": value}, time_ns)))
    return out


def field_value(i: int, seed: int) -> object:
    kind = i % 4
    if kind == 0:
        return seed + i / 4
    if kind == 1:
        return seed * 1000 + i
    if kind == 2:
        return f"v{seed}-{i}"
    return (seed + i) % 2 == 0


def field_points(host: str, minute: int, seed: int, every: int = 1, day: int = 0) -> list[str]:
    """One point per field measurement; `every` > 1 writes only some fields."""
    out = []
    for measurement, names in FIELD_MEASUREMENTS.items():
        fields = {name: field_value(i, seed) for i, name in enumerate(names) if i % every == 0}
        time_ns = DAY0 + day * DAY + minute * MINUTE
        out.append(format_line(Point(measurement, {"host": host}, fields, time_ns)))
    return out


def lines(items: list[str]) -> bytes:
    return ("\n".join(items) + "\n").encode()


def first_delivery() -> bytes:
    out = [p for s in range(4) for m in range(10) for p in tag_points(s, m, float(s * 100 + m))]
    out += [p for h in ("h1", "h2", "h3") for m in range(10) for p in field_points(h, m, m)]
    return lines(out)


def redeliveries() -> bytes:
    # A few retries with new values (partial for the fields), and two new points.
    out = [p for s in (0, 3) for m in range(3) for p in tag_points(s, m, -1.0 - m)]
    out += [p for m in range(3) for p in field_points("h1", m, 50 + m, every=2)]
    out += [*tag_points(1, 30, 9.0), *field_points("h2", 30, 9)]
    return lines(out)


def append_and_backfill() -> bytes:
    # The next day is new (appended); the field measurement's first day comes
    # again whole and more (a backfill: overwritten).
    out = [p for s in range(2) for m in range(5) for p in tag_points(s, m, float(m), day=1)]
    out += [
        p
        for h in ("h1", "h2", "h3")
        for m in range(12)
        for p in field_points(h, m, 70 + m, every=3)
    ]
    return lines(out)


def add_models(ws: Workspace) -> None:
    for name in MEASUREMENTS:
        ws.add_measurement_model(name, name)
        (ws.project / "models" / "live" / f"{name}_live.sql").write_text(
            f"{{{{ tsdedup.live_measurement(ref('{name}')) }}}}\n", encoding="utf-8"
        )
    (ws.project / "models" / "measurements" / "_clash__models.yml").write_text(MODELS_YML)
    (ws.project / "models" / "live" / "_clash__live.yml").write_text(LIVE_YML)


def lower_keys(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    return [{k.lower(): v for k, v in row.items()} for row in rows]


def assert_tables_match(ws: Workspace, landed: list[tuple[str, bytes]]) -> None:
    expected = expected_from_files(landed)
    answers = ws.sql(
        *(f"select * from tsdedup.{m}" for m in MEASUREMENTS),
        *(f"select * from tsdedup.{m}_live" for m in MEASUREMENTS),
    )
    tables, views = answers[: len(MEASUREMENTS)], answers[len(MEASUREMENTS) :]
    columns = {m: {*names, "value"} for m, names in TAG_MEASUREMENTS.items()}
    columns.update({m: {*names, "host"} for m, names in FIELD_MEASUREMENTS.items()})
    for measurement, table, view in zip(MEASUREMENTS, tables, views, strict=True):
        assert set(table[0]) == {*columns[measurement], "time", "time_ns", "series_hash"}
        rows = [point_values(row) for row in table]
        assert canonical(rows) == canonical(expected.rows(measurement)), measurement
        # A view in the metastore keeps its column names in lower case; it
        # shows every column of the table but the series hash.
        shown = [{k: v for k, v in row.items() if k != "series_hash"} for row in table]
        assert canonical(view) == canonical(lower_keys(shown)), measurement


def deliver(ws: Workspace, landed: list[tuple[str, bytes]], name: str, content: bytes) -> str:
    """Land a file, build, check every table and view; the build's output."""
    landed.append((name, content))
    ws.land(name, content)
    out = ws.build().stdout
    assert_tables_match(ws, landed)
    return out


def test_internal_names_are_columns_like_any_other(workspace: Workspace) -> None:
    ws = workspace
    add_models(ws)
    landed = [("c1.lp", first_delivery())]
    ws.land(*landed[-1])
    ws.build()
    assert_tables_match(ws, landed)

    out = deliver(ws, landed, "c2.lp", redeliveries())
    assert f"{TAG_MEASUREMENT}: merging the chunks after chunk 1" in out
    assert "row by row" in out

    out = deliver(ws, landed, "c3.lp", append_and_backfill())
    assert f"{TAG_MEASUREMENT}: appending the chunks after chunk 2" in out
    assert "clash_fields: merging the chunks after chunk 2" in out
    assert "overwriting the touched partitions" in out

    # A full refresh that fails part way (a data file of the raw log it reads is
    # gone) leaves the table as it was; with the file back, it succeeds.
    before = ws.sql(f"select * from tsdedup.{TAG_MEASUREMENT}")[0]
    (raw_file,) = ws.sql(
        "select file_path from tsdedup.raw_chunks.data_files"
        f" where `partition`.measurement = '{TAG_MEASUREMENT}' limit 1"
    )[0]
    path = local_path(str(raw_file["file_path"]))
    aside = path.with_name(path.name + ".aside")
    path.rename(aside)
    failed = ws.tsdedup("build", "--full-refresh", "--select", TAG_MEASUREMENT)
    aside.rename(path)
    assert failed.code == 1, failed.stdout
    assert "FileNotFoundException" in failed.stdout + failed.stderr
    assert canonical(ws.sql(f"select * from tsdedup.{TAG_MEASUREMENT}")[0]) == canonical(before)
    assert_tables_match(ws, landed)

    ws.build("--full-refresh", "--select", *MEASUREMENTS)
    assert_tables_match(ws, landed)

    # A live view whose SQL the embedded metastore cannot keep fails clearly;
    # its table is complete.
    wide = {f"field_{i:03d}_{'x' * 40}": float(i) for i in range(400)}
    landed.append(("c4.lp", lines([format_line(Point("wide", {"host": "w"}, wide, DAY0))])))
    ws.land(*landed[-1])
    ws.add_measurement_model("wide", "wide")
    (ws.project / "models" / "live" / "wide_live.sql").write_text(
        "{{ tsdedup.live_measurement(ref('wide')) }}\n", encoding="utf-8"
    )
    result = ws.tsdedup("build")
    assert result.code == 1
    assert "the live view of " in result.stdout
    assert "400 fields) is " in result.stdout
    assert "more than the metastore keeps of a view's text" in result.stdout
    assert "models: 1 error" in result.stdout
    (row,) = ws.sql("select * from tsdedup.wide")[0]
    assert {k: v for k, v in row.items() if k in wide} == wide
    # Its 400 flat columns would outgrow the metastore's copy of the raw log's
    # name mapping (decision 0025): the log leaves them out and says so, and
    # the model reads the maps, which hold every value.
    assert "the flat columns of 1 measurement(s) would outgrow the metastore" in result.stdout
    assert "their points are read from the maps: wide" in result.stdout
    (raw_columns,) = ws.sql("describe tsdedup.raw_chunks")
    names = {r["col_name"] for r in raw_columns}
    assert "float__field_000_" + "x" * 40 not in names
    assert "tag__host" in names
    built = (ws.project / "target/run/tsdedup/models/measurements/wide.sql").read_text("utf-8")
    assert "fields_float[" in built and "float__" not in built
