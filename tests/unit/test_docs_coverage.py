"""Every model, macro, generic test and singular test is described in YAML, and
every macro's documented arguments are exactly its parameters, in order (what
`tsdedup docs generate` shows)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]

# `{% macro name(a, b=1) %}` or `{% test name(model, c=none) %}`, any whitespace control.
DEFINITION = re.compile(r"\{%-?\s*(macro|test)\s+(\w+)\s*\((.*?)\)\s*-?%\}", re.DOTALL)


def _parameters(signature: str) -> list[str]:
    """Parameter names of a Jinja signature (its defaults are Python expressions too)."""
    function = ast.parse(f"def f({signature}): pass").body[0]
    assert isinstance(function, ast.FunctionDef)
    return [argument.arg for argument in function.args.args]


def defined_macros() -> dict[str, list[str]]:
    """Macro name (generic tests as ``test_<name>``, as dbt names them) -> parameters."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "macros").rglob("*.sql")):
        for kind, name, signature in DEFINITION.findall(path.read_text(encoding="utf-8")):
            key = f"test_{name}" if kind == "test" else name
            assert key not in found, f"{key} is defined twice ({path})"
            found[key] = _parameters(signature)
    return found


def _documents(folder: str, section: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for path in sorted((ROOT / folder).rglob("*.yml")):
        document = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        entries.extend(document.get(section) or [])
    return entries


def documented_macros() -> dict[str, dict[str, Any]]:
    entries = _documents("macros", "macros")
    names = [e["name"] for e in entries]
    assert len(names) == len(set(names)), "a macro is described twice"
    return {e["name"]: e for e in entries}


def test_the_signature_reader_finds_parameters() -> None:
    text = "{%- macro m(a, b='x, y'\n, c=none) -%}{% test t(model) %}"
    assert DEFINITION.findall(text) == [
        ("macro", "m", "a, b='x, y'\n, c=none"),
        ("test", "t", "model"),
    ]
    assert _parameters("a, b='x, y'\n, c=none") == ["a", "b", "c"]
    assert _parameters("") == []


def test_every_macro_is_described_with_its_arguments() -> None:
    defined = defined_macros()
    documented = documented_macros()
    assert len(defined) > 50  # the reader found the project's macros
    assert sorted(set(defined) - set(documented)) == [], "macros without a description"
    assert sorted(set(documented) - set(defined)) == [], "descriptions of no macro"
    for name, parameters in defined.items():
        entry = documented[name]
        assert str(entry.get("description") or "").strip(), f"{name}: empty description"
        arguments = entry.get("arguments") or []
        assert [a["name"] for a in arguments] == parameters, f"{name}: arguments"
        for argument in arguments:
            assert str(argument.get("description") or "").strip(), f"{name}.{argument['name']}"
            assert argument.get("type"), f"{name}.{argument['name']}: no type"


def test_every_model_and_its_columns_are_described() -> None:
    models = {p.stem for p in (ROOT / "models").rglob("*.sql")}
    entries = {e["name"]: e for e in _documents("models", "models")}
    assert sorted(models - set(entries)) == [], "models without a description"
    for name in models:
        entry = entries[name]
        assert str(entry.get("description") or "").strip(), name
        for column in entry.get("columns") or []:
            assert str(column.get("description") or "").strip(), f"{name}.{column['name']}"


def test_every_singular_test_is_described() -> None:
    tests = {p.stem for p in (ROOT / "tests" / "singular").glob("*.sql")}
    entries = {e["name"]: e for e in _documents("tests/singular", "data_tests")}
    assert tests
    assert sorted(tests - set(entries)) == []
    assert all(str(entries[t].get("description") or "").strip() for t in tests)


# A macro file's header comment is a short contract; the reasons live in its
# YAML description, docs/ and docs/decisions/.
HEADER_LINES = 5


def header_lines(text: str) -> int:
    """Lines of text inside the `{# ... #}` a macro file starts with (0: none)."""
    if not text.startswith("{#"):
        return 0
    return text[: text.index("#}")].count("\n") - 1


def test_header_lines_counts_the_text_between_the_markers() -> None:
    assert header_lines("{% macro m() %}{% endmacro %}") == 0
    assert header_lines("{#\n    one\n    two\n#}\n{% macro m() %}") == 2


def test_macro_headers_are_short_contracts() -> None:
    long = {
        str(path.relative_to(ROOT)): lines
        for path in sorted((ROOT / "macros").rglob("*.sql"))
        if (lines := header_lines(path.read_text(encoding="utf-8"))) > HEADER_LINES
    }
    assert long == {}, f"headers longer than {HEADER_LINES} lines (move the reasons out): {long}"
