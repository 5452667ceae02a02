"""The column names the project itself uses: every column of its models and
sources (from their YAML) and every alias or lambda variable written in its SQL
(models, macros, singular tests). Data may use any of them as a tag or field
name; tests land points named after all of them, so a new internal name is
covered as soon as it is written."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from python_udfs.chunk_reader import ICEBERG_METADATA_COLUMNS, RESERVED_COLUMNS

JINJA_COMMENT = re.compile(r"\{#.*?#\}", re.S)
SQL_COMMENT = re.compile(r"--[^\n]*")
ALIAS = re.compile(r"\bas\s+`?([A-Za-z_][A-Za-z0-9_]*)`?", re.I)
LAMBDA = re.compile(r"\(?\s*([A-Za-z_]\w*)(?:\s*,\s*([A-Za-z_]\w*))?\s*\)?\s*->")
# The names the reader refuses as tag or field names (the columns every
# measurement table has, its day partition field, Iceberg's metadata columns) and the SQL types that
# follow `cast(... as`.
RESERVED = RESERVED_COLUMNS | ICEBERG_METADATA_COLUMNS
SQL_TYPES = frozenset(
    {"array", "bigint", "binary", "boolean", "date", "decimal", "double", "int", "map", "string"}
    | {"struct", "timestamp"}
)
# Names the SQL of the project does not spell as aliases but a data name could
# still meet: names starting with `_`, and keywords.
EXTRA = (
    "partition",
    "_",
    "_hidden",
    "__tsdedup",
    "select",
    "group",
    "order",
    "where",
    "null",
    # deduplicate_points names the key and field columns it flattens by position.
    "key_1",
    "key_2",
    "field_1",
)


def internal_column_names(root: Path) -> list[str]:
    """Sorted, one spelling per name without case (names are compared without case)."""
    found: set[str] = set(EXTRA)
    for path in sorted(root.glob("models/**/*.yml")) + sorted(root.glob("macros/**/*.yml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for node in doc.get("models") or []:
            found.update(column["name"] for column in node.get("columns") or [])
        for source in doc.get("sources") or []:
            for table in source.get("tables") or []:
                found.update(column["name"] for column in table.get("columns") or [])
    sql_files = [*root.glob("models/**/*.sql"), *root.glob("macros/**/*.sql")]
    sql_files += root.glob("tests/singular/*.sql")
    for path in sorted(sql_files):
        text = SQL_COMMENT.sub("", JINJA_COMMENT.sub("", path.read_text(encoding="utf-8")))
        found.update(match.group(1) for match in ALIAS.finditer(text))
        for match in LAMBDA.finditer(text):
            found.update(name for name in match.groups() if name)
    by_lower: dict[str, str] = {}
    for name in sorted(found):
        if name.lower() not in RESERVED and name.lower() not in SQL_TYPES:
            by_lower.setdefault(name.lower(), name)
    return sorted(by_lower.values())
