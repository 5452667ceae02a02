"""One run at a time per tsdedup home.

The embedded Derby metastore admits one JVM; a second concurrent run would die
deep inside Spark with a long Java stack trace. The lock turns that into a short,
clear message before anything starts, and never harms the run that holds it.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType


class HomeLockedError(RuntimeError):
    """Another tsdedup process is using the same home."""


class HomeLock:
    """An exclusive, non-blocking lock on ``<home>/.lock`` (released by the OS
    if the holder dies, so a killed run never leaves a stale lock)."""

    def __init__(self, home: Path) -> None:
        self.path = home / ".lock"
        self._fd: int | None = None

    def __enter__(self) -> HomeLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise HomeLockedError(
                f"another tsdedup run (process {holder}) is using {self.path.parent}. "
                "The embedded metastore admits one run at a time, so this run stopped "
                "before touching anything; the other run is not affected. Wait for it to "
                "finish, or give this run its own state folder with TSDEDUP_HOME."
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode("ascii"))
        self._fd = fd
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
