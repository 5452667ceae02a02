"""The contracts of the public macros and SQL functions as data
(tests/macro_contracts): tsdedup installed as a local package in a dbt project
of input seeds, models that call the macros, and expected seeds, built by
plain dbt with the project's profile."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.project_copy import DBT_PROJECT_PARTS, copy_dbt_project
from tests.integration.conftest import ROOT

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

DBT = Path(sys.executable).with_name("dbt")
CONTRACTS = Path("tests") / "macro_contracts"


def dbt(contracts: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DBT_PROJECT_DIR", "DBT_PROFILES_DIR")}
    env.update(TSDEDUP_HOME=str(home), DBT_SEND_ANONYMOUS_USAGE_STATS="false")
    return subprocess.run(
        [str(DBT), *args, "--profiles-dir", str(contracts.parents[1] / "profiles")],
        cwd=contracts,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def statuses_of(contracts: Path) -> dict[str, str]:
    results = json.loads((contracts / "target" / "run_results.json").read_text())
    return {r["unique_id"]: r["status"] for r in results["results"]}


def test_every_contract_holds_and_a_broken_one_fails(tmp_path: Path) -> None:
    project = tmp_path / "project"
    copy_dbt_project(ROOT, project, (*DBT_PROJECT_PARTS, str(CONTRACTS)))
    contracts = project / CONTRACTS
    home = tmp_path / "home"
    deps = dbt(contracts, home, "deps")
    assert deps.returncode == 0, deps.stdout
    build = dbt(contracts, home, "build")
    assert build.returncode == 0, build.stdout + build.stderr
    statuses = statuses_of(contracts)
    tests = {k: v for k, v in statuses.items() if k.startswith("test.")}
    # Every model of the contracts is compared with its expected seed.
    for model in sorted((ROOT / CONTRACTS / "models").glob("*.sql")):
        (test_id,) = [t for t in tests if f".equal_rows_{model.stem}_ref_" in t]
        assert tests[test_id] == "pass", test_id
    assert set(statuses.values()) <= {"success", "pass"}

    # The comparison can fail: one expected value changed fails its case alone.
    expected = contracts / "seeds" / "expected_dedup_modes.csv"
    rows = expected.read_text(encoding="utf-8").splitlines()
    assert rows[1] == "fields,cpu,a,eu,100,3.0,ok"
    expected.write_text("\n".join([rows[0], "fields,cpu,a,eu,100,1.0,ok", *rows[2:]]) + "\n")
    broken = dbt(contracts, home, "build", "--select", "expected_dedup_modes", "dedup_modes+")
    assert broken.returncode == 1
    failed = [k for k, v in statuses_of(contracts).items() if v == "fail"]
    assert len(failed) == 1 and ".equal_rows_dedup_modes_ref_" in failed[0], failed
    assert "Got 2 results" in broken.stdout  # the row missing and the row unexpected
