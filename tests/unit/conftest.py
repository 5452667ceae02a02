"""Fixtures of the unit tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from sqlfluff.core import FluffConfig, Linter

PROJECT = Path(__file__).resolve().parents[2]

Render = Callable[[str], tuple[list[str], list[str]]]


@pytest.fixture(scope="module")
def render() -> Render:
    """Render SQL text with sqlfluff's jinja templater and the dbt context of
    lint/sqlfluff_dbt_context (the project's macros, no Spark): each variant's
    text, and the templating errors."""
    config = FluffConfig.from_path(str(PROJECT / "models"))
    linter = Linter(config=config)

    def render(sql: str) -> tuple[list[str], list[str]]:
        rendered = linter.render_string(
            sql, str(PROJECT / "models" / "staging" / "example.sql"), config, "utf-8"
        )
        return (
            [variant.templated_str for variant in rendered.templated_variants],
            [violation.desc() for violation in rendered.templater_violations],
        )

    return render
