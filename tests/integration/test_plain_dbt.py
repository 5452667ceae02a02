"""Plain ``dbt`` (the venv's own command, as orchestrators call it) builds,
tests and documents the project through the ``tsdedup_spark`` adapter
(adapter/, tsdedup/plain_dbt.py): the Spark session and functions ``tsdedup``
would give it, the same warehouse, and no files in the working folder or the
project. The tests share one workspace and run in this order."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from python_udfs.sort_key import compute_sort_key
from tests.integration.conftest import (
    ROOT,
    Workspace,
    make_workspace,
    run_tsdedup,
    select_rows,
    shown_rows,
)
from tests.reference import expected_from_files

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

DBT = Path(sys.executable).with_name("dbt")
SAMPLE = ROOT / "seeds" / "sample_landing"
COLUMNS = ["location", "river", "level", "description", "time_ns"]
# What an embedded Spark leaves in the folder it starts in when nothing else
# tells it where its metastore, logs and warehouse go.
LITTER = ("metastore_db", "derby.log", "spark-warehouse")
SORT_KEY_QUERY = "select tsdedup_compute_sort_key(map('host', 3L, 'region', 1L)) as sort_key"


class PlainDbt:
    """A workspace run by plain dbt from a folder of its own (``cwd``), with
    the state folder's default: ``.tsdedup`` in the project."""

    def __init__(self, ws: Workspace, cwd: Path) -> None:
        self.ws = ws
        self.cwd = cwd

    @property
    def home(self) -> Path:
        return self.ws.project / ".tsdedup"

    def env(self) -> dict[str, str]:
        env = self.ws.env()
        # dbt's options say where the project is, as an orchestrator's would.
        for name in ("DBT_PROJECT_DIR", "DBT_PROFILES_DIR", "TSDEDUP_HOME"):
            env.pop(name)
        return env

    def dbt(self, *args: str, profiles: Path | None = None) -> subprocess.CompletedProcess[str]:
        command = [str(DBT), *args, "--project-dir", str(self.ws.project)]
        command += ["--profiles-dir", str(profiles or self.ws.project / "profiles")]
        return subprocess.run(
            command,
            cwd=self.cwd,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, f"--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PlainDbt]:
    ws = make_workspace(tmp_path_factory.mktemp("plain"))
    for path in sorted(SAMPLE.iterdir()):
        shutil.copy2(path, ws.landing / path.name)
    cwd = tmp_path_factory.mktemp("elsewhere")
    yield PlainDbt(ws, cwd)
    ws.stop()


def test_parse_starts_no_spark(plain: PlainDbt) -> None:
    result = plain.dbt("parse")
    ok(result)
    assert "starting Spark" not in result.stderr
    assert not plain.home.exists()


def test_run_then_test_build_the_tables_tsdedup_builds(plain: PlainDbt) -> None:
    run = plain.dbt("run")
    ok(run)
    assert f"starting Spark for dbt (master local[2], state in {plain.home})" in run.stderr
    ok(plain.dbt("test"))
    # The warehouse is the one `tsdedup` uses: its commands read the tables.
    expected = expected_from_files((f.name, f.read_bytes()) for f in sorted(SAMPLE.iterdir()))
    query = ["sql", "--json", "--limit", "-1", select_rows("h2o", COLUMNS)]
    answer = run_tsdedup(query, plain.ws.project, plain.env(), timeout=600).check()
    (rows,) = [json.loads(line)["rows"] for line in answer.stdout.splitlines() if line[:1] == "{"]
    want = expected.rows("h2o")
    assert len(rows) == len(want)
    assert {tuple(r[c] for c in COLUMNS) for r in rows} == {
        tuple(r[c] for c in COLUMNS) for r in want
    }


def test_the_projects_functions_answer_in_dbt_show(plain: PlainDbt) -> None:
    result = plain.dbt(
        "show", "--inline", SORT_KEY_QUERY, "--output", "json", "--log-format", "json"
    )
    (row,) = shown_rows(ok(result))
    key = row["sort_key"]
    got = json.loads(key) if isinstance(key, str) else key  # an array prints as JSON text
    assert got == compute_sort_key({"host": 3, "region": 1})


def test_docs_generate_writes_the_catalog(plain: PlainDbt) -> None:
    ok(plain.dbt("docs", "generate"))
    catalog = json.loads((plain.ws.project / "target" / "catalog.json").read_text())
    assert "model.tsdedup.h2o" in catalog["nodes"]


def test_nothing_lands_in_the_working_folder_or_the_project(plain: PlainDbt) -> None:
    for folder in (plain.cwd, plain.ws.project):
        assert [name for name in LITTER if (folder / name).exists()] == []
    assert (plain.home / "metastore_db").is_dir()
    assert (plain.home / "derby.log").is_file()


def test_dbt_sparks_own_type_lacks_the_functions(plain: PlainDbt, tmp_path: Path) -> None:
    """The control: the same profile with dbt-spark's type has no project functions."""
    profiles = yaml.safe_load((plain.ws.project / "profiles" / "profiles.yml").read_text())
    for output in profiles["tsdedup"]["outputs"].values():
        assert output["type"] == "tsdedup_spark"
        output["type"] = "spark"
    (tmp_path / "profiles.yml").write_text(yaml.safe_dump(profiles), encoding="utf-8")
    control = PlainDbt(plain.ws, tmp_path)
    # A parse of its own: the project's saved one is the other adapter's.
    target = ["--target-path", str(tmp_path / "target"), "--no-partial-parse"]
    result = control.dbt("show", "--inline", SORT_KEY_QUERY, *target, profiles=tmp_path)
    assert result.returncode != 0
    assert "UNRESOLVED_ROUTINE" in result.stdout, result.stdout
