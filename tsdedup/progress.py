"""Feedback while dbt works on something long.

dbt prints a line when a model starts and when it ends; a model that ingests
millions of lines or merges a large table may take minutes in between. While
dbt runs, a heartbeat thread prints a line each time a model or test has run
another ``TSDEDUP_PROGRESS_SECONDS`` (default 30, ``0`` for never), counted from
its own start, saying which, for how long, and how far along Spark's running
stages are:

    tsdedup: still running raw_chunks (1 min 05 s); Spark stage 12: 30 of 64 tasks done

It follows dbt's node start and end events (a dbt callback) and Spark's status
tracker; it never touches the run itself.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

PROGRESS_SECONDS = "TSDEDUP_PROGRESS_SECONDS"
DEFAULT_SECONDS = 30.0


class ProgressSettingError(ValueError):
    """TSDEDUP_PROGRESS_SECONDS is not a number of seconds."""


def interval_from_environment() -> float:
    """Seconds between progress lines (0: none)."""
    raw = os.environ.get(PROGRESS_SECONDS, "").strip()
    if not raw:
        return DEFAULT_SECONDS
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:
        raise ProgressSettingError(
            f"{PROGRESS_SECONDS}={raw!r}: give the seconds between progress lines (0 for none)"
        )
    return seconds


@dataclass(frozen=True)
class StageProgress:
    """One running Spark stage."""

    stage_id: int
    tasks: int
    done: int


def format_duration(seconds: float) -> str:
    whole = int(seconds)
    if whole < 60:
        return f"{whole} s"
    minutes, rest = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {rest:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def format_progress(running: Sequence[tuple[str, float]], stages: Sequence[StageProgress]) -> str:
    """One progress line: the nodes running (name, seconds) and Spark's stages."""
    nodes = ", ".join(f"{name} ({format_duration(seconds)})" for name, seconds in running)
    line = f"tsdedup: still running {nodes}"
    if stages:
        parts = [f"stage {s.stage_id}: {s.done} of {s.tasks} tasks done" for s in stages]
        line += "; Spark " + ", ".join(parts)
    return line


def spark_stages(spark: Any) -> list[StageProgress]:
    """The stages Spark is running now, by id."""
    tracker = spark.sparkContext.statusTracker()
    stages = []
    for stage_id in sorted(tracker.getActiveStageIds()):
        info = tracker.getStageInfo(stage_id)
        if info is not None:
            stages.append(StageProgress(int(stage_id), info.numTasks, info.numCompletedTasks))
    return stages


class Heartbeat:
    """Follows dbt's node events; while a node runs longer than ``interval``
    seconds, prints a progress line every ``interval`` seconds."""

    def __init__(
        self,
        interval: float,
        spark: Any | None = None,
        out: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.interval = interval
        self.spark = spark
        self.out = out or (lambda line: print(line, flush=True))
        self.clock = clock
        self._running: dict[str, tuple[str, float]] = {}
        # per running node, how many whole intervals it had run at its last line
        self._reported: dict[str, int] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def on_event(self, event: Any) -> None:
        """dbt callback: note when a node starts and ends."""
        name = event.info.name
        if name not in ("NodeStart", "NodeFinished"):
            return
        node = event.data.node_info
        with self._lock:
            if name == "NodeStart":
                self._running[node.unique_id] = (node.node_name, self.clock())
            else:
                self._running.pop(node.unique_id, None)
                self._reported.pop(node.unique_id, None)

    def line(self) -> str | None:
        """The progress line due now, if a node has run longer than the interval."""
        now = self.clock()
        with self._lock:
            running = [(name, now - started) for name, started in self._running.values()]
        running = [(name, seconds) for name, seconds in running if seconds >= self.interval]
        if not running:
            return None
        stages: list[StageProgress] = []
        if self.spark is not None:
            try:
                stages = spark_stages(self.spark)
            except Exception:  # a progress line never fails the run
                stages = []
        return format_progress(sorted(running, key=lambda r: -r[1]), stages)

    def due_line(self) -> str | None:
        """The progress line, when a node has run another whole interval since
        its last one (so a node that starts just after a check is not missed)."""
        now = self.clock()
        due = False
        with self._lock:
            for unique_id, (_, started) in self._running.items():
                intervals = int((now - started) // self.interval)
                if intervals > self._reported.get(unique_id, 0):
                    self._reported[unique_id] = intervals
                    due = True
        return self.line() if due else None

    def _beat(self) -> None:
        # Checks every second (or every interval, if shorter); speaks when due.
        while not self._stop.wait(min(1.0, self.interval)):
            line = self.due_line()
            if line is not None:
                self.out(line)

    def __enter__(self) -> Heartbeat:
        if self.interval > 0:
            self._thread = threading.Thread(target=self._beat, name="tsdedup-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
