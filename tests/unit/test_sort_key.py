"""Sort keys from tag cardinality: the IOx example and properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from python_udfs.sort_key import (
    SortKeyError,
    compute_sort_key,
    fold_chunks,
    update_sort_key,
)


def test_first_chunk_orders_tags_by_cardinality_then_name() -> None:
    assert compute_sort_key({"host": 100, "region": 3, "dc": 3, "rack": 10}) == [
        "dc",
        "region",
        "rack",
        "host",
        "time",
    ]
    assert compute_sort_key({}) == ["time"]


# The example of the IOx document: files of one partition, persisted in order.
IOX_EXAMPLE = [
    # tags of the file, file sort key, partition sort key after the file
    (["tag1"], ["tag1", "time"], ["tag1", "time"]),
    (["tag2"], ["tag2", "time"], ["tag1", "tag2", "time"]),
    (["tag1", "tag3"], ["tag1", "tag3", "time"], ["tag1", "tag2", "tag3", "time"]),
    (["tag2", "tag3"], ["tag2", "tag3", "time"], ["tag1", "tag2", "tag3", "time"]),
    (["tag1", "tag4"], ["tag1", "tag4", "time"], ["tag1", "tag2", "tag3", "tag4", "time"]),
]


def test_the_iox_file_1_to_5_example() -> None:
    partition_key: list[str] = []
    for tags, file_key, expected_partition_key in IOX_EXAMPLE:
        if not partition_key:
            partition_key = compute_sort_key(dict.fromkeys(tags, 1))
            chunk_key = partition_key
        else:
            partition_key, chunk_key = update_sort_key(partition_key, tags)
        assert chunk_key == file_key
        assert partition_key == expected_partition_key


def test_fold_reports_which_chunks_changed_the_key() -> None:
    changes = fold_chunks(
        None, [(i + 1, dict.fromkeys(tags, 1)) for i, (tags, _, _) in enumerate(IOX_EXAMPLE)]
    )
    assert [c.changed for c in changes] == [True, True, True, False, True]
    assert [c.partition_key for c in changes] == [row[2] for row in IOX_EXAMPLE]
    assert [c.chunk_key for c in changes] == [row[1] for row in IOX_EXAMPLE]


def test_fold_applies_chunks_in_sequence_order() -> None:
    changes = fold_chunks(["a", "time"], [(7, {"z": 1}), (3, {"b": 9})])
    assert [c.chunk_seq for c in changes] == [3, 7]
    assert changes[-1].partition_key == ["a", "b", "z", "time"]


def test_new_tags_of_one_chunk_are_ordered_by_its_cardinalities() -> None:
    key, chunk = update_sort_key(["a", "time"], ["z", "y", "a"], {"z": 1, "y": 5, "a": 2})
    assert key == ["a", "z", "y", "time"]
    assert chunk == ["a", "z", "y", "time"]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: compute_sort_key({"time": 1}), "cannot contain the column name 'time'"),
        (lambda: compute_sort_key({"a": -1}), "invalid cardinality"),
        (lambda: update_sort_key(["a"], ["b"]), "must end with 'time'"),
        (lambda: update_sort_key(["a", "a", "time"], ["b"]), "lists a tag twice"),
    ],
)
def test_bad_keys_are_refused(call: object, message: str) -> None:
    with pytest.raises(SortKeyError, match=message):
        call()  # type: ignore[operator]


_tag = st.text(alphabet="abcdefgh", min_size=1, max_size=3)
_cardinalities = st.dictionaries(_tag, st.integers(0, 1000), max_size=6)


@given(_cardinalities)
def test_computed_key_is_a_permutation_with_time_last(cardinalities: dict[str, int]) -> None:
    key = compute_sort_key(cardinalities)
    assert key[-1] == "time"
    assert sorted(key[:-1]) == sorted(cardinalities)
    counts = [cardinalities[t] for t in key[:-1]]
    assert counts == sorted(counts)
    assert compute_sort_key(dict(reversed(list(cardinalities.items())))) == key  # deterministic


@given(st.lists(_cardinalities, min_size=1, max_size=8))
def test_existing_order_never_changes(chunks: list[dict[str, int]]) -> None:
    changes = fold_chunks(None, list(enumerate(chunks)))
    seen: set[str] = set()
    for before, after, chunk in zip([None, *changes], changes, chunks, strict=False):
        old = before.partition_key if before else []
        assert after.partition_key[-1] == "time"
        old_tags = old[:-1]
        assert after.partition_key[: len(old_tags)] == old_tags  # a prefix, in order
        seen |= set(chunk)
        assert sorted(after.partition_key[:-1]) == sorted(seen)
        # The chunk key is the partition key restricted to the chunk's tags.
        assert after.chunk_key == [c for c in after.partition_key if c == "time" or c in chunk]
        assert after.changed == (after.partition_key != old)
