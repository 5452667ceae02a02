"""A private copy of the tsdedup project with its own state and landing folder.

The benchmark never touches the user's project: each workspace copies the dbt
project (models, macros, profiles, ...) into a temporary folder, may add models
of its own there (the stock ``merge`` contender), and runs the installed
``tsdedup`` command with TSDEDUP_HOME and TSDEDUP_LANDING inside that folder.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from bench.procs import Measured, run_measured
from bench.project_copy import copy_dbt_project
from tsdedup.engine import read_record

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# The project without its sample seeds (the benchmark lands its own data).
PROJECT_PARTS = ("dbt_project.yml", "models", "macros", "profiles", "tests/singular")
TSDEDUP = Path(sys.executable).with_name("tsdedup")


class CommandFailed(RuntimeError):
    """A measured command exited with an error."""


@dataclass(frozen=True)
class DbtRun:
    """A measured ``tsdedup`` command and dbt's timing of each node."""

    measured: Measured
    node_seconds: dict[str, float]
    node_status: dict[str, str]

    def seconds(self, node: str) -> float:
        if node not in self.node_seconds:
            raise CommandFailed(f"dbt recorded no timing for {node}: {sorted(self.node_seconds)}")
        return self.node_seconds[node]

    @property
    def model_seconds(self) -> float:
        """Execution time of all models of the run (hooks and tests excluded)."""
        return sum(s for n, s in self.node_seconds.items() if not n.startswith("hook:"))


@dataclass
class Workspace:
    """Folders of one workspace; ``extra_models`` maps ``models/...`` paths to SQL."""

    root: Path
    extra_models: dict[str, str] = field(default_factory=dict)

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def landing(self) -> Path:
        return self.root / "landing"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    def create(self) -> Workspace:
        copy_dbt_project(PROJECT_ROOT, self.project, PROJECT_PARTS)
        for relative, sql in self.extra_models.items():
            path = self.project / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(sql, encoding="utf-8")
        self.landing.mkdir(parents=True)
        self.logs.mkdir(parents=True)
        return self

    def land(self, files: list[Path], prefix: str = "") -> None:
        """Put files into the landing folder (hard links: instant, no copy), their
        names prefixed with ``prefix``."""
        for path in files:
            target = self.landing / f"{prefix}{path.name}"
            try:
                os.link(path, target)
            except OSError:
                shutil.copy2(path, target)

    def save_state(self) -> Path:
        """Copy the state folder (warehouse, metastore, listings) aside, so that
        restore_state can put a run's starting point back; returns the copy."""
        saved = self.root / "home.saved"
        shutil.rmtree(saved, ignore_errors=True)
        shutil.copytree(self.home, saved, symlinks=True)
        return saved

    def restore_state(self, saved: Path, landed: list[Path]) -> None:
        """The state folder as ``saved`` holds it, and the landing folder without
        the files ``landed`` that came after it."""
        for path in landed:
            (self.landing / path.name).unlink(missing_ok=True)
        shutil.rmtree(self.home)
        shutil.copytree(saved, self.home, symlinks=True)

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            TSDEDUP_HOME=str(self.home),
            TSDEDUP_LANDING=str(self.landing),
            DBT_PROJECT_DIR=str(self.project),
            DBT_PROFILES_DIR=str(self.project / "profiles"),
            DBT_SEND_ANONYMOUS_USAGE_STATS="false",
        )
        env.update(extra)
        return env

    def command(self, name: str, *args: str, timeout: float | None = None, **env: str) -> Measured:
        """Run ``tsdedup <args>`` measured (with the settings ``env`` added); logs go
        to ``logs/<name>.out|.err``. A command that runs in the resident engine
        counts the engine's memory too."""
        engine = read_record(self.home)
        measured = run_measured(
            [str(TSDEDUP), *args],
            self.logs / name,
            self.project,
            self.env(**env),
            timeout,
            also=[engine.pid] if engine is not None and args[:1] != ("engine",) else [],
        )
        if measured.returncode != 0:
            raise CommandFailed(
                f"tsdedup {' '.join(args)} exited {measured.returncode}\n{measured.tail()}"
            )
        return measured

    def dbt(self, name: str, *args: str, timeout: float | None = None, **env: str) -> DbtRun:
        """Run a dbt command through ``tsdedup``; read dbt's node timings."""
        results_path = self.project / "target" / "run_results.json"
        results_path.unlink(missing_ok=True)
        measured = self.command(name, *args, timeout=timeout, **env)
        results = json.loads(results_path.read_text(encoding="utf-8"))
        shutil.copy2(results_path, self.logs / f"{name}.run_results.json")
        seconds: dict[str, float] = {}
        status: dict[str, str] = {}
        for node in results["results"]:
            unique_id = str(node["unique_id"])
            kind, _, rest = unique_id.partition(".")
            key = rest.rsplit(".", 1)[-1] if kind in ("model", "test") else f"hook:{unique_id}"
            seconds[key] = float(node["execution_time"])
            status[key] = str(node["status"])
        failed = {k: v for k, v in status.items() if v not in ("success", "pass")}
        if failed:
            raise CommandFailed(f"tsdedup {' '.join(args)}: nodes failed: {failed}")
        return DbtRun(measured, seconds, status)

    def sql(self, name: str, *statements: str) -> list[list[dict[str, object]]]:
        """Rows of each statement (``tsdedup sql --json``, one Spark start)."""
        measured = self.command(name, "sql", "--json", "--limit", "-1", *statements)
        answers = []
        for line in measured.stdout.read_text(encoding="utf-8").splitlines():
            if line.startswith("{"):
                answers.append(json.loads(line))
        if [a.get("statement") for a in answers] != list(range(len(statements))):
            raise CommandFailed(f"tsdedup sql answered {len(answers)} of {len(statements)}")
        return [a["rows"] for a in answers]
