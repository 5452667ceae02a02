from __future__ import annotations

from pathlib import Path

from bench.project_copy import DBT_PROJECT_PARTS, copy_dbt_project

ROOT = Path(__file__).resolve().parents[2]


def test_the_copy_holds_the_named_parts_only(tmp_path: Path) -> None:
    source = tmp_path / "source"
    (source / "models" / "staging").mkdir(parents=True)
    (source / "models" / "staging" / "a.sql").write_text("select 1", encoding="utf-8")
    (source / "models" / "__pycache__").mkdir()
    (source / "models" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    (source / "tests" / "singular").mkdir(parents=True)
    (source / "tests" / "singular" / "t.sql").write_text("select 2", encoding="utf-8")
    (source / "tests" / "unit").mkdir()
    (source / "tests" / "unit" / "test_x.py").write_text("", encoding="utf-8")
    (source / "dbt_project.yml").write_text("name: p\n", encoding="utf-8")
    (source / "target").mkdir()

    copy_dbt_project(source, tmp_path / "copy")

    copied = sorted(
        p.relative_to(tmp_path / "copy").as_posix() for p in (tmp_path / "copy").rglob("*")
    )
    assert copied == [
        "dbt_project.yml",
        "models",
        "models/staging",
        "models/staging/a.sql",
        "tests",
        "tests/singular",
        "tests/singular/t.sql",
    ]


def test_every_default_part_exists_in_this_project() -> None:
    # A renamed folder would otherwise silently drop out of every test workspace.
    assert [part for part in DBT_PROJECT_PARTS if not (ROOT / part).exists()] == []
