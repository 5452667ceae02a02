"""Where the generator puts points: intervals, chunks and row counts."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bench.scales import Scale


@dataclass
class ChunkFiles:
    """The chunk files of one table (base) and of its delta, in ingestion order."""

    base: list[Path] = field(default_factory=list)
    delta: list[Path] = field(default_factory=list)


@dataclass(frozen=True)
class RowCounts:
    """How many rows of each kind a set of chunks holds."""

    originals: int
    exact_copies: int
    partial_copies: int

    @property
    def rows(self) -> int:
        return self.originals + self.exact_copies + self.partial_copies

    @property
    def redeliveries(self) -> int:
        return self.exact_copies + self.partial_copies


@dataclass(frozen=True)
class Layout:
    """Interval and chunk arithmetic of one table size (interval 0 is the start of
    the largest table; ``end`` is the table's end; chunk ``n`` covers intervals
    ``[n * C - pad, (n + 1) * C - pad)``)."""

    scale: Scale
    table_points: int

    @property
    def end(self) -> int:
        return self.scale.table_intervals

    @property
    def first(self) -> int:
        return self.end - self.table_points // self.scale.hosts

    @property
    def pad(self) -> int:
        c = self.scale.chunk_intervals
        return (c - self.end % c) % c

    def chunk_of(self, interval: int) -> int:
        return (interval + self.pad) // self.scale.chunk_intervals

    @property
    def first_chunk(self) -> int:
        return self.chunk_of(self.first)

    @property
    def delta_chunk(self) -> int:
        """The first chunk of the delta (the chunk starting at ``end``)."""
        return self.chunk_of(self.end)

    @property
    def delta_chunks(self) -> int:
        c = self.scale.chunk_intervals
        return -(-self.scale.new_delta_intervals // c)

    @property
    def last_interval(self) -> int:
        """One past the delta's last new interval."""
        return self.end + self.scale.new_delta_intervals
