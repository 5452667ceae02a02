"""Rules the project names once: a second spelling of one is refused here."""

from __future__ import annotations

import re
from pathlib import Path

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
