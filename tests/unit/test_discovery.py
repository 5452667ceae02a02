"""The rule that gives measurements without a model file their generated
models, and the files it writes (tsdedup/discovery.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tsdedup.discovery import (
    NOT_PLAIN,
    TABLE_FOLDER,
    VIEW_FOLDER,
    Project,
    follow_up_args,
    generated_files,
    has_selection,
    plan,
    read_project,
    remove_shadowed,
    write_generated,
)


def node(name: str, path: str, measurement: str | None = None, **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {} if measurement is None else {"tsdedup_measurement": measurement}
    if extra.pop("discovered", False):
        meta["tsdedup_discovered"] = True
    return {
        "name": name,
        "alias": extra.pop("alias", name),
        "resource_type": extra.pop("resource_type", "model"),
        "package_name": extra.pop("package_name", "tsdedup"),
        "original_file_path": path,
        "config": {"meta": meta},
    }


MANIFEST = {
    "metadata": {"project_name": "tsdedup"},
    "nodes": {
        "model.tsdedup.cpu": node("cpu", "models/measurements/cpu.sql", "cpu"),
        "model.tsdedup.cpu_live": node("cpu_live", "models/live/cpu_live.sql"),
        "model.tsdedup.mem_fields": node("mem_fields", "models/measurements/m.sql", "mem"),
        "model.tsdedup.stg_points": node("stg_points", "models/staging/stg_points.sql"),
        "model.tsdedup.renamed": node("renamed", "models/x.sql", alias="Sales"),
        "model.tsdedup.disk": node(
            "disk", "models/measurements/discovered/disk.sql", "disk", discovered=True
        ),
        "model.other.elsewhere": node("elsewhere", "x.sql", package_name="other"),
        "test.tsdedup.t": node("net_test", "models/x.yml", resource_type="test"),
    },
    "disabled": {
        "model.tsdedup.h2o": [node("h2o", "models/measurements/h2o.sql", "h2o")],
        "model.tsdedup.mem_last": [node("mem_last", "models/measurements/ml.sql", "mem")],
    },
    "sources": {
        "source.tsdedup.runs.run_statistics": {
            "package_name": "tsdedup",
            "identifier": "run_statistics",
            "source_name": "tsdedup_runs",
            "name": "run_statistics",
        }
    },
}


def test_the_project_declares_measurements_by_enabled_and_disabled_model_files() -> None:
    project = read_project(MANIFEST)
    assert project.declared == {"cpu": ("cpu",), "mem": ("mem_fields", "mem_last"), "h2o": ("h2o",)}
    assert project.disabled == {"h2o"}, "a measurement with an enabled model has a table"
    # Generated nodes, tests and other packages' nodes take no name.
    assert project.taken == {
        "cpu": "cpu",
        "cpu_live": "cpu_live",
        "mem_fields": "mem_fields",
        "stg_points": "stg_points",
        "sales": "renamed",
        "renamed": "renamed",
        "h2o": "h2o",
        "mem_last": "mem_last",
        "run_statistics": "tsdedup_runs.run_statistics",
    }


def test_every_landed_measurement_without_a_model_file_gets_one_unless_its_name_cannot() -> None:
    landed = [
        "cpu", "mem", "h2o", "disk", "net", "Net", "disk-io", "1st", "x" * 124, "x" * 123,
        "stg_points", "run_statistics", "sales", "renamed", "cpu_live", "disk_live", "stg",
        "sales_live", "wifi",
    ]  # fmt: skip
    project = read_project(MANIFEST)
    verdict = plan(landed, project)
    # `sales_live` may have a table: `sales` has none, so no live view of it either.
    assert verdict.generate == ("Net", "disk", "sales_live", "stg", "wifi", "x" * 123)
    taken = "its table or live view would take the name of the project's "
    assert verdict.refused == {
        "h2o": "its model h2o is disabled",
        "net": (
            "its table or live view would take a name that measurement Net has "
            "(table names ignore case)"
        ),
        "disk-io": NOT_PLAIN,
        "1st": NOT_PLAIN,
        "x" * 124: NOT_PLAIN,
        "stg_points": taken + "stg_points",
        "run_statistics": taken + "tsdedup_runs.run_statistics",
        "sales": taken + "renamed",
        "renamed": taken + "renamed",  # a model's name, not only its alias
        "cpu_live": taken + "cpu_live",
        "disk_live": (
            "its table or live view would take a name that measurement disk has "
            "(table names ignore case)"
        ),
    }
    # A disabled model refuses only a measurement that landed.
    assert plan(["cpu"], project) == plan(["cpu"], Project(project.declared, frozenset(), {}))


def test_a_discovered_measurement_keeps_its_names_when_another_claims_them() -> None:
    project = read_project(MANIFEST)
    # `net` had its table before `Net` landed; `a_live` before `a`.
    verdict = plan(["Net", "net", "a", "a_live"], project, existing=["net", "a_live"])
    assert verdict.generate == ("a_live", "net")
    assert set(verdict.refused) == {"Net", "a"}
    assert "measurement net has" in verdict.refused["Net"]
    assert "measurement a_live has" in verdict.refused["a"]


def test_generated_files_are_a_model_a_live_view_and_their_properties(tmp_path: Path) -> None:
    files = generated_files(["disk", "Mem"])
    assert files[TABLE_FOLDER / "disk.sql"].endswith("{{ tsdedup.measurement('disk') }}\n")
    assert files[VIEW_FOLDER / "Mem_live.sql"].endswith(
        "{{ tsdedup.live_measurement(ref('Mem')) }}\n"
    )
    tables = yaml.safe_load(files[TABLE_FOLDER / "_discovered__models.yml"])
    assert [m["name"] for m in tables["models"]] == ["Mem", "disk"]
    assert tables["models"][1]["config"] == {"meta": {"tsdedup_discovered": True}}
    assert tables["models"][1]["data_tests"] == [
        "no_duplicate_points",
        "sort_keys_match_columns",
        "rows_match_raw_keys",
    ]
    views = yaml.safe_load(files[VIEW_FOLDER / "_discovered__models.yml"])
    assert views["models"][0]["name"] == "Mem_live"
    assert views["models"][0]["data_tests"] == [
        {"no_duplicate_points": {"arguments": {"measurement": "Mem"}}}
    ]
    try:
        generated_files(["a'b"])
    except ValueError as exc:
        assert "a'b" in str(exc)
    else:
        raise AssertionError("a name that is not plain must not reach a file")


def test_writing_keeps_unchanged_files_and_reports_new_models(tmp_path: Path) -> None:
    assert write_generated(tmp_path, ["disk"]) == ["disk"]
    sql = tmp_path / TABLE_FOLDER / "disk.sql"
    stamp = sql.stat().st_mtime_ns
    assert write_generated(tmp_path, ["disk", "net"]) == ["net"]
    assert sql.stat().st_mtime_ns == stamp, "an unchanged file is not rewritten"
    assert write_generated(tmp_path, ["net"]) == []
    assert not sql.exists()
    assert sorted(p.name for p in (tmp_path / VIEW_FOLDER).iterdir()) == [
        "_discovered__models.yml",
        "net_live.sql",
    ]
    assert write_generated(tmp_path, []) == []
    assert list((tmp_path / TABLE_FOLDER).iterdir()) == []


def test_a_file_of_the_projects_removes_the_generated_ones_of_its_name(tmp_path: Path) -> None:
    write_generated(tmp_path, ["disk", "net", "wifi"])
    (tmp_path / "models" / "staging").mkdir(parents=True)
    (tmp_path / "models" / "staging" / "stg.sql").write_text("select 1\n")
    assert remove_shadowed(tmp_path) == []
    (tmp_path / "models" / "measurements" / "Disk.sql").write_text("select 1\n")
    (tmp_path / "seeds").mkdir()
    (tmp_path / "seeds" / "wifi_live.csv").write_text("a\n1\n")
    assert remove_shadowed(tmp_path) == ["disk", "wifi"]
    assert sorted(p.name for p in (tmp_path / TABLE_FOLDER).iterdir()) == [
        "_discovered__models.yml",
        "net.sql",
    ]
    assert sorted(p.name for p in (tmp_path / VIEW_FOLDER).iterdir()) == [
        "_discovered__models.yml",
        "net_live.sql",
    ]


def test_a_follow_up_build_selects_the_new_models_and_the_reports_that_list_them() -> None:
    assert not has_selection(["build", "--target", "local", "--full-refresh"])
    for args in (
        ["build", "-s", "cpu"],
        ["run", "--select=cpu"],
        ["build", "--exclude", "x"],
        ["build", "--resource-type", "seed"],
    ):
        assert has_selection(args)
    # By path: a measurement named like the project or a tag selects its model only.
    assert follow_up_args(["build", "--target", "local"], ["disk", "tsdedup"]) == [
        "build",
        "--target",
        "local",
        "--select",
        "path:models/measurements/discovered/disk.sql+",
        "path:models/measurements/discovered/tsdedup.sql+",
        "rpt_measurements",
    ]
