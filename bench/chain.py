"""A chain of 1 % deltas, as a real-time feed brings them run after run.

The benchmark's delta continues every host's series after the table's end
and re-delivers points of the table's last hour. Delta ``k`` of the chain is
that delta moved ``k`` times its new points' span later: its new points
continue after the ones of delta ``k - 1``, and its re-deliveries fall on
points delta ``k - 1`` brought (the last hour of them, when the re-delivery
window is shorter than the span), so each run merges into what the run before
it wrote, as a feed's next run does.

Only the timestamps move: every line keeps its series, fields and values, so
the chain's runs do the same work as the benchmark's 1 % run.
"""

from __future__ import annotations

import os
from pathlib import Path

from bench.scales import Scale


class ChainError(ValueError):
    """A delta line that cannot be moved in time."""


def shift_span_ns(scale: Scale) -> int:
    """How far each delta of the chain lies after the one before: the span of
    the delta's new points."""
    return scale.new_delta_intervals * scale.interval_ns


def shifted_line(line: str, shift_ns: int) -> str:
    """``line`` (a generated line-protocol point, its timestamp last) with its
    timestamp ``shift_ns`` later."""
    head, space, stamp = line.rpartition(" ")
    if not space or not stamp.isdigit():
        raise ChainError(f"no timestamp at the end of the line: {line[:80]!r}")
    return f"{head} {int(stamp) + shift_ns}"


def shifted_file(source: Path, target: Path, shift_ns: int) -> None:
    """``source``'s lines, each moved ``shift_ns`` later, written to ``target``
    (under a temporary name first, so a half-written file is never seen)."""
    if source.suffix != ".lp":
        raise ChainError(f"{source}: a chain moves plain line-protocol files (.lp) only")
    lines = source.read_text(encoding="utf-8").splitlines()
    text = "".join(f"{shifted_line(line, shift_ns)}\n" for line in lines if line)
    tmp = target.with_name("." + target.name)
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, target)


def write_chain(scale: Scale, delta: list[Path], count: int, folder: Path) -> list[list[Path]]:
    """The chain's deltas after the benchmark's own (which is delta 0):
    ``folder/<k>/`` holds delta ``k``'s files, with delta 0's names, for ``k``
    in 1..count."""
    span = shift_span_ns(scale)
    chain: list[list[Path]] = []
    for k in range(1, count + 1):
        sub = folder / str(k)
        sub.mkdir(parents=True, exist_ok=True)
        files = []
        for path in delta:
            target = sub / path.name
            shifted_file(path, target, k * span)
            files.append(target)
        chain.append(files)
    return chain
