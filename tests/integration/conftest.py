"""Run the real project end to end, each scenario in its own copy.

A workspace is a copy of the dbt project (models, macros, profiles, ...) with its
own TSDEDUP_HOME (metastore + warehouse) and landing folder, so scenarios never
see each other's tables. Every command runs through the installed ``tsdedup``
command in a new process with the workspace's environment, as a user runs it:
by default in the workspace's resident engine (``tsdedup engine start``,
python_udfs/engine.py: the JVM, metastore and compiled code reused from one
command to the next), or, with ``fresh_process=True``, in a process of its own
with its own Spark. The embedded metastore admits one JVM, so a workspace
stops its engine before it runs a command of its own.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from python_udfs.engine import read_record
from python_udfs.project_copy import copy_dbt_project
from python_udfs.sql_quoting import quote_identifier

ROOT = Path(__file__).resolve().parents[2]
TSDEDUP = Path(sys.executable).with_name("tsdedup")


@dataclass
class Result:
    """What a command did."""

    code: int
    stdout: str
    stderr: str

    def check(self) -> Result:
        assert self.code == 0, (
            f"exit {self.code}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"
        )
        return self


def run_tsdedup(args: list[str], cwd: Path, env: dict[str, str], timeout: int) -> Result:
    """The installed ``tsdedup`` command in a new process, its output captured."""
    done = subprocess.run(
        [str(TSDEDUP), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return Result(done.returncode, done.stdout, done.stderr)


class Server:
    """The workspace's resident engine. A command that needs other Spark
    settings stops it and runs on its own; the next command starts it again."""

    def __init__(self, env: dict[str, str], cwd: Path) -> None:
        self.env = env
        self.cwd = cwd
        self.home = Path(env["TSDEDUP_HOME"])
        self._start()

    def _tsdedup(self, args: list[str], timeout: int = 600) -> Result:
        return run_tsdedup(args, self.cwd, self.env, timeout)

    def _start(self) -> None:
        self._tsdedup(["engine", "start", "--idle-minutes", "20"]).check()

    def run(self, args: list[str], env: dict[str, str], timeout: int) -> Result:
        self.env = env
        if read_record(self.home) is None:
            self._start()
        return self._tsdedup(args, timeout)

    def stop(self) -> None:
        """Stop the engine; one that does not stop is killed (never left behind)."""
        record = read_record(self.home)
        if record is None:
            return
        if self._tsdedup(["engine", "stop"]).code != 0:
            os.killpg(record.pid, signal.SIGKILL)  # the engine, its JVM, its workers


@dataclass
class Workspace:
    """A private copy of the project with its own state and landing folder."""

    root: Path
    server: Server | None = field(default=None, repr=False)

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def landing(self) -> Path:
        return self.root / "landing"

    @property
    def home(self) -> Path:
        return self.root / "home"

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            TSDEDUP_HOME=str(self.home),
            TSDEDUP_LANDING=str(self.landing),
            DBT_PROJECT_DIR=str(self.project),
            DBT_PROFILES_DIR=str(self.project / "profiles"),
        )
        return env

    def land(self, name: str, content: bytes | str) -> Path:
        """Put a file into the landing folder (written aside, then renamed in)."""
        data = content.encode("utf-8") if isinstance(content, str) else content
        path = self.landing / name
        tmp = self.landing / f".{name}.tmp"
        tmp.write_bytes(data)
        tmp.replace(path)
        return path

    def add_measurement_model(self, file_stem: str, measurement: str) -> None:
        literal = measurement.replace("\\", "\\\\").replace("'", "\\'")
        (self.project / "models" / "measurements" / f"{file_stem}.sql").write_text(
            f"{{{{ tsdedup.measurement('{literal}') }}}}\n", encoding="utf-8"
        )

    def tsdedup(self, *args: str, fresh_process: bool = False, timeout: int = 600) -> Result:
        """Run a tsdedup command: in the workspace's long-lived process, or in a
        new process as a user does (``fresh_process``)."""
        if not fresh_process:
            if self.server is None:
                self.server = Server(self.env(), self.project)
            return self.server.run(list(args), self.env(), timeout)
        self.stop()
        return run_tsdedup(list(args), self.project, self.env(), timeout)

    def stop(self) -> None:
        """Stop the workspace's engine (it holds the metastore open)."""
        if self.server is not None:
            self.server.stop()
            self.server = None

    def build(self, *args: str) -> Result:
        return self.tsdedup("build", *args).check()

    def sql(self, *statements: str) -> list[list[dict[str, object]]]:
        """Rows of each statement, run with one Spark start (`tsdedup sql --json`).
        Tables are named `tsdedup.<model>`."""
        result = self.tsdedup("sql", "--json", "--limit", "-1", *statements).check()
        answers = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
        assert [a["statement"] for a in answers] == list(range(len(statements))), result.stdout
        return [a["rows"] for a in answers]

    def query(self, sql: str) -> list[dict[str, object]]:
        """Rows of a query run through `tsdedup show` (SQL may use ref())."""
        result = self.tsdedup(
            "show", "--inline", sql, "--limit", "-1", "--output", "json", "--log-format", "json"
        ).check()
        for line in result.stdout.splitlines():
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            preview = event.get("data", {}).get("preview")
            if preview is not None:
                return json.loads(preview) if isinstance(preview, str) else preview
        raise AssertionError(f"no rows in the output of tsdedup show:\n{result.stdout}")


def local_path(file_path: str) -> Path:
    """A data file's path as Iceberg records it (``file:...``), on this machine."""
    return Path(file_path.removeprefix("file:"))


def assert_file_sorted(file_path: str, tags: list[str]) -> None:
    """The data file's rows come in (tags..., time_ns) order, NULLs first; a file
    written before a tag existed has no column for it: NULL there."""
    rows = pq.read_table(local_path(file_path)).to_pylist()
    order = [
        (*((row.get(t) is not None, row.get(t) or "") for t in tags), row["time_ns"])
        for row in rows
    ]
    assert order == sorted(order), file_path


SAMPLE_MEASUREMENTS = ("cpu", "h2o", "weather")


def select_rows(model: str, columns: list[str]) -> str:
    """A statement returning the given columns of a measurement table."""
    select = ", ".join(quote_identifier(c) for c in columns)
    return f"select {select} from tsdedup.{quote_identifier(model)}"


def disable_sample_measurements(project: Path) -> None:
    """Switch off the sample's measurement models and live views (and so their
    tests) in a workspace whose scenario brings measurements of its own."""
    path = project / "dbt_project.yml"
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    models = config["models"]["tsdedup"]
    for folder, suffix in (("measurements", ""), ("live", "_live")):
        for name in SAMPLE_MEASUREMENTS:
            models.setdefault(folder, {})[name + suffix] = {"+enabled": False}
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")


def make_workspace(root: Path, sample_measurements: bool = True) -> Workspace:
    ws = Workspace(root)
    copy_dbt_project(ROOT, ws.project)
    ws.landing.mkdir()
    if not sample_measurements:
        disable_sample_measurements(ws.project)
    return ws


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Workspace]:
    """A workspace for a scenario with measurement models of its own."""
    ws = make_workspace(tmp_path, sample_measurements=False)
    yield ws
    ws.stop()


@pytest.fixture(scope="module")
def module_scenario_workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    """One scenario workspace (no sample measurements) shared by a module's tests,
    each with measurements of its own: one Spark start for all of them."""
    ws = make_workspace(tmp_path_factory.mktemp("scenario"), sample_measurements=False)
    yield ws
    ws.stop()


@pytest.fixture(scope="module")
def module_workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    """One workspace with the whole project, shared by a module's tests."""
    ws = make_workspace(tmp_path_factory.mktemp("ws"))
    yield ws
    ws.stop()
