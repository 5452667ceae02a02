"""The sample on a standalone Spark cluster (a master and two workers on
127.0.0.1) with the shared catalog in a throw-away PostgreSQL server: the
parsing runs in the workers' executors, and every measurement and report
table equals the embedded local build's (tsdedup/standalone_cluster.py, which
`make cluster-check` runs too)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tsdedup import local_postgres, standalone_cluster

pytestmark = [pytest.mark.spark, pytest.mark.dbt]


def test_the_sample_on_a_cluster_with_the_shared_catalog_equals_the_local_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    why = local_postgres.missing()
    if why:
        pytest.skip(why)
    code = standalone_cluster.check(tmp_path, workers=2)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "executors ran on 2 of 2 workers" in out
    assert "the parsing ran in executor" in out
    assert "OK: cluster and local runs agree" in out
