"""The raw log keeps its bookkeeping files few by itself.

Every run adds small files of chunk, column and reject rows to the raw log, and
every run reads all of them again (new files, column catalog, chunk times).
Once a partition of them has `tsdedup_raw_log_compact_files` files, raw_chunks'
post-hook rewrites them into one; rows and point files stay as they were. The
listing of the landing folder runs with splits as large as the folder and
leaves the session's split size as it found it.
"""

from __future__ import annotations

import pytest

from tests.integration.conftest import Workspace

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

DAY0 = 1_793_491_200_000_000_000  # 2026-11-01T00:00:00Z
FILES_SQL = (
    "select `partition`.row_kind as row_kind, `partition`.measurement as measurement,"
    " file_path, record_count from tsdedup.raw_chunks.data_files"
)
ROWS_SQL = "select * from tsdedup.raw_chunks"


def chunk(index: int) -> str:
    """Two good points and a line that is rejected."""
    return "\n".join(
        [
            f"disk,host=h{index} used={index}i {DAY0 + index}",
            f"disk,host=h{index} free={index}.5 {DAY0 + index + 1}",
            "disk,host=h9 used=",
        ]
    )


def canonical(rows: list[dict[str, object]]) -> list[tuple[tuple[str, str], ...]]:
    return sorted(tuple(sorted((k, repr(v)) for k, v in row.items())) for row in rows)


def counts(files: list[dict[str, object]]) -> dict[tuple[object, object], int]:
    found: dict[tuple[object, object], int] = {}
    for f in files:
        key = (f["row_kind"], f["measurement"])
        found[key] = found.get(key, 0) + 1
    return found


def per_partition(point_files: int, bookkeeping_files: int) -> dict[tuple[object, object], int]:
    """Files per raw log partition: `disk`'s points, chunk, column and reject rows."""
    return {
        ("point", "disk"): point_files,
        ("chunk", None): bookkeeping_files,
        ("column", "disk"): bookkeeping_files,
        ("reject", None): bookkeeping_files,
    }


def test_runs_compact_the_bookkeeping_files_once_a_partition_has_enough(
    workspace: Workspace,
) -> None:
    ws = workspace
    compact_at_3 = ("--vars", "{tsdedup_raw_log_compact_files: 3}")
    for index in (1, 2):
        ws.land(f"{index:04d}.lp", chunk(index))
        run = ws.tsdedup("run", "--select", "raw_chunks", *compact_at_3).check()
        assert "files rewritten into" not in run.stdout
    (files_2,) = ws.sql(FILES_SQL)
    assert counts(files_2) == per_partition(2, 2), "each run added one file per partition"

    ws.land("0003.lp", chunk(3))
    run = ws.tsdedup("run", "--select", "raw_chunks", *compact_at_3).check()
    assert "tsdedup: tsdedup.raw_chunks: 9 files rewritten into 3" in run.stdout, run.stdout
    rows_3, files_3 = ws.sql(ROWS_SQL, FILES_SQL)
    assert counts(files_3) == per_partition(3, 1), (
        "one file per partition of bookkeeping rows; point files as they were"
    )
    kinds = [str(r["row_kind"]) for r in rows_3]
    assert (kinds.count("point"), kinds.count("chunk"), kinds.count("reject")) == (6, 3, 3)
    assert {f["file_path"] for f in files_2 if f["row_kind"] == "point"} < {
        f["file_path"] for f in files_3 if f["row_kind"] == "point"
    }

    # With the default (32 files), the next runs leave the files alone, and the
    # whole project builds on the compacted log.
    ws.land("0004.lp", chunk(4))
    ws.tsdedup("run").check()
    rows_4, files_4 = ws.sql(ROWS_SQL, FILES_SQL)
    assert counts(files_4)[("chunk", None)] == 2
    assert canonical([r for r in rows_4 if r["chunk_seq"] != 4]) == canonical(rows_3)
    (table,) = ws.sql("select host, used, free from tsdedup.disk order by host, time_ns")
    assert [(r["host"], r["used"], r["free"]) for r in table] == [
        (f"h{i}", used, free) for i in (1, 2, 3, 4) for used, free in ((i, None), (None, i + 0.5))
    ]

    # A setting that is not a number of files stops the run, naming the var,
    # before anything is ingested.
    ws.land("0005.lp", chunk(5))
    for bad in ("1", "'often'", "2.5"):
        refused = ws.tsdedup(
            "run", "--select", "raw_chunks", "--vars", f"{{tsdedup_raw_log_compact_files: {bad}}}"
        )
        assert refused.code != 0
        assert "var tsdedup_raw_log_compact_files must be 0 (never compact) or a whole number" in (
            refused.stdout + refused.stderr
        )
    (chunks,) = ws.sql("select max(chunk_seq) as last from tsdedup.raw_chunks")
    assert chunks == [{"last": 4}]

    # The folder was listed with large splits; the session's setting is back.
    (setting,) = ws.sql("set spark.sql.files.maxPartitionBytes")
    assert setting[0]["value"] == "134217728b"
