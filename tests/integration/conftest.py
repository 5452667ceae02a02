"""Run the real project end to end, each scenario in its own copy.

A workspace is a copy of the dbt project (models, macros, profiles, ...) with its
own TSDEDUP_HOME (metastore + warehouse) and landing folder, so scenarios never
see each other's tables. Commands run through the installed ``tsdedup`` command
in a subprocess, exactly as a user runs them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROJECT_PARTS = ("dbt_project.yml", "models", "macros", "profiles", "seeds", "tests/singular")
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


@dataclass
class Workspace:
    """A private copy of the project with its own state and landing folder."""

    root: Path

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

    def tsdedup(self, *args: str, timeout: int = 600) -> Result:
        done = subprocess.run(
            [str(TSDEDUP), *args],
            cwd=self.project,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        return Result(done.returncode, done.stdout, done.stderr)

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


def make_workspace(root: Path) -> Workspace:
    ws = Workspace(root)
    ws.project.mkdir(parents=True)
    for part in PROJECT_PARTS:
        source = ROOT / part
        target = ws.project / part
        if source.is_dir():
            shutil.copytree(source, target)
        elif source.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    ws.landing.mkdir()
    return ws


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Workspace]:
    yield make_workspace(tmp_path)


@pytest.fixture(scope="module")
def module_workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    yield make_workspace(tmp_path_factory.mktemp("ws"))
