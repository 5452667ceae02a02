"""Retracting chunks: `tsdedup retract` marks chunks as retracted, the raw log
keeps them, and the next run rebuilds just the day partitions they had points
in, so every table equals the semantics of the chunks that remain: a value a
retracted chunk had won with gives way to the earlier one again, a point only
it delivered goes, and a day only it filled is left empty."""

from __future__ import annotations

import pytest

from tests.integration.conftest import Workspace, point_values
from tests.integration.test_live_and_maintenance import canonical
from tests.reference import expected_from_files

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

DAY = 86_400 * 10**9
MINUTE = 60 * 10**9
DAY1 = 1_793_491_200_000_000_000  # 2026-11-01T00:00:00Z


def line(host: str, fields: str, day: int, minute: int) -> str:
    return f"rt,host={host} {fields} {DAY1 + day * DAY + minute * MINUTE}"


def text(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode()


CHUNKS = [
    # 1: the first delivery, days 1 and 2
    (
        "c1.lp",
        text(
            [line(h, f"value={m}.5", 0, m) for h in ("h1", "h2") for m in range(10)]
            + [line("h1", f"value={100 + m}.5", 1, m) for m in range(5)]
        ),
    ),
    # 2: a bad re-delivery that wins on day 1, a point only it has, a new field
    (
        "c2.lp",
        text(
            [line("h1", "value=-1.0", 0, m) for m in range(5)]
            + [line("h3", "value=7.0", 0, 50), line("h1", "extra=1i", 0, 0)]
        ),
    ),
    # 3: a later good delivery on day 1
    ("c3.lp", text([line("h2", "value=55.0", 0, 5)])),
    # 4: a test feed, alone on day 3
    ("c4.lp", text([line("t", "value=0.0", 2, m) for m in range(3)])),
]


def table(ws: Workspace) -> list[dict[str, object]]:
    rows = ws.sql("select * from tsdedup.rt")[0]
    return [point_values(row) for row in rows]


def columns(ws: Workspace) -> list[str]:
    (rows,) = ws.sql(
        "select column_name from tsdedup.int_column_types where measurement = 'rt'"
        " order by column_name"
    )
    return [str(r["column_name"]) for r in rows]


def test_retracted_chunks_leave_the_tables_as_if_never_landed(workspace: Workspace) -> None:
    ws = workspace
    ws.add_measurement_model("rt", "rt")
    for name, content in CHUNKS:
        ws.land(name, content)
    ws.build()
    assert canonical(table(ws)) == canonical(expected_from_files(CHUNKS).rows("rt"))
    assert columns(ws) == ["extra", "host", "value"]
    (day2_files,) = ws.sql(
        "select file_path from tsdedup.rt.data_files where `partition`.time_day = date'2026-11-02'"
    )

    out = ws.tsdedup("retract", "c2.lp", "4").check().stdout
    assert "tsdedup: retracted chunk 2 (c2.lp); the next run rebuilds" in out
    assert "tsdedup: retracted chunk 4 (c4.lp)" in out
    again = ws.tsdedup("retract", "2").check().stdout
    assert "tsdedup: chunk 2 (c2.lp) was retracted before" in again
    unknown = ws.tsdedup("retract", "nope.lp", "99")
    assert unknown.code != 0
    assert 'no chunk was ingested as chunk 99, file "nope.lp"; nothing was retracted' in (
        unknown.stdout + unknown.stderr
    )

    out = ws.build().stdout
    assert "rt: rebuilding 2 day partition(s) from the raw log (2 held points of retracted" in out

    remaining = [CHUNKS[0], CHUNKS[2]]
    expected = expected_from_files(remaining).rows("rt")
    got = table(ws)
    assert all(row["extra"] is None for row in got), "the retracted chunk's field is gone"
    assert columns(ws) == ["host", "value"], "the column catalog forgets its only use"
    assert canonical([{k: v for k, v in r.items() if k != "extra"} for r in got]) == canonical(
        expected
    )
    h1_first = [r for r in got if r["host"] == "h1" and r["time_ns"] == DAY1]
    assert [r["value"] for r in h1_first] == [0.5], "the earlier value is back"
    day3, day2_after, audit, register, accounting = ws.sql(
        "select count(*) as n from tsdedup.rt where `time` >= timestamp'2026-11-03 00:00:00'",
        "select file_path from tsdedup.rt.data_files where `partition`.time_day = date'2026-11-02'",
        "select chunk_seq, count(*) as n from tsdedup.raw_chunks where row_kind = 'point'"
        " and chunk_seq in (2, 4) group by chunk_seq order by chunk_seq",
        "select retraction_seq, chunk_seq, source_file from tsdedup.retracted_chunks"
        " order by chunk_seq",
        "select chunk_seq, lines_read, points_read, lines_skipped, points_retracted, points_kept"
        " from tsdedup.rpt_chunk_accounting order by chunk_seq",
    )
    assert day3 == [{"n": 0}], "a day only retracted chunks filled is empty"
    assert day2_after == day2_files, "a day without retracted points is not rewritten"
    assert audit == [{"chunk_seq": 2, "n": 7}, {"chunk_seq": 4, "n": 3}], "the raw log keeps them"
    # Nothing silently gone: the retracted points are counted as such.
    assert [tuple(r.values()) for r in accounting] == [
        (1, 25, 25, 0, 0, 25),
        (2, 7, 7, 0, 7, 0),
        (3, 1, 1, 0, 0, 1),
        (4, 3, 3, 0, 3, 0),
    ]
    assert register == [
        {"retraction_seq": 1, "chunk_seq": 2, "source_file": "c2.lp"},
        {"retraction_seq": 1, "chunk_seq": 4, "source_file": "c4.lp"},
    ]

    # Applied once: the next run has nothing to rebuild.
    ws.land("c5.lp", text([line("h9", "value=1.0", 5, 0)]))
    out = ws.build().stdout
    assert "rebuilding" not in out
    assert "rt: appending the chunks after chunk 4" in out
