"""Run the sample build on a real Spark standalone cluster with the shared
catalog, and compare it with the embedded run.

    python -m tsdedup.standalone_cluster [--workers 2] [--work DIR] [--keep]

Starts a throw-away PostgreSQL server for the catalog (tsdedup/local_postgres.py)
and a standalone master and workers on 127.0.0.1 from the pip ``pyspark``
package (``bin/spark-class``), builds and tests the bundled sample with the
profile's ``team`` target on that cluster (the driver here, the parsing table
function on the workers' executors, which Spark's event log of the run
shows), builds it again with the ``local`` target in another state folder,
and compares every measurement and report table row for row. Everything it
started is stopped at the end, whatever happens. Exit code 0 when the two runs
agree, both workers ran executors and the parsing ran on them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tsdedup.local_postgres import LocalPostgres, PostgresError
from tsdedup.loopback import HOST, free_port

# Tables whose rows the two runs must agree on (order-insensitive).
COMPARED = ("cpu", "h2o", "weather", "rpt_chunk_accounting", "rpt_rejects", "sort_keys")
# Columns that differ between any two runs (when and by which invocation).
VOLATILE_COLUMNS = frozenset({"ingested_at", "invocation_id", "source_path", "source_modified_at"})
# The table functions that parse landed files and write the raw log.
PARSING_FUNCTIONS = ("tsdedup_read_chunk", "tsdedup_write_chunks")


class ClusterError(RuntimeError):
    """The cluster did not start, or a step failed."""


def spark_home() -> Path:
    import pyspark

    home = Path(pyspark.__file__).resolve().parent
    if not (home / "bin" / "spark-class").is_file():
        raise ClusterError(f"no bin/spark-class in the pyspark package at {home}")
    return home


@dataclass
class StandaloneCluster:
    """A master and ``workers`` workers, each a child process of this one."""

    work: Path
    workers: int = 2
    worker_cores: int = 1
    worker_memory: str = "2g"
    port: int = field(default_factory=free_port)
    ui_port: int = field(default_factory=free_port)
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"spark://{HOST}:{self.port}"

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            SPARK_HOME=str(spark_home()),
            SPARK_LOCAL_IP=HOST,
            # Executors start Python workers with this interpreter (the venv's,
            # which has pyarrow and the rest of the project's dependencies).
            PYSPARK_PYTHON=sys.executable,
            SPARK_NO_DAEMONIZE="1",
        )
        return env

    def _start(self, name: str, *args: str) -> None:
        log = self.work / "logs" / f"{name}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("wb") as out:
            process = subprocess.Popen(
                [str(spark_home() / "bin" / "spark-class"), *args],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=self.environment(),
                start_new_session=True,  # its own process group, stopped as one
            )
        self.processes.append(process)

    def status(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"http://{HOST}:{self.ui_port}/json/", timeout=5) as answer:
            return dict(json.load(answer))

    def _wait(self, what: str, ready: Any, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for process in self.processes:
                if process.poll() is not None:
                    raise ClusterError(
                        f"{what}: a cluster process exited; see {self.work / 'logs'}"
                    )
            try:
                if ready():
                    return
            except OSError:
                pass
            time.sleep(1)
        raise ClusterError(f"{what}: not ready after {timeout:.0f} s; see {self.work / 'logs'}")

    def start(self) -> StandaloneCluster:
        master = "org.apache.spark.deploy.master.Master"
        self._start("master", master, "--host", HOST, "--port", str(self.port),
                    "--webui-port", str(self.ui_port))  # fmt: skip
        self._wait("master", lambda: self.status().get("status") == "ALIVE")
        for number in range(1, self.workers + 1):
            folder = self.work / f"worker-{number}"
            folder.mkdir(parents=True, exist_ok=True)
            self._start(
                f"worker-{number}",
                "org.apache.spark.deploy.worker.Worker",
                "--host", HOST,
                "--cores", str(self.worker_cores),
                "--memory", self.worker_memory,
                "--webui-port", str(free_port()),
                "--work-dir", str(folder),
                self.url,
            )  # fmt: skip
        self._wait("workers", lambda: int(self.status().get("aliveworkers", 0)) == self.workers)
        return self

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        self.processes.clear()

    def workers_with_executors(self) -> list[str]:
        """Workers whose work folder holds an executor's folder (it ran tasks)."""
        used = []
        for number in range(1, self.workers + 1):
            folder = self.work / f"worker-{number}"
            if any(path.is_dir() for path in folder.glob("app-*/*")):
                used.append(folder.name)
        return used


@contextmanager
def running_cluster(work: Path, workers: int) -> Iterator[StandaloneCluster]:
    cluster = StandaloneCluster(work, workers=workers)
    try:
        yield cluster.start()
    finally:
        cluster.stop()


def tsdedup(args: Sequence[str], env: dict[str, str], log: Path) -> str:
    """Run ``tsdedup <args>``, its output written to ``log`` as it comes (follow
    it with ``tail -f``); returns the output."""
    command = [str(Path(sys.executable).with_name("tsdedup")), *args]
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w", encoding="utf-8") as out:
        code = subprocess.run(command, env=env, stdout=out, stderr=subprocess.STDOUT).returncode
    output = log.read_text(encoding="utf-8")
    if code != 0:
        tail = "\n".join(output.splitlines()[-30:])
        raise ClusterError(f"tsdedup {' '.join(args)} exited {code} (log: {log}):\n{tail}")
    return output


def run_environment(home: Path, target: str, extra: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    env.update(TSDEDUP_HOME=str(home), TSDEDUP_TARGET=target, TSDEDUP_RUN_ALWAYS="1", **extra)
    return env


def table_rows(env: dict[str, str], log: Path) -> dict[str, list[str]]:
    """Every compared table's rows as sorted JSON strings, volatile columns left out."""
    statements = [f"select * from tsdedup.{name}" for name in COMPARED]
    out = tsdedup(["sql", "--json", "--limit", "-1", *statements], env, log)
    answers = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    if len(answers) != len(COMPARED):
        raise ClusterError(f"expected {len(COMPARED)} answers from tsdedup sql, got {len(answers)}")
    tables = {}
    for name, answer in zip(COMPARED, answers, strict=True):
        rows = [
            json.dumps({k: v for k, v in row.items() if k not in VOLATILE_COLUMNS}, sort_keys=True)
            for row in answer["rows"]
        ]
        tables[name] = sorted(rows)
    return tables


def differences(cluster: dict[str, list[str]], local: dict[str, list[str]]) -> list[str]:
    """One line per table whose rows differ, naming a row that is in one only."""
    found = []
    for name in COMPARED:
        a, b = cluster.get(name, []), local.get(name, [])
        if a != b:
            only_cluster = sorted(set(a) - set(b))[:1]
            only_local = sorted(set(b) - set(a))[:1]
            found.append(
                f"{name}: {len(a)} rows on the cluster, {len(b)} locally; "
                f"only on the cluster: {only_cluster}, only locally: {only_local}"
            )
    return found


def event_log_settings(work: Path) -> Path:
    """A Spark configuration folder (SPARK_CONF_DIR) whose spark-defaults.conf
    writes the driver's event log to ``work/events``; returns the folder."""
    conf, events = work / "spark-conf", work / "events"
    conf.mkdir(parents=True, exist_ok=True)
    events.mkdir(parents=True, exist_ok=True)
    (conf / "spark-defaults.conf").write_text(
        f"spark.eventLog.enabled true\nspark.eventLog.dir {events.as_uri()}\n", encoding="utf-8"
    )
    return conf


def parsing_executors(events: Path) -> dict[str, int]:
    """Tasks per executor of the SQL executions that ran a parsing table function
    (PARSING_FUNCTIONS), from the event logs in ``events``."""
    executions: set[str] = set()
    stages: set[int] = set()
    tasks: dict[str, int] = {}
    for log in sorted(events.iterdir()):
        for line in log.read_text(encoding="utf-8").splitlines():
            event = json.loads(line)
            kind = str(event.get("Event", ""))
            if kind.endswith("SparkListenerSQLExecutionStart"):
                plan = str(event.get("physicalPlanDescription", ""))
                if "PythonUDTF" in plan and any(f in plan for f in PARSING_FUNCTIONS):
                    executions.add(str(event["executionId"]))
            elif kind == "SparkListenerJobStart":
                execution = (event.get("Properties") or {}).get("spark.sql.execution.id")
                if execution in executions:
                    stages.update(int(stage) for stage in event["Stage IDs"])
            elif kind == "SparkListenerTaskEnd" and int(event["Stage ID"]) in stages:
                executor = str(event["Task Info"]["Executor ID"])
                tasks[executor] = tasks.get(executor, 0) + 1
    return tasks


def check(work: Path, workers: int) -> int:
    say = print
    started = time.monotonic()
    with LocalPostgres() as catalog:
        team = {**catalog.environment(), "TSDEDUP_WAREHOUSE": str(work / "warehouse")}
        with running_cluster(work / "cluster", workers) as cluster:
            say(
                f"cluster: master {cluster.url} with {workers} workers (logs in {work / 'cluster'})"
            )
            say(f"catalog: PostgreSQL on {catalog.url}")
            cluster_env = run_environment(
                work / "home-cluster",
                "team",
                {
                    **team,
                    "TSDEDUP_SPARK_MASTER": cluster.url,
                    "TSDEDUP_CORES_MAX": str(workers * cluster.worker_cores),
                    "TSDEDUP_EXECUTOR_MEMORY": "1g",
                    "SPARK_LOCAL_IP": HOST,
                    "SPARK_CONF_DIR": str(event_log_settings(work)),
                },
            )
            say("cluster: tsdedup sample (build and test) with --target team")
            tsdedup(["sample"], cluster_env, work / "logs" / "sample-cluster.log")
            used = cluster.workers_with_executors()
            say(f"cluster: executors ran on {len(used)} of {workers} workers ({', '.join(used)})")
        parsed = parsing_executors(work / "events")
        on_workers = bool(parsed) and "driver" not in parsed
        say(
            "cluster: the parsing ran in "
            + (
                ", ".join(f"executor {e} ({n} tasks)" for e, n in sorted(parsed.items()))
                or "no task"
            )
        )
        say("local: tsdedup sample with --target local")
        local_env = run_environment(work / "home-local", "local", {})
        tsdedup(["sample"], local_env, work / "logs" / "sample-local.log")
        say("compare: every measurement and report table, row for row")
        read_env = run_environment(work / "home-reader", "team", team)
        diffs = differences(
            table_rows(read_env, work / "logs" / "rows-cluster.log"),
            table_rows(local_env, work / "logs" / "rows-local.log"),
        )
    for line in diffs:
        say(f"DIFFERENT {line}")
    ok = not diffs and len(used) == workers and on_workers
    if len(used) != workers:
        say(f"FAILED: executors ran on {len(used)} of {workers} workers")
    if not on_workers:
        say("FAILED: the event log shows no parsing task on the workers' executors")
    say(f"{'OK' if ok else 'FAILED'}: cluster and local runs "
        f"{'agree on ' + ', '.join(COMPARED) if not diffs else 'differ'} "
        f"({time.monotonic() - started:.0f} s)")  # fmt: skip
    return 0 if ok else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tsdedup.standalone_cluster")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--work", type=Path, help="work folder (default: a new temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="tsdedup-cluster-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        return check(work, args.workers)
    except (ClusterError, PostgresError) as exc:
        print(f"FAILED: {exc}", file=sys.stderr)
        return 1
    finally:
        if not args.keep and not args.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
