"""Benchmarks of tsdedup against other ways to deduplicate time-series points.

Run ``python -m bench --scale small|full --out FILE``; see docs/benchmarks.md.
"""
