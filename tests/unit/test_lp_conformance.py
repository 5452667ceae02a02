"""The parser against the shared line-protocol conformance cases.

The cases file is not part of the project. It is looked up at
``$TSDEDUP_LP_CASES`` or ``<project>/../shared/data/lp_cases.json``; the tests
skip when neither exists.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from python_udfs.line_protocol import LineProtocolError, iter_lines, parse_line
from tests.unit.lp_conformance import case_problem, case_text
from tests.unit.test_lp_vector import assert_same_rows

PROJECT = Path(__file__).resolve().parents[2]

# IOx cases whose expectation contradicts the reference decoder's (lpcorpus)
# behaviour. We follow the reference decoder; each is checked below instead.
IOX_DISAGREES = {
    # IOx accepts NUL inside keys; the reference decoder rejects control
    # characters in measurement names and keys (corpus case 'm,x\x01y=v v=1').
    "iox:parse_where_nulls_accepted:26": "control character in a tag key",
    # IOx reads a doubled backslash as one backslash; the reference decoder (and
    # telegraf) escape only the separators, so '\\' stays two characters.
    "iox:measurement_allows_escaping_*:95": "double backslash kept",
    "iox:tag_key_allows_escaping_*:103": "double backslash kept",
    "iox:tag_value_allows_escaping_*:104": "double backslash kept",
    "iox:field_key_allows_escaping_*:105": "double backslash kept",
}


def _cases_path() -> Path:
    return Path(os.environ.get("TSDEDUP_LP_CASES", PROJECT.parent / "shared/data/lp_cases.json"))


def _load_cases() -> list[dict[str, Any]]:
    path = _cases_path()
    if not path.is_file():
        return []
    return json.loads(path.read_text(encoding="utf-8"))["cases"]


CASES = _load_cases()
pytestmark = pytest.mark.skipif(not CASES, reason=f"conformance cases not found at {_cases_path()}")


def _ids(source: str) -> list[dict[str, Any]]:
    return [case for case in CASES if case["id"].startswith(source + ":")]


@pytest.mark.parametrize("case", _ids("lpcorpus"), ids=lambda case: case["id"])
def test_reference_decoder_corpus(case: dict[str, Any]) -> None:
    assert case_problem(case) is None, case_problem(case)


@pytest.mark.parametrize(
    "case",
    [case for case in _ids("iox") + _ids("telegraf") if case["id"] not in IOX_DISAGREES],
    ids=lambda case: case["id"],
)
def test_iox_and_telegraf_cases(case: dict[str, Any]) -> None:
    assert case_problem(case) is None, case_problem(case)


def test_every_suite_is_present() -> None:
    counts = {source: len(_ids(source)) for source in ("lpcorpus", "iox", "telegraf")}
    assert counts["lpcorpus"] >= 240 and counts["iox"] >= 100 and counts["telegraf"] >= 30
    known = {case["id"] for case in CASES}
    assert set(IOX_DISAGREES) <= known


@pytest.mark.parametrize("case_id", sorted(IOX_DISAGREES))
def test_disagreements_follow_the_reference_decoder(case_id: str) -> None:
    (case,) = [case for case in CASES if case["id"] == case_id]
    text = case_text(case)
    results = [r for _, _, r in iter_lines(text) if r is not None]
    if "control character" in IOX_DISAGREES[case_id]:
        assert any(isinstance(r, LineProtocolError) for r in results)
        return
    # The line keeps both backslashes of every '\\' pair.
    (point,) = results
    names = [point.measurement, *point.tags, *point.tags.values(), *point.fields]
    assert any(name == "\\\\wea\\\\ther" for name in names), names
    assert case_problem(case) is not None  # the IOx expectation really differs


def test_reference_decoder_keeps_double_backslash() -> None:
    assert parse_line(r"m,k=two\\ words v=1").tags == {"k": "two\\ words"}


def test_vectorized_reader_gives_the_exact_rows_for_every_case() -> None:
    """Every conformance input, alone and all in one file, read by the
    vectorized reader gives the exact reader's rows (tests/unit/test_lp_vector.py)."""
    texts = [case_text(case) for case in CASES]
    for text in texts:
        content = text.encode("utf-8", "surrogateescape")
        for precision in ("ns", "s"):
            assert_same_rows("case.lp", content, precision)
    valid = [t for t in texts if t.isprintable() or "\n" in t]
    assert_same_rows("all.lp", "\n".join(valid).encode("utf-8", "surrogateescape"))
