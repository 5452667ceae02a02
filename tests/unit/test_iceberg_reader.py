"""Choosing the version a reader outside Spark reads (python_udfs/iceberg_reader.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from python_udfs.iceberg_reader import TableNotFoundError, newest_metadata_file, table_folder


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
    assert newest_metadata_file(tmp_path) == newest


def test_a_table_without_metadata_is_named(tmp_path: Path) -> None:
    folder = table_folder(tmp_path, "h2o")
    assert folder == tmp_path / "warehouse" / "tsdedup.db" / "h2o"
    with pytest.raises(TableNotFoundError, match=r"no Iceberg metadata file in .*h2o/metadata"):
        newest_metadata_file(folder)
