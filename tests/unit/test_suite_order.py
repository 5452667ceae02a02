"""The suite's file order (tests/conftest.py) names files that exist, and puts
them first without reordering the tests inside a file."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import SLOWEST_FIRST, file_rank

TESTS = Path(__file__).resolve().parents[1]


def test_every_file_in_the_order_exists() -> None:
    missing = [name for name in SLOWEST_FIRST if not (TESTS / name).is_file()]
    assert missing == []
    assert len(set(SLOWEST_FIRST)) == len(SLOWEST_FIRST)


def test_named_files_come_first_in_their_order_and_others_after() -> None:
    names = ["unit/test_cli.py", SLOWEST_FIRST[3], SLOWEST_FIRST[0], "unit/test_report.py"]
    assert sorted(names, key=file_rank) == [
        SLOWEST_FIRST[0],
        SLOWEST_FIRST[3],
        "unit/test_cli.py",
        "unit/test_report.py",
    ]
