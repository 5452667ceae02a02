"""Measurement, tag and field names that must be read, stored and queried as
exactly these names, never as SQL or template text: quotes, backticks, SQL
statements, spaces, dots, unicode, keywords, Jinja, and Spark's variable syntax (which Spark would
replace anywhere in a statement unless told not to)."""

from __future__ import annotations

INJECTION = "x`; drop table y; --"

HOSTILE_NAMES = [
    'double"quote',
    "single'quote",
    "back`tick",
    INJECTION,
    "'); drop table tsdedup.y; --",
    "with space",
    "dotted.name",
    "ünïcødé_名前",
    "select",
    "from",
    "{{ 7 * 7 }}",
    "${var}",
    "back\\slash",
    "${env:HOME}",
]
