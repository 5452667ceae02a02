"""Series hashes: a chunk that overlaps stored data in time but brings only new
keys is appended; a chunk with a stored key is merged; the stored keys are not
asked after a write that replaced stored rows; hashes a write from outside the
project may have left wrong are not trusted; a hash two series share never
merges them; a table written before series hashes is rebuilt once.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.integration.conftest import Workspace
from tests.reference import expected_from_files

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

DAY0 = 1_793_491_200_000_000_000  # 2026-11-01T00:00:00Z
MINUTE = 60 * 10**9
DAY = 24 * 60 * MINUTE
COLUMNS = ("host", "rack", "value", "time_ns")


def chunk(
    hosts: list[str], value: float, rack: str | None = None, day: int = 0, tags: str = ""
) -> str:
    """Every host at minutes 0-9: the same minutes in every chunk, as in real time;
    `tags`: more tags, as line protocol (`,name=value...`)."""
    tag = (f",rack={rack}" if rack else "") + tags
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


def idx_deliveries(ws: Workspace) -> tuple[list[tuple[str, bytes]], Callable[..., str]]:
    """Measurement idx with a model file; the files landed so far, and a function
    that lands one more and runs."""
    ws.add_measurement_model("idx", "idx")
    landed: list[tuple[str, bytes]] = []

    def deliver(name: str, text: str, *args: str) -> str:
        return land_and_run(ws, landed, name, text, *args)

    return landed, deliver


def dbt_log(ws: Workspace) -> str:
    return (ws.project / "logs" / "dbt.log").read_text(encoding="utf-8")


def key_check(ws: Workspace) -> str:
    """The query the last run asked which new keys may be stored."""
    log = dbt_log(ws)
    start = log.rindex("with new_keys as (")
    return log[start : log.index("group by n.partition_day", start)]


def key_checks(ws: Workspace) -> int:
    """How many times the runs so far asked the stored keys."""
    return dbt_log(ws).count("with new_keys as (")


def compiled_idx(ws: Workspace) -> str:
    path = ws.project / "target/compiled/tsdedup/models/measurements/idx.sql"
    return path.read_text(encoding="utf-8")


def plan_lines(ws: Workspace) -> list[str]:
    """The comment lines the compiled idx model starts with: its plan, before its query."""
    return compiled_idx(ws).split("\nwith new_points as (", 1)[0].splitlines()


def as_set(table: list[dict[str, object]]) -> set[tuple[object, ...]]:
    return {tuple(row.get(c) for c in COLUMNS) for row in table}


def table_equals_reference(
    ws: Workspace,
    landed: list[tuple[str, bytes]],
    other: frozenset[tuple[object, ...]] = frozenset(),
) -> None:
    """The table holds the points of the files landed (and rows `other` wrote)."""
    (table,) = ws.sql("select * from tsdedup.idx")
    assert as_set(table) == as_set(expected_from_files(landed).rows("idx")) | other
    assert len(table) == len(as_set(table))


def hashes(
    ws: Workspace, tags: tuple[str, ...] = ("host", "rack")
) -> dict[tuple[object, ...], int]:
    """Each row's stored series hash, after checking it against the series hash
    written out by hand (decision 0026) over the table's tag columns `tags`."""
    by_hand = ", ".join(f"if({t} is null, null, '{t}'), {t}" for t in tags)
    (rows,) = ws.sql(f"select *, xxhash64({by_hand}) as by_hand from tsdedup.idx")
    for row in rows:
        assert row["series_hash"] == row["by_hand"], row
    return {(r["host"], r.get("rack"), r["time_ns"]): int(r["series_hash"]) for r in rows}


def properties(ws: Workspace, table: str = "tsdedup.idx") -> dict[str, str]:
    (rows,) = ws.sql(f"show tblproperties {table}")
    return {r["key"]: r["value"] for r in rows}


def test_new_keys_are_appended_known_keys_merged_and_outside_writes_not_trusted(
    workspace: Workspace,
) -> None:
    ws = workspace
    landed, deliver = idx_deliveries(ws)

    deliver("1.lp", chunk(["h1", "h2"], 1.0))
    first = hashes(ws, ("host",))
    assert len(first) == 20
    # One hash per series: the ten minutes of a host share it, the hosts differ.
    assert len(set(first.values())) == 2
    state = properties(ws)
    assert state["tsdedup.series_hash_column"] == "series_hash"
    assert state["tsdedup.written_snapshot_id"] == state["current-snapshot-id"]
    # A table as built counts as one whose new points re-deliver stored keys
    # (decision 0038); here its next run is to ask them.
    assert state["tsdedup.keys_shared"] == "true"
    ws.sql("alter table tsdedup.idx set tblproperties ('tsdedup.keys_shared' = 'false')")

    # New hosts in the same minutes: overlapping in time, new in keys. h1 with
    # a rack is another series; a second day starts (h6 on 2026-11-02).
    out = deliver(
        "2.lp",
        chunk(["h3", "h4"], 2.0) + chunk(["h1"], 2.0, rack="r1") + chunk(["h6"], 2.0, day=1),
    )
    assert "idx: appending the chunks after chunk 1" in out
    assert "by their series hashes, in keys" in out
    assert "/* tsdedup key check: no stored key */" in plan_lines(ws)
    assert properties(ws)["tsdedup.keys_shared"] == "false"
    table_equals_reference(ws, landed)
    second = hashes(ws)
    assert len(second) == 60 and len(set(second.values())) == 6
    # The rack column the table gained left the stored rows' hashes as they were.
    assert {k: v for k, v in second.items() if k in first} == first

    # A known key (h2 at minutes 0..9): merged row by row (10 new points, 50
    # stored rows in the day).
    out = deliver("3.lp", chunk(["h2"], 3.0))
    assert "idx: merging the chunks after chunk 2" in out
    assert "row by row" in out
    assert "stored keys not asked" not in out
    assert "/* tsdedup key check: stored keys found */" in plan_lines(ws)
    assert properties(ws)["tsdedup.keys_shared"] == "true"
    table_equals_reference(ws, landed)
    assert hashes(ws) == second
    # The check reads the new points' tags from the raw log's flat columns
    # (decision 0025; rack is in older chunks only), and of the table only the
    # hashes and times of the day the chunk touched.
    check = key_check(ws)
    assert "p.`tag__host`" in check
    assert "p.tags" not in check and "tag__rack" not in check
    assert "select time_ns, series_hash\n            from tsdedup.idx\n" in check
    assert (
        "(`time` >= timestamp'2026-11-01 00:00:00' and `time` < timestamp'2026-11-02 00:00:00')"
        in check
    )
    assert "2026-11-02 00:00:00' and `time` < timestamp'2026-11-03" not in check
    # Of that day, only the rows in the new points' times (minutes 0-9).
    assert f"and time_ns between {DAY0} and {DAY0 + 9 * MINUTE})" in check

    # Two rows written from outside the project, with a hash that is not their
    # series': the table is no longer at the snapshot its state record names,
    # so the hashes are not asked, and h5's points merge into the row at
    # minute 0 instead of being appended beside it.
    late = DAY0 + 20 * MINUTE
    ws.sql(
        "insert into tsdedup.idx (host, rack, value, `time`, time_ns, series_hash) values"
        f" ('h5', null, 9.0, timestamp_micros({DAY0 // 1000}), {DAY0}, 0),"
        f" ('h5', null, 9.0, timestamp_micros({late // 1000}), {late}, 0)"
    )
    outside = frozenset({("h5", None, 9.0, late)})
    out = deliver("4.lp", chunk(["h5"], 4.0))
    assert "idx: merging the chunks after chunk 3" in out
    assert "by their series hashes" not in out
    table_equals_reference(ws, landed, outside)
    # Before the record vouches for the new snapshot, the wrong hash of the row
    # no point matched was put right (`hashes` compares every row's with its
    # tags').
    assert "update tsdedup.idx" in dbt_log(ws)
    assert len(hashes(ws)) == 71
    state = properties(ws)
    assert state["tsdedup.written_snapshot_id"] == state["current-snapshot-id"]

    # A backfill with known keys, more new points than the day's data files
    # hold rows, overwrites the day. The last merge replaced a stored row, so
    # the stored keys are not asked. This run reads the tag maps (the flat
    # columns switched off): the same hashes.
    asked = key_checks(ws)
    backfill = ["h1", "h2", "h3", "h4", "h5", *(f"h{i}" for i in range(7, 22))]
    out = deliver(
        "5.lp",
        chunk(backfill, 5.0),
        "--vars",
        "{tsdedup_read_flat_columns: false}",
    )
    assert "idx: merging the chunks after chunk 4" in out
    assert "overwriting the touched partitions" in out
    assert "stored keys not asked: the table's last write replaced stored rows" in out
    assert key_checks(ws) == asked
    table_equals_reference(ws, landed, outside)
    assert len(hashes(ws)) == 71 + 10 * (len(backfill) - 5)  # 15 new hosts


def test_the_stored_keys_are_asked_after_a_write_that_replaced_no_stored_row(
    workspace: Workspace,
) -> None:
    ws = workspace
    landed, land = idx_deliveries(ws)
    # Every point has a tag named like the key check's line: the record follows
    # the plan's line at the top of the SQL, never the name quoted below it.
    marker = ",/*\\ tsdedup\\ key\\ check:\\ no\\ stored\\ key\\ */=m"

    def deliver(name: str, hosts: list[str], value: float, *args: str) -> str:
        out = land(name, chunk(hosts, value, tags=marker), *args)
        table_equals_reference(ws, landed)
        return out

    def keys_shared() -> str:
        return properties(ws)["tsdedup.keys_shared"]

    deliver("1.lp", ["h1", "h2"], 1.0)
    assert keys_shared() == "true"

    # A re-delivery of h2's minutes: merged without asking the stored keys,
    # its merge replaced stored rows.
    out = deliver("2.lp", ["h2"], 2.0)
    assert "row by row, stored keys not asked" in out
    assert key_checks(ws) == 0
    assert not [line for line in plan_lines(ws) if line.startswith("/* tsdedup key check")]
    assert "/* tsdedup key check: no stored key */" in compiled_idx(ws)  # the tag's name
    assert keys_shared() == "true"

    # A new host in the same minutes, merged the same way: the merge replaced
    # no stored row (its commit says so), so the record says so too.
    out = deliver("3.lp", ["h3"], 3.0)
    assert "row by row, stored keys not asked" in out
    assert key_checks(ws) == 0
    assert keys_shared() == "false"

    # The next new host: the stored keys are asked (here from the tag maps,
    # the flat columns switched off), none is found, the chunk is appended.
    out = deliver("4.lp", ["h4"], 4.0, "--vars", "{tsdedup_read_flat_columns: false}")
    assert "idx: appending the chunks after chunk 3" in out
    assert "by their series hashes, in keys" in out
    assert key_checks(ws) == 1
    check = key_check(ws)
    assert "p.tags['host']" in check and "tag__" not in check
    assert "/* tsdedup key check: no stored key */" in plan_lines(ws)
    assert keys_shared() == "false"

    # A re-delivery again: asked, found, merged; the run after it does not ask.
    out = deliver("5.lp", ["h1"], 5.0)
    assert "idx: merging the chunks after chunk 4" in out and "not asked" not in out
    assert key_checks(ws) == 2
    assert "/* tsdedup key check: stored keys found */" in plan_lines(ws)
    assert keys_shared() == "true"
    out = deliver("6.lp", ["h3"], 6.0)
    assert "row by row, stored keys not asked" in out
    assert key_checks(ws) == 2
    assert keys_shared() == "true"


def test_a_hash_two_series_share_never_merges_them(workspace: Workspace) -> None:
    ws = workspace
    ws.add_measurement_model("idx", "idx")
    landed: list[tuple[str, bytes]] = []
    land_and_run(ws, landed, "1.lp", chunk(["h1", "h2"], 1.0))
    # Every stored row gets the hash of host h9's series, as if they collided,
    # and the state record vouches for that snapshot.
    ws.sql("update tsdedup.idx set series_hash = xxhash64('host', 'h9')")
    snapshot = properties(ws)["current-snapshot-id"]
    ws.sql(
        f"alter table tsdedup.idx set tblproperties ('tsdedup.written_snapshot_id' = '{snapshot}')"
    )
    # h9's points find "stored" keys at their times and are merged: the merge
    # compares the tags themselves and inserts them as a series of their own.
    out = land_and_run(ws, landed, "2.lp", chunk(["h9"], 2.0))
    assert "idx: merging the chunks after chunk 1" in out
    table_equals_reference(ws, landed)


def test_a_table_written_before_series_hashes_is_rebuilt_once(workspace: Workspace) -> None:
    ws = workspace
    ws.add_measurement_model("idx", "idx")
    landed: list[tuple[str, bytes]] = []
    land_and_run(ws, landed, "1.lp", chunk(["h1", "h2"], 1.0))
    # The table as the earlier layout left it: no series_hash column, its keys
    # in a key index vouched for by properties of their own.
    state = properties(ws)
    ws.sql(
        "alter table tsdedup.idx drop column series_hash",
        "alter table tsdedup.idx unset tblproperties"
        " ('tsdedup.series_hash_column', 'tsdedup.written_snapshot_id')",
        "alter table tsdedup.idx set tblproperties ('tsdedup.indexed_chunk_seq' = '1',"
        f" 'tsdedup.indexed_snapshot_id' = '{state['current-snapshot-id']}')",
        "create table tsdedup.key_index (table_name string, partition_day date, key_hash bigint)"
        " using iceberg partitioned by (table_name, partition_day)",
        "insert into tsdedup.key_index values ('tsdedup.idx', date'2026-11-01', 42)",
    )
    out = land_and_run(ws, landed, "2.lp", chunk(["h3"], 2.0) + chunk(["h1"], 2.0))
    assert (
        "tsdedup.idx was written before rows carried their series hash:"
        " rebuilding it from the raw log once" in out
    )
    table_equals_reference(ws, landed)
    assert len(hashes(ws, ("host",))) == 30
    state = properties(ws)
    assert state["tsdedup.series_hash_column"] == "series_hash"
    assert not {"tsdedup.indexed_chunk_seq", "tsdedup.indexed_snapshot_id"} & set(state)
    (tables,) = ws.sql("show tables in tsdedup like 'key_index'")
    assert tables == []
    # Once: the next run is incremental again.
    out = land_and_run(ws, landed, "3.lp", chunk(["h2"], 3.0))
    assert "rebuilding it" not in out
    assert "idx: merging the chunks after chunk 2" in out
    table_equals_reference(ws, landed)
