"""Spark functions that read landed files, registered in every session tsdedup starts.

``tsdedup_read_chunk`` parses one landed file into chunk rows; the ``raw_chunks``
model calls it with a lateral join, so parsing runs on the executors, a task
reading a group of files::

    select ... from landed_files as f,
        lateral tsdedup_read_chunk(
            f.source_file, f.source_path, f.content, 'ns', 1700000000000000000
        ) as r

``content`` is NULL for a file in a local folder (``file:`` path): the function
reads it itself, which spares copying the bytes out of the JVM.

It returns the rows of python_udfs.chunk_rows (points, rejects, column first
uses, one chunk row) as one Arrow table per file (python_udfs.chunk_table).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from python_udfs.chunk_reader import ChunkFormatError, file_precision
from python_udfs.chunk_table import RETURN_TYPE, chunk_table


class ReadChunk:
    """The UDTF class; Spark instantiates it on executors. It runs with Arrow
    transfer: each call returns the file's rows as one pandas frame backed by
    Arrow arrays, which Spark sends to the JVM without converting a value."""

    def eval(
        self,
        source_file: str,
        source_path: str,
        content: bytes | None,
        precision: str,
        ingest_time_ns: int,
    ) -> Any:
        import pandas

        data = landed_bytes(source_path, content)
        table = chunk_table(source_file, data, precision, int(ingest_time_ns))
        return table.to_pandas(types_mapper=pandas.ArrowDtype)


def landed_bytes(source_path: str, content: bytes | None) -> bytes:
    """A landed file's bytes: ``content`` when Spark read them, else read here
    from the file's path (a ``file:`` path, as Spark lists a local folder:
    reading it here spares copying the bytes from the JVM)."""
    if content is not None:
        return bytes(content)
    if not source_path.startswith("file:"):
        raise ValueError(f"tsdedup_read_chunk: no content given for {source_path!r}")
    path = source_path.removeprefix("file:")
    if path.startswith("//"):
        path = path[2:]
    with open(path, "rb") as file:
        return file.read()


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


def register(spark: Any) -> None:
    """Register the project's functions in a Spark session (idempotent):
    ``tsdedup_read_chunk`` (the table function that reads a file),
    ``tsdedup_empty_files(folder)`` (the files of 0 bytes Spark does not list) and
    ``tsdedup_file_precision(source_file, default)`` (the precision it read
    the file in)."""
    from pyspark.sql.functions import udtf

    spark.udtf.register(
        "tsdedup_read_chunk", udtf(ReadChunk, returnType=RETURN_TYPE, useArrow=True)
    )
    spark.udtf.register("tsdedup_empty_files", udtf(EmptyFiles, returnType=EMPTY_FILES_TYPE))
    spark.udf.register("tsdedup_file_precision", precision_of_file, "string")
