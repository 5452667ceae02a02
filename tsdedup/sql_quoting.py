"""Names and values from data written into Spark SQL safely: the one Python
implementation of what the macros quote_identifier and string_literal do."""

from __future__ import annotations

from collections.abc import Iterable


def quote_identifier(name: str) -> str:
    """``name`` as a Spark SQL identifier; a backtick inside it is doubled, so no
    name can end the identifier early."""
    return "`" + name.replace("`", "``") + "`"


def string_literal(value: str) -> str:
    """``value`` as a Spark SQL string literal. Spark reads backslash escapes in
    literals, so backslashes are escaped first, then quotes and line breaks."""
    escaped = (
        value.replace("\\", "\\\\")
        .replace("'", "\\'")
        .replace("\n", "\\n")
        .replace("\r", "\\r")
        .replace("\t", "\\t")
    )
    return f"'{escaped}'"


def string_literals(values: Iterable[str]) -> str:
    """A comma-separated list of literals (``null`` when there is none)."""
    return ", ".join(string_literal(value) for value in values) or "null"
