"""The raw log's day partitions (decision 0034): each point row lands in the
partition of its UTC day, a full rebuild reads those partitions in place with no
exchange of the points, and gives the same table as the rebuild that exchanges
them; a log from before the day partitions is brought up to date and still
rebuilds right.
"""

from __future__ import annotations

import random
import re

import pytest

from tests.integration.conftest import Workspace
from tests.integration.test_incremental import DAY, DAY0, SEED, as_set, expected_sets, random_chunk

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

GROUPED = "/* tsdedup read: raw log day partitions in place */"
SETTINGS = (
    "spark.sql.sources.v2.bucketing.enabled",
    "spark.sql.iceberg.planning.preserve-data-grouping",
)


def compiled(ws: Workspace, model: str) -> str:
    path = ws.project / "target" / "compiled" / "tsdedup" / "models" / "measurements"
    return (path / f"{model}.sql").read_text("utf-8")


def land_days(
    ws: Workspace, rng: random.Random, stem: str, days: list[int], landed: list[tuple[str, bytes]]
) -> None:
    for i in range(3):
        name, content = f"{stem}_{i}.lp", random_chunk(rng, days, True).encode()
        ws.land(name, content)
        landed.append((name, content))
    # an exact replay of the first under another name
    name, content = f"{stem}_again.lp", landed[-3][1]
    ws.land(name, content)
    landed.append((name, content))


def utc_day(time_ns: int) -> str:
    import datetime

    return (datetime.date(1970, 1, 1) + datetime.timedelta(days=time_ns // DAY)).isoformat()


def test_a_rebuild_reads_the_raw_logs_day_partitions_in_place(workspace: Workspace) -> None:
    ws = workspace
    rng = random.Random(SEED + 34)
    ws.add_measurement_model("inc", "inc")
    landed: list[tuple[str, bytes]] = []
    land_days(ws, rng, "a", [0, 1, 2, 3, 4], landed)
    ws.build()

    # Each point row holds its UTC day, and its file lies in that day's partition.
    rows, files = ws.sql(
        "select row_kind, time_ns, cast(partition_day as string) as day from tsdedup.raw_chunks",
        "select `partition`.row_kind as row_kind, cast(`partition`.partition_day as string) as day,"
        " file_path from tsdedup.raw_chunks.files",
    )
    assert {r["row_kind"] for r in rows} == {"point", "column", "chunk"}
    for row in rows:
        if row["row_kind"] == "point":
            assert row["day"] == utc_day(int(str(row["time_ns"]))), row
        else:
            assert row["day"] is None, row
    point_files = [f for f in files if f["row_kind"] == "point"]
    assert {f["day"] for f in point_files} == {utc_day(DAY0 + d * DAY) for d in range(5)}
    for f in files:
        assert f"/partition_day={f['day'] or '__HIVE_DEFAULT_PARTITION__'}/" in str(f["file_path"])

    # Five days, four shuffle partitions: the rebuild reads the days in place.
    log = ws.project / "logs" / "dbt.log"
    before = len(log.read_text(encoding="utf-8"))
    ws.build("--full-refresh", "--select", "inc")
    statements = log.read_text(encoding="utf-8")[before:]
    in_place = compiled(ws, "inc")
    assert GROUPED in in_place
    assert re.search(r"^\s+p\.partition_day,$", in_place, re.MULTILINE), in_place
    (grouped_rows,) = ws.sql("select * from tsdedup.inc")
    assert as_set(grouped_rows) == expected_sets(landed)[0]
    # the settings are on for the rebuild's statement only
    create = statements.index("create or replace table")
    for key in SETTINGS:
        on = statements.index(f"tsdedup: set {key} = true")
        off = statements.index(f"tsdedup: set {key} = false", create)
        assert on < create < off, key

    # Spark plans the rebuild's query with no exchange under those settings,
    # and with one without them.
    query = "\n".join(line for line in in_place.splitlines() if not line.startswith("/*")).strip()
    plain_plan, _, _, grouped_plan, _, _ = ws.sql(
        f"explain {query}",
        *(f"set `{key}` = true" for key in SETTINGS),
        f"explain {query}",
        *(f"set `{key}` = false" for key in SETTINGS),
    )
    # (the exchange of the points is by the key; the catalog's sort keys
    # have an exchange of their own)
    points_exchange = re.compile(r"Exchange hashpartitioning\(partition_day#\d+, key_1#")
    assert points_exchange.search(str(plain_plan[0]["plan"]))
    assert not points_exchange.search(str(grouped_plan[0]["plan"])), grouped_plan

    # The rebuild that exchanges the points gives the same table.
    ws.build("--full-refresh", "--select", "inc", "--vars", "{tsdedup_day_grouped_rebuild: false}")
    exchanged = compiled(ws, "inc")
    assert GROUPED not in exchanged and "p.partition_day" not in exchanged
    (exchanged_rows,) = ws.sql("select * from tsdedup.inc")
    assert as_set(exchanged_rows) == as_set(grouped_rows)
    assert len(exchanged_rows) == len(grouped_rows)


def test_fewer_days_than_shuffle_partitions_are_exchanged(workspace: Workspace) -> None:
    """One task per day would leave cores idle: two days are read as before."""
    ws = workspace
    rng = random.Random(SEED + 35)
    ws.add_measurement_model("inc", "inc")
    landed: list[tuple[str, bytes]] = []
    land_days(ws, rng, "b", [0, 1], landed)
    ws.build("--full-refresh")
    assert GROUPED not in compiled(ws, "inc")
    (rows,) = ws.sql("select * from tsdedup.inc")
    assert as_set(rows) == expected_sets(landed)[0]


def test_a_raw_log_from_before_day_partitions_is_brought_up_to_date(
    workspace: Workspace,
) -> None:
    """A log written before the day partitions gets the column and the
    partition field at its next run; its old rows read NULL as their day, so
    rebuilds exchange the points (and find the duplicates between old and new
    chunks) until every point file lies in a day partition."""
    ws = workspace
    rng = random.Random(SEED + 36)
    ws.add_measurement_model("inc", "inc")
    landed: list[tuple[str, bytes]] = []
    land_days(ws, rng, "old", [0, 1, 2, 3, 4], landed)
    ws.tsdedup("run", "--select", "raw_chunks").check()

    # The log as an earlier version wrote it: no column, no day partitions.
    (described,) = ws.sql("describe table tsdedup.raw_chunks")
    columns = []
    for row in described:
        name = str(row["col_name"])
        if name.startswith("#") or not name:
            break
        if name != "partition_day":
            columns.append(f"`{name}`")
    ws.sql(
        "create table tsdedup.raw_before using iceberg partitioned by (row_kind, measurement)"
        " tblproperties ('write.distribution-mode' = 'none', 'write.spark.fanout.enabled' = 'true',"
        " 'tsdedup.flat_columns' = 'true')"
        f" as select {', '.join(columns)} from tsdedup.raw_chunks",
        "drop table tsdedup.raw_chunks",
        "alter table tsdedup.raw_before rename to tsdedup.raw_chunks",
    )

    # New chunks re-deliver old keys with other values.
    land_days(ws, rng, "new", [0, 1, 2, 3, 4], landed)
    ws.build()
    described, properties, rows = ws.sql(
        "describe table tsdedup.raw_chunks",
        "show tblproperties tsdedup.raw_chunks",
        "select source_file, cast(partition_day as string) as day, time_ns"
        " from tsdedup.raw_chunks where row_kind = 'point'",
    )
    names = [str(r["col_name"]) for r in described]
    partitioned = names[names.index("# Partition Information") :]
    assert "partition_day" in partitioned
    assert {"key": "tsdedup.day_partitions", "value": "true"} in properties
    for row in rows:
        if str(row["source_file"]).startswith("old_"):
            assert row["day"] is None, row
        else:
            assert row["day"] == utc_day(int(str(row["time_ns"]))), row
    (built,) = ws.sql("select * from tsdedup.inc")
    assert as_set(built) == expected_sets(landed)[0]

    # A rebuild reads the old chunks too: it exchanges the points.
    ws.build("--full-refresh", "--select", "inc")
    assert GROUPED not in compiled(ws, "inc")
    (rebuilt,) = ws.sql("select * from tsdedup.inc")
    assert as_set(rebuilt) == expected_sets(landed)[0]
    assert len(rebuilt) == len(built)
