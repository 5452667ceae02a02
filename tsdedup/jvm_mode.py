"""A driver JVM tuned for the command's expected length (decision 0016).

A cold JVM spends most of a short command compiling: in a `tsdedup run` with
nothing new, the JIT compilers' threads take about half of the JVM's CPU time,
most of it the optimizing compiler (C2) compiling code the command leaves
before it pays off. Started with the quick compiler only (C1,
``-XX:TieredStopAtLevel=1``), such a run takes about 30 % less wall time; a
run over a lot of data is slower that way (its hot loops never get C2's code).

Every other command that starts its own JVM gets a tiered JVM whose
optimizing compiler waits for code about ten times hotter than by default
(``LONG_OPTIONS``, measured in decision 0016). The resident engine, which
lives long enough to pay for every compilation, keeps the JVM's defaults.

So ``tsdedup run`` picks the mode from the bytes landed since the last
successful run that ingested (ran ``raw_chunks``; the landing folder's listing
after it is kept in the state folder):
up to ``SHORT_RUN_BYTES``, a short-lived JVM; more, or ``--full-refresh``, or
no listing to compare with, the tiered one. A run that selects ``raw_chunks``
alone from a local landing folder is short-lived whatever it reads, its first
run included: the table function parses and writes in Python, and the JVM
only plans and commits (decisions 0016, 0021), unless var
``tsdedup_raw_write`` asks for Spark's own write. Every other command (dbt tests
scan whole tables) gets the tiered one too.
``TSDEDUP_JVM_MODE=short|long`` overrides the choice for a command that starts
its own JVM (not in the engine); ``auto`` is the default.
The mode changes how fast the JVM runs, never a result: files that wait for a
later run (more than one run's file limit) may be read by a short-lived JVM.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tsdedup.discovery import SELECT_OPTIONS
from tsdedup.up_to_date import is_full_refresh, landing_listing, local_landing

MODE_VARIABLE = "TSDEDUP_JVM_MODE"
MODES = ("auto", "short", "long")
# Up to this many new bytes a short-lived JVM is faster (decision 0016).
SHORT_RUN_BYTES = 96 * 1024 * 1024
# C1 alone would reserve 48 MB for compiled code, which a 1 % run fills; the
# JVM then stops compiling. Keep the tiered JVM's 240 MB (decision 0016).
# C1 compiles a method after half as many calls and a loop after a tenth of
# the iterations as by default: a short run's row loops, tens of thousands of
# rows per task, run compiled rather than interpreted (decision 0016).
SHORT_OPTIONS = (
    "-XX:TieredStopAtLevel=1",
    "-XX:ReservedCodeCacheSize=240m",
    "-XX:Tier3InvocationThreshold=100",
    "-XX:Tier3MinInvocationThreshold=50",
    "-XX:Tier3CompileThreshold=1000",
    "-XX:Tier3BackEdgeThreshold=6000",
)
# Any other command that starts its own JVM: C2 compiles only code that runs
# about ten times as often as its defaults ask, so the lukewarm code of
# planning and metadata stays with C1 and the hot loops still get C2.
LONG_OPTIONS = (
    "-XX:Tier4InvocationThreshold=50000",
    "-XX:Tier4MinInvocationThreshold=6000",
    "-XX:Tier4CompileThreshold=60000",
    "-XX:Tier4BackEdgeThreshold=400000",
)
LISTING_NAME = "landed_listing.json"


class JvmModeError(ValueError):
    """TSDEDUP_JVM_MODE names no mode."""


@dataclass(frozen=True)
class JvmMode:
    """The mode chosen for a command's driver JVM, and why."""

    short: bool
    reason: str

    @property
    def java_options(self) -> tuple[str, ...]:
        return SHORT_OPTIONS if self.short else LONG_OPTIONS


def mode_setting(environ: Mapping[str, str]) -> str:
    """The TSDEDUP_JVM_MODE setting, checked."""
    value = environ.get(MODE_VARIABLE, "auto").strip().lower() or "auto"
    if value not in MODES:
        raise JvmModeError(f"{MODE_VARIABLE}={value!r}: use one of {', '.join(MODES)}")
    return value


def new_bytes(before: Mapping[str, Sequence[int]], now: Mapping[str, Sequence[int]]) -> int:
    """The bytes of the files in ``now`` that are not in ``before`` as they are."""
    return sum(entry[0] for name, entry in now.items() if list(before.get(name, [])) != list(entry))


def _read_listing(home: Path) -> dict[str, list[int]] | None:
    """The listing kept after the last run; None when there is none or it is
    not one (any other content only means: no earlier listing)."""
    try:
        listing = json.loads((home / LISTING_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(listing, dict) or not all(
        isinstance(entry, list) and len(entry) == 2 and all(type(n) is int for n in entry)
        for entry in listing.values()
    ):
        return None
    return listing


def remember_landing(home: Path, listing: Mapping[str, Sequence[int]]) -> None:
    """After a successful run that ingested: the landing folder as it was when
    the run started (a file landed during the run counts as new next time).
    The listing is a hint, so failing to write it never fails the run."""
    path = home / LISTING_NAME
    partial = path.with_suffix(".partial")
    with contextlib.suppress(OSError):
        partial.write_text(json.dumps(listing), encoding="utf-8")
        partial.replace(path)


def choose(args: Sequence[str], environ: Mapping[str, str], home: Path) -> JvmMode:
    """The driver JVM's mode for ``tsdedup <args>`` (see the module's text)."""
    setting = mode_setting(environ)
    if setting != "auto":
        return JvmMode(setting == "short", f"{MODE_VARIABLE}={setting}")
    if not args or args[0] != "run":
        return JvmMode(False, "the default")
    if is_full_refresh(args, environ):
        return JvmMode(False, "a full refresh")
    landing = local_landing(environ)
    ingest_only = selection(args) == ["raw_chunks"] and "tsdedup_raw_write" not in " ".join(args)
    if landing is not None and ingest_only:
        return JvmMode(True, "an ingest-only run: the table function reads and writes")
    before = _read_listing(home)
    if before is None or landing is None:
        return JvmMode(False, "no earlier listing of the landing folder")
    landed = new_bytes(before, landing_listing(landing))
    megabytes = f"{landed / 1024 / 1024:.1f} MB landed since the last run"
    if landed > SHORT_RUN_BYTES:
        return JvmMode(False, megabytes)
    return JvmMode(True, megabytes)


def selection(args: Sequence[str]) -> list[str]:
    """The values of a dbt command's ``--select`` (``-s``, ``--models``, ``-m``)."""
    selected: list[str] = []
    taking = False
    for arg in args:
        if arg.startswith("-"):
            option, equals, value = arg.partition("=")
            taking = option in SELECT_OPTIONS and not equals
            if option in SELECT_OPTIONS and equals:
                selected.extend(value.split())
        elif taking:
            selected.append(arg)
    return selected
