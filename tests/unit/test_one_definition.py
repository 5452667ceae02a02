"""Rules the project names once: a second spelling of one is refused here."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from python_udfs.column_types import COLUMN_TYPES

ROOT = Path(__file__).resolve().parents[2]

# Accepted points are staging's points without a type conflict: one model,
# int_accepted_points, says so; everything else reads it.
ACCEPTED_POINTS_HOME = Path("models/intermediate/int_accepted_points.sql")
ANTI_JOIN = re.compile(r"\banti\s+join\b", re.IGNORECASE)


def leaves_conflicts_out(text: str) -> bool:
    """An anti join in a text that names int_type_conflicts (directly or through
    a variable, as a macro may): the rule spelled again."""
    return bool(ANTI_JOIN.search(text)) and "int_type_conflicts" in text


def sources() -> list[Path]:
    paths = [*ROOT.glob("models/**/*.sql"), *ROOT.glob("macros/**/*.sql")]
    paths += [*ROOT.glob("tests/singular/*.sql"), *ROOT.glob("python_udfs/**/*.py")]
    paths += [*ROOT.glob("tsdedup/**/*.py")]
    return sorted(path.relative_to(ROOT) for path in paths)


def test_the_pattern_finds_the_one_definition() -> None:
    # The check below would pass on any tree if the pattern matched nothing.
    assert leaves_conflicts_out((ROOT / ACCEPTED_POINTS_HOME).read_text(encoding="utf-8"))
    # as Python writes it, and as a macro does through a variable
    assert leaves_conflicts_out('f"left anti join {q}.int_type_conflicts as c "')
    assert leaves_conflicts_out(
        "{%- set c = ref('int_type_conflicts') -%}\nfrom p\nleft anti join {{ c }} as c"
    )
    assert not leaves_conflicts_out("select count(*) from {{ ref('int_type_conflicts') }}")


def test_accepted_points_are_defined_once() -> None:
    copies = [
        str(path)
        for path in sources()
        if path != ACCEPTED_POINTS_HOME
        and leaves_conflicts_out((ROOT / path).read_text(encoding="utf-8"))
    ]
    assert copies == [], (
        "these files leave type conflicts out of the points themselves; read "
        f"int_accepted_points instead: {copies}"
    )


# The column types (tag and the five field types), their map columns and SQL
# types: python_udfs/column_types.py for Python, macro column_types for SQL.
def test_the_column_types_macro_says_what_python_says(render) -> None:
    variants, errors = render("{{ tsdedup.column_types() | tojson }}\n")
    assert errors == []
    assert json.loads(variants[0]) == {
        name: {"map": column, "sql": sql_type} for name, (column, sql_type) in COLUMN_TYPES.items()
    }
    order, errors = render("{{ tsdedup.column_types() | list | join(' ') }}\n")
    assert errors == []
    assert order[0].split() == list(COLUMN_TYPES)  # the same order too


def test_the_column_catalog_accepts_exactly_the_column_types() -> None:
    doc = yaml.safe_load(
        (ROOT / "models/intermediate/_intermediate__models.yml").read_text(encoding="utf-8")
    )
    (catalog,) = [model for model in doc["models"] if model["name"] == "int_column_types"]
    (column,) = [column for column in catalog["columns"] if column["name"] == "column_type"]
    (test,) = [test for test in column["data_tests"] if "accepted_values" in test]
    assert test["accepted_values"]["arguments"]["values"] == list(COLUMN_TYPES)


def test_type_names_are_spelled_in_one_place_each() -> None:
    # A list of the five field type names in a row is a copy of the table.
    spelled = re.compile(r"""['"]float['"],\s*['"]integer['"],\s*['"]unsigned['"]""")
    # the copies there were, in Python and in a macro
    assert spelled.search('_TYPE_NAMES = ("float", "integer", "unsigned", "string", "boolean")')
    assert spelled.search("{%- set types = ['tag', 'float', 'integer', 'unsigned'] -%}")
    copies = [
        str(path) for path in sources() if spelled.search((ROOT / path).read_text(encoding="utf-8"))
    ]
    assert copies == [], f"read python_udfs/column_types.py or macro column_types instead: {copies}"
