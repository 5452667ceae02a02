"""Incremental runs: each merges only the new chunks into the day partitions they
touch, and always equals the full semantics (and a full rebuild).

Chunks are random (a fixed seed, or TSDEDUP_TEST_SEED): overlapping series and
timestamps, partial-field re-deliveries, exact replays of earlier files under new
names, a new file delivered twice at once, a tag that appears late.
"""

from __future__ import annotations

import json
import os
import random
import re

import pytest

from tests.integration.conftest import Workspace, point_values
from tests.reference import expected_from_files

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

DAY0 = 1_793_491_200_000_000_000  # 2026-11-01T00:00:00Z
DAY = 86_400 * 10**9
MINUTE = 60 * 10**9
SEED = int(os.environ.get("TSDEDUP_TEST_SEED", "20261122"))
# The line of a model whose table has every column it writes (stored_columns_comment).
STORED_COLUMNS = "/* tsdedup columns: the table has every column written */"


def random_chunk(rng: random.Random, days: list[int], late_tag: bool, minute0: int = 0) -> str:
    lines = []
    for _ in range(rng.randint(5, 25)):
        tags = []
        host = rng.choice(["h1", "h2", "h3", None])
        if host:
            tags.append(f"host={host}")
        if late_tag and rng.random() < 0.5:
            tags.append(f"rack={rng.choice(['a', 'b'])}")
        fields = []
        if rng.random() < 0.8:
            fields.append(f"value={rng.randint(0, 99) / 4}")
        if rng.random() < 0.5:
            fields.append(f"count={rng.randint(0, 9)}i")
        if not fields:
            fields.append("ok=true")
        minute = minute0 + rng.randint(0, 4)
        time_ns = DAY0 + rng.choice(days) * DAY + minute * MINUTE + rng.choice([0, 0, 1])
        head = ",".join(["inc", *tags])
        lines.append(f"{head} {','.join(fields)} {time_ns}")
    return "\n".join(lines) + "\n"


COLUMNS = ["host", "rack", "value", "count", "ok", "time_ns"]


def table_state(ws: Workspace) -> tuple[list[dict[str, object]], ...]:
    # `select *`: a column the data has not brought yet (rack) is absent, read as None.
    return tuple(
        ws.sql(
            "select * from tsdedup.inc",
            "select * from tsdedup.inc_last",
            "select file_path, cast(partition.time_day as string) as day"
            " from tsdedup.inc.data_files",
        )
    )


def day_of(time_ns: object) -> str:
    import datetime

    seconds = int(str(time_ns)) // 10**9
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).date().isoformat()


def batch_days(batch: list[tuple[str, str]]) -> dict[str, tuple[int, int]]:
    """Per day: (chunks with points there, points there) of a batch of chunks."""
    chunks: dict[str, int] = {}
    points: dict[str, int] = {}
    for _name, text in batch:
        days = [day_of(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line]
        for day in set(days):
            chunks[day] = chunks.get(day, 0) + 1
        for day in days:
            points[day] = points.get(day, 0) + 1
    return {day: (chunks[day], points[day]) for day in chunks}


def count_by_day(rows: list[dict[str, object]], key: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for row in rows:
        day = day_of(row["time_ns"]) if key == "time_ns" else str(row[key])
        counts[day] = counts.get(day, 0) + 1
    return counts


def check_run_statistics(
    ws: Workspace,
    run: int,
    batch: list[tuple[str, str]],
    before: tuple[list[dict[str, object]], ...],
    after: tuple[list[dict[str, object]], ...],
    mode: str,
) -> None:
    """The run's rows in run_statistics agree with the chunks and the table."""
    (stats,) = ws.sql(
        "select * from tsdedup.run_statistics where model_name = 'inc'"
        " and run_started_at = (select max(run_started_at) from tsdedup.run_statistics)"
    )
    merged = batch_days(batch)
    assert {str(r["partition_day"]) for r in stats} == set(merged), f"run {run}"
    rows_before = count_by_day(before[0], "time_ns")
    rows_after = count_by_day(after[0], "time_ns")
    files_before = count_by_day(before[2], "day")
    files_after = count_by_day(after[2], "day")
    for row in stats:
        day = str(row["partition_day"])
        assert row["measurement"] == "inc"
        assert row["full_refresh"] == (run == 1)
        assert (row["chunks_merged"], row["points_merged"]) == merged[day], (run, day)
        assert row["rows_before"] == rows_before.get(day, 0), (run, day)
        assert row["rows_after"] == rows_after[day], (run, day)
        assert row["duplicates_removed"] == (
            rows_before.get(day, 0) + merged[day][1] - rows_after[day]
        )
        if mode in ("append", "merge"):  # new files beside the stored ones
            assert row["files_rewritten"] == 0, (run, day)
            assert row["files_written"] == files_after[day] - files_before.get(day, 0)
        else:  # the partition's files replaced
            assert row["files_rewritten"] == files_before.get(day, 0), (run, day)
            assert row["files_written"] == files_after[day], (run, day)
        assert float(str(row["seconds"])) > 0


def as_set(rows: list[dict[str, object]]) -> set[tuple[object, ...]]:
    return {tuple(row.get(c) for c in COLUMNS) for row in rows}


def expected_sets(landed: list[tuple[str, bytes]]) -> tuple[set[tuple[object, ...]], ...]:
    fields = expected_from_files(landed).rows("inc")
    last_row = expected_from_files(landed, mode="last_row").rows("inc")
    return as_set(fields), as_set(last_row)


def test_incremental_runs_equal_the_semantics_and_a_full_rebuild(workspace: Workspace) -> None:
    ws = workspace
    rng = random.Random(SEED)
    ws.add_measurement_model("inc", "inc")
    (ws.project / "models" / "measurements" / "inc_last.sql").write_text(
        "{{ tsdedup.measurement('inc', dedup_mode='last_row') }}\n", encoding="utf-8"
    )
    # Run 1 touches days 0-1, run 2 days 1-2 (and replays a chunk): merged with
    # stored rows. Run 3 brings day 3, run 4 later minutes of day 3: nothing stored
    # overlaps them in time, so they are appended.
    runs = [([0, 1], False, 3, 0), ([1, 2], True, 3, 0), ([3], True, 2, 0), ([3], True, 2, 30)]
    landed: list[tuple[str, bytes]] = []
    files_before_last_run: list[dict[str, object]] = []
    state: tuple[list[dict[str, object]], ...] = ([], [], [])
    for run, (days, late_tag, chunks, minute0) in enumerate(runs, start=1):
        texts = [
            (f"run{run}_{i:02d}.lp", random_chunk(rng, days, late_tag, minute0))
            for i in range(chunks)
        ]
        # A new file delivered twice at once (two names, one content), in the
        # first run and in an appended one.
        if run in (1, 4):
            name, text = rng.choice(texts)
            texts.append((name.replace(".lp", "_again.lp"), text))
        if run == 2:
            # Re-deliveries under new names: the first file, and one drawn at random.
            texts.append((f"run{run}_99_replay.lp", landed[0][1].decode()))
            texts.append((f"run{run}_98_replay.lp", rng.choice(landed)[1].decode()))
        batch = [(name, text.encode()) for name, text in texts]
        for name, content in batch:
            ws.land(name, content)
        landed.extend(sorted(batch))
        if run == len(runs):
            files_before_last_run = state[2]
        result = ws.build()
        mode = "overwrite" if run == 1 else "append"
        if run == 2:
            assert "inc: merging the chunks after chunk" in result.stdout
            mode = (
                "merge" if "row by row" in result.stdout.split("inc: merging")[1] else "overwrite"
            )
        if run > 2:
            assert "inc: appending the chunks after chunk" in result.stdout
        before, state = state, table_state(ws)
        check_run_statistics(ws, run, texts, before, state, mode)
        fields_rows, last_rows, files = state
        want_fields, want_last = expected_sets(landed)
        assert len(fields_rows) == len(want_fields), f"run {run}"
        assert as_set(fields_rows) == want_fields, f"run {run}"
        assert as_set(last_rows) == want_last, f"run {run}"

    # The last run appended to day 3: no file was rewritten, only files added there.
    for day in ("2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04"):
        before = {str(r["file_path"]) for r in files_before_last_run if r["day"] == day}
        after = {str(r["file_path"]) for r in files if r["day"] == day}
        assert before and before <= after, day
        assert (before == after) == (day != "2026-11-04"), day

    incremental = table_state(ws)
    ws.build("--full-refresh", "--select", "inc", "inc_last")
    rebuilt = table_state(ws)
    assert as_set(rebuilt[0]) == as_set(incremental[0])
    assert as_set(rebuilt[1]) == as_set(incremental[1])
    check_runs_without_new_chunks_write_nothing(ws, rebuilt)


# The tables each run brings up to date from the raw log, besides the measurements.
LOG_FED_TABLES = ("raw_chunks", "sort_key_catalog", "int_chunk_times", "int_column_types")


def table_commits(ws: Workspace) -> dict[str, tuple[int, int]]:
    """Per table written by a run: its snapshots and its metadata files."""
    tables = ("inc", "inc_last", *LOG_FED_TABLES)
    statements = [
        f"select count(*) as n from tsdedup.{table}.{history}"
        for table in tables
        for history in ("snapshots", "metadata_log_entries")
    ]
    counts = [int(str(rows[0]["n"])) for rows in ws.sql(*statements)]
    return {table: (counts[2 * i], counts[2 * i + 1]) for i, table in enumerate(tables)}


def check_runs_without_new_chunks_write_nothing(
    ws: Workspace, rebuilt: tuple[list[dict[str, object]], ...]
) -> None:
    """With no new file, no table is written: not the raw log and the chunk
    catalogs (no empty append), not a measurement table, nor its state record
    (its properties), not even on the first run after a rebuild."""
    before = table_commits(ws)
    result = ws.build()
    assert "inc: no new points after chunk" in result.stdout
    first = table_commits(ws)
    assert first == before
    results = json.loads((ws.project / "target" / "run_results.json").read_text("utf-8"))
    messages = {r["unique_id"]: r["message"] for r in results["results"]}
    for model in ("inc", "inc_last", *LOG_FED_TABLES):
        assert messages[f"model.tsdedup.{model}"] == "OK (nothing new)", model
    compiled = ws.project / "target" / "compiled" / "tsdedup" / "models" / "measurements"
    header, heads, reason = (compiled / "inc.sql").read_text("utf-8").lstrip().splitlines()[:3]
    # the rebuild recorded the table's snapshot: the record is not written again
    assert header == "/* tsdedup write mode: none; state record current */"
    assert re.fullmatch(r"/\* tsdedup log heads: chunk \d+, retraction 0 \*/", heads), heads
    # found from one query (log_heads), without reading the points or columns
    nothing_landed = r"-- no point, column or retraction after chunk \d+: nothing to write"
    assert re.fullmatch(nothing_landed, reason), reason
    ws.build()
    assert table_commits(ws) == first
    after = table_state(ws)
    assert as_set(after[0]) == as_set(rebuilt[0])
    assert as_set(after[1]) == as_set(rebuilt[1])


def test_the_column_catalog_is_written_only_when_a_column_comes(workspace: Workspace) -> None:
    """The column catalog (int_column_types) is a table: a run whose chunks bring
    no new column writes nothing to it. A run that selects a measurement model
    but not the catalog, after a chunk brought a column, stops with an error
    naming the fix instead of leaving out the points that write the column."""
    ws = workspace
    ws.add_measurement_model("m", "m")
    ws.land("a.lp", "m,host=a x=1 1\n")
    ws.build()
    ws.land("b.lp", "m,host=a x=2 2\n")
    log = ws.project / "logs" / "dbt.log"
    before = len(log.read_text(encoding="utf-8"))
    out = ws.build().stdout
    assert re.search(r"model tsdedup\.int_column_types \.+ \S*OK \(nothing new\)", out), out
    # The catalog was built in the same run: the measurement model does not ask
    # again whether the catalog lists its columns.
    statements = log.read_text(encoding="utf-8")[before:]
    # (one question: the catalog's own, not the model's for measurement 'm')
    assert statements.count("select count(*) as gaps") == 1
    ws.land("c.lp", "m,host=b x=3,y=5 3\n")
    failed = ws.tsdedup("run", "--select", "raw_chunks", "sort_key_catalog+")
    assert failed.code != 0
    message = " ".join((failed.stdout + failed.stderr).split())
    assert "column catalog tsdedup.int_column_types has not caught up with the raw log" in message
    assert "for measurement 'm' (chunks after 2 use columns it does not list" in message
    assert "build it first, e.g. `tsdedup run --select +m`" in message
    (rows,) = ws.sql("select host, x, time_ns from tsdedup.m order by time_ns")
    assert [r["time_ns"] for r in rows] == [1, 2], "the stopped run wrote nothing"
    ws.build()
    (rows, catalog) = ws.sql(
        "select host, x, y, time_ns from tsdedup.m order by time_ns",
        "select column_name, column_type, first_chunk_seq from tsdedup.int_column_types"
        " where measurement = 'm' order by column_name",
    )
    assert rows[-1] == {"host": "b", "x": 3.0, "y": 5.0, "time_ns": 3}
    assert catalog == [
        {"column_name": "host", "column_type": "tag", "first_chunk_seq": 1},
        {"column_name": "x", "column_type": "float", "first_chunk_seq": 1},
        {"column_name": "y", "column_type": "float", "first_chunk_seq": 3},
    ]


def test_a_rejected_point_that_brings_a_column_adds_it(workspace: Workspace) -> None:
    """A chunk whose only point of a measurement is rejected for a type conflict
    still establishes the new column it writes: the run is not cut short as
    "nothing new", the table gets the (empty) column, and later points fill it."""
    ws = workspace
    ws.add_measurement_model("m", "m")
    ws.land("a.lp", "m,host=a x=1 1\n")
    ws.build()
    log = ws.project / "logs" / "dbt.log"
    logged = len(log.read_text(encoding="utf-8"))
    ws.land("b.lp", 'm,host=a x="text",y=2 2\n')
    ws.build()
    compiled = ws.project / "target" / "compiled" / "tsdedup" / "models" / "measurements"
    assert not (compiled / "m.sql").read_text("utf-8").startswith("/* tsdedup write mode: none")
    # The table lacks y: the write reads a temporary view, after dbt's schema
    # change step added the column (decision 0037).
    assert STORED_COLUMNS not in (compiled / "m.sql").read_text("utf-8")
    run_log = log.read_text(encoding="utf-8")[logged:]
    assert "create or replace temporary view m__dbt_tmp" in run_log
    assert "Columns added: [<SparkColumn y (double)>]" in run_log
    (rows, rejects) = ws.sql(
        "select * from tsdedup.m order by time_ns",
        "select source_file, reject_reason from tsdedup.rpt_rejects",
    )
    assert [point_values(row) for row in rows] == [{"host": "a", "x": 1.0, "y": None, "time_ns": 1}]
    assert [r["source_file"] for r in rejects] == ["b.lp"]
    assert "field type conflict" in str(rejects[0]["reject_reason"])
    logged = len(log.read_text(encoding="utf-8"))
    ws.land("c.lp", "m,host=b y=5 3\n")
    ws.build()
    # Now the table has every column: the write reads the model's query itself.
    assert STORED_COLUMNS in (compiled / "m.sql").read_text("utf-8")
    run_log = log.read_text(encoding="utf-8")[logged:]
    assert "temporary view m__dbt_tmp" not in run_log
    inserted = r"insert into table tsdedup\.m\s+select .* from \(\s*/\* tsdedup write mode: append"
    assert re.search(inserted, run_log)
    (rows,) = ws.sql("select host, x, y, time_ns from tsdedup.m order by time_ns")
    assert rows == [
        {"host": "a", "x": 1.0, "y": None, "time_ns": 1},
        {"host": "b", "x": None, "y": 5.0, "time_ns": 3},
    ]


def test_a_raw_log_from_before_flat_columns_is_read_from_its_maps(workspace: Workspace) -> None:
    """A raw log written before the flat point columns (decision 0025) gets
    `flat_column` at its next run; measurement models read the maps while any
    chunk they read lacks flat columns, and the flat columns once every chunk
    read has them, with the same rows as the semantics either way."""
    ws = workspace
    rng = random.Random(SEED + 25)
    ws.add_measurement_model("inc", "inc")
    landed: list[tuple[str, bytes]] = []

    def land(run: int) -> None:
        for i in range(2):
            name, content = f"run{run}_{i}.lp", random_chunk(rng, [0, 1], True).encode()
            ws.land(name, content)
            landed.append((name, content))

    def check_rows() -> str:
        (rows,) = ws.sql("select * from tsdedup.inc")
        assert as_set(rows) == expected_sets(landed)[0]
        compiled = ws.project / "target" / "compiled" / "tsdedup" / "models" / "measurements"
        return (compiled / "inc.sql").read_text("utf-8")

    # A log as an earlier version wrote it: Spark's write, no `flat_column`.
    land(1)
    ws.tsdedup("run", "--select", "raw_chunks", "--vars", "{tsdedup_raw_write: spark}").check()
    ws.sql(
        "alter table tsdedup.raw_chunks drop column flat_column",
        "alter table tsdedup.raw_chunks unset tblproperties ('tsdedup.flat_columns')",
    )
    land(2)
    ws.build()
    (described, properties) = ws.sql(
        "describe table tsdedup.raw_chunks", "show tblproperties tsdedup.raw_chunks"
    )
    assert "flat_column" in {row["col_name"] for row in described}
    assert {"key": "tsdedup.flat_columns", "value": "true"} in properties
    (columns,) = ws.sql(
        "select source_file, flat_column from tsdedup.raw_chunks where row_kind = 'column'"
    )
    by_file: dict[str, set[object]] = {}
    for row in columns:
        by_file.setdefault(str(row["source_file"]), set()).add(row["flat_column"])
    assert by_file["run1_0.lp"] == {None}
    assert "tag__host" in by_file["run2_0.lp"] and None not in by_file["run2_0.lp"]
    # the first chunks have maps only: the build reads the maps
    assert "tags['host'] as `host`" in check_rows()

    # Every chunk after the table's watermark has flat columns.
    land(3)
    ws.build()
    built = check_rows()
    assert "p.`tag__host` as `host`" in built and "tags[" not in built
    # A rebuild reads every chunk, the first ones too: the maps again.
    ws.build("--full-refresh", "--select", "inc")
    assert "tags['host'] as `host`" in check_rows()


def test_a_merge_records_the_log_heads_it_planned_with(workspace: Workspace) -> None:
    """An incremental run asks once where the logs stand, while it plans: the
    compiled model keeps the answer on its second line, the state record takes
    the watermark from it without asking again, and with no retraction since
    the table's last the plan does not look for retracted days."""
    ws = workspace
    ws.add_measurement_model("m", "m")
    # fewer new points than stored rows in the day: a row-level merge
    ws.land("a.lp", "m,host=a x=1 1\nm,host=b x=1 2\nm,host=d x=1 4\nm,host=e x=1 5\n")
    ws.build()
    log = ws.project / "logs" / "dbt.log"
    before = len(log.read_text(encoding="utf-8"))
    ws.land("b.lp", "m,host=a x=2 1\nm,host=c x=3 3\n")
    ws.build()
    statements = log.read_text(encoding="utf-8")[before:]
    compiled = ws.project / "target" / "compiled" / "tsdedup" / "models" / "measurements"
    header, heads = (compiled / "m.sql").read_text("utf-8").lstrip().splitlines()[:2]
    assert header.startswith("/* tsdedup write mode: merge, winner rule: fields"), header
    assert heads == "/* tsdedup log heads: chunk 2, retraction 0 */"
    assert statements.count(") as retraction_seq") == 1, "log_heads asked once, by the plan"
    assert "r.retraction_seq >" not in statements, "no retraction came: no retracted days asked"
    rows, properties = ws.sql(
        "select host, x, time_ns from tsdedup.m order by time_ns",
        "show tblproperties tsdedup.m",
    )
    assert rows == [
        {"host": "a", "x": 2.0, "time_ns": 1},
        {"host": "b", "x": 1.0, "time_ns": 2},
        {"host": "c", "x": 3.0, "time_ns": 3},
        {"host": "d", "x": 1.0, "time_ns": 4},
        {"host": "e", "x": 1.0, "time_ns": 5},
    ]
    record = {p["key"]: p["value"] for p in properties}
    assert (record["tsdedup.last_chunk_seq"], record["tsdedup.previous_chunk_seq"]) == ("2", "1")
    assert record["tsdedup.retraction_seq"] == "0"


def test_the_plan_reads_the_chunk_catalog_while_the_table_holds_only_its_chunks(
    workspace: Workspace,
) -> None:
    """Each write reads only the chunks the chunk catalog lists, so a table
    whose every write since its rebuild did so, and that nobody else wrote,
    holds no chunk after its watermark: its state record says so, and the
    plan takes the stored side of the days from the catalog's rows, without
    Iceberg's `files`. A rebuild while the catalog lags the raw log leaves
    the uncatalogued chunk to the next run, which merges it once. A table
    whose record does not say so is planned from its data files."""
    ws = workspace
    ws.add_measurement_model("m", "m")
    day = 86_400_000_000_000
    ws.land("a.lp", "m,host=a x=1 1\nm,host=b x=1 2\nm,host=d x=1 4\nm,host=e x=1 5\n")
    ws.build()
    log = ws.project / "logs" / "dbt.log"
    compiled = ws.project / "target" / "compiled" / "tsdedup" / "models" / "measurements" / "m.sql"

    def record() -> dict[str, object]:
        (properties,) = ws.sql("show tblproperties tsdedup.m")
        return {p["key"]: p["value"] for p in properties}

    def build_statements(*args: str) -> str:
        before = len(log.read_text(encoding="utf-8"))
        ws.build(*args)
        return log.read_text(encoding="utf-8")[before:]

    assert record()["tsdedup.chunks_bounded"] == "true"
    build_statements()
    assert "nothing to write" in compiled.read_text("utf-8")
    ws.land("b.lp", "m,host=a x=2 1\nm,host=c x=3 3\n")
    statements = build_statements()
    header = compiled.read_text("utf-8").lstrip().splitlines()[0]
    assert header.startswith("/* tsdedup write mode: merge"), header
    assert "tsdedup.m.files" not in statements, "the stored side came from the catalog"
    assert "and p.chunk_seq <= 2" in compiled.read_text("utf-8")
    assert record()["tsdedup.chunks_bounded"] == "true"

    # The raw log takes a chunk the catalog does not list yet: the rebuild
    # stops at the catalog's last.
    ws.land("c.lp", f"m,host=f x=6 {2 * day + 1}\nm,host=a x=7 1\n")
    ws.tsdedup("run", "--select", "raw_chunks").check()
    ws.build("--full-refresh", "--select", "m")
    assert "and p.chunk_seq <= 2" in compiled.read_text("utf-8")
    (rows,) = ws.sql("select host, x, time_ns from tsdedup.m order by time_ns")
    assert [r["time_ns"] for r in rows] == [1, 2, 3, 4, 5]
    assert (record()["tsdedup.last_chunk_seq"], record()["tsdedup.chunks_bounded"]) == ("2", "true")
    # The next run catalogues chunk 3 and writes its points once: a new day
    # appended, the stored key merged.
    ws.build()
    (rows,) = ws.sql("select host, x, time_ns from tsdedup.m order by time_ns, host")
    assert [(r["host"], r["x"], r["time_ns"]) for r in rows] == [
        ("a", 7.0, 1),
        ("b", 1.0, 2),
        ("c", 3.0, 3),
        ("d", 1.0, 4),
        ("e", 1.0, 5),
        ("f", 6.0, 2 * day + 1),
    ]

    # A record that does not vouch for the chunks (a table recorded before
    # it could): the plan reads the stored data files' bounds, and the record
    # does not vouch after the write either.
    ws.sql("alter table tsdedup.m set tblproperties ('tsdedup.chunks_bounded' = 'false')")
    ws.land("d.lp", "m,host=b x=8 2\n")
    statements = build_statements()
    assert "tsdedup.m.files" in statements
    assert record()["tsdedup.chunks_bounded"] == "false"
    (rows,) = ws.sql("select host, x from tsdedup.m where time_ns = 2")
    assert rows == [{"host": "b", "x": 8.0}]
