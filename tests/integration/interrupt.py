"""Run ``tsdedup`` as a real process and kill it with SIGKILL at a chosen moment.

A moment is a text that the run writes to dbt's log (``logs/dbt.log`` in the
project: every node it starts and every statement it sends, before sending it)
plus a delay after that text appears. The process group is killed, so the JVM
dies with the Python process, as on a power cut.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from tests.integration.conftest import TSDEDUP, Result, Workspace


@dataclass(frozen=True)
class Moment:
    """When to kill: ``delay`` seconds after ``text`` first appears in the log."""

    phase: str
    text: str
    delay: float


@dataclass
class Interrupted:
    """What a killed run was doing."""

    moment: Moment
    killed: bool  # False: the run ended before the moment came
    running: str  # the last node the run had started
    seconds: float
    result: Result | None  # the run's output when it was not killed


class Launched:
    """A ``tsdedup`` process of a workspace, in its own process group."""

    def __init__(self, ws: Workspace, args: list[str], out_dir: Path) -> None:
        ws.stop()  # the metastore admits one process
        self.log = ws.project / "logs" / "dbt.log"
        self.offset = self.log.stat().st_size if self.log.exists() else 0
        out_dir.mkdir(parents=True, exist_ok=True)
        self.stdout = (out_dir / "stdout.txt").open("w+", encoding="utf-8")
        self.stderr = (out_dir / "stderr.txt").open("w+", encoding="utf-8")
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            [str(TSDEDUP), *args],
            cwd=ws.project,
            env=ws.env(),
            stdout=self.stdout,
            stderr=self.stderr,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )

    def new_log(self) -> str:
        """What the run has written to dbt's log so far."""
        if not self.log.exists():
            return ""
        with self.log.open("rb") as handle:
            handle.seek(self.offset)
            return handle.read().decode("utf-8", "replace")

    def wait_for(self, text: str, timeout: float) -> bool:
        """Wait until ``text`` is in the run's log; False if the run ended first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.new_log():
                return True
            if self.process.poll() is not None:
                return text in self.new_log()
            time.sleep(0.02)
        raise AssertionError(f"{text!r} did not appear in the log within {timeout} s")

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=60)

    def finish(self, timeout: float) -> Result:
        code = self.process.wait(timeout=timeout)
        for handle in (self.stdout, self.stderr):
            handle.seek(0)
        result = Result(code, self.stdout.read(), self.stderr.read())
        self.stdout.close()
        self.stderr.close()
        return result

    def running_node(self) -> str:
        started = [
            line.split("Began running node ", 1)[1].strip()
            for line in self.new_log().splitlines()
            if "Began running node " in line
        ]
        return started[-1] if started else "(no node yet)"


def run_and_kill(
    ws: Workspace, args: list[str], moment: Moment, out_dir: Path, timeout: float = 900
) -> Interrupted:
    """Run ``tsdedup *args`` and kill it at ``moment`` (if it comes)."""
    run = Launched(ws, args, out_dir)
    if run.wait_for(moment.text, timeout) and run.process.poll() is None:
        time.sleep(moment.delay)
        if run.process.poll() is None:
            running = run.running_node()
            run.kill()
            run.finish(60)
            return Interrupted(moment, True, running, time.monotonic() - run.started, None)
    result = run.finish(timeout)
    return Interrupted(moment, False, run.running_node(), time.monotonic() - run.started, result)
