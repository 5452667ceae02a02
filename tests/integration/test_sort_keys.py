"""Sort keys from tag cardinality across runs, and data files written in that order.

The scenario is the IOx document's example: five files of one partition whose
tag sets evolve, here ingested over two runs; a second day partition gets a key
of its own from its first chunk's cardinalities.
"""

from __future__ import annotations

import pytest

from python_udfs.sort_key import fold_chunks
from tests.integration.conftest import Workspace, assert_file_sorted

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

DAY1 = 1_793_491_200_000_000_000  # 2026-11-01T00:00:00Z
DAY2 = DAY1 + 86_400 * 10**9
HOUR = 3_600 * 10**9


def lp(tags: dict[str, str], value: int, time_ns: int) -> str:
    tag_part = "".join(f",{k}={v}" for k, v in tags.items())
    return f"m{tag_part} v={value}i {time_ns}"


def file_lines(tag_sets: list[dict[str, str]], day: int, value: int) -> list[str]:
    # The same hours in every file, so chunks overlap and duplicates exist.
    return [lp(tags, value, day + (i % 3) * HOUR) for i, tags in enumerate(tag_sets)]


FILES = {
    # IOx example, day 1: tags of each file.
    "f1.lp": file_lines([{"tag1": "a"}, {"tag1": "b"}], DAY1, 1),
    "f2.lp": file_lines([{"tag2": "x"}, {"tag2": "y"}], DAY1, 2),
    "f3.lp": file_lines([{"tag1": "a", "tag3": "p"}, {"tag1": "b", "tag3": "q"}], DAY1, 3)
    # Day 2 starts here: tag3 has 1 distinct value, tag1 has 3.
    + file_lines(
        [{"tag1": "a", "tag3": "p"}, {"tag1": "b", "tag3": "p"}, {"tag1": "c", "tag3": "p"}],
        DAY2,
        3,
    ),
    "f4.lp": file_lines([{"tag2": "x", "tag3": "p"}, {"tag2": "y", "tag3": "q"}], DAY1, 4)
    + file_lines([{"tag2": "x", "tag3": "p"}], DAY2, 4),
    "f5.lp": file_lines([{"tag1": "a", "tag4": "k"}, {"tag1": "b", "tag4": "k"}], DAY1, 5),
}

IOX_PARTITION_KEYS = [  # day 1, after chunks 1..5 (the document's table)
    ["tag1", "time"],
    ["tag1", "tag2", "time"],
    ["tag1", "tag2", "tag3", "time"],
    ["tag1", "tag2", "tag3", "time"],
    ["tag1", "tag2", "tag3", "tag4", "time"],
]
IOX_FILE_KEYS = [
    ["tag1", "time"],
    ["tag2", "time"],
    ["tag1", "tag3", "time"],
    ["tag2", "tag3", "time"],
    ["tag1", "tag4", "time"],
]


def test_keys_follow_the_iox_rules_and_files_come_back_sorted(
    module_scenario_workspace: Workspace,
) -> None:
    ws = module_scenario_workspace
    ws.add_measurement_model("m", "m")
    names = sorted(FILES)
    for name in names[:3]:
        ws.land(name, "\n".join(FILES[name]) + "\n")
    ws.build()
    for name in names[3:]:  # the second run continues from the stored keys
        ws.land(name, "\n".join(FILES[name]) + "\n")
    ws.build()

    catalog, history, current, files = ws.sql(
        "select * from tsdedup.sort_key_catalog where measurement = 'm' "
        "order by partition_day, chunk_seq",
        "select * from tsdedup.sort_key_history where measurement = 'm' "
        "order by partition_day, chunk_seq",
        "select * from tsdedup.sort_keys where measurement = 'm' order by partition_day",
        "select file_path, cast(partition.time_day as string) as day from tsdedup.m.data_files",
    )

    day1 = [r for r in catalog if r["partition_day"] == "2026-11-01"]
    # Chunks are numbered 1-5 here, after any the shared workspace held before.
    before = int(day1[0]["chunk_seq"]) - 1  # type: ignore[call-overload]
    assert [r["chunk_seq"] for r in day1] == [before + n for n in (1, 2, 3, 4, 5)]
    assert [r["partition_key"] for r in day1] == IOX_PARTITION_KEYS
    assert [r["chunk_key"] for r in day1] == IOX_FILE_KEYS
    assert [
        (r["chunk_seq"] - before, r["change"])  # type: ignore[operator]
        for r in history
        if r["partition_day"] == "2026-11-01"
    ] == [
        (1, "insert"),
        (2, "update"),
        (3, "update"),
        (5, "update"),
    ]

    # Day 2: chunk 3 is its first chunk; tag3 (1 value) sorts before tag1 (3 values).
    day2 = [r for r in catalog if r["partition_day"] == "2026-11-02"]
    expected = fold_chunks(None, [(3, {"tag1": 3, "tag3": 1}), (4, {"tag2": 1, "tag3": 1})])
    assert [r["partition_key"] for r in day2] == [c.partition_key for c in expected]
    assert day2[0]["partition_key"] == ["tag3", "tag1", "time"]
    assert day2[-1]["partition_key"] == ["tag3", "tag1", "tag2", "time"]

    keys = {r["partition_day"]: r["partition_key"] for r in current}
    assert set(keys) == {"2026-11-01", "2026-11-02"}
    assert files
    for data_file in files:
        tags = [c for c in keys[data_file["day"]] if c != "time"]
        assert_file_sorted(str(data_file["file_path"]), tags)


def test_one_shared_key_sorts_by_the_columns_in_key_order(
    module_scenario_workspace: Workspace,
) -> None:
    # One day, one key: z (2 values) before a (3 values), the reverse of name order,
    # so a file sorted by name order would fail the check below.
    ws = module_scenario_workspace
    ws.add_measurement_model("s", "s")
    tag_sets = [{"a": a, "z": z} for a in ("x", "y", "w") for z in ("q", "p")]
    first = [
        f"s,a={t['a']},z={t['z']} v={i}i {DAY1 + (i % 4) * HOUR}" for i, t in enumerate(tag_sets)
    ]
    ws.land("s1.lp", "\n".join(first) + "\n")
    ws.build()
    # A second run merges into the same day (overlapping keys), again with one key.
    ws.land("s2.lp", "\n".join(reversed(first)) + "\n")
    ws.build()

    current, files = ws.sql(
        "select * from tsdedup.sort_keys where measurement = 's'",
        "select file_path from tsdedup.s.data_files",
    )
    assert [r["partition_key"] for r in current] == [["z", "a", "time"]]
    compiled = (ws.project / "target/compiled/tsdedup/models/measurements/s.sql").read_text(
        encoding="utf-8"
    )
    assert (
        "d.point.`z`,\n    d.point.`a`,\n    d.point.time_ns" in compiled
    )  # the plain-column order
    assert "transform(k.key_tags" not in compiled
    assert files
    for data_file in files:
        assert_file_sorted(str(data_file["file_path"]), ["z", "a"])
    # The dedup's window sorts by (day, z, a, time_ns) already: Spark plans no
    # second sort for the write order (decision 0024).
    (plan,) = ws.sql("explain " + compiled.split("*/", 1)[1])
    physical = str(plan[0]["plan"]).split("== Physical Plan ==", 1)[1]
    assert physical.count("Window [") == 1
    assert physical.count("Sort [") == 1, physical


CARDINALITY_COLUMNS = (
    "measurement, cast(partition_day as string) as partition_day, chunk_seq, point_count, "
    "min_time_ns, max_time_ns, to_json(cardinalities) as cardinalities"
)


def test_catalog_counts_accepted_points_only_with_or_without_the_conflict_test(
    module_scenario_workspace: Workspace,
) -> None:
    # A point rejected for a type conflict carries a tag value no accepted point
    # has: counted, it would raise the tag's cardinality. The catalog tests the
    # points of a run's new chunks against int_type_conflicts (reading
    # int_accepted_points) only when one of them writes a column in conflict
    # with the column catalog.
    ws = module_scenario_workspace
    catalog_sql = ws.project / "target/compiled/tsdedup/models/catalog/sort_key_catalog.sql"
    ws.land("k1.lp", f"k,host=a v=1i {DAY1}\nk,host=b v=2i {DAY1 + HOUR}\n")
    ws.build()
    # v is an integer since k1: the float point is rejected, host=c with it.
    ws.land("k2.lp", f"k,host=c v=1.5 {DAY1 + 2 * HOUR}\nk,host=a v=3i {DAY1 + 3 * HOUR}\n")
    ws.build()
    assert "int_accepted_points" in catalog_sql.read_text(encoding="utf-8")
    ws.land("k3.lp", f"k,host=d v=4i {DAY1 + 4 * HOUR}\nk,host=e v=5i {DAY1 + 5 * HOUR}\n")
    ws.build()
    compiled = catalog_sql.read_text(encoding="utf-8")
    assert "int_accepted_points" not in compiled
    assert "no point is left out" in compiled

    catalog, reference, rejects = ws.sql(
        f"select {CARDINALITY_COLUMNS} from tsdedup.sort_key_catalog order by 1, 2, 3",
        f"select {CARDINALITY_COLUMNS} from tsdedup.int_chunk_tag_cardinalities order by 1, 2, 3",
        "select source_file, reject_reason from tsdedup.rpt_rejects where source_file = 'k2.lp'",
    )
    mine = [r for r in catalog if r["measurement"] == "k"]
    assert [(r["point_count"], r["cardinalities"]) for r in mine] == [
        (2, '{"host":2}'),
        (1, '{"host":1}'),
        (2, '{"host":2}'),
    ]
    assert [(r["min_time_ns"], r["max_time_ns"]) for r in mine] == [
        (DAY1, DAY1 + HOUR),
        (DAY1 + 3 * HOUR, DAY1 + 3 * HOUR),
        (DAY1 + 4 * HOUR, DAY1 + 5 * HOUR),
    ]
    assert len(rejects) == 1 and "type conflict" in str(rejects[0]["reject_reason"])
    # Every chunk of the workspace, fast path or not: the view's full rule.
    assert catalog == reference
