"""A reader in another process than the runs: it reads tables through their
Iceberg metadata files (tsdedup.iceberg_reader, no Spark, no metastore)
over and over while runs commit, and records every version it sees."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyiceberg.exceptions import ValidationError

from tsdedup.iceberg_reader import TableNotFoundError, load_table

Summary = Callable[[Any], Hashable]


@dataclass
class Seen:
    """One version a reader saw: its metadata file and the summary of its rows."""

    metadata_file: str
    state: Hashable


@dataclass
class VersionWatch:
    """Reads ``tables`` (name -> summary of a pyarrow Table) every ``interval``
    seconds in a thread, until stopped."""

    home: Path
    tables: dict[str, Summary]
    interval: float = 0.25
    seen: dict[str, list[Seen]] = field(default_factory=dict)
    retries: int = 0
    errors: list[str] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __enter__(self) -> VersionWatch:
        self._thread = threading.Thread(target=self._run, name="version-watch", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=60)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            for name, summary in self.tables.items():
                self._read(name, summary)

    def _read(self, name: str, summary: Summary) -> None:
        history = self.seen.setdefault(name, [])
        try:
            table = load_table(self.home, name)
            metadata_file = str(table.metadata_location)
            if history and history[-1].metadata_file == metadata_file:
                return
            state = summary(table.scan().to_arrow())
        except TableNotFoundError:
            return
        except (ValidationError, ValueError, FileNotFoundError) as exc:
            # A metadata file still being written (its JSON incomplete), or one a
            # cleanup removed between listing and opening: read again next time.
            self.retries += 1
            if self.retries > 200:
                self.errors.append(f"{name}: {type(exc).__name__}: {exc}")
            return
        except Exception as exc:  # recorded, and the test fails on it
            self.errors.append(f"{name}: {type(exc).__name__}: {exc}")
            return
        history.append(Seen(metadata_file, state))
