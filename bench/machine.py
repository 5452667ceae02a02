"""What the benchmark ran on: cores, memory, load, software versions."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import threading
from importlib import metadata
from pathlib import Path

PACKAGES = (
    "pyspark",
    "dbt-core",
    "dbt-spark",
    "duckdb",
    "pyarrow",
    "snowpark-connect-deps-iceberg",
)


def _meminfo_gib() -> float:
    for line in Path("/proc/meminfo").read_text(encoding="ascii").splitlines():
        if line.startswith("MemTotal:"):
            return round(int(line.split()[1]) / 2**20, 1)
    return 0.0


def _cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def machine() -> dict[str, object]:
    return {
        "cores": os.cpu_count(),
        "memory_gib": _meminfo_gib(),
        "cpu": _cpu_model(),
        "system": f"{platform.system()} {platform.release()}",
    }


def _java_version() -> str:
    try:
        done = subprocess.run(["java", "-version"], capture_output=True, text=True, check=False)
    except OSError:
        return "unknown"
    lines = (done.stderr or done.stdout).splitlines()
    return lines[0] if lines else "unknown"


def _project_revision(root: Path) -> str:
    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, check=False
        )
        return done.stdout.strip()

    revision = git("rev-parse", "--short", "HEAD") or "unknown"
    changed = [line for line in git("status", "--porcelain").splitlines() if line.strip()]
    return f"{revision} (+{len(changed)} uncommitted changes)" if changed else revision


def versions(project_root: Path) -> dict[str, str]:
    found = {"python": sys.version.split()[0], "java": _java_version()}
    for name in PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    found["tsdedup"] = _project_revision(project_root)
    return found


def uptime() -> str:
    """The ``uptime`` line (load averages over 1, 5, 15 minutes)."""
    try:
        done = subprocess.run(["uptime"], capture_output=True, text=True, check=False)
        return done.stdout.strip()
    except OSError:
        return Path("/proc/loadavg").read_text(encoding="ascii").strip()


def load_average() -> float:
    return float(Path("/proc/loadavg").read_text(encoding="ascii").split()[0])


class LoadSampler:
    """Samples the 1-minute load average while the benchmark runs."""

    def __init__(self, interval: float = 15.0) -> None:
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._interval = interval
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.samples.append(load_average())
            self._stop.wait(self._interval)

    def start(self) -> LoadSampler:
        self._thread.start()
        return self

    def stop(self) -> dict[str, float]:
        self._stop.set()
        self._thread.join()
        values = self.samples or [load_average()]
        return {
            "min": round(min(values), 2),
            "mean": round(sum(values) / len(values), 2),
            "max": round(max(values), 2),
            "samples": len(values),
        }
