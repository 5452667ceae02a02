"""The key index: a chunk that overlaps stored data in time but brings only new
keys is appended; a chunk with a stored key is merged; a stale index is not
trusted and is rebuilt; two tables of one measurement keep keys of their own,
and an index of the earlier layout (one per measurement) is replaced.
"""

from __future__ import annotations

import pytest

from tests.integration.conftest import Workspace
from tests.reference import expected_from_files

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

DAY0 = 1_793_491_200_000_000_000  # 2026-11-01T00:00:00Z
MINUTE = 60 * 10**9
DAY = 24 * 60 * MINUTE
COLUMNS = ("host", "rack", "value", "time_ns")


def chunk(hosts: list[str], value: float, rack: str | None = None, day: int = 0) -> str:
    """Every host at minutes 0-9: the same minutes in every chunk, as in real time."""
    tag = f",rack={rack}" if rack else ""
    return (
        "\n".join(
            f"idx,host={host}{tag} value={value} {DAY0 + day * DAY + minute * MINUTE}"
            for host in hosts
            for minute in range(10)
        )
        + "\n"
    )


def land_and_run(
    ws: Workspace, landed: list[tuple[str, bytes]], name: str, text: str, *args: str
) -> str:
    """Land a file (remembered in `landed`, for the reference) and run."""
    landed.append((name, text.encode()))
    ws.land(name, text)
    return ws.tsdedup("run", *args).check().stdout


def rows(ws: Workspace) -> tuple[list[dict[str, object]], ...]:
    return tuple(
        ws.sql(
            "select * from tsdedup.idx",
            "select file_path from tsdedup.idx.data_files",
            "select count(*) as n, count(distinct key_hash) as distinct_keys"
            " from tsdedup.key_index where table_name = 'tsdedup.idx'",
        )
    )


def dbt_log(ws: Workspace) -> str:
    return (ws.project / "logs" / "dbt.log").read_text(encoding="utf-8")


def key_index_update(ws: Workspace) -> str:
    """The statement the last run added new keys to the index with."""
    log = dbt_log(ws)
    start = log.rindex("insert into tsdedup.key_index")
    return log[start : log.index("known.key_hash", start)]


def key_check(ws: Workspace) -> str:
    """The query the last run asked the key index which new keys it may hold."""
    log = dbt_log(ws)
    start = log.rindex("with new_keys as (")
    return log[start : log.index("left semi join", start)]


# The index's keys written out independently of tsdedup.key_hash (a lambda
# drops absent tags instead of NULL elements), from the table's rows.
TABLE_KEYS = (
    "select distinct to_date(`time`) as partition_day, xxhash64(filter(array("
    "named_struct('key', 'host', 'value', host), named_struct('key', 'rack', 'value', rack)"
    "), e -> e.value is not null), time_ns) as key_hash from tsdedup.idx"
)


def index_and_table_keys(ws: Workspace) -> tuple[set[tuple[str, int]], set[tuple[str, int]]]:
    """The key index's (day, hash) pairs for `idx`, and those its table's rows give."""
    index, table = ws.sql(
        "select partition_day, key_hash from tsdedup.key_index where table_name = 'tsdedup.idx'",
        TABLE_KEYS,
    )
    return (
        {(str(r["partition_day"]), int(r["key_hash"])) for r in index},
        {(str(r["partition_day"]), int(r["key_hash"])) for r in table},
    )


def as_set(table: list[dict[str, object]]) -> set[tuple[object, ...]]:
    return {tuple(row.get(c) for c in COLUMNS) for row in table}


def test_new_keys_are_appended_known_keys_merged_and_a_stale_index_rebuilt(
    workspace: Workspace,
) -> None:
    ws = workspace
    ws.add_measurement_model("idx", "idx")
    landed: list[tuple[str, bytes]] = []

    def deliver(name: str, text: str, *args: str) -> str:
        return land_and_run(ws, landed, name, text, *args)

    deliver("1.lp", chunk(["h1", "h2"], 1.0))
    table, files, index = rows(ws)
    assert index == [{"n": 20, "distinct_keys": 20}]

    # New hosts in the same minutes: overlapping in time, new in keys.
    # A second day starts (h6 on 2026-11-02).
    out = deliver(
        "2.lp",
        chunk(["h3", "h4"], 2.0) + chunk(["h1"], 2.0, rack="r1") + chunk(["h6"], 2.0, day=1),
    )
    assert "idx: appending the chunks after chunk 1" in out
    assert "by the key index, in keys" in out
    table, files_2, index = rows(ws)
    assert {f["file_path"] for f in files} < {f["file_path"] for f in files_2}
    assert as_set(table) == as_set(expected_from_files(landed).rows("idx"))
    assert index == [{"n": 60, "distinct_keys": 60}]

    # A known key (h2 at minute 0..9): merged row by row (10 new points, 50
    # stored rows); the stored files stay, the replaced rows are marked deleted.
    out = deliver("3.lp", chunk(["h2"], 3.0))
    assert "idx: merging the chunks after chunk 2" in out
    assert "row by row" in out
    table, files_3, index = rows(ws)
    assert {f["file_path"] for f in files_2} < {f["file_path"] for f in files_3}
    assert as_set(table) == as_set(expected_from_files(landed).rows("idx"))
    assert index == [{"n": 60, "distinct_keys": 60}]
    # Only the index partition of the day the chunk touched was read for it.
    update = key_index_update(ws)
    assert "and p.chunk_seq > 2 and p.chunk_seq <= 3" in update
    assert "partition_day in (date'2026-11-01')" in update
    # The plan's key check and the index update read the new points' tags
    # from the raw log's flat columns (decision 0025), not from their maps:
    # the tags the new chunk writes (host; rack is in older chunks only).
    for statement in (update, key_check(ws)):
        assert "p.`tag__host`" in statement
        assert "map_entries" not in statement and "tag__rack" not in statement
    # The keys added from the new points' flat tag columns (rack absent for
    # most hosts) are the keys of the table's rows.
    from_points, from_table = index_and_table_keys(ws)
    assert from_points == from_table
    assert len(from_table) == 60

    # An index the table does not vouch for (as after a crash between the data
    # commit and the index update) is not asked, and is rebuilt from the table.
    # A key of a day the table does not have, and one of another table.
    ws.sql(
        "alter table tsdedup.idx unset tblproperties ('tsdedup.indexed_chunk_seq')",
        "insert into tsdedup.key_index values"
        " ('tsdedup.idx', date'2026-12-01', 42), ('tsdedup.other', date'2026-11-01', 7)",
    )
    out = deliver("4.lp", chunk(["h5"], 4.0))
    assert "idx: merging the chunks after chunk 3" in out
    table, _files, index = rows(ws)
    assert as_set(table) == as_set(expected_from_files(landed).rows("idx"))
    # The fill replaced every index partition of the table, in one commit, and
    # no other table's.
    assert (
        index
        == [{"n": len(table), "distinct_keys": len(table)}]
        == [{"n": 70, "distinct_keys": 70}]
    )
    log = dbt_log(ws)
    assert "insert overwrite tsdedup.key_index partition (table_name = 'tsdedup.idx')" in log
    assert "delete from tsdedup.key_index" not in log
    (other, properties) = ws.sql(
        "select key_hash from tsdedup.key_index where table_name = 'tsdedup.other'",
        "show tblproperties tsdedup.key_index",
    )
    assert other == [{"key_hash": 7}]
    assert {"key": "write.distribution-mode", "value": "none"} in properties
    # Filled from the table's columns (NULL for an absent rack), the same keys.
    from_columns, from_table = index_and_table_keys(ws)
    assert from_columns == from_table
    assert len(from_table) == 70

    # A backfill with known keys, as many new points as the day's data files
    # hold rows (70, replaced rows included), overwrites the day; the keys it
    # adds to the index are again the table's.
    # This run reads the tag maps (the flat columns switched off): the same keys.
    out = deliver(
        "5.lp",
        chunk(["h1", "h2", "h3", "h4", "h5", "h7", "h8"], 5.0),
        "--vars",
        "{tsdedup_read_flat_columns: false}",
    )
    assert "idx: merging the chunks after chunk 4" in out
    assert "overwriting the touched partitions" in out
    table, _files, index = rows(ws)
    assert as_set(table) == as_set(expected_from_files(landed).rows("idx"))
    assert index == [{"n": 90, "distinct_keys": 90}]
    update = key_index_update(ws)
    assert "and p.chunk_seq > 4 and p.chunk_seq <= 5" in update
    for statement in (update, key_check(ws)):
        assert "map_entries(p.tags)" in statement and "tag__" not in statement
    from_maps, from_table = index_and_table_keys(ws)
    assert from_maps == from_table
    assert len(from_table) == 90

    # The table's state is recorded by the measurement materialization: a
    # measurement model built another way is refused before anything is written.
    (ws.project / "models" / "measurements" / "idx_as_table.sql").write_text(
        "{{ config(materialized='table') }}\n{{ tsdedup.measurement('idx') }}\n", encoding="utf-8"
    )
    refused = ws.tsdedup("run", "--select", "idx_as_table")
    assert refused.code != 0
    assert (
        "tsdedup.measurement('idx'): tsdedup.idx_as_table must be materialized as"
        " 'measurement', not 'table'" in refused.stdout
    )
    (ws.project / "models" / "measurements" / "idx_as_table.sql").unlink()


def test_two_tables_of_one_measurement_keep_their_own_keys_and_an_old_index_is_replaced(
    workspace: Workspace,
) -> None:
    ws = workspace
    ws.add_measurement_model("idx", "idx")
    ws.add_measurement_model("idx_copy", "idx")
    landed: list[tuple[str, bytes]] = []

    def deliver(name: str, text: str, *args: str) -> str:
        return land_and_run(ws, landed, name, text, *args)

    def keys_per_table() -> list[dict[str, object]]:
        (counts,) = ws.sql(
            "select table_name, count(*) as n from tsdedup.key_index"
            " group by table_name order by table_name"
        )
        return counts

    deliver("1.lp", chunk(["h1", "h2"], 1.0))
    assert keys_per_table() == [
        {"table_name": "tsdedup.idx", "n": 20},
        {"table_name": "tsdedup.idx_copy", "n": 20},
    ]

    # A full refresh of one table replaces its own keys and no other table's,
    # not even a stale key of the other table of the same measurement.
    ws.sql("insert into tsdedup.key_index values ('tsdedup.idx', date'2026-12-01', 42)")
    ws.tsdedup("run", "--full-refresh", "--select", "idx_copy").check()
    assert keys_per_table() == [
        {"table_name": "tsdedup.idx", "n": 21},
        {"table_name": "tsdedup.idx_copy", "n": 20},
    ]
    ws.sql("delete from tsdedup.key_index where key_hash = 42")

    # An index of the earlier layout, keyed by measurement, whose keys the state
    # records vouched for under the earlier property names.
    old_names = {
        "tsdedup.indexed_chunk_seq": "tsdedup.key_index_chunk_seq",
        "tsdedup.indexed_snapshot_id": "tsdedup.key_index_snapshot_id",
    }
    statements = [
        "drop table tsdedup.key_index",
        "create table tsdedup.key_index (measurement string, partition_day date,"
        " key_hash bigint) using iceberg partitioned by (measurement, partition_day)",
    ]
    for table in ("tsdedup.idx", "tsdedup.idx_copy"):
        (properties,) = ws.sql(f"show tblproperties {table}")
        values = {p["key"]: p["value"] for p in properties}
        moved = ", ".join(f"'{old}' = '{values[new]}'" for new, old in old_names.items())
        statements += [
            f"alter table {table} set tblproperties ({moved})",
            f"alter table {table} unset tblproperties ({', '.join(repr(n) for n in old_names)})",
        ]
    ws.sql(*statements)

    # The next run drops it, trusts no index, and fills each table's keys.
    out = deliver("2.lp", chunk(["h3"], 2.0) + chunk(["h1"], 2.0))
    assert "tsdedup.key_index is keyed by measurement (an earlier layout): dropping it" in out
    expected = as_set(expected_from_files(landed).rows("idx"))
    for table in ("idx", "idx_copy"):
        (rows_of_table,) = ws.sql(f"select * from tsdedup.{table}")
        assert as_set(rows_of_table) == expected
    assert keys_per_table() == [
        {"table_name": "tsdedup.idx", "n": 30},
        {"table_name": "tsdedup.idx_copy", "n": 30},
    ]
    # Each table's index rows are its own rows' keys (the tables have no rack).
    host_keys = (
        "select distinct to_date(`time`) as partition_day, xxhash64(filter(array("
        "named_struct('key', 'host', 'value', host)), e -> e.value is not null), time_ns)"
        " as key_hash from tsdedup.{}"
    )
    for table in ("idx", "idx_copy"):
        index, own = ws.sql(
            "select partition_day, key_hash from tsdedup.key_index"
            f" where table_name = 'tsdedup.{table}'",
            host_keys.format(table),
        )
        assert {(str(r["partition_day"]), r["key_hash"]) for r in index} == {
            (str(r["partition_day"]), r["key_hash"]) for r in own
        }
    (index_properties, idx_properties) = ws.sql(
        "show tblproperties tsdedup.key_index", "show tblproperties tsdedup.idx"
    )
    assert {"key": "tsdedup.keyed_by", "value": "table"} in index_properties
    assert {"key": "tsdedup.indexed_chunk_seq", "value": "2"} in idx_properties
