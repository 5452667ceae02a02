"""Read tsdedup's tables from another process, without Spark or the metastore.

The embedded Derby metastore admits one process, so while a run holds it no
other Spark session can open the catalog. The tables are Iceberg tables,
though: every version is a metadata file in the table's ``metadata/`` folder
that names all its data files, and is written completely before the run makes
it current. Reading through the newest one gives a whole version, never a
mix of two.

    from tsdedup.iceberg_reader import read_table
    rows = read_table(home, "h2o").to_pylist()          # the newest version
    rows = read_table(home, "h2o", snapshot_id=...)     # an earlier one

The newest whole metadata file is the current version or, for a moment, the
one a run is committing (a run killed at that moment leaves it written but not
current, until the next run commits; `remove_orphan_files` deletes it later).
A metadata file still being written, or cut short by a killed run, is
skipped. Uses pyiceberg's static tables.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

_METADATA = re.compile(r"^(\d+)-[0-9a-f-]+\.metadata\.json$")


class TableNotFoundError(FileNotFoundError):
    """The table has no metadata file under the home's warehouse."""


def table_folder(home: Path, table: str, schema: str = "tsdedup") -> Path:
    """Where a table of the home's warehouse keeps its data and metadata."""
    return Path(home) / "warehouse" / f"{schema}.db" / table


def metadata_files(folder: Path) -> list[Path]:
    """The metadata files in ``folder/metadata``, newest first: by version number,
    then, of two with the same number (a run killed while committing left one,
    and the next run wrote its own), the one written last."""
    versions = []
    for path in (folder / "metadata").glob("*.metadata.json"):
        match = _METADATA.match(path.name)
        if match is None:
            continue
        try:
            written = path.stat().st_mtime_ns
        except FileNotFoundError:  # removed by a cleanup meanwhile
            continue
        versions.append((int(match.group(1)), written, path))
    if not versions:
        raise TableNotFoundError(f"no Iceberg metadata file in {folder / 'metadata'}")
    return [path for _, _, path in sorted(versions, reverse=True)]


def load_table(home: Path, table: str, schema: str = "tsdedup") -> Any:
    """The pyiceberg static table of the table's newest whole metadata file.

    A metadata file is written in place, so the newest one may still be being
    written, or be cut short for good by a run killed while writing it; then the
    one before it is the newest whole version."""
    from pyiceberg.exceptions import ValidationError
    from pyiceberg.table import StaticTable

    candidates = metadata_files(table_folder(home, table, schema))
    for path in candidates[:-1]:
        try:
            return StaticTable.from_metadata(str(path))
        except (ValidationError, ValueError, FileNotFoundError):  # cut short, or removed
            continue
    return StaticTable.from_metadata(str(candidates[-1]))


def read_table(
    home: Path,
    table: str,
    schema: str = "tsdedup",
    columns: tuple[str, ...] = ("*",),
    snapshot_id: int | None = None,
) -> Any:
    """The rows of one version of a table as a pyarrow Table (the newest, or
    ``snapshot_id``)."""
    scan = load_table(home, table, schema).scan(selected_fields=columns, snapshot_id=snapshot_id)
    return scan.to_arrow()
