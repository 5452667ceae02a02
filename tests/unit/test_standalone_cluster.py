"""The standalone-cluster check's comparison and set-up (the check itself runs
with `make cluster-check`)."""

from __future__ import annotations

import json
from pathlib import Path

from tsdedup import standalone_cluster as sc


def test_identical_tables_have_no_differences() -> None:
    tables = {name: ['{"a": 1}', '{"a": 2}'] for name in sc.COMPARED}
    assert sc.differences(tables, dict(tables)) == []


def test_a_differing_table_names_a_row_found_on_one_side_only() -> None:
    local = {name: ['{"a": 1}'] for name in sc.COMPARED}
    cluster = dict(local) | {"h2o": ['{"a": 1}', '{"a": 9}']}
    (line,) = sc.differences(cluster, local)
    assert line.startswith("h2o: 2 rows on the cluster, 1 locally")
    assert '{"a": 9}' in line


def test_a_missing_table_is_a_difference() -> None:
    local = {name: ['{"a": 1}'] for name in sc.COMPARED}
    cluster = {k: v for k, v in local.items() if k != "cpu"}
    assert [d.split(":")[0] for d in sc.differences(cluster, local)] == ["cpu"]


def test_spark_class_comes_from_the_pip_package() -> None:
    assert (sc.spark_home() / "bin" / "spark-class").is_file()


def test_runs_use_their_own_home_and_target_and_never_skip(tmp_path: Path) -> None:
    env = sc.run_environment(tmp_path / "h", "cluster", {"TSDEDUP_SPARK_MASTER": "spark://x:1"})
    assert env["TSDEDUP_HOME"] == str(tmp_path / "h")
    assert env["TSDEDUP_TARGET"] == "cluster"
    assert env["TSDEDUP_RUN_ALWAYS"] == "1"
    assert env["TSDEDUP_SPARK_MASTER"] == "spark://x:1"


def test_workers_with_executors_are_found_from_their_work_folders(tmp_path: Path) -> None:
    cluster = sc.StandaloneCluster(tmp_path, workers=2)
    (tmp_path / "worker-1" / "app-20261123-0000" / "0").mkdir(parents=True)
    (tmp_path / "worker-2").mkdir()
    assert cluster.workers_with_executors() == ["worker-1"]


def test_parsing_tasks_are_counted_per_executor_from_the_event_log(tmp_path: Path) -> None:
    sql_start = "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart"
    events = [
        {"Event": sql_start, "executionId": 1,
         "physicalPlanDescription": "ArrowEvalPythonUDTF tsdedup_read_chunk(f.source_file)"},
        {"Event": sql_start, "executionId": 2, "physicalPlanDescription": "BatchScan raw_chunks"},
        {"Event": sql_start, "executionId": 3,
         "physicalPlanDescription": "BatchEvalPythonUDTF tsdedup_empty_files(folder)"},
        {"Event": "SparkListenerJobStart", "Stage IDs": [3, 4],
         "Properties": {"spark.sql.execution.id": "1"}},
        {"Event": "SparkListenerJobStart", "Stage IDs": [5],
         "Properties": {"spark.sql.execution.id": "2"}},
        {"Event": "SparkListenerJobStart", "Stage IDs": [6],
         "Properties": {"spark.sql.execution.id": "3"}},
        *(
            {"Event": "SparkListenerTaskEnd", "Stage ID": stage, "Task Info": {"Executor ID": e}}
            for stage, e in ((3, "0"), (4, "1"), (4, "1"), (5, "0"), (6, "0"))
        ),
    ]  # fmt: skip
    (tmp_path / "app-1").write_text("\n".join(json.dumps(e) for e in events) + "\n")
    assert sc.parsing_executors(tmp_path) == {"0": 1, "1": 2}


def test_the_event_log_goes_to_the_work_folder(tmp_path: Path) -> None:
    conf = sc.event_log_settings(tmp_path)
    text = (conf / "spark-defaults.conf").read_text()
    assert "spark.eventLog.enabled true" in text
    assert f"spark.eventLog.dir {(tmp_path / 'events').as_uri()}" in text
    assert (tmp_path / "events").is_dir()
