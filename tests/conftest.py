"""Suite-wide ordering: the slowest test files first.

`make test` spreads whole files over three workers (`--dist loadfile
--no-loadscope-reorder`). Each worker takes the next file in collection order
when it runs short, so starting with the longest files leaves short ones to
fill the end instead of one worker finishing a ten-minute file alone.
"""

from __future__ import annotations

import pytest

# Test files by their time in a CI run, longest first (`--durations` shows them).
# A file not named here keeps its place after these.
SLOWEST_FIRST = (
    "integration/test_team_catalog.py",
    "integration/test_reserved_names.py",
    "integration/test_cluster.py",
    "integration/test_incremental.py",
    "integration/test_crash_and_readers.py",
    "integration/test_views.py",
    "integration/test_sample.py",
    "integration/test_engine.py",
    "integration/test_end_to_end.py",
    "integration/test_plain_dbt.py",
    "integration/test_discovered_measurements.py",
    "integration/test_merge.py",
    "integration/test_hostile_input.py",
    "integration/test_live_and_maintenance.py",
    "integration/test_retract.py",
    "integration/test_sort_keys.py",
    "integration/test_ingest_transport.py",
    "integration/test_series_hash.py",
    "integration/test_dedup_sql.py",
)


def file_rank(relative_path: str) -> int:
    """The file's place in SLOWEST_FIRST; every other file comes after them."""
    try:
        return SLOWEST_FIRST.index(relative_path)
    except ValueError:
        return len(SLOWEST_FIRST)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    tests_root = config.rootpath / "tests"

    def rank(item: pytest.Item) -> int:
        return file_rank(item.path.relative_to(tests_root).as_posix())

    # A stable sort: the tests of a file keep their order.
    items.sort(key=rank)
