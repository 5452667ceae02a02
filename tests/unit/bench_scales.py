"""A benchmark scale small enough for unit tests: every step of the generator
on a few hundred points."""

from __future__ import annotations

from bench.scales import Scale

TINY = Scale(
    name="tiny",
    hosts=4,
    growth_points=(400, 800),
    chunk_points=40,
    delta_share=0.05,
    recent_window_intervals=20,
)
