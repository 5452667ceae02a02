"""Live views, compaction, time travel, snapshot expiry and raw log compaction on one
table's history.

A user ingests often and merges rarely: the live view must already show the
settled points (no duplicate, field filters applied after the merge) while the
table still holds the older state. Maintenance then compacts the table in its
sort keys without changing a row, earlier versions stay readable inside the
retention window, and expiry removes only what no kept version needs.
"""

from __future__ import annotations

import pytest

from tests.integration.conftest import Workspace, assert_file_sorted, local_path, point_values
from tests.reference import expected_from_files

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

DAY0 = 1_793_491_200_000_000_000  # 2026-11-01T00:00:00Z
MINUTE = 60 * 10**9


def line(host: str, fields: str, minute: int, extra_tags: str = "", nanos: int = 0) -> str:
    return f"live,host={host}{extra_tags} {fields} {DAY0 + minute * MINUTE + nanos}"


# The first delivery: 3 hosts x 40 minutes, `value` = minute, `count` = 1.
FIRST = "\n".join(
    line(host, f"value={minute}.0,count=1i", minute)
    for host in ("h1", "h2", "h3")
    for minute in range(40)
)
# A retry that changes h1's values for minutes 0-9, and carries `count` only for
# h2 (a partial-field re-delivery), then brand-new points and a point with a tag
# the table has never seen (`rack`): the same host and time, a different series.
SECOND = "\n".join(
    [line("h1", f"value={100 + minute}.0", minute) for minute in range(10)]
    + [line("h2", "count=7i", minute) for minute in range(5)]
    + [line("h1", "value=1.5", minute, nanos=1) for minute in range(3)]
    + [line("h1", "value=-1.0", 0, extra_tags=",rack=r9")]
)
# An exact replay of part of the retry, and an overlap of the first delivery.
THIRD = "\n".join(SECOND.splitlines()[:4] + FIRST.splitlines()[100:110])

# Points after everything stored: minutes 60-69 of every host.
LATER = "\n".join(
    line(host, f"value={minute}.0", minute)
    for host in ("h1", "h2", "h3")
    for minute in range(60, 70)
)

COLUMNS = ("host", "value", "count", "time_ns")


def projected(rows: list[dict[str, object]]) -> list[tuple[object, ...]]:
    """Rows as sorted tuples of the columns every version of the table has."""
    return sorted(
        (tuple(row.get(c) for c in COLUMNS) for row in rows), key=lambda r: tuple(map(str, r))
    )


def canonical(rows: list[dict[str, object]]) -> list[tuple[tuple[str, str], ...]]:
    """Whole rows, whatever the column order, as a sorted list."""
    return sorted(tuple(sorted((k, str(v)) for k, v in row.items())) for row in rows)


def test_live_view_then_compaction_time_travel_and_expiry(workspace: Workspace) -> None:
    ws = workspace
    ws.add_measurement_model("live", "live")
    (ws.project / "models" / "live" / "live_live.sql").write_text(
        "{{ tsdedup.live_measurement(ref('live')) }}\n", encoding="utf-8"
    )
    landed = [("0001.lp", (FIRST + "\n").encode())]
    ws.land(*landed[0])
    ws.tsdedup("run").check()
    (version_1,) = ws.sql(
        "select snapshot_id, cast(committed_at as string) as committed_at"
        " from tsdedup.live.snapshots order by committed_at desc limit 1"
    )[0]
    table_1 = ws.sql("select * from tsdedup.live")[0]

    # Ingest only: the table stays as it was, the live view is already settled.
    for name, text in (("0002.lp", SECOND), ("0003.lp", THIRD)):
        landed.append((name, (text + "\n").encode()))
        ws.land(*landed[-1])
    ws.tsdedup("run", "--select", "raw_chunks").check()
    expected = expected_from_files(landed).rows("live")
    table, live, counts, filtered = ws.sql(
        "select * from tsdedup.live",
        "select * from tsdedup.live_live",
        "select count(*) as n from tsdedup.live_live",
        # h1 at minute 0 had value 0.0 first; the retry says 100.0.
        f"select count(*) as n from tsdedup.live_live where value = 0.0 and host = 'h1'"
        f" and time_ns = {DAY0}",
    )
    assert projected(table) == projected(table_1)
    assert "rack" not in live[0], "the view shows the columns it was built with"
    assert projected(live) == projected(expected)
    assert counts[0]["n"] == len(expected) == len(table_1) + 4
    assert filtered[0]["n"] == 0
    h2 = [r for r in live if r["host"] == "h2" and r["time_ns"] == DAY0]
    assert [(r["value"], r["count"]) for r in h2] == [(0.0, 7)], "partial re-delivery merged"

    # The next build merges the chunks; table and rebuilt view agree, with `rack`.
    ws.build()
    table_2, live_2 = ws.sql("select * from tsdedup.live", "select * from tsdedup.live_live")
    assert projected(table_2) == projected(expected)
    # The view shows what the table holds, but for the table's series hashes.
    assert canonical(live_2) == canonical([point_values(r) | {"time": r["time"]} for r in table_2])
    assert {r.get("rack") for r in table_2} == {None, "r9"}

    # Time travel: the first version, by snapshot id and by commit time.
    by_id, by_time = ws.sql(
        f"select * from tsdedup.live version as of {version_1['snapshot_id']}",
        f"select * from tsdedup.live timestamp as of '{version_1['committed_at']}'",
    )
    assert projected(by_id) == projected(table_1)
    assert projected(by_time) == projected(table_1)

    # Later minutes overlap nothing stored: appended as a new file beside the others.
    landed.append(("0004.lp", (LATER + "\n").encode()))
    ws.land(*landed[-1])
    assert "live: appending the chunks after chunk 3" in ws.tsdedup("run").check().stdout
    table_3, files_before = ws.sql(
        "select * from tsdedup.live", "select file_path from tsdedup.live.data_files"
    )
    assert projected(table_3) == projected(expected_from_files(landed).rows("live"))
    assert len(table_3) == len(table_2) + 30

    # Compaction: fewer files, the same rows, each file in the partition's sort key.
    assert len(files_before) >= 2, "the writes left several files to compact"
    result = ws.tsdedup(
        "run-operation", "compact_measurements", "--args", "{models: [live]}"
    ).check()
    assert "files rewritten into 1" in result.stdout, result.stdout
    compacted, files_after, keys = ws.sql(
        "select * from tsdedup.live",
        "select file_path from tsdedup.live.data_files",
        "select partition_key from tsdedup.sort_keys where measurement = 'live'",
    )
    assert len(files_after) == 1
    assert canonical(compacted) == canonical(table_3)
    tags = [c for c in keys[0]["partition_key"] if c != "time"]
    assert_file_sorted(str(files_after[0]["file_path"]), tags)

    # Expiry inside the retention window keeps every version readable ...
    ws.tsdedup("run-operation", "expire_snapshots").check()
    (still,) = ws.sql(f"select * from tsdedup.live version as of {version_1['snapshot_id']}")
    assert projected(still) == projected(table_1)
    # ... a window of 0 days keeps only the current version, and all its files.
    ws.tsdedup("run-operation", "expire_snapshots", "--args", "{retain_days: 0}").check()
    gone = ws.tsdedup("sql", f"select * from tsdedup.live version as of {version_1['snapshot_id']}")
    assert gone.code != 0
    assert "Cannot find snapshot" in gone.stdout + gone.stderr
    (current,) = ws.sql("select * from tsdedup.live")
    assert canonical(current) == canonical(table_3)
    assert all(local_path(str(f["file_path"])).exists() for f in files_after)
    assert not any(local_path(str(f["file_path"])).exists() for f in files_before)

    bad = ws.tsdedup("run-operation", "compact_measurements", "--args", "{min_files: 1}")
    assert bad.code != 0
    assert "min_files must be a whole number of at least 2" in bad.stdout + bad.stderr

    # The raw log: each run added files of chunk and column rows; compaction
    # leaves one per partition with the same rows, and the point files as they were.
    raw_sql = "select * from tsdedup.raw_chunks"
    raw_files_sql = (
        "select `partition`.row_kind as row_kind, `partition`.measurement as measurement,"
        " file_path from tsdedup.raw_chunks.data_files"
    )
    raw_before, raw_files_before = ws.sql(raw_sql, raw_files_sql)
    chunk_files = [f for f in raw_files_before if f["row_kind"] == "chunk"]
    assert len(chunk_files) >= 3, "each of the runs added a file of chunk rows"
    dry = ws.tsdedup("run-operation", "compact_raw_log", "--args", "{dry_run: true}").check()
    assert f"chunk rows of no measurement: would rewrite {len(chunk_files)} files" in dry.stdout
    (unchanged,) = ws.sql(raw_files_sql)
    assert canonical(unchanged) == canonical(raw_files_before)

    ws.tsdedup("run-operation", "compact_raw_log").check()
    raw_after, raw_files_after = ws.sql(raw_sql, raw_files_sql)
    assert canonical(raw_after) == canonical(raw_before)
    kept = [f for f in raw_files_after if f["row_kind"] != "point"]
    assert sorted((f["row_kind"], f["measurement"]) for f in kept) == sorted(
        {(f["row_kind"], f["measurement"]) for f in raw_files_before if f["row_kind"] != "point"}
    ), "one file per partition of chunk, column and reject rows"
    points = [f for f in raw_files_before if f["row_kind"] == "point"]
    assert canonical([f for f in raw_files_after if f["row_kind"] == "point"]) == canonical(points)

    # The next run finds only the new file and merges its points.
    landed.append(("0005.lp", (line("h4", "value=4.0", 61) + "\n").encode()))
    ws.land(*landed[-1])
    ws.tsdedup("run").check()
    (table_5,) = ws.sql("select * from tsdedup.live")
    assert projected(table_5) == projected(expected_from_files(landed).rows("live"))
    assert len(table_5) == len(table_3) + 1

    bad = ws.tsdedup("run-operation", "compact_raw_log", "--args", "{min_files: 1}")
    assert bad.code != 0
    assert "min_files must be a whole number of at least 2" in bad.stdout + bad.stderr
