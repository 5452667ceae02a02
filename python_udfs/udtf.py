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

from typing import Any

from python_udfs.chunk_table import RETURN_TYPE, ReadChunk
from python_udfs.landing_functions import EMPTY_FILES_TYPE, EmptyFiles, precision_of_file
from python_udfs.raw_files import WRITE_RETURN_TYPE, WriteChunks


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
    spark.udtf.register(
        "tsdedup_write_chunks", udtf(WriteChunks, returnType=WRITE_RETURN_TYPE, useArrow=True)
    )
    spark.udtf.register("tsdedup_empty_files", udtf(EmptyFiles, returnType=EMPTY_FILES_TYPE))
    spark.udf.register("tsdedup_file_precision", precision_of_file, "string")
