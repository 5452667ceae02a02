"""Skip a ``tsdedup run`` or ``tsdedup build`` that has nothing to do.

A run's result depends only on what it reads: the landed files, the project
(models, macros, tests, profiles, ``dbt_project.yml``), the Python code of the
table function, the command line and the ``TSDEDUP_*`` / ``DBT_*`` settings.
After a successful run the command records a fingerprint of all of them in the
state folder. The next identical command whose fingerprint matches, with nothing
run in between, would only reproduce the same tables, so it stops before
starting Spark and says so.

Any other command in the same state folder (``sql``, ``run-operation``,
``sample``, a run that fails, ...) first forgets the record, so whatever it may
have changed is never hidden by a skip. A full refresh never skips, and a
landing folder that is not on the local file system (``s3://``, ``hdfs://``)
cannot be fingerprinted cheaply, so runs reading one never skip either.
``TSDEDUP_RUN_ALWAYS=1`` turns skipping off.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

from tsdedup.packages import code_sources

SKIPPABLE_COMMANDS = frozenset({"run", "build"})
ALWAYS_RUN = "TSDEDUP_RUN_ALWAYS"
RECORD_NAME = "last_success.json"
# Project folders and files a dbt run reads.
PROJECT_PARTS = (
    "dbt_project.yml",
    "packages.yml",
    "selectors.yml",
    "models",
    "macros",
    "tests",
    "seeds",
    "snapshots",
    "analyses",
)
_IGNORED_DIRS = frozenset({"__pycache__", ".pytest_cache"})


def _files_under(path: Path) -> Iterable[Path]:
    if path.is_file():
        yield path
        return
    for folder, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if d not in _IGNORED_DIRS)
        for name in sorted(files):
            yield Path(folder) / name


def _hash_contents(digest: hashlib._Hash, label: str, root: Path, parts: Sequence[str]) -> None:
    for part in parts:
        for path in _files_under(root / part):
            digest.update(f"{label}:{path.relative_to(root)}\0".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())


def local_landing(environ: Mapping[str, str]) -> Path | None:
    """The landing folder when it is a local folder (one on s3:// or hdfs:// is
    not listed: that would take as long as the run's own check)."""
    landing = environ.get("TSDEDUP_LANDING", "")
    if not landing or "://" in landing or not Path(landing).is_dir():
        return None
    return Path(landing)


def landing_listing(folder: Path) -> dict[str, list[int]]:
    """Every file under the landing folder: relative name -> [size, mtime in ns]
    (contents are not read: a changed file changes its size or time)."""
    listing: dict[str, list[int]] = {}
    for parent, dirs, files in os.walk(folder):
        dirs.sort()
        for name in files:
            path = Path(parent) / name
            try:
                stat = path.stat()
            except OSError:  # removed meanwhile
                continue
            listing[str(path.relative_to(folder))] = [stat.st_size, stat.st_mtime_ns]
    return listing


def _hash_listing(digest: hashlib._Hash, folder: Path) -> None:
    for name, (size, mtime_ns) in sorted(landing_listing(folder).items()):
        digest.update(f"landed:{name}\0{size}\0{mtime_ns}\0".encode())


def is_full_refresh(args: Sequence[str], environ: Mapping[str, str]) -> bool:
    """Whether dbt runs ``args`` as a full refresh: ``--full-refresh``, ``-f``
    or DBT_FULL_REFRESH set true."""
    flag = environ.get("DBT_FULL_REFRESH", "").strip().lower() in ("1", "true", "yes", "y")
    return flag or "--full-refresh" in args or "-f" in args


def fingerprint(
    args: Sequence[str],
    project_dir: Path,
    environ: Mapping[str, str],
    profiles_dir: Path | None = None,
) -> str | None:
    """The fingerprint of everything ``tsdedup <args>`` reads, or None when the
    command must always run. ``profiles_dir``: the profile's folder dbt reads
    (default DBT_PROFILES_DIR, else the project's)."""
    if not args or args[0] not in SKIPPABLE_COMMANDS or is_full_refresh(args, environ):
        return None
    if environ.get(ALWAYS_RUN, "").strip().lower() not in ("", "0", "false", "no"):
        return None
    landing = local_landing(environ)
    if landing is None:
        return None
    digest = hashlib.sha256()
    digest.update(json.dumps(list(args)).encode())
    settings = {
        k: v for k, v in environ.items() if k.startswith(("TSDEDUP_", "DBT_")) and k != ALWAYS_RUN
    }
    digest.update(json.dumps(settings, sort_keys=True).encode())
    _hash_contents(digest, "project", project_dir, PROJECT_PARTS)
    profiles = profiles_dir or Path(environ.get("DBT_PROFILES_DIR") or project_dir / "profiles")
    _hash_contents(digest, "profiles", profiles, ["profiles.yml"])
    for source in code_sources():
        _hash_contents(digest, f"python:{source.parent.name}", source.parent, [source.name])
    _hash_listing(digest, landing)
    return digest.hexdigest()


def _record(home: Path) -> Path:
    return home / RECORD_NAME


def last_success(home: Path, current: str) -> str | None:
    """When the last successful run had fingerprint ``current``: its finish time."""
    try:
        record = json.loads(_record(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("fingerprint") != current:
        return None
    return str(record.get("finished_at", "an unknown time"))


def forget(home: Path) -> None:
    """Drop the record before a command that may change the tables."""
    _record(home).unlink(missing_ok=True)


def remember(home: Path, current: str, args: Sequence[str]) -> None:
    """Record a successful run (written whole, then renamed into place)."""
    record = {
        "fingerprint": current,
        "command": ["tsdedup", *args],
        "finished_at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
    }
    path = _record(home)
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    partial.replace(path)


def skip_message(args: Sequence[str], finished_at: str) -> str:
    return (
        f"tsdedup: nothing to do. No landed file, project file or setting has changed "
        f"since the same command (tsdedup {' '.join(args)}) succeeded at {finished_at}, "
        f"so the tables are current and Spark was not started. "
        f"Set {ALWAYS_RUN}=1 to run anyway."
    )
