"""The warm-up a `tsdedup` process runs while dbt starts (tsdedup/warm_up.py)."""

from __future__ import annotations

from typing import Any

from tests.hostile_names import INJECTION
from tsdedup.warm_up import start_warm_up, warm_up_statements


class Answer:
    def collect(self) -> list[Any]:
        return []


class RecordingSession:
    """Stands in for a Spark session: records each statement; one that names
    ``failing`` raises, as Spark does for a table that does not exist yet."""

    def __init__(self, failing: str) -> None:
        self.failing = failing
        self.statements: list[str] = []

    def sql(self, statement: str) -> Answer:
        self.statements.append(statement)
        if self.failing in statement:
            raise RuntimeError("[TABLE_OR_VIEW_NOT_FOUND]")
        return Answer()


def test_names_from_the_profile_and_the_landing_folder_are_quoted() -> None:
    statements = warm_up_statements(INJECTION, "/land/it's")
    assert "from `x``; drop table y; --`.`raw_chunks` where" in statements[1]
    assert "tsdedup_empty_files('/land/it\\'s')" in statements[2]
    assert statements[-1] == "describe extended `x``; drop table y; --`.`raw_chunks`"


def test_a_failing_statement_is_skipped_and_the_others_still_run() -> None:
    session = RecordingSession(failing="raw_chunks")
    thread = start_warm_up(session, "tsdedup", "/land")
    thread.join(timeout=10)
    assert not thread.is_alive()
    assert thread.daemon  # never keeps a finished command's process alive
    assert session.statements == warm_up_statements("tsdedup", "/land")
    assert len(session.statements) > 2  # statements after the failing one ran
