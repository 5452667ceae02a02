"""The HTML report, rendered from plain rows: numbers, overlap, self-containment."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tsdedup.report import (
    ChunkRange,
    DayDuplicates,
    NodeProblem,
    RejectRow,
    ReportUsageError,
    last_run_problems,
    overlapping_earlier,
    parse_args,
    render_report,
)
from tsdedup.run_summary import LandedMeasurement, SuspectChunk

NS = 1_000_000_000
DAY1 = 1_793_491_200 * NS  # 2026-11-01 00:00 UTC

DUPLICATES = [
    DayDuplicates("h2o", "2026-11-01", runs=2, points_merged=14, duplicates_removed=5),
    DayDuplicates("h2o", "2026-11-02", runs=1, points_merged=4, duplicates_removed=0),
    DayDuplicates("cpu", "2026-11-01", runs=1, points_merged=9, duplicates_removed=3),
]
CHUNKS = [
    ChunkRange("h2o", "2026-11-01", 1, "a.lp", 10, DAY1, DAY1 + 600 * NS),
    ChunkRange("h2o", "2026-11-01", 2, "b.lp", 4, DAY1 + 300 * NS, DAY1 + 900 * NS),
    ChunkRange("h2o", "2026-11-01", 3, "c.lp", 2, DAY1 + 1000 * NS, DAY1 + 1100 * NS),
    ChunkRange("h2o", "2026-11-02", 3, "c.lp", 4, DAY1 + 86_400 * NS, DAY1 + 86_500 * NS),
    ChunkRange("h2o", "2026-11-02", 4, "d <&>.lp", 1, DAY1 + 86_500 * NS, DAY1 + 86_500 * NS),
    ChunkRange("cpu", "2026-11-01", 2, "b.lp", 12, DAY1, DAY1 + 60 * NS),
    ChunkRange("cpu", "2026-11-01", 5, "e.csv", None, None, None),
]


class _Collector(HTMLParser):
    """Tags and attributes of a page, and whether it parses as balanced HTML."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.open: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))
        if tag not in ("meta", "br", "line", "rect", "input"):
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("line", "rect") and (not self.open or self.open[-1] != tag):
            return
        assert self.open and self.open[-1] == tag, f"</{tag}> closes {self.open[-1:]}"
        self.open.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _page() -> tuple[str, _Collector]:
    page = render_report(DUPLICATES, CHUNKS, "tsdedup", datetime(2026, 11, 23, 12, tzinfo=UTC))
    parsed = _Collector()
    parsed.feed(page)
    parsed.close()
    return page, parsed


def test_overlap_is_found_per_day_partition_against_earlier_chunks() -> None:
    overlaps = overlapping_earlier(CHUNKS)
    assert overlaps[("h2o", 1)] == []
    assert overlaps[("h2o", 2)] == [1]  # 300..900 s overlaps 0..600 s
    assert overlaps[("h2o", 3)] == []  # 1000..1100 s: after both; next day alone
    assert overlaps[("h2o", 4)] == [3]  # touches chunk 3's last instant
    assert overlaps[("cpu", 5)] == []  # no recorded range: nothing claimed


def test_page_is_balanced_html_with_no_script_and_nothing_from_elsewhere() -> None:
    page, parsed = _page()
    assert parsed.open == []
    tags = {tag for tag, _ in parsed.elements}
    assert "svg" in tags and "rect" in tags
    assert "script" not in tags and "link" not in tags and "img" not in tags
    assert not re.search(r"https?://|src=|href=|url\(|@import", page)


def test_duplicates_table_holds_every_measurement_day() -> None:
    _, parsed = _page()
    rows = {
        (a["data-measurement"], a["data-day"]): (a["data-points-merged"], a["data-duplicates"])
        for tag, a in parsed.elements
        if tag == "tr" and "data-duplicates" in a
    }
    assert rows == {
        ("h2o", "2026-11-01"): ("14", "5"),
        ("h2o", "2026-11-02"): ("4", "0"),
        ("cpu", "2026-11-01"): ("9", "3"),
    }
    text = " ".join(" ".join(parsed.text).split())
    assert "2 measurement(s); over every run, 27 points merged and 8 duplicates removed" in text


def test_duplicates_chart_has_a_bar_per_measurement_day_with_its_number() -> None:
    _, parsed = _page()
    titles = " | ".join(parsed.text)
    for r in DUPLICATES:
        assert f"{r.measurement} {r.day}: {r.duplicates_removed:,} duplicates removed" in titles


def test_overlap_chart_colours_and_names_overlapping_chunks() -> None:
    page, parsed = _page()
    sections = [a["data-measurement"] for tag, a in parsed.elements if tag == "section"]
    assert sections == ["cpu", "h2o"]
    titles = " | ".join(parsed.text)
    assert (
        "chunk 2 (b.lp), 2026-11-01: 4 points, 2026-11-01 00:05:00 to 2026-11-01 00:15:00; "
        "overlaps chunk(s) 1" in titles
    )
    # File names are escaped, never markup.
    assert "d <&>.lp" in titles and "d &lt;&amp;&gt;.lp" in page
    assert "4 chunk(s) in 2 day partition(s); 2 overlap an earlier chunk in time." in " ".join(
        " ".join(parsed.text).split()
    )
    orange = [a for tag, a in parsed.elements if tag == "rect" and a.get("fill") == "#d9822b"]
    assert len(orange) == 2


def test_empty_tables_give_a_page_that_says_so() -> None:
    page = render_report([], [], "s", datetime(2026, 1, 1, tzinfo=UTC))
    assert "No run has changed a measurement table yet." in page
    assert "No chunk has been ingested yet." in page
    assert "No chunk has points far from its ingest time." in page


def test_chunks_with_suspect_timestamps_are_listed_with_their_problem() -> None:
    suspects = [
        SuspectChunk(9, "b <x>.lp", 1200, "read in ns: the timestamps look like milliseconds"),
        SuspectChunk(3, "a.lp", 5, "points from 2099-01-01"),
    ]
    page = render_report([], [], "s", datetime(2026, 1, 1, tzinfo=UTC), suspects)
    table = page.split('<table id="suspect-times">', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r'<tr data-chunk="(\d+)">(.*?)</tr>', table)
    assert [chunk for chunk, _ in rows] == ["3", "9"]
    assert "b &lt;x&gt;.lp" in rows[1][1] and "1,200" in rows[1][1]
    assert "the timestamps look like milliseconds" in rows[1][1]


def test_every_measurement_is_listed_with_its_points_tables_and_why_it_has_none() -> None:
    landed = [
        LandedMeasurement("cpu", 1200, False, ("cpu", "cpu_last")),
        LandedMeasurement("disk", 5, True, ("disk",)),
        LandedMeasurement("<b>-io", 7, False, (), "its name cannot be a table name"),
    ]
    page = render_report([], [], "s", datetime(2026, 1, 1, tzinfo=UTC), landed=landed)
    table = page.split('<table id="measurements">', 1)[1].split("</table>", 1)[0]
    rows = dict(re.findall(r'<tr data-measurement="([^"]*)">(.*?)</tr>', table))
    assert list(rows) == ["cpu", "disk", "&lt;b&gt;-io"]
    cells = {m: re.findall(r"<td[^>]*>(.*?)</td>", row) for m, row in rows.items()}
    assert cells["cpu"] == ["cpu", "1,200", "cpu, cpu_last", "model file", ""]
    assert cells["disk"] == ["disk", "5", "disk", "discovered", ""]
    assert cells["&lt;b&gt;-io"][2:] == ["", "", "its name cannot be a table name"]
    assert "No measurement has landed yet." in render_report([], [], "s", datetime.now(UTC))


def test_the_first_rejects_are_listed_with_their_line_and_how_many_there_are() -> None:
    rejects = [
        RejectRow(2, "a.lp", 3, "missing value for field 'v'", "m v= 1"),
        RejectRow(5, "b <c>.csv", 0, "whole file rejected: the first row is not a header", None),
    ]
    page = render_report([], [], "s", datetime(2026, 1, 1, tzinfo=UTC), (), rejects, 250)
    assert "the first 2 of 250, by chunk and line (rpt_rejects has every one)." in page
    table = page.split('<table id="rejects">', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r'<tr data-chunk="(\d+)" data-line="(\d+)">(.*?)</tr>', table)
    assert [(c, n) for c, n, _ in rows] == [("2", "3"), ("5", "0")]
    assert "<code>m v= 1</code>" in rows[0][2] and "b &lt;c&gt;.csv" in rows[1][2]
    assert "all 2, in 2 file(s)" in render_report(
        [], [], "s", datetime(2026, 1, 1, tzinfo=UTC), (), rejects, 2
    )
    empty = render_report([], [], "s", datetime(2026, 1, 1, tzinfo=UTC))
    assert "No line or point has been rejected." in empty


def test_the_last_runs_failed_models_and_tests_are_listed() -> None:
    run_results = {
        "results": [
            {"unique_id": "model.tsdedup.h2o", "status": "success", "message": "OK"},
            {"unique_id": "model.tsdedup.cpu", "status": "error", "message": "Runtime Error\n x"},
            {"unique_id": "test.tsdedup.no_dup", "status": "fail", "message": "Got 3 results"},
            {"unique_id": "model.tsdedup.cpu_live", "status": "skipped", "message": None},
        ]
    }
    problems = last_run_problems(run_results)
    assert problems == [
        NodeProblem("model.tsdedup.cpu", "error", "Runtime Error"),
        NodeProblem("test.tsdedup.no_dup", "fail", "Got 3 results"),
        NodeProblem("model.tsdedup.cpu_live", "skipped", ""),
    ]
    page = render_report([], [], "s", datetime(2026, 1, 1, tzinfo=UTC), last_run=problems)
    table = page.split('<table id="last-run">', 1)[1].split("</table>", 1)[0]
    assert re.findall(r'data-status="(\w+)"', table) == ["error", "fail", "skipped"]
    assert "model.tsdedup.cpu" in table and "Got 3 results" in table
    assert last_run_problems(None) is None
    ok = render_report([], [], "s", datetime(2026, 1, 1, tzinfo=UTC), last_run=[])
    assert "Every model and test of the last run succeeded." in ok
    assert "No dbt run has left its results" in render_report(
        [], [], "s", datetime(2026, 1, 1, tzinfo=UTC)
    )


def test_arguments() -> None:
    assert parse_args([]) is None
    assert parse_args(["--out", "r.html"]) == Path("r.html")
    assert parse_args(["--out=x/r.html"]) == Path("x/r.html")
    for bad in (["--out"], ["--open"], ["r.html"], ["--out="]):
        with pytest.raises(ReportUsageError, match="usage: tsdedup report"):
            parse_args(bad)
