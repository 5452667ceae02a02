"""Row-level merge: re-delivered points merged into a day without rewriting it.

A day holds many stored rows; a run brings a few re-deliveries of them and some
new points. The plan picks a merge: matched rows are marked deleted and written
again with the merged values, the rest inserted; no stored data file is
rewritten. A backfill as large as the day overwrites it instead; compaction
folds the deletes in; every state equals the reference semantics.
"""

from __future__ import annotations

import re

import pytest
import yaml

from tests.integration.conftest import Workspace, assert_file_sorted, point_values
from tests.integration.test_live_and_maintenance import canonical
from tests.reference import expected_from_files

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

DAY0 = 1_793_491_200_000_000_000  # 2026-11-01T00:00:00Z
MINUTE = 60 * 10**9
# A tag name that needs quoting (backtick, space) and could end or open a SQL
# comment, such as the write-mode header that names the tags.
ODD = "we`ird */ tag /*"
HOSTS = ["h1", "h2", "h3"]


def line(
    host: str | None, odd: str | None, fields: str, minute: int, zone: str | None = None
) -> str:
    tags = (f",host={host}" if host else "") + (f",we`ird\\ */\\ tag\\ /*={odd}" if odd else "")
    tags += f",zone={zone}" if zone else ""
    return f"mg{tags} {fields} {DAY0 + minute * MINUTE}"


def stored_day() -> str:
    # 3 hosts (and one point with no host) x 20 minutes; the odd tag on h1 only.
    lines = []
    for minute in range(20):
        for host in HOSTS:
            odd = "o1" if host == "h1" else None
            lines.append(line(host, odd, f"value={minute}.5,count={minute}i", minute))
        lines.append(line(None, None, f"value={minute}.25", minute))
    return "\n".join(lines) + "\n"


def redeliveries(minutes: range, value: float) -> str:
    lines = []
    for minute in minutes:
        # partial: only `count`, a new value; the value field keeps the stored one
        lines.append(line("h2", None, f"count={100 + minute}i", minute))
        # a full re-delivery that overrides both fields
        lines.append(line("h1", "o1", f"value={value},count=7i", minute))
        # the point without a host: NULL matches NULL
        lines.append(line(None, None, f"value={value + 1}", minute))
    # new points later the same day
    for minute in range(30, 34):
        lines.append(line("h3", None, f"value={value},count=1i", minute))
    return "\n".join(lines) + "\n"


def data_files(ws: Workspace, model: str) -> list[dict[str, object]]:
    (files,) = ws.sql(
        f"select file_path, content, record_count from tsdedup.{model}.files order by file_path"
    )
    return files


def last_summary(ws: Workspace, model: str) -> dict[str, str]:
    (rows,) = ws.sql(
        f"select summary from tsdedup.{model}.snapshots order by committed_at desc limit 1"
    )
    return dict(rows[0]["summary"])  # type: ignore[call-overload]


def without_time(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    return [point_values(row) for row in rows]


def check_state(ws: Workspace, landed: list[tuple[str, bytes]]) -> list[dict[str, object]]:
    fields_rows, last_rows = (
        without_time(rows)
        for rows in ws.sql("select * from tsdedup.mg", "select * from tsdedup.mg_last")
    )
    assert canonical(fields_rows) == canonical(expected_from_files(landed).rows("mg"))
    assert canonical(last_rows) == canonical(
        expected_from_files(landed, mode="last_row").rows("mg")
    )
    return fields_rows


def parquet_name(name: str) -> str:
    """The column name Iceberg writes into Parquet: other characters than letters,
    digits and `_` as `_x<hex code>`."""
    return "".join(
        c if c.isascii() and (c.isalnum() or c == "_") else f"_x{ord(c):X}" for c in name
    )


def check_files_sorted(ws: Workspace, key: list[str]) -> None:
    """Every data file (not delete file) is sorted by the day's sort key, `key`."""
    (keys,) = ws.sql("select partition_key from tsdedup.sort_keys where measurement = 'mg'")
    assert keys[0]["partition_key"] == [*key, "time"]
    tags = [parquet_name(c) for c in key]
    for data_file in data_files(ws, "mg"):
        if data_file["content"] != 0:
            continue
        assert_file_sorted(str(data_file["file_path"]), tags)


def compiled_mg(ws: Workspace) -> str:
    """Model mg's compiled SQL from the last run, its write-mode header first."""
    path = ws.project / "target/compiled/tsdedup/models/measurements/mg.sql"
    return path.read_text(encoding="utf-8")


def write_order(ws: Workspace) -> str | None:
    """The order Iceberg sorts written rows in (`write locally ordered by`), if any."""
    (props,) = ws.sql("show tblproperties tsdedup.mg")
    return next((str(p["value"]) for p in props if p["key"] == "sort-order"), None)


KEY = [ODD, "host"]


def shuffle_partitions_around(log: str, statement: str) -> tuple[str, str]:
    """The shuffle partitions set last before ``statement`` in a dbt log, and
    first after it."""
    before, _, after = log.partition(statement)
    assert after, f"{statement!r} is not in the log"
    found = r"\bset spark\.sql\.shuffle\.partitions = ([0-9]+)"
    return re.findall(found, before)[-1], re.findall(found, after)[0]


def set_merge_partitions(ws: Workspace, value: str) -> None:
    """The local target's spark.tsdedup.mergeShufflePartitions."""
    profiles = ws.project / "profiles" / "profiles.yml"
    document = yaml.safe_load(profiles.read_text(encoding="utf-8"))
    settings = document["tsdedup"]["outputs"]["local"]["server_side_parameters"]
    settings["spark.tsdedup.mergeShufflePartitions"] = value
    profiles.write_text(yaml.safe_dump(document), encoding="utf-8")


def test_merge_marks_rows_deleted_instead_of_rewriting_the_day(workspace: Workspace) -> None:
    ws = workspace
    ws.add_measurement_model("mg", "mg")
    (ws.project / "models" / "measurements" / "mg_last.sql").write_text(
        "{{ tsdedup.measurement('mg', dedup_mode='last_row') }}\n", encoding="utf-8"
    )
    landed = [("0001.lp", stored_day().encode())]
    ws.land(*landed[0])
    ws.build()
    first = check_state(ws, landed)
    assert len(first) == 80
    files_1 = data_files(ws, "mg")
    # One measurement, two tables (one per winner rule): both listed.
    assert ws.sql("select * from tsdedup.rpt_measurements")[0] == [
        {
            "measurement": "mg",
            "points_landed": 80,
            "is_discovered": False,
            "model_names": ["mg", "mg_last"],
        }
    ]

    # mg_last as a table created before the merge's distribution mode was one
    # of the tables' properties (dbt_project.yml): its next merge sets it first.
    ws.sql("alter table tsdedup.mg_last unset tblproperties ('write.merge.distribution-mode')")
    # mg as a table whose last write replaced no stored row: run 2 asks the
    # stored series hashes which new points may be stored (decision 0038).
    ws.sql("alter table tsdedup.mg set tblproperties ('tsdedup.keys_shared' = 'false')")

    # Run 2: 15 re-deliveries and 4 new points against 80 stored rows: a merge.
    landed.append(("0002.lp", redeliveries(range(5), 50.0).encode()))
    ws.land(*landed[-1])
    result = ws.build()
    assert "mg: merging the chunks after chunk 1 into 1 day partition(s)" in result.stdout
    assert "row by row" in result.stdout
    compiled = compiled_mg(ws)
    # The stored series hashes match minutes 0-4 only: the merge reads only the
    # stored rows of those times (both ends matched rows), and inserts the
    # new points of minutes 30-33 without looking for them.
    assert compiled.startswith(
        "/* tsdedup write mode: merge, winner rule: fields, days: 2026-11-01, "
        f"key times: {DAY0} to {DAY0 + 4 * MINUTE}, "
        'tags: {"names": ["host", "we`ird \\u002a/ tag /\\u002a"], '
        '"sort key": ["we`ird \\u002a/ tag /\\u002a", "host"]} */'
    )
    executed = (ws.project / "target/run/tsdedup/models/measurements/mg.sql").read_text(
        encoding="utf-8"
    )
    assert "merge into" in executed
    assert f"and t.time_ns between {DAY0} and {DAY0 + 4 * MINUTE}\n" in executed
    # The join's keys in the table's write order (odd tag, host, time), so the
    # join's sorted rows reach the write's own sort already in order.
    key_order = [
        executed.index(condition)
        for condition in (
            "and t.`we``ird */ tag /*` <=> s.`we``ird */ tag /*`\n",
            "and t.`host` <=> s.`host`\n",
            "and t.time_ns = s.time_ns\n",
        )
    ]
    assert key_order == sorted(key_order)
    # Both tables' merges were written by the joining tasks, without an
    # exchange that hands a day's rows to one task.
    run_sql = ws.project / "target/run/tsdedup/models/measurements"
    assert "merge into tsdedup.mg_last" in (run_sql / "mg_last.sql").read_text(encoding="utf-8")
    for table in ("mg", "mg_last"):
        (properties,) = ws.sql(f"show tblproperties tsdedup.{table}")
        assert {"key": "write.merge.distribution-mode", "value": "none"} in properties, table
    assert "t.`we``ird */ tag /*` <=> s.`we``ird */ tag /*`" in executed
    assert "t.`value` = coalesce(s.`value`, t.`value`)" in executed
    second = check_state(ws, landed)
    assert len(second) == 84
    h2 = {r["time_ns"]: (r["value"], r["count"]) for r in second if r["host"] == "h2"}
    assert h2[DAY0] == (0.5, 100), "a partial re-delivery keeps the stored value"
    no_host = [r for r in second if r["host"] is None and r["time_ns"] == DAY0]
    assert [r["value"] for r in no_host] == [51.0], "NULL tag matched NULL"

    summary = last_summary(ws, "mg")
    assert summary.get("deleted-data-files", "0") == "0", "no stored data file rewritten"
    assert summary["added-position-deletes"] == "15"
    files_2 = data_files(ws, "mg")
    kept = {f["file_path"] for f in files_1}
    assert kept < {f["file_path"] for f in files_2}
    assert any(f["content"] == 1 for f in files_2), "a position delete file"
    check_files_sorted(ws, KEY)
    # The merge wrote its rows in the day's key: the table's write order.
    assert write_order(ws) == (
        f"{ODD} ASC NULLS FIRST, host ASC NULLS FIRST, time_ns ASC NULLS FIRST"
    )

    (stats,) = ws.sql(
        "select * from tsdedup.run_statistics where model_name = 'mg'"
        " and run_started_at = (select max(run_started_at) from tsdedup.run_statistics)"
    )
    assert [
        (r["rows_before"], r["points_merged"], r["rows_after"], r["duplicates_removed"])
        for r in stats
    ] == [(80, 19, 84, 15)]
    assert stats[0]["files_rewritten"] == 0

    # Run 3: the same keys again, over the rows the first merge wrote. The
    # table's write order is already the day's key: it is not set again.
    landed.append(("0003.lp", redeliveries(range(3, 8), 60.0).encode()))
    ws.land(*landed[-1])
    log = ws.project / "logs" / "dbt.log"
    logged = len(log.read_text(encoding="utf-8"))
    assert "row by row" in ws.build().stdout
    run_3_log = log.read_text(encoding="utf-8")[logged:]
    assert "merge into tsdedup.mg as t" in run_3_log

    def asked(statement: str) -> int:
        """How many times model mg sent a statement starting so in run 3."""
        return len(re.findall(r"On model\.tsdedup\.mg: /\* \{[^\n]*\*/\s*" + statement, run_3_log))

    # Each thing is asked once: the state record by the model, before the
    # write and after it; the columns, the new chunks' column rows and the
    # days the new chunks touch by the model, in one query (new_chunk_days),
    # from which it takes the days' shared sort key and their stored side
    # (decision 0036): neither the column catalog on its own, nor sort_keys,
    # nor Iceberg's files is asked. The write-mode header hands the columns
    # and the key to the merge.
    assert asked(r"show tblproperties tsdedup\.mg\b") == 3
    assert asked(r"select\s+\(\s+-- the column catalog's rows") == 1
    assert asked("select column_name, column_type") == 0
    assert asked(r"select\s+c\.column_type") == 0, "no point layout query of its own"
    assert asked(r"select\s+count\(distinct partition_key\)") == 0
    assert "from tsdedup.mg.files" not in run_3_log
    assert "alter table tsdedup.mg write" not in run_3_log
    # The table has every column the model writes: the merge reads the model's
    # query itself, with no temporary view, and the table's columns and the
    # settings come from the session, not from statements (decision 0037).
    inline = r"merge into tsdedup\.mg as t\s+using \(\s*/\* tsdedup write mode: merge"
    assert re.search(inline, run_3_log)
    assert asked("create or replace temporary view") == 0
    assert asked("describe") == 0 and asked("set ") == 0
    # The merge ran with one shuffle partition per core of the local session
    # (local[2]), and the session's own setting (4) came back right after it.
    assert shuffle_partitions_around(run_3_log, "merge into tsdedup.mg as t") == ("2", "4")
    assert write_order(ws) == (
        f"{ODD} ASC NULLS FIRST, host ASC NULLS FIRST, time_ns ASC NULLS FIRST"
    )
    third = check_state(ws, landed)
    assert len(third) == 84 + 0  # every key of run 3 is stored already
    assert last_summary(ws, "mg").get("deleted-data-files", "0") == "0"

    # Compaction drops the deleted rows and their delete files; rows stay.
    result = ws.tsdedup("run-operation", "compact_measurements", "--args", "{models: [mg]}")
    assert "files rewritten into 1" in result.check().stdout
    assert "mg: 2 delete files rewritten into 0" in result.stdout
    files_4 = data_files(ws, "mg")
    assert [f["content"] for f in files_4] == [0]
    assert canonical(without_time(ws.sql("select * from tsdedup.mg")[0])) == canonical(third)
    check_files_sorted(ws, KEY)

    # A backfill with more points than the day holds overwrites the day instead.
    # It brings a new tag, so the day's key grows to [odd, host, zone]; zone
    # values run against time (b, then a), so rows still written in the merge's
    # order (odd, host, time) would not be sorted in the new key.
    backfill = stored_day().replace(".5,", ".75,") + redeliveries(range(20), 70.0)
    backfill += line("h3", None, "value=1", 40, zone="b") + "\n"
    backfill += line("h3", None, "value=2", 41, zone="a") + "\n"
    landed.append(("0004.lp", backfill.encode()))
    ws.land(*landed[-1])
    result = ws.build()
    assert "overwriting the touched partitions" in result.stdout
    compiled = compiled_mg(ws)
    assert compiled.startswith("/* tsdedup write mode: overwrite */")
    check_state(ws, landed)
    assert all(f["content"] == 0 for f in data_files(ws, "mg"))
    assert write_order(ws) is None, "an overwrite writes rows in the order its query sorts them"
    check_files_sorted(ws, [*KEY, "zone"])

    incremental = ws.sql("select * from tsdedup.mg", "select * from tsdedup.mg_last")
    ws.build("--full-refresh", "--select", "mg", "mg_last")
    rebuilt = ws.sql("select * from tsdedup.mg", "select * from tsdedup.mg_last")
    assert canonical(rebuilt[0]) == canonical(incremental[0])
    assert canonical(rebuilt[1]) == canonical(incremental[1])

    # A target may set the merge's shuffle partitions itself.
    set_merge_partitions(ws, "3")
    landed.append(("0005.lp", redeliveries(range(2), 80.0).encode()))
    ws.land(*landed[-1])
    log = ws.project / "logs" / "dbt.log"
    logged = len(log.read_text(encoding="utf-8"))
    assert "row by row" in ws.build().stdout
    run_5_log = log.read_text(encoding="utf-8")[logged:]
    assert shuffle_partitions_around(run_5_log, "merge into tsdedup.mg as t") == ("3", "4")
    merged = check_state(ws, landed)

    # A value that is no number of partitions stops the merge with the
    # setting's name; the raw log keeps the new file, the table stays as it was.
    set_merge_partitions(ws, "all")
    landed.append(("0006.lp", redeliveries(range(2), 90.0).encode()))
    ws.land(*landed[-1])
    failed = ws.tsdedup("build")
    assert failed.code != 0
    assert (
        "the Spark setting spark.tsdedup.mergeShufflePartitions is 'all'; "
        "set it to a number of shuffle partitions (1 or more)"
    ) in failed.stdout
    (chunks,) = ws.sql("select source_file from tsdedup.stg_chunks order by chunk_seq")
    assert [c["source_file"] for c in chunks] == [name for name, _ in landed]
    assert canonical(without_time(ws.sql("select * from tsdedup.mg")[0])) == canonical(merged)


def test_a_day_is_merged_when_its_new_points_are_fewer_than_all_its_rows(
    workspace: Workspace,
) -> None:
    """A real-time feed: each run re-delivers some of the points the run before
    appended. Only that run's small file overlaps the new points in time, yet an
    overwrite would write the whole day again: the plan weighs the new points
    against every row stored in the day, and merges."""
    ws = workspace
    ws.add_measurement_model("mg", "mg")
    (ws.project / "models" / "measurements" / "mg_last.sql").write_text(
        "{{ tsdedup.measurement('mg', dedup_mode='last_row') }}\n", encoding="utf-8"
    )

    def later(minutes: range, value: float) -> str:
        return "".join(
            line(host, None, f"value={value},count={minute}i", minute) + "\n"
            for minute in minutes
            for host in HOSTS
        )

    landed = [("0001.lp", stored_day().encode())]  # 80 rows, minutes 0-19
    ws.land(*landed[-1])
    ws.build()
    # Minutes 40-44: no stored file covers them, so they are appended.
    landed.append(("0002.lp", later(range(40, 45), 1.0).encode()))
    ws.land(*landed[-1])
    assert "mg: appending the chunks after chunk 1" in ws.build().stdout
    appended = [f for f in data_files(ws, "mg") if f["content"] == 0]
    assert sorted(int(str(f["record_count"])) for f in appended) == [15, 80]

    # 20 points: h2's minutes 40-44 again (new values), and minutes 45-49. The
    # 15 rows of the appended file are all that overlap them in time; the day
    # holds 95.
    redelivered = "".join(line("h2", None, f"count={900 + m}i", m) + "\n" for m in range(40, 45))
    landed.append(("0003.lp", (redelivered + later(range(45, 50), 2.0)).encode()))
    ws.land(*landed[-1])
    result = ws.build()
    assert "mg: merging the chunks after chunk 2 into 1 day partition(s)" in result.stdout
    assert "row by row" in result.stdout
    compiled = compiled_mg(ws)
    assert compiled.startswith(
        "/* tsdedup write mode: merge, winner rule: fields, days: 2026-11-01"
    )
    summary = last_summary(ws, "mg")
    assert summary.get("deleted-data-files", "0") == "0", "no stored data file rewritten"
    assert summary["added-position-deletes"] == "5"
    rows = check_state(ws, landed)
    assert len(rows) == 80 + 15 + 15
    h2 = {r["time_ns"]: (r["value"], r["count"]) for r in rows if r["host"] == "h2"}
    assert h2[DAY0 + 42 * MINUTE] == (1.0, 942), "a partial re-delivery keeps the stored value"
