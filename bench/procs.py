"""Run a command and measure it: wall time and the peak resident memory of the
whole process tree (the Python driver, the JVM it starts, Python workers)."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

_PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class Measured:
    """What a command did and cost."""

    returncode: int
    wall_seconds: float
    peak_rss_mb: float
    stdout: Path
    stderr: Path

    def tail(self, lines: int = 30) -> str:
        """The last lines of stdout and stderr, for error messages."""
        parts = []
        for path in (self.stdout, self.stderr):
            text = path.read_text(encoding="utf-8", errors="replace").splitlines()
            parts.append(f"--- {path.name}\n" + "\n".join(text[-lines:]))
        return "\n".join(parts)


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        # The command name may hold spaces and parentheses: fields follow the last ')'.
        fields = stat[stat.rfind(b")") + 2 :].split()
        tree.setdefault(int(fields[1]), []).append(int(entry))
    return tree


def _statm(pid: int) -> tuple[int, ...] | None:
    """A process's memory figures in pages (/proc/PID/statm), None once it is gone."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as handle:
            return tuple(int(field) for field in handle.read().split())
    except (OSError, ValueError):
        return None


def _exe(pid: int) -> str | None:
    """The binary a process runs (/proc/PID/exe), None once it is gone."""
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return None


def tree_rss_bytes(
    root: int,
    children: Callable[[], dict[int, list[int]]] = _children,
    statm: Callable[[int], tuple[int, ...] | None] = _statm,
    exe: Callable[[int], str | None] = _exe,
) -> int:
    """Resident bytes of ``root`` and all its descendants (0 once it is gone).

    The JVM starts `chmod` and the like through vfork: until the child runs
    its own binary, it shares the JVM's memory, which is counted once. Such a
    child shows its parent's figures page for page, or, when the JVM's memory
    moved between the two reads, still runs the JVM's own binary (a JVM
    starts no JVM of its own)."""
    tree = children()
    total = 0
    todo: list[tuple[int, tuple[int, ...] | None, str | None]] = [(root, None, None)]
    while todo:
        pid, parent, parent_exe = todo.pop()
        figures = statm(pid)
        binary = exe(pid)
        spawning = figures == parent or (
            parent_exe is not None
            and binary == parent_exe
            and os.path.basename(parent_exe) == "java"
        )
        if figures is not None and len(figures) > 1 and not spawning:
            total += figures[1] * _PAGE
        todo.extend((child, figures, binary) for child in tree.get(pid, ()))
    return total


class RssSampler:
    """Samples the resident memory of process trees in a thread (the command's,
    and those of ``also``: a resident engine the command runs in); keeps the
    peak of their sum."""

    def __init__(self, pid: int, interval: float = 0.2, also: Sequence[int] = ()) -> None:
        self.pids = [pid, *also]
        self.interval = interval
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, sum(tree_rss_bytes(pid) for pid in self.pids))
            self._stop.wait(self.interval)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def run_measured(
    command: Sequence[str],
    log_stem: Path,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    also: Sequence[int] = (),
) -> Measured:
    """Run ``command`` with stdout/stderr in ``<log_stem>.out``/``.err``; measure it
    (its memory with that of the process trees ``also``)."""
    log_stem.parent.mkdir(parents=True, exist_ok=True)
    out, err = log_stem.with_suffix(".out"), log_stem.with_suffix(".err")
    with out.open("wb") as stdout, err.open("wb") as stderr:
        started = time.monotonic()
        process = subprocess.Popen(
            list(command),
            cwd=cwd,
            env=dict(env) if env is not None else None,
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
        )
        with RssSampler(process.pid, also=also) as sampler:
            try:
                code = process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, 9)
                code = process.wait()
        wall = time.monotonic() - started
    return Measured(code, wall, sampler.peak / 2**20, out, err)
