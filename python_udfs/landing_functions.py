"""Small Spark functions about landed files, registered by python_udfs.udtf.

They import no Arrow compute or NumPy, so a Python worker that runs one of them
(``tsdedup_file_precision`` runs in every build) starts fast; the file-reading
table function lives with its Arrow code in python_udfs.chunk_table.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from python_udfs.chunk_reader import ChunkFormatError, file_precision

EMPTY_FILES_TYPE = "path string, modification_time timestamp"


def empty_files(folder: str) -> Iterator[tuple[str, datetime]]:
    """The files of 0 bytes directly in ``folder`` (a local path or a URI pyarrow
    can open), with their paths as Hadoop writes them and their modification
    times in milliseconds, as Hadoop's listing gives them. Spark's file
    sources list no such file (a file without bytes has no split to read).
    Names Hadoop hides (starting with `.` or `_`) are left out too. On a file
    system pyarrow cannot open there are none to report."""
    import pyarrow
    from pyarrow import fs

    try:
        if "://" in folder:
            filesystem, root = fs.FileSystem.from_uri(folder)
            prefix = folder.rstrip("/")
        else:
            filesystem, root = fs.LocalFileSystem(), folder
            prefix = "file:" + folder.rstrip("/")
        listed = filesystem.get_file_info(fs.FileSelector(root, allow_not_found=True))
    except (pyarrow.ArrowInvalid, pyarrow.ArrowNotImplementedError, OSError):
        return  # a file system pyarrow cannot open (HDFS without libhdfs, s3a://)
    for info in listed:
        hidden = info.base_name.startswith((".", "_"))
        if info.type == fs.FileType.File and info.size == 0 and info.mtime and not hidden:
            mtime = info.mtime.replace(microsecond=info.mtime.microsecond // 1000 * 1000)
            yield f"{prefix}/{info.base_name}", mtime


class EmptyFiles:
    """The UDTF class of ``empty_files``."""

    def eval(self, folder: str) -> Iterator[tuple[str, datetime]]:
        yield from empty_files(folder)


def precision_of_file(source_file: str | None, default: str | None) -> str | None:
    """The precision a chunk is read in (file_precision), NULL where its name
    declares two (the file is rejected whole)."""
    if source_file is None or default is None:
        return None
    try:
        return file_precision(source_file, default)
    except ChunkFormatError:
        return None
