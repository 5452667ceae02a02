"""Run the real project end to end, each scenario in its own copy.

A workspace is a copy of the dbt project (models, macros, profiles, ...) with a
landing folder of its own, and a TSDEDUP_HOME (metastore + warehouse). Every
command runs through the installed ``tsdedup`` command in a new process with
the workspace's environment, as a user runs it: by default in the resident
engine of its home (``tsdedup engine start``, tsdedup/engine.py: the JVM,
metastore and compiled code reused from one command to the next), or, with
``fresh_process=True``, in a process of its own with its own Spark. The
embedded metastore admits one JVM, so a workspace stops its engine before it
runs a command of its own.

Scenario workspaces (``workspace``, ``module_scenario_workspace``) share one
home and one warm engine per test process (``warm_home``): each starts on an
empty ``tsdedup`` schema, an empty warehouse folder and no state file, as on a
new home, and its commands run in that engine as every command of one
workspace always did (decision 0019: a command does not depend on what the
engine ran before). A test that starts processes of its own, or that is about
the engine itself, takes ``own_workspace`` (a home and engine of its own).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from bench.project_copy import copy_dbt_project
from tsdedup.engine import read_record
from tsdedup.jvm_mode import MODE_VARIABLE
from tsdedup.sql_quoting import quote_identifier

ROOT = Path(__file__).resolve().parents[2]
TSDEDUP = Path(sys.executable).with_name("tsdedup")
# The suite's data is small: a command that starts a JVM of its own starts one
# tuned for a short life (tsdedup/jvm_mode.py; a build of the sample takes about
# 15 % less wall time). The mode changes how fast the JVM runs, never a result;
# the JVM's own choice is tested in test_end_to_end and tests/unit/test_jvm_mode.py.
# The resident engine keeps the JVM's defaults whatever the setting.
os.environ.setdefault(MODE_VARIABLE, "short")
# Columns of a measurement table that follow from the others: `time` from
# time_ns, `series_hash` from the tags (tests/integration/test_series_hash.py
# checks it). Comparisons with the reference semantics leave them out.
DERIVED_COLUMNS = frozenset({"time", "series_hash"})


def point_values(row: dict[str, object]) -> dict[str, object]:
    """A measurement table's row without its derived columns."""
    return {k: v for k, v in row.items() if k not in DERIVED_COLUMNS}


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
    """The resident engine of a home, started for the commands that run in it.
    A command that needs other Spark settings stops it and runs on its own; the
    next command starts it again. An engine that a test starts with a command
    of its own (``tsdedup engine start``) is the test's, never stopped here."""

    def __init__(self, home: Path, start_dir: Path, idle_minutes: int) -> None:
        self.home = home
        self.start_dir = start_dir  # the engine's own folder: it outlives any workspace
        self.idle_minutes = idle_minutes
        self.started = False

    def run(self, args: list[str], env: dict[str, str], cwd: Path, timeout: int) -> Result:
        if read_record(self.home) is None:
            start = ["engine", "start", "--idle-minutes", str(self.idle_minutes)]
            run_tsdedup(start, self.start_dir, env, 600).check()
            self.started = True
        return run_tsdedup(args, cwd, env, timeout)

    def stop(self) -> None:
        """Stop the engine it started; one that does not stop is killed (never
        left behind)."""
        record = read_record(self.home) if self.started else None
        self.started = False
        if record is None:
            return
        env = {**os.environ, "TSDEDUP_HOME": str(self.home)}
        if run_tsdedup(["engine", "stop"], self.start_dir, env, 600).code != 0:
            os.killpg(record.pid, signal.SIGKILL)  # the engine, its JVM, its workers


@dataclass
class Workspace:
    """A private copy of the project with its own landing folder, and a home
    (state folder) of its own or the test process's warm one."""

    root: Path
    server: Server

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def landing(self) -> Path:
        return self.root / "landing"

    @property
    def home(self) -> Path:
        return self.server.home

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
        """Run a tsdedup command: in the home's long-lived process, or in a new
        process as a user does (``fresh_process``)."""
        if not fresh_process:
            return self.server.run(list(args), self.env(), self.project, timeout)
        self.stop()
        return run_tsdedup(list(args), self.project, self.env(), timeout)

    def stop(self) -> None:
        """Stop the home's engine (it holds the metastore open)."""
        self.server.stop()

    def build(self, *args: str) -> Result:
        return self.tsdedup("build", *args).check()

    def sql(self, *statements: str) -> list[list[dict[str, object]]]:
        """Rows of each statement, run with one Spark start (`tsdedup sql --json`).
        Tables are named `tsdedup.<model>`."""
        result = self.tsdedup("sql", "--json", "--limit", "-1", *statements).check()
        return sql_answers(result.stdout, len(statements))

    def query(self, sql: str) -> list[dict[str, object]]:
        """Rows of a query run through `tsdedup show` (SQL may use ref())."""
        result = self.tsdedup(
            "show", "--inline", sql, "--limit", "-1", "--output", "json", "--log-format", "json"
        ).check()
        return shown_rows(result.stdout)


def sql_answers(stdout: str, statements: int) -> list[list[dict[str, object]]]:
    """The rows of each of ``statements`` statements that `tsdedup sql --json` printed."""
    answers = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    assert [a["statement"] for a in answers] == list(range(statements)), stdout
    return [a["rows"] for a in answers]


def shown_rows(stdout: str) -> list[dict[str, object]]:
    """The rows that `show --output json --log-format json` (dbt's or tsdedup's) printed."""
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        preview = event.get("data", {}).get("preview")
        if preview is not None:
            return json.loads(preview) if isinstance(preview, str) else preview
    raise AssertionError(f"no rows in the output of show:\n{stdout}")


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


def make_workspace(
    root: Path, sample_measurements: bool = True, server: Server | None = None
) -> Workspace:
    """A workspace under ``root``; with no ``server``, a home of its own there."""
    if server is None:
        (root / "home").mkdir(parents=True)
        server = Server(root / "home", root, idle_minutes=20)
    ws = Workspace(root, server)
    copy_dbt_project(ROOT, ws.project)
    ws.landing.mkdir()
    if not sample_measurements:
        disable_sample_measurements(ws.project)
    return ws


class WarmHome:
    """The home and engine that a test process's scenario workspaces share."""

    SCHEMA = "tsdedup"
    STATE_FILES = ("last_success.json", "landed_listing.json")

    def __init__(self, root: Path) -> None:
        (root / "home").mkdir(parents=True)
        # A worker may spend longer than the default idle time on other files.
        self.server = Server(root / "home", root, idle_minutes=90)

    def workspace(self, root: Path) -> Workspace:
        """A new workspace on this home, which it finds as a new home leaves it."""
        ws = make_workspace(root, sample_measurements=False, server=self.server)
        self.empty(ws)
        return ws

    def empty(self, ws: Workspace) -> None:
        """Drop what the previous workspace left: each view and table through
        Spark (so Iceberg's table cache forgets them), the schema, its folder
        and the home's state files."""
        folder = ws.home / "warehouse" / f"{self.SCHEMA}.db"
        if folder.exists():
            schema = quote_identifier(self.SCHEMA)
            _, tables, views = ws.sql(
                f"create database if not exists {schema}",
                f"show tables in {schema}",
                f"show views in {schema}",
            )
            view_names = [str(v["viewName"]) for v in views if not v["isTemporary"]]
            table_names = [str(t["tableName"]) for t in tables if not t["isTemporary"]]
            drops = [
                *(f"drop view if exists {schema}.{quote_identifier(v)}" for v in view_names),
                *(
                    f"drop table if exists {schema}.{quote_identifier(t)}"
                    for t in table_names
                    if t not in view_names
                ),
                f"drop database {schema}",
            ]
            ws.sql(*drops)
        # Spark removes the schema's folder when it drops the schema; files that
        # Iceberg left in it would be read as table metadata.
        shutil.rmtree(folder, ignore_errors=True)
        assert not folder.exists(), folder
        for name in self.STATE_FILES:
            (ws.home / name).unlink(missing_ok=True)


FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> object:
    """Remember a failed test: its warm engine is stopped, not handed on."""
    report = yield
    if report.failed:
        item.stash[FAILED] = True
    return report


@pytest.fixture(scope="session")
def warm_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WarmHome]:
    """One home and warm engine per test process (xdist worker)."""
    warm = WarmHome(tmp_path_factory.mktemp("warm"))
    yield warm
    warm.server.stop()


@pytest.fixture
def workspace(
    warm_home: WarmHome, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Workspace]:
    """A workspace for a scenario with measurement models of its own."""
    ws = warm_home.workspace(tmp_path)
    yield ws
    if request.node.stash.get(FAILED, False):
        ws.stop()  # the next test starts on a new engine


@pytest.fixture
def own_workspace(tmp_path: Path) -> Iterator[Workspace]:
    """A scenario workspace with a home and engine of its own: for a test that
    runs commands in processes of their own (they stop the engine)."""
    ws = make_workspace(tmp_path, sample_measurements=False)
    yield ws
    ws.stop()


@pytest.fixture(scope="module")
def module_scenario_workspace(
    warm_home: WarmHome, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Workspace]:
    """One scenario workspace (no sample measurements) shared by a module's tests,
    each with measurements of its own."""
    yield warm_home.workspace(tmp_path_factory.mktemp("scenario"))


@pytest.fixture(scope="module")
def module_workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    """One workspace with the whole project, shared by a module's tests."""
    ws = make_workspace(tmp_path_factory.mktemp("ws"))
    yield ws
    ws.stop()
