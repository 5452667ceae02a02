"""Benchmark scales: how much data, how it is chunked and how much is re-delivered.

Layout (both scales): every host reports every 10 s, as in TSBS. A table of N
points holds the last N / hosts intervals before a fixed end time, 12:00 UTC on
2016-01-13, so its newest day partition is half full whatever N is, and tables
of different sizes differ only in how far back they reach.

Re-deliveries:

* in the table's own chunks, one re-delivered point per ten original points
  (``base_redelivery_share``), copied from the same chunk or the chunk before
  (a retry shortly after the first delivery);
* the delta of the incremental run is 1 % of the table's points
  (``delta_share``): 90 % new points that continue every host's series after
  the end time, 10 % (``delta_duplicate_share``) re-deliveries of points already
  in the table, all from its last hour (``recent_window_intervals``), since
  real-time re-deliveries are retries of recent writes;
* half of all re-deliveries (``partial_share``) are partial-field copies: the
  same series and time, some of the fields, with new values; the others are
  exact copies.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from bench.schema import INTERVAL_NS, TSBS_START_NS

DAY_NS = 86_400 * 1_000_000_000
# 2016-01-13T12:00:00Z: the end of every table (the delta's new points follow it).
TABLE_END_NS = TSBS_START_NS + 12 * DAY_NS + DAY_NS // 2


@dataclass(frozen=True)
class Scale:
    """Sizes and shares of one benchmark scale."""

    name: str
    hosts: int
    growth_points: tuple[int, ...]
    chunk_points: int
    seed: int = 20160101
    base_redelivery_share: float = 0.10
    delta_share: float = 0.01
    delta_duplicate_share: float = 0.10
    partial_share: float = 0.5
    recent_window_intervals: int = 360
    # The two full recomputes on Spark (tsdedup's rebuild, dropDuplicates) run
    # this many times each, alternating, and each reports its median run: a
    # single run of either varies by more than a tenth between identical runs.
    full_build_repeats: int = 1
    # Runs of the incremental run on each table, each from the same state (the
    # table as built, the delta just landed); each table reports its median
    # run: one run of the 1 % run's model varies by about 0.4 s.
    incremental_repeats: int = 1
    # More 1 % runs on the largest table once its tables are exported for the
    # checks, a chain as a feed brings them: each delta re-delivers points of
    # the one before (bench/chain.py); 0 runs no chain.
    chain_deltas: int = 3
    interval_ns: int = INTERVAL_NS
    end_ns: int = TABLE_END_NS

    def __post_init__(self) -> None:
        for points in self.growth_points:
            if points % self.hosts:
                raise ValueError(f"table size {points} is not a multiple of {self.hosts} hosts")
        if self.chunk_points % self.hosts:
            raise ValueError(f"chunk size {self.chunk_points} is not a multiple of the hosts")
        if self.new_delta_points % self.hosts:
            raise ValueError("the delta's new points must be whole intervals of all hosts")
        if self.recent_window_intervals > min(self.growth_points) // self.hosts:
            raise ValueError("the re-delivery window is longer than the smallest table")
        if self.full_build_repeats < 1:
            raise ValueError("the full recomputes must run at least once")
        if self.chain_deltas < 0:
            raise ValueError("the chain has no negative number of deltas: use 0 for none")
        if self.incremental_repeats < 1:
            raise ValueError("the incremental run must run at least once")

    @property
    def table_points(self) -> int:
        """Points of the main table (the largest of the growth series)."""
        return max(self.growth_points)

    @property
    def table_intervals(self) -> int:
        return self.table_points // self.hosts

    @property
    def chunk_intervals(self) -> int:
        return self.chunk_points // self.hosts

    @property
    def delta_points(self) -> int:
        return round(self.table_points * self.delta_share)

    @property
    def delta_duplicates(self) -> int:
        return round(self.delta_points * self.delta_duplicate_share)

    @property
    def new_delta_points(self) -> int:
        return self.delta_points - self.delta_duplicates

    @property
    def new_delta_intervals(self) -> int:
        return self.new_delta_points // self.hosts

    def with_overrides(self, **changes: object) -> Scale:
        return replace(self, **changes)  # type: ignore[arg-type]


SCALES: dict[str, Scale] = {
    # Every step of the full run on 20 k points: checks the harness, not the targets
    # (each tsdedup run's fixed cost dominates at this size). One table size: a
    # second one would only repeat the build and the incremental run (about two
    # minutes of start-up costs), so the growth series needs medium or full.
    "small": Scale(
        name="small",
        hosts=10,
        growth_points=(20_000,),
        chunk_points=500,
        recent_window_intervals=180,
    ),
    # A tenth of the full scale, for a first look at the ratios.
    "medium": Scale(
        name="medium",
        hosts=100,
        growth_points=(100_000, 1_000_000),
        chunk_points=1_000,
    ),
    # The targets of docs/benchmarks.md: a 10 M-point table and a 100 k-point delta.
    "full": Scale(
        name="full",
        hosts=100,
        growth_points=(1_000_000, 3_000_000, 10_000_000),
        # ~5 MB files: the table's 1,000 files are one run's worth (tsdedup's default).
        chunk_points=10_000,
        full_build_repeats=3,
        incremental_repeats=3,
    ),
}
