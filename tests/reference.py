"""An independent, pure-Python statement of tsdedup's semantics, for checking
what the Spark pipeline produces.

Given the landed files in ingestion order it computes, per measurement, the
deduplicated rows: key = measurement + full tag set (absent tag = None) + time in
nanoseconds; per field the last non-null value in ingestion order (or the whole
last row). Field types: the first type a column is written with wins; points
that write another type are rejected. Column names are compared without case:
the first spelling wins, and points that spell the column otherwise are rejected.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from python_udfs.chunk_reader import ChunkFormatError, Record, read_chunk

Key = tuple[tuple[tuple[str, str], ...], int]


@dataclass
class Expected:
    """Expected outcome of ingesting some chunks."""

    tables: dict[str, dict[Key, dict[str, object]]] = field(default_factory=dict)
    column_types: dict[tuple[str, str], str] = field(default_factory=dict)
    points_read: int = 0
    rejected: int = 0
    type_conflicts: int = 0

    def rows(self, measurement: str) -> list[dict[str, object]]:
        """Rows of a measurement table: tags (None where absent), fields, time_ns."""
        tags = sorted(
            n for (m, n), t in self.column_types.items() if m == measurement and t == "tag"
        )
        fields = sorted(
            n for (m, n), t in self.column_types.items() if m == measurement and t != "tag"
        )
        out = []
        for (tag_items, time_ns), values in self.tables.get(measurement, {}).items():
            tag_map = dict(tag_items)
            row: dict[str, object] = {t: tag_map.get(t) for t in tags}
            row.update({f: values.get(f) for f in fields})
            row["time_ns"] = time_ns
            out.append(row)
        return out


def expected_from_files(
    files: Iterable[tuple[str, bytes]],
    precision: str = "ns",
    ingest_time_ns: int = 0,
    mode: str = "fields",
) -> Expected:
    """Replay ``(file name, content)`` chunks in order through the semantics."""
    result = Expected()
    ordered: list[tuple[int, int, Record]] = []
    for chunk_seq, (name, content) in enumerate(files, start=1):
        try:
            for item in read_chunk(name, content, precision, ingest_time_ns):
                if isinstance(item, Record):
                    ordered.append((chunk_seq, item.position, item))
                    result.points_read += 1
                else:
                    result.rejected += 1
        except ChunkFormatError:  # the whole file is one reject
            result.rejected += 1
    # Column types and spellings: first use in ingestion order wins.
    established: dict[tuple[str, str], tuple[str, str]] = {}
    for _, _, record in ordered:
        point = record.point
        used = [(n, "tag") for n in point.tags] + list(point.field_types.items())
        for name, type_ in used:
            established.setdefault((point.measurement, name.lower()), (name, type_))
    for (measurement, _), (name, type_) in established.items():
        result.column_types[(measurement, name)] = type_
    for _, _, record in ordered:
        point = record.point
        used = [(n, "tag") for n in point.tags] + list(point.field_types.items())
        conflict = any(
            established[(point.measurement, name.lower())] != (name, type_) for name, type_ in used
        )
        if conflict:
            result.type_conflicts += 1
            continue
        key: Key = (tuple(sorted(point.tags.items())), int(point.time_ns or 0))
        table = result.tables.setdefault(point.measurement, {})
        if mode == "last_row" or key not in table:
            table[key] = dict(point.fields)
        else:
            table[key].update(point.fields)
    return result
