"""Sort keys from tag cardinality, kept per partition (the InfluxDB IOx rules).

Deduplication and reads are cheapest when every file of a partition is sorted
the same way, so a partition has one *partition sort key*:

* the first chunk of a partition sets it: its tags by ascending number of
  distinct values (ties broken by name), then ``time``;
* a later chunk keeps the existing order; tags the key does not have yet are
  appended just before ``time`` (ordered like a first chunk's tags), and the
  partition key is updated;
* a chunk's own key (its *file sort key*) is the partition key without the tags
  the chunk does not have. Its data sorted by that key is also sorted by the
  partition key, because the missing tags are NULL in every row.

Keys are lists of column names with ``time`` last.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

TIME = "time"


class SortKeyError(ValueError):
    """A sort key or tag list that breaks the rules above."""


def _check_tags(tags: Iterable[str], what: str) -> list[str]:
    names = list(tags)
    if TIME in names:
        raise SortKeyError(f"{what} cannot contain the column name {TIME!r}")
    if len(set(names)) != len(names):
        raise SortKeyError(f"{what} lists a tag twice: {names}")
    return names


def _check_key(key: Sequence[str]) -> list[str]:
    if not key:
        return []
    if key[-1] != TIME:
        raise SortKeyError(f"a sort key must end with {TIME!r}: {list(key)}")
    return _check_tags(key[:-1], "a sort key")


def compute_sort_key(cardinalities: Mapping[str, int]) -> list[str]:
    """The sort key of a partition's first chunk: tags by ascending distinct count
    (ties by name), ``time`` last."""
    names = _check_tags(cardinalities, "cardinalities")
    for name in names:
        count = cardinalities[name]
        if count is None or count < 0:
            raise SortKeyError(f"tag {name!r} has an invalid cardinality: {count!r}")
    return [*sorted(names, key=lambda name: (cardinalities[name], name)), TIME]


def update_sort_key(
    partition_key: Sequence[str],
    chunk_tags: Iterable[str],
    cardinalities: Mapping[str, int] | None = None,
) -> tuple[list[str], list[str]]:
    """Fold a chunk into a partition sort key.

    Returns ``(new partition key, chunk key)``. An empty ``partition_key`` means
    the partition has no key yet. New tags go just before ``time``, ordered by
    ``cardinalities`` (the chunk's distinct counts) when given, else by name.
    """
    existing = _check_key(partition_key)
    tags = _check_tags(chunk_tags, "chunk tags")
    counts = cardinalities or {}
    new = sorted((t for t in tags if t not in existing), key=lambda t: (counts.get(t, 0), t))
    merged = [*existing, *new, TIME]
    present = set(tags)
    chunk_key = [name for name in merged if name == TIME or name in present]
    return merged, chunk_key


@dataclass(frozen=True, slots=True)
class KeyChange:
    """The partition key after one chunk, and whether that chunk changed it."""

    chunk_seq: int
    partition_key: list[str]
    chunk_key: list[str]
    changed: bool


def fold_chunks(
    partition_key: Sequence[str] | None,
    chunks: Iterable[tuple[int, Mapping[str, int]]],
) -> list[KeyChange]:
    """Apply chunks ``(chunk_seq, tag cardinalities)`` in order of ``chunk_seq``
    to a partition's key (None or empty: no key yet)."""
    key = list(partition_key or [])
    out = []
    for chunk_seq, cardinalities in sorted(chunks, key=lambda chunk: chunk[0]):
        if not key:
            new_key = compute_sort_key(cardinalities)
            chunk_key = list(new_key)
        else:
            new_key, chunk_key = update_sort_key(key, cardinalities, cardinalities)
        out.append(KeyChange(chunk_seq, new_key, chunk_key, new_key != key))
        key = new_key
    return out


# --- Spark registration -------------------------------------------------------------------------

FOLD_RETURN_TYPE = (
    "array<struct<chunk_seq: bigint, partition_key: array<string>, "
    "chunk_key: array<string>, changed: boolean>>"
)
UPDATE_RETURN_TYPE = "struct<partition_key: array<string>, chunk_key: array<string>>"


def _spark_compute(cardinalities: dict[str, int] | None) -> list[str] | None:
    return None if cardinalities is None else compute_sort_key(cardinalities)


def _spark_update(
    partition_key: list[str] | None, chunk_cardinalities: dict[str, int] | None
) -> tuple[list[str], list[str]] | None:
    if chunk_cardinalities is None:
        return None
    if not partition_key:
        key = compute_sort_key(chunk_cardinalities)
        return key, list(key)
    return update_sort_key(partition_key, chunk_cardinalities, chunk_cardinalities)


def _spark_fold(
    partition_key: list[str] | None, chunks: list[object] | None
) -> list[tuple[int, list[str], list[str], bool]]:
    pairs = [(int(c["chunk_seq"]), dict(c["cardinalities"] or {})) for c in chunks or []]  # type: ignore[index]
    return [
        (c.chunk_seq, c.partition_key, c.chunk_key, c.changed)
        for c in fold_chunks(partition_key, pairs)
    ]


def register(spark: object) -> None:
    """Register the SQL functions

    * ``tsdedup_compute_sort_key(cardinalities map<string, bigint>)``: a first key;
    * ``tsdedup_update_sort_key(partition_key array<string>, chunk_cardinalities
      map<string, bigint>)``: struct of the new partition key and the chunk key
      (an empty or NULL partition key means the chunk is the partition's first);
    * ``tsdedup_fold_sort_keys(partition_key, chunks array<struct<chunk_seq,
      cardinalities>>)``: every chunk of a partition in order, see fold_chunks.
    """
    udf = spark.udf  # type: ignore[attr-defined]
    udf.register("tsdedup_compute_sort_key", _spark_compute, "array<string>")
    udf.register("tsdedup_update_sort_key", _spark_update, UPDATE_RETURN_TYPE)
    udf.register("tsdedup_fold_sort_keys", _spark_fold, FOLD_RETURN_TYPE)
