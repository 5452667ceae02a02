"""Checks one case of the shared line-protocol conformance file against our parser."""

from __future__ import annotations

import base64
import math
from typing import Any

from python_udfs.line_protocol import LineProtocolError, Point, default_time, iter_lines

_TYPES = {
    "float": "float",
    "int": "integer",
    "uint": "unsigned",
    "bool": "boolean",
    "string": "string",
}


def case_text(case: dict[str, Any]) -> str:
    if "input_b64" in case:
        return base64.b64decode(case["input_b64"]).decode("utf-8", errors="surrogateescape")
    return case["input"]


def _expected_value(spec: dict[str, Any]) -> tuple[str, object]:
    type_ = _TYPES[spec["type"]]
    value = spec["value"]
    if type_ in ("integer", "unsigned"):
        value = int(value)
    return type_, value


def _same_value(actual: object, expected: object) -> bool:
    if isinstance(expected, float) and isinstance(actual, float):
        return actual == expected or math.isclose(actual, expected, rel_tol=1e-15)
    return type(actual) is type(expected) and actual == expected


def _point_problem(
    point: Point, want: dict[str, Any], default_time: int | None, sort_fields: bool
) -> str | None:
    if point.measurement != want["measurement"]:
        return f"measurement {point.measurement!r} != {want['measurement']!r}"
    if point.tags != dict(want["tags"]):
        return f"tags {point.tags!r} != {dict(want['tags'])!r}"
    got = [(key, point.field_types[key], value) for key, value in point.fields.items()]
    expected = [(key, *_expected_value(spec)) for key, spec in want["fields"]]
    if sort_fields:
        got.sort()
        expected.sort()
    if [(k, t) for k, t, _ in got] != [(k, t) for k, t, _ in expected]:
        return f"fields {got!r} != {expected!r}"
    for (key, _, value), (_, _, wanted) in zip(got, expected, strict=True):
        if not _same_value(value, wanted):
            return f"field {key!r}: {value!r} != {wanted!r}"
    time_ns = point.time_ns if point.time_ns is not None else default_time
    if time_ns != want["time"]:
        return f"time {time_ns!r} != {want['time']!r}"
    return None


def case_problem(case: dict[str, Any]) -> str | None:
    """None when the parser meets the case's expectation, else what differs."""
    text = case_text(case)
    results = [r for _, _, r in iter_lines(text, case["precision"]) if r is not None]
    errors = [r for r in results if isinstance(r, LineProtocolError)]
    points = [r for r in results if isinstance(r, Point)]
    sort_fields = case["id"].startswith("telegraf:")
    fallback = case["default_time"]
    if fallback is not None:
        fallback = default_time(fallback, case["precision"])
    expect = case["expect"]
    if expect == "error":
        return None if errors else f"accepted: {points!r}"
    if expect == "partial":
        kinds = ["error" if isinstance(r, LineProtocolError) else "ok" for r in results]
        wanted_kinds = [line["expect"] for line in case["per_line"]]
        if kinds != wanted_kinds:
            return f"per-line results {kinds} != {wanted_kinds}: {results!r}"
    elif errors:
        return f"rejected: {errors[0]}"
    wanted = case.get("points")
    if wanted is None:
        count = case.get("point_count")
        if count is not None and count != len(points):
            return f"{len(points)} points, expected {count}"
        return None
    if len(points) != len(wanted):
        return f"{len(points)} points, expected {len(wanted)}: {points!r}"
    for point, want in zip(points, wanted, strict=True):
        problem = _point_problem(point, want, fallback, sort_fields)
        if problem:
            return problem
    return None
