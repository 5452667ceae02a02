"""The resident engine (tsdedup/engine.py): commands run in one warm Spark
session, print and exit as in a process of their own, and keep the state
folder's one-run-at-a-time guarantee; the engine stops when asked, when idle,
when a command needs other settings, and when a command is interrupted.

Every command here runs through the installed ``tsdedup`` command in a new
process, as a user runs it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.integration.conftest import (
    ROOT,
    TSDEDUP,
    Result,
    Workspace,
    make_workspace,
    select_rows,
)
from tests.reference import expected_from_files
from tsdedup.engine import process_running, read_record
from tsdedup.state import HomeLock

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

SAMPLE = ROOT / "seeds" / "sample_landing"
COLUMNS = {
    "cpu": ["host", "region", "usage_user", "usage_system", "processes", "time_ns"],
    "h2o": ["location", "river", "level", "description", "time_ns"],
}
# A query that runs for minutes: the command that is busy when another arrives.
LONG_QUERY = "select sum(hash(id, id * 7)) from range(0, 100000000000)"
# Ctrl-C in a terminal interrupts a command. A suite started in the background
# (`make test &`, nohup) runs with SIGINT ignored, and a process inherits that,
# so Python would never raise KeyboardInterrupt in the command: this prefix
# gives the command the terminal's default SIGINT back before it starts.
AS_FROM_A_TERMINAL = [
    sys.executable,
    "-c",
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.argv[1], sys.argv[1:])",
]


def long_query_in_the_engine(ws: Workspace) -> subprocess.Popen[str]:
    """A ``tsdedup sql`` process whose query runs for hours, once the engine has
    taken it (stderr stays open to read the rest)."""
    process = subprocess.Popen(
        [*AS_FROM_A_TERMINAL, str(TSDEDUP), "sql", LONG_QUERY],
        cwd=ws.project,
        env=ws.env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    for line in process.stderr:
        if "running in the resident engine" in line:
            break
    return process


def engine_cmd(ws: Workspace, *args: str) -> Result:
    return ws.tsdedup(*args, fresh_process=True)


def engine_pid(ws: Workspace) -> int:
    record = read_record(ws.home)
    assert record is not None, "no engine runs"
    return record.pid


def wait_until_gone(pid: int, seconds: float = 90.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not process_running(pid):
            return
        time.sleep(0.2)
    raise AssertionError(f"process {pid} still runs after {seconds} s")


def table_rows(ws: Workspace) -> tuple[Result, dict[str, set[tuple[object, ...]]]]:
    statements = [select_rows(m, c) for m, c in COLUMNS.items()]
    result = engine_cmd(ws, "sql", "--json", "--limit", "-1", *statements).check()
    answers = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    return result, {
        model: {tuple(row[c] for c in COLUMNS[model]) for row in answer["rows"]}
        for model, answer in zip(COLUMNS, answers, strict=True)
    }


def expected_rows(landing: Path) -> dict[str, set[tuple[object, ...]]]:
    files = sorted(landing.iterdir())
    expected = expected_from_files((f.name, f.read_bytes()) for f in files)
    return {
        model: {tuple(point.get(c) for c in COLUMNS[model]) for point in expected.rows(model)}
        for model in COLUMNS
    }


def test_commands_run_in_the_engine_as_in_a_process_of_their_own(
    workspace_with_sample: Workspace,
) -> None:
    ws = workspace_with_sample
    files = sorted(SAMPLE.iterdir())
    for path in files[:3]:
        shutil.copy(path, ws.landing / path.name)

    started = engine_cmd(ws, "engine", "start", "--idle-minutes", "10").check()
    pid = engine_pid(ws)
    assert f"started the engine process {pid}" in started.stdout
    assert str(pid) in engine_cmd(ws, "engine", "status").check().stdout

    run = engine_cmd(ws, "run").check()
    assert f"running in the resident engine (process {pid})" in run.stderr
    assert "starting Spark" not in run.stderr
    assert "Completed successfully" in run.stdout  # dbt's own output reaches the caller
    assert "summary of this run" in run.stderr + run.stdout

    for path in files[3:]:
        shutil.copy(path, ws.landing / path.name)
    build = engine_cmd(ws, "build").check()  # the project's tests pass in the engine too
    assert f"running in the resident engine (process {pid})" in build.stderr
    result, rows = table_rows(ws)
    assert f"process {pid}" in result.stderr
    assert rows == expected_rows(ws.landing)

    # What a command leaves in the session (settings, its own and the build's,
    # temporary views, cached tables, the current database) ends with it, as
    # with a process of its own.
    engine_cmd(
        ws, "sql", "set spark.sql.shuffle.partitions = 7",
        "create temporary view leftover as select 1 as one",
        "create global temporary view shared as select 2 as two",
        "cache table tsdedup.cpu", "use tsdedup",
    ).check()  # fmt: skip
    after = engine_cmd(
        ws, "sql", "--json", "set spark.sql.shuffle.partitions",
        "set spark.sql.sources.partitionOverwriteMode", "select current_database() as db",
        "show views in global_temp",
        "explain select * from tsdedup.cpu",
    ).check()  # fmt: skip
    assert f"process {pid}" in after.stderr
    answers = [json.loads(ln)["rows"] for ln in after.stdout.splitlines() if ln.startswith("{")]
    assert answers[0] == [{"key": "spark.sql.shuffle.partitions", "value": "4"}]
    assert answers[1] == [{"key": "spark.sql.sources.partitionOverwriteMode", "value": "STATIC"}]
    assert answers[2] == [{"db": "default"}]
    assert answers[3] == []
    assert "InMemory" not in json.dumps(answers[4])  # the cached table is not

    # Another process holding the state folder's lock stops an engine command.
    with HomeLock(ws.home):
        locked = engine_cmd(ws, "sql", "select 1")
    assert locked.code == 2
    assert f"another tsdedup run (process {os.getpid()})" in locked.stderr
    assert engine_pid(ws) == pid

    # A command that arrives while the engine runs another stops at once; an
    # interrupted command stops the engine, and the next command starts Spark.
    busy = long_query_in_the_engine(ws)
    refused = engine_cmd(ws, "sql", "select 1")
    assert refused.code == 2
    assert f"the engine (process {pid}) is running another command" in refused.stderr
    busy.send_signal(signal.SIGINT)
    # Longer than the caller's own 60 s wait for the engine: an engine that does
    # not stop shows as the caller's message, not as this wait's timeout.
    assert busy.wait(timeout=90) == 130
    assert busy.stderr is not None
    assert f"interrupted; stopped the engine process {pid}" in busy.stderr.read()
    wait_until_gone(pid)
    assert read_record(ws.home) is None

    cold, rows = table_rows(ws)
    assert "starting Spark" in cold.stderr
    assert rows == expected_rows(ws.landing)


def test_the_engine_stops_when_asked_idle_or_outdated(workspace_with_sample: Workspace) -> None:
    ws = workspace_with_sample
    engine_cmd(ws, "engine", "start").check()
    pid = engine_pid(ws)
    assert f"stopped the engine (process {pid})" in engine_cmd(ws, "engine", "stop").check().stdout
    wait_until_gone(pid, 5)
    assert engine_cmd(ws, "engine", "status").check().stdout.strip() == "no engine runs"

    # A command that needs other Spark settings stops the engine and starts its own.
    engine_cmd(ws, "engine", "start").check()
    pid = engine_pid(ws)
    profiles = ws.project / "profiles" / "profiles.yml"
    document = yaml.safe_load(profiles.read_text(encoding="utf-8"))
    local = document["tsdedup"]["outputs"]["local"]
    local["server_side_parameters"]["spark.sql.shuffle.partitions"] = "3"
    profiles.write_text(yaml.safe_dump(document), encoding="utf-8")
    answer = engine_cmd(ws, "sql", "--json", "select 1 as one").check()
    assert f"the engine process {pid}" in answer.stderr
    assert "has other settings" in answer.stderr
    assert "starting Spark" in answer.stderr
    assert '"rows": [{"one": 1}]' in answer.stdout
    wait_until_gone(pid, 5)

    # A caller killed outright (no Ctrl-C to pass on) ends its command, and the
    # engine with it, as the command's own process would have ended.
    engine_cmd(ws, "engine", "start").check()
    pid = engine_pid(ws)
    caller = long_query_in_the_engine(ws)
    caller.kill()
    caller.wait(timeout=10)
    wait_until_gone(pid, 60)
    assert read_record(ws.home) is None
    assert "starting Spark" in engine_cmd(ws, "sql", "select 1").check().stderr

    # Without commands, it stops by itself.
    engine_cmd(ws, "engine", "start", "--idle-minutes", "0.05").check()
    pid = engine_pid(ws)
    wait_until_gone(pid)
    assert read_record(ws.home) is None
    assert "no command for 0.05 minutes: stopping" in (ws.home / "engine.log").read_text()
    assert engine_cmd(ws, "engine", "start", "--idle-minutes", "0").code == 2


@pytest.fixture
def workspace_with_sample(tmp_path: Path) -> Iterator[Workspace]:
    ws = make_workspace(tmp_path)
    yield ws
    record = read_record(ws.home)
    if record is not None:  # a failed test must not leave an engine behind
        os.kill(record.pid, signal.SIGTERM)
    ws.stop()
