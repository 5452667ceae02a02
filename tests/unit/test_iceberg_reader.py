"""Choosing the version a reader outside Spark reads (tsdedup/iceberg_reader.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tsdedup.iceberg_reader import (
    TableNotFoundError,
    load_table,
    metadata_files,
    table_folder,
)


def write(folder: Path, name: str, mtime_ns: int) -> Path:
    path = folder / "metadata" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}", encoding="utf-8")
    os.utime(path, ns=(mtime_ns, mtime_ns))
    return path


def test_the_highest_version_wins_then_the_file_written_last(tmp_path: Path) -> None:
    uuid = "0a1b2c3d-0000-4000-8000-00000000000{}"
    write(tmp_path, f"00001-{uuid.format(1)}.metadata.json", 5_000)
    write(tmp_path, f"00009-{uuid.format(2)}.metadata.json", 1_000)
    write(tmp_path, f"00010-{uuid.format(3)}.metadata.json", 2_000)
    # A run killed while committing left version 11; the next run wrote its own.
    write(tmp_path, f"00011-{uuid.format(4)}.metadata.json", 3_000)
    newest = write(tmp_path, f"00011-{uuid.format(5)}.metadata.json", 4_000)
    write(tmp_path, "snap-1-1-abc.avro", 9_000)
    write(tmp_path, "99999-notes.txt", 9_000)
    assert metadata_files(tmp_path)[0] == newest


def test_a_table_without_metadata_is_named(tmp_path: Path) -> None:
    folder = table_folder(tmp_path, "h2o")
    assert folder == tmp_path / "warehouse" / "tsdedup.db" / "h2o"
    with pytest.raises(TableNotFoundError, match=r"no Iceberg metadata file in .*h2o/metadata"):
        metadata_files(folder)


# The smallest metadata file of an Iceberg table (format 2, one column, no snapshot).
METADATA = {
    "format-version": 2,
    "table-uuid": "5b8e2a1c-0d4e-4b7a-9f3e-2c1d0e9f8a7b",
    "location": "file:/warehouse/tsdedup.db/t",
    "last-sequence-number": 0,
    "last-updated-ms": 1_700_000_000_000,
    "last-column-id": 1,
    "current-schema-id": 0,
    "schemas": [
        {
            "type": "struct",
            "schema-id": 0,
            "fields": [{"id": 1, "name": "time_ns", "required": False, "type": "long"}],
        }
    ],
    "default-spec-id": 0,
    "partition-specs": [{"spec-id": 0, "fields": []}],
    "last-partition-id": 999,
    "default-sort-order-id": 0,
    "sort-orders": [{"order-id": 0, "fields": []}],
    "properties": {},
    "current-snapshot-id": -1,
    "snapshots": [],
    "snapshot-log": [],
    "metadata-log": [],
}


def test_a_metadata_file_cut_short_is_skipped(tmp_path: Path) -> None:
    """A run killed while writing its metadata file leaves it empty or partial:
    the reader reads the version before it."""
    folder = table_folder(tmp_path, "t")
    uuid = "0a1b2c3d-0000-4000-8000-00000000000{}"
    whole = write(folder, f"00001-{uuid.format(1)}.metadata.json", 10**18)
    whole.write_text(json.dumps(METADATA), encoding="utf-8")
    cut = write(folder, f"00002-{uuid.format(2)}.metadata.json", 2 * 10**18)
    cut.write_text(json.dumps(METADATA)[:40], encoding="utf-8")
    empty = write(folder, f"00003-{uuid.format(3)}.metadata.json", 3 * 10**18)
    empty.write_text("", encoding="utf-8")
    table = load_table(tmp_path, "t")
    assert table.metadata_location == str(whole)
    assert [f.name for f in table.schema().fields] == ["time_ns"]
