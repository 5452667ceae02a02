"""Feedback on long work: the summary after a run, the progress lines while a
model runs, and the settings that control them (pure Python, no Spark)."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from tsdedup import cli
from tsdedup.progress import (
    Heartbeat,
    ProgressSettingError,
    StageProgress,
    format_duration,
    format_progress,
    interval_from_environment,
)
from tsdedup.run_summary import (
    Ingested,
    LandedMeasurement,
    SuspectChunk,
    TableChange,
    format_bytes,
    format_counts,
    format_summary,
    merge_run_results,
    read_run_results,
    read_tables,
    status_counts,
)
from tsdedup.spark_session import LogLevelError, Paths, base_conf, spark_log_level
from tsdedup.text_table import text_table

RUN_RESULTS = {
    "metadata": {"invocation_id": "abc"},
    "elapsed_time": 42.26,
    "results": [
        {"unique_id": "model.tsdedup.raw_chunks", "status": "success"},
        {"unique_id": "model.tsdedup.h2o", "status": "success"},
        {"unique_id": "model.tsdedup.cpu", "status": "error"},
        {"unique_id": "test.tsdedup.no_duplicate_points_h2o_.8f8", "status": "pass"},
        {"unique_id": "test.tsdedup.rows_match_raw_keys_h2o_.469", "status": "fail"},
        {"unique_id": "test.tsdedup.not_null_x.1", "status": "pass"},
        {"unique_id": "unit_test.tsdedup.h2o.keeps_last", "status": "pass"},
    ],
}


def test_text_table_pads_columns_and_leaves_none_blank() -> None:
    table = text_table([["h2o", 12, None], ["weather", 3, 1.5]], ["table", "rows", "x"])
    assert table.splitlines() == [
        "table    rows  x",
        "-------  ----  ---",
        "h2o      12",
        "weather  3     1.5",
    ]


def test_statuses_are_counted_per_kind_of_node() -> None:
    counts = status_counts(RUN_RESULTS)
    assert counts["models"] == {"success": 2, "error": 1}
    assert counts["tests"] == {"pass": 2, "fail": 1}
    assert counts["unit tests"] == {"pass": 1}
    assert format_counts(counts) == (
        "models: 1 error, 2 success; tests: 1 fail, 2 pass; unit tests: 1 pass"
    )
    assert format_counts({}) == "no models or tests ran"


def test_sizes_read_as_people_write_them() -> None:
    assert format_bytes(512) == "512 B"
    assert format_bytes(1536) == "1.5 KB"
    assert format_bytes(5 * 1024**3) == "5.0 GB"
    assert format_bytes(3 * 1024**4) == "3072.0 GB"


def test_summary_shows_ingest_tables_and_statuses() -> None:
    changes = [
        TableChange("cpu", 1, 7, 0, 7, 0.84),
        TableChange("h2o", 2, 14, 3, 11, 2.0),
    ]
    text = format_summary(RUN_RESULTS, Ingested(files=2, lines=30, bytes=2048), changes)
    lines = text.splitlines()
    assert lines[0] == "tsdedup: summary of this run (42.3 s)"
    assert lines[1] == "  ingested 2 file(s): 30 lines, 2.0 KB"
    header = lines[2].split("  ")
    assert [h.strip() for h in header if h.strip()] == [
        "table",
        "days changed",
        "points merged",
        "duplicates removed",
        "rows in those days",
        "seconds",
    ]
    assert lines[4].split() == ["cpu", "1", "7", "0", "7", "0.8"]
    assert lines[5].split() == ["h2o", "2", "14", "3", "11", "2.0"]
    assert lines[6] == "  models: 1 error, 2 success; tests: 1 fail, 2 pass; unit tests: 1 pass"


def test_summary_warns_of_chunks_with_suspect_timestamps_after_the_ingest_line() -> None:
    suspects = [SuspectChunk(7, "feed.lp", 2, "points from 1970-01-01 ...: the timestamps look")]
    lines = format_summary(RUN_RESULTS, Ingested(1, 2, 10), [], suspects).splitlines()
    assert lines[1] == "  ingested 1 file(s): 2 lines, 10 B"
    assert lines[2] == (
        "  warning: chunk 7 (feed.lp, 2 points): points from 1970-01-01 ...: the timestamps look"
    )


def test_summary_counts_measurements_and_warns_of_those_whose_points_reach_no_table() -> None:
    measurements = [
        LandedMeasurement("cpu", 10, False, ("cpu",)),
        LandedMeasurement("disk", 5, True, ("disk",)),
        LandedMeasurement("disk-io", 1200, False, (), "its name cannot be a table name"),
        LandedMeasurement("we'ird", 1, False, ()),
    ]
    lines = format_summary(RUN_RESULTS, Ingested(1, 2, 10), [], (), measurements).splitlines()
    assert lines[2] == (
        "  4 measurement(s) in the raw log, 2 with a table (1 discovered, 1 from model files)"
    )
    assert lines[3] == (
        "  warning: measurement 'disk-io' has 1,200 point(s) in the raw log and no table: its "
        "name cannot be a table name; give it one with a model file, models/measurements/"
        '<table name>.sql: {{ tsdedup.measurement("disk-io") }}'
    )
    assert "no table: no model builds it;" in lines[4]
    assert lines[4].endswith("""{{ tsdedup.measurement("we'ird") }}""")


def test_summary_lists_the_points_of_the_ingest_per_measurement() -> None:
    points = tuple((f"m{i:02}", 1000 + i) for i in range(32))
    lines = format_summary(RUN_RESULTS, Ingested(2, 10, 10, points), []).splitlines()
    assert lines[2].startswith("  points per measurement: m00 1,000, m01 1,001, ")
    assert lines[2].endswith(", m29 1,029, 2 more")
    assert "points per measurement" not in format_summary(RUN_RESULTS, Ingested(0, 0, 0), [])


def test_run_results_of_two_invocations_read_as_one() -> None:
    first = {"elapsed_time": 2.0, "metadata": {"invocation_id": "a"}, "results": [{"x": 1}]}
    second = {"elapsed_time": 0.5, "metadata": {"invocation_id": "b"}, "results": [{"y": 2}]}
    merged = merge_run_results([first, second])
    assert merged == {
        "elapsed_time": 2.5,
        "results": [{"x": 1}, {"y": 2}],
        "invocation_ids": ["a", "b"],
    }


def test_summary_of_a_run_that_changed_nothing() -> None:
    text = format_summary(RUN_RESULTS, Ingested(0, 0, 0), [])
    assert "  ingested no new file" in text.splitlines()
    assert "  no measurement table changed" in text.splitlines()
    # A test-only command: no ingest line, no table line.
    tests_only = {"elapsed_time": 1, "results": [{"unique_id": "test.x.y", "status": "pass"}]}
    assert format_summary(tests_only, None, []).splitlines() == [
        "tsdedup: summary of this run (1.0 s)",
        "  tests: 1 pass",
    ]


class _RecordingSpark:
    """Answers the summary's query of the raw log's chunk and point rows (one
    group per row kind and measurement); records every statement."""

    def __init__(self) -> None:
        self.statements: list[str] = []

    def sql(self, statement: str) -> SimpleNamespace:
        self.statements.append(statement)
        rows: list[tuple[object, ...]] = []
        if "from `tsdedup`.raw_chunks" in statement:
            rows = [("chunk", None, 2, 10, 100), ("point", "cpu", 9, 0, 0)]
        return SimpleNamespace(collect=lambda: rows)


def _raw_log_results(message: str) -> dict[str, object]:
    return {
        "invocation_ids": ["i1"],
        "results": [
            {"unique_id": "model.tsdedup.raw_chunks", "status": "success", "message": message},
            {"unique_id": "model.tsdedup.rpt_suspect_times", "status": "success"},
        ],
    }


def test_summary_reads_the_ingest_only_when_the_raw_log_took_files() -> None:
    spark = _RecordingSpark()
    ingested, suspects, _, changes = read_tables(
        spark, "tsdedup", _raw_log_results("OK (nothing new)"), {}
    )
    assert (ingested, suspects, changes) == (Ingested(0, 0, 0), [], [])
    assert len(spark.statements) == 1 and "run_statistics" in spark.statements[0]

    spark = _RecordingSpark()
    ingested, _, _, _ = read_tables(spark, "tsdedup", _raw_log_results("OK"), {})
    assert ingested == Ingested(2, 10, 100, (("cpu", 9),))
    tables = ("raw_chunks", "rpt_suspect_times", "run_statistics")
    assert [sum(f"`tsdedup`.{t} " in s for s in spark.statements) for t in tables] == [1, 1, 1]


def test_summary_takes_the_measurements_discovery_read_without_asking_again() -> None:
    results = _raw_log_results("OK (nothing new)")
    results["results"].append({"unique_id": "model.tsdedup.rpt_measurements", "status": "success"})
    spark = _RecordingSpark()
    _, _, measurements, _ = read_tables(spark, "tsdedup", results, {})
    assert sum("rpt_measurements" in s for s in spark.statements) == 1
    landed = [
        LandedMeasurement("cpu", 9, False, ("cpu",)),
        LandedMeasurement("bad name", 2, True, ()),
    ]
    spark = _RecordingSpark()
    _, _, measurements, _ = read_tables(
        spark, "tsdedup", results, {"bad name": "a name with a space"}, landed
    )
    assert not any("rpt_measurements" in s for s in spark.statements)
    assert measurements == [
        LandedMeasurement("cpu", 9, False, ("cpu",)),
        LandedMeasurement("bad name", 2, True, (), "a name with a space"),
    ]


def test_run_results_of_an_earlier_run_are_not_this_runs(tmp_path: Path) -> None:
    assert read_run_results(tmp_path, 0.0) is None  # none written
    path = tmp_path / "run_results.json"
    path.write_text(json.dumps(RUN_RESULTS), encoding="utf-8")
    assert read_run_results(tmp_path, time.time() - 60) == RUN_RESULTS
    os.utime(path, (time.time() - 3600, time.time() - 3600))
    assert read_run_results(tmp_path, time.time() - 60) is None
    path.write_text("{not json", encoding="utf-8")
    assert read_run_results(tmp_path, 0.0) is None


def test_durations_read_as_people_say_them() -> None:
    assert format_duration(5.9) == "5 s"
    assert format_duration(65) == "1 min 05 s"
    assert format_duration(3 * 3600 + 7 * 60) == "3 h 07 min"


def test_progress_line_names_the_node_and_spark_stages() -> None:
    assert format_progress([("raw_chunks", 65.0)], [StageProgress(12, 64, 30)]) == (
        "tsdedup: still running raw_chunks (1 min 05 s); Spark stage 12: 30 of 64 tasks done"
    )
    assert format_progress([("h2o", 31), ("cpu", 40)], []) == (
        "tsdedup: still running h2o (31 s), cpu (40 s)"
    )


def _event(name: str, unique_id: str, node_name: str) -> SimpleNamespace:
    node = SimpleNamespace(unique_id=unique_id, node_name=node_name)
    return SimpleNamespace(info=SimpleNamespace(name=name), data=SimpleNamespace(node_info=node))


class _FakeTracker:
    def getActiveStageIds(self) -> list[int]:
        return [7, 3]

    def getStageInfo(self, stage_id: int) -> SimpleNamespace:
        return SimpleNamespace(numTasks=10 * stage_id, numCompletedTasks=stage_id)


def test_heartbeat_follows_dbt_nodes_and_speaks_only_about_long_ones() -> None:
    now = [100.0]
    spark = SimpleNamespace(sparkContext=SimpleNamespace(statusTracker=_FakeTracker))
    beat = Heartbeat(30, spark, clock=lambda: now[0])
    beat.on_event(_event("NodeStart", "model.tsdedup.raw_chunks", "raw_chunks"))
    beat.on_event(_event("MainReportVersion", "", ""))  # other events are ignored
    now[0] = 110.0
    assert beat.line() is None  # running for 10 s: nothing to say yet
    now[0] = 120.0
    beat.on_event(_event("NodeStart", "model.tsdedup.h2o", "h2o"))
    now[0] = 145.0  # raw_chunks for 45 s, h2o for 25 s
    assert beat.line() == (
        "tsdedup: still running raw_chunks (45 s); "
        "Spark stage 3: 3 of 30 tasks done, stage 7: 7 of 70 tasks done"
    )
    beat.on_event(_event("NodeFinished", "model.tsdedup.raw_chunks", "raw_chunks"))
    now[0] = 200.0
    assert str(beat.line()).startswith("tsdedup: still running h2o (1 min 20 s); Spark")
    beat.on_event(_event("NodeFinished", "model.tsdedup.h2o", "h2o"))
    assert beat.line() is None


def test_heartbeat_speaks_once_per_interval_of_each_nodes_own_running_time() -> None:
    # A model that starts just after a check and runs 35 s with a 30 s interval
    # gets its line 30 s after its start, then none until it has run 60 s.
    now = [0.0]
    beat = Heartbeat(30, None, clock=lambda: now[0])
    now[0] = 5.0
    beat.on_event(_event("NodeStart", "model.tsdedup.cpu", "cpu"))
    said = []
    for second in range(6, 100):
        now[0] = float(second)
        line = beat.due_line()
        if line is not None:
            said.append((second, line))
        if second == 70:
            beat.on_event(_event("NodeFinished", "model.tsdedup.cpu", "cpu"))
    assert said == [
        (35, "tsdedup: still running cpu (30 s)"),
        (65, "tsdedup: still running cpu (1 min 00 s)"),
    ]


def test_heartbeat_reads_dbts_own_node_events() -> None:
    from dbt.events.types import NodeFinished, NodeStart
    from dbt_common.events.base_types import msg_from_base_event

    node = {"unique_id": "model.tsdedup.raw_chunks", "node_name": "raw_chunks"}
    now = [0.0]
    beat = Heartbeat(30, None, clock=lambda: now[0])
    beat.on_event(msg_from_base_event(NodeStart(node_info=node)))
    now[0] = 31.0
    assert beat.line() == "tsdedup: still running raw_chunks (31 s)"
    beat.on_event(msg_from_base_event(NodeFinished(node_info=node, run_result={})))
    assert beat.line() is None


def test_heartbeat_thread_prints_while_a_node_runs() -> None:
    lines: list[str] = []
    with Heartbeat(0.05, None, out=lines.append) as beat:
        beat.on_event(_event("NodeStart", "model.tsdedup.raw_chunks", "raw_chunks"))
        deadline = time.monotonic() + 10
        while not lines and time.monotonic() < deadline:
            time.sleep(0.01)
    assert lines and lines[0].startswith("tsdedup: still running raw_chunks (")
    count = len(lines)
    time.sleep(0.2)
    assert len(lines) == count  # stopped with the block
    with Heartbeat(0, None, out=lines.append) as beat:  # 0: never
        beat.on_event(_event("NodeStart", "model.tsdedup.x", "x"))
        assert beat._thread is None


def test_progress_interval_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TSDEDUP_PROGRESS_SECONDS", raising=False)
    assert interval_from_environment() == 30
    monkeypatch.setenv("TSDEDUP_PROGRESS_SECONDS", "0")
    assert interval_from_environment() == 0
    for bad in ("soon", "-5", "nan"):
        monkeypatch.setenv("TSDEDUP_PROGRESS_SECONDS", bad)
        with pytest.raises(ProgressSettingError, match="TSDEDUP_PROGRESS_SECONDS"):
            interval_from_environment()


def test_spark_log_level_is_quiet_unless_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TSDEDUP_SPARK_LOG_LEVEL", raising=False)
    assert spark_log_level() == "ERROR"
    base_conf(Paths(tmp_path))
    log4j = (tmp_path / "conf" / "log4j2.properties").read_text(encoding="utf-8")
    assert "rootLogger.level = error" in log4j
    monkeypatch.setenv("TSDEDUP_SPARK_LOG_LEVEL", "info")
    assert spark_log_level() == "INFO"
    base_conf(Paths(tmp_path))
    log4j = (tmp_path / "conf" / "log4j2.properties").read_text(encoding="utf-8")
    assert "rootLogger.level = info" in log4j  # from the JVM's start, not only after it
    monkeypatch.setenv("TSDEDUP_SPARK_LOG_LEVEL", "loud")
    with pytest.raises(LogLevelError, match="WARN, INFO"):
        spark_log_level()


def test_bad_settings_stop_the_command_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("DBT_PROJECT_DIR", "DBT_PROFILES_DIR", "DBT_SEND_ANONYMOUS_USAGE_STATS"):
        monkeypatch.delenv(name, raising=False)  # set by the command; restored afterwards
    monkeypatch.setenv("TSDEDUP_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TSDEDUP_LANDING", str(tmp_path / "landing"))
    monkeypatch.setenv("TSDEDUP_SPARK_LOG_LEVEL", "chatty")
    assert cli.main(["build"]) == 2
    assert "tsdedup: TSDEDUP_SPARK_LOG_LEVEL='CHATTY' is not a log level" in capsys.readouterr().err
    monkeypatch.delenv("TSDEDUP_SPARK_LOG_LEVEL")
    monkeypatch.setenv("TSDEDUP_PROGRESS_SECONDS", "often")
    assert cli.main(["build"]) == 2
    assert "TSDEDUP_PROGRESS_SECONDS='often'" in capsys.readouterr().err
    assert not (tmp_path / "home").exists()  # stopped before anything started


class _MeetingSpark(_RecordingSpark):
    """Each statement waits until ``parties`` statements have started: queries
    run one after the other never get there (the barrier breaks)."""

    def __init__(self, parties: int) -> None:
        super().__init__()
        self.barrier = threading.Barrier(parties, timeout=10)

    def sql(self, statement: str) -> SimpleNamespace:
        answer = super().sql(statement)
        self.barrier.wait()
        return answer


def test_summary_queries_run_at_once() -> None:
    spark = _MeetingSpark(parties=3)
    ingested, suspects, _, changes = read_tables(spark, "tsdedup", _raw_log_results("OK"), {})
    assert ingested == Ingested(2, 10, 100, (("cpu", 9),))
    assert (suspects, changes) == ([], [])
    assert len(spark.statements) == 3
