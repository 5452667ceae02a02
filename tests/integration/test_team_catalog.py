"""A team's warehouse: the catalog in a throw-away PostgreSQL server, the
profile's `team` target, several `tsdedup` processes at once, each with a home
of its own as on a machine of its own (decision 0029).

- builders take turns: a second one stops at once with a message naming the
  first, a third waits for it; no point is lost or duplicated (that the tables
  equal the embedded default's for the same files, test_cluster.py shows);
- readers (`tsdedup sql`, `tsdedup show`) run during a build and only ever see
  whole versions of a table and of its live view;
- two processes that commit to one table at once, without the builder lock,
  lose no commit (the metastore's table lock around every Iceberg commit);
- the catalog's password is on no command line.

The server comes from Debian's packages (.ci/run installs them); without them
the tests are skipped and say why.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import pytest

from bench.project_copy import copy_dbt_project
from tests.integration.conftest import (
    ROOT,
    TSDEDUP,
    Result,
    disable_sample_measurements,
    run_tsdedup,
    shown_rows,
    sql_answers,
)
from tests.integration.test_crash_and_readers import canonical
from tests.integration.test_incremental import random_chunk
from tests.integration.test_plain_dbt import DBT
from tests.reference import expected_from_files
from tsdedup import local_postgres
from tsdedup.local_postgres import LocalPostgres, PostgresError

pytestmark = [pytest.mark.spark, pytest.mark.dbt]


@pytest.fixture(scope="module")
def catalog() -> Iterator[LocalPostgres]:
    why = local_postgres.missing()
    if why:
        pytest.skip(why)
    with LocalPostgres() as server:
        yield server


@dataclass
class Team:
    """One landing folder, warehouse and catalog schema; every process a home
    and a copy of the project of its own, as on a machine of its own."""

    root: Path
    catalog: LocalPostgres
    schema: str
    started: list[tuple[subprocess.Popen[str], IO[str]]] = field(default_factory=list)

    @property
    def landing(self) -> Path:
        return self.root / "landing"

    def project(self, machine: str) -> Path:
        """The machine's checkout of the project, which has a model file for the
        measurement `inc` and its live view (a reader's `ref()` needs them)."""
        project = self.root / f"project-{machine}"
        if not project.exists():
            copy_dbt_project(ROOT, project)
            disable_sample_measurements(project)
            (project / "models" / "measurements" / "inc.sql").write_text(
                "{{ tsdedup.measurement('inc') }}\n", encoding="utf-8"
            )
            (project / "models" / "live" / "inc_live.sql").write_text(
                "{{ tsdedup.live_measurement(ref('inc')) }}\n", encoding="utf-8"
            )
        return project

    def env(self, machine: str, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            self.catalog.environment(),
            TSDEDUP_TARGET="team",
            TSDEDUP_SCHEMA=self.schema,
            TSDEDUP_WAREHOUSE=str(self.root / "warehouse"),
            TSDEDUP_HOME=str(self.root / f"home-{machine}"),
            TSDEDUP_LANDING=str(self.landing),
            DBT_PROJECT_DIR=str(self.project(machine)),
            DBT_PROFILES_DIR=str(self.project(machine) / "profiles"),
        )
        env.update(extra)
        return env

    def land(self, files: list[tuple[str, bytes]]) -> None:
        for name, content in files:
            tmp = self.landing / f".{name}.tmp"
            tmp.write_bytes(content)
            tmp.replace(self.landing / name)

    def run(self, machine: str, *args: str, **extra: str) -> Result:
        return run_tsdedup(list(args), self.project(machine), self.env(machine, **extra), 900)

    def start(self, machine: str, *args: str, **extra: str) -> subprocess.Popen[str]:
        """A process started now, its output in ``<machine>.out``; stopped by close()."""
        out = (self.root / f"{machine}.out").open("w")
        process = subprocess.Popen(
            [str(TSDEDUP), *args],
            cwd=self.project(machine),
            env=self.env(machine, **extra),
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.started.append((process, out))
        return process

    def close(self) -> None:
        """Kill what is still running (its JVM too), close the output files."""
        for process, out in self.started:
            if process.poll() is None:
                os.killpg(process.pid, 9)
                process.wait()
            out.close()

    def output(self, machine: str) -> str:
        return (self.root / f"{machine}.out").read_text(encoding="utf-8")

    def sql(self, machine: str, *statements: str) -> list[list[dict[str, object]]]:
        result = self.run(machine, "sql", "--json", "--limit", "-1", *statements).check()
        return sql_answers(result.stdout, len(statements))

    def holders(self) -> list[str]:
        """The processes that hold this schema's builder lock, as PostgreSQL names them."""
        rows = self.catalog.query(
            "select a.application_name from pg_locks as l join pg_stat_activity as a"
            " on a.pid = l.pid where l.locktype = 'advisory' and l.granted and l.objid <> 0"
            " and l.database = (select oid from pg_database where datname = current_database())"
        )
        return [row[0] for row in rows]


@pytest.fixture
def team_of(tmp_path: Path, catalog: LocalPostgres) -> Iterator[Callable[[str], Team]]:
    """Teams on the module's catalog, each in a schema of its own; every process a
    test started is stopped at its end, whatever happened."""
    with ExitStack() as stack:

        def make(schema: str) -> Team:
            root = tmp_path / schema
            (root / "landing").mkdir(parents=True)
            team = Team(root, catalog, schema)
            stack.callback(team.close)
            return team

        yield make


def chunks(seed: int, prefix: str, count: int, minute0: int) -> list[tuple[str, bytes]]:
    rng = random.Random(seed)
    return [
        (f"{prefix}_{i}.lp", random_chunk(rng, [0, 1], True, minute0=minute0).encode())
        for i in range(count)
    ]


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 300.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


def command_lines_holding(secret: str) -> list[str]:
    """Every process's command line that contains ``secret``."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if secret in text:
            found.append(f"{cmdline.parent.name}: {text[:200]}")
    return found


def test_builders_take_turns_and_lose_no_point(
    tmp_path: Path, catalog: LocalPostgres, team_of: Callable[[str], Team]
) -> None:
    team = team_of("team_builders")
    first = chunks(1, "a", 3, 0)
    second = chunks(2, "b", 3, 30)
    team.land(first)
    builder = team.start("a", "build")
    wait_for(lambda: any("tsdedup build" in h for h in team.holders()), "the builder lock")
    # The password reached the JVM without passing a command line.
    assert command_lines_holding(catalog.password) == []
    team.land(second)
    # While the first holds the lock: a second build that may not wait, plain dbt
    # (as an orchestrator calls it) with the same lock, and a build that waits.
    refused = team.start("b", "build", TSDEDUP_LOCK_WAIT="0")
    plain = subprocess.Popen(
        [str(DBT), "run", "--select", "raw_chunks", "--project-dir", str(team.project("d"))],
        cwd=tmp_path,
        env=team.env("d", TSDEDUP_LOCK_WAIT="0"),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    waiting = team.start("c", "build", TSDEDUP_LOCK_WAIT="600")
    plain_out = plain.communicate(timeout=600)[0]
    assert refused.wait(600) == 2, team.output("b")
    assert builder.poll() is None, "the first build ended before the others met its lock"
    assert f"tsdedup build (process {builder.pid} on" in team.output("b"), team.output("b")
    assert "is writing schema team_builders; this build stopped before writing" in (
        team.output("b")
    )
    assert "Traceback" not in team.output("b")
    assert plain.returncode != 0
    assert f"tsdedup build (process {builder.pid} on" in plain_out, plain_out
    assert "this dbt run stopped before writing anything" in plain_out, plain_out
    assert builder.wait(900) == 0, team.output("a")
    assert waiting.wait(900) == 0, team.output("c")
    assert f"waiting for tsdedup build (process {builder.pid} on" in team.output("c")
    assert team.holders() == []

    landed = sorted(first + second)
    expected = expected_from_files(landed)
    rows, chunk_rows = team.sql(
        "a",
        "select * from team_builders.inc",
        "select source_file from team_builders.stg_chunks order by chunk_seq",
    )
    assert canonical(rows) == canonical(expected.rows("inc"))
    assert len(rows) == len(expected.rows("inc"))
    # Every file is one chunk, in landing order: none ingested twice, none skipped.
    assert [r["source_file"] for r in chunk_rows] == [name for name, _ in landed]

    # That the tables equal the embedded default's for the same files is shown
    # by test_cluster.py (the sample with this target, against a local build).


READS = (
    # A key's columns may be NULL (an absent tag), which `count(distinct ...)` skips.
    "select count(*) as n, (select count(*) from (select distinct host, rack, time_ns"
    " from {s}.inc)) as keys from {s}.inc",
    "select count(*) as n from {s}.inc_live",
)


def test_readers_see_whole_versions_during_a_build(team_of: Callable[[str], Team]) -> None:
    team = team_of("team_readers")
    first = chunks(3, "a", 3, 0)
    second = chunks(4, "b", 4, 20)
    team.land(first)
    team.run("a", "build").check()
    team.land(second)
    builder = team.start("a", "build")
    # One reader through dbt, with ref(), starts with the build; the others,
    # `tsdedup sql` processes, one after the other until the build ends.
    shower = team.start(
        "s", "show", "--inline", "select count(*) as n from {{ ref('inc_live') }}",
        "--output", "json", "--log-format", "json",
    )  # fmt: skip
    seen: list[list[list[dict[str, object]]]] = []
    reads = [r.format(s="team_readers") for r in READS]
    while builder.poll() is None:
        seen.append(team.sql("r", *reads * 2))
    assert builder.wait() == 0, team.output("a")
    assert shower.wait() == 0, team.output("s")
    shown = [shown_rows(team.output("s"))]
    assert len(seen) >= 2, "the readers ran less than twice during the build"
    # The build replaced the live view (its table moved), in place (decision 0030).
    assert re.search(r"OK created sql view model team_readers\.inc_live", team.output("a"))

    (snapshots,) = team.sql(
        "a", "select summary['total-records'] as n from team_readers.inc.snapshots"
    )
    versions = {int(str(s["n"])) for s in snapshots}
    before = len(expected_from_files(sorted(first)).rows("inc"))
    after = len(expected_from_files(sorted(first + second)).rows("inc"))
    assert {before, after} <= versions
    for answers in seen:
        for table, live in zip(answers[0::2], answers[1::2], strict=True):
            (row,) = table
            assert row["n"] == row["keys"], "a reader saw a key twice"
            assert row["n"] in versions, f"a reader saw {row['n']} rows, no version has that"
            assert live == [{"n": before}] or live == [{"n": after}], live
    for rows in shown:
        assert rows == [{"n": before}] or rows == [{"n": after}], rows


def test_a_lock_taken_in_a_held_session_stops_others_until_the_block_ends(
    catalog: LocalPostgres,
) -> None:
    catalog.query("create table held_rows (n int)")
    catalog.query("insert into held_rows values (1)")
    with (
        catalog.holding("select n from held_rows for update"),
        pytest.raises(PostgresError, match="could not obtain lock"),
    ):
        catalog.query("select n from held_rows for update nowait")
    assert catalog.query("select n from held_rows for update nowait") == [["1"]]
    with (
        pytest.raises(PostgresError, match="no_such_table"),
        catalog.holding("select n from no_such_table for update"),
    ):
        pass


def test_two_writers_without_the_builder_lock_lose_no_commit(
    catalog: LocalPostgres, team_of: Callable[[str], Team]
) -> None:
    team = team_of("team_writers")
    team.sql(
        "a",
        "create schema if not exists team_writers",
        "create table team_writers.counter (writer string, n int) using iceberg",
    )
    # The team target's tables retry a commit that lost a race 20 times, not 4.
    (properties,) = team.sql("a", "show tblproperties team_writers.counter")
    assert {"key": "commit.retry.num-retries", "value": "20"} in properties, properties
    (locks_before,) = catalog.query("select nl_next from next_lock_id")
    # `tsdedup sql` is a reader: it takes no builder lock, so both commit at will.
    inserts = {
        w: [f"insert into team_writers.counter values ('{w}', {n})" for n in range(20)]
        for w in ("x", "y")
    }
    # Each commit first asks the metastore for a lock, which reads its lock counter
    # `for update`. Held here, it stops both writers at their first commit until
    # both wait there; let go, the two commits race.
    with catalog.holding("select nl_next from next_lock_id for update"):
        writers = {w: team.start(w, "sql", *statements) for w, statements in inserts.items()}

        def both_wait() -> bool:
            for w, process in writers.items():
                assert process.poll() is None, team.output(w)
            waiting = catalog.query(
                "select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                " and query ilike '%next_lock_id%'"
            )
            return waiting == [["2"]]

        wait_for(both_wait, "both writers at their first commit's lock", timeout=600)
    for w, process in writers.items():
        assert process.wait(600) == 0, team.output(w)
    rows, snapshots = team.sql(
        "a",
        "select writer, n from team_writers.counter",
        "select snapshot_id from team_writers.counter.snapshots",
    )
    assert sorted((r["writer"], r["n"]) for r in rows) == sorted(
        (w, n) for w in inserts for n in range(20)
    )
    assert len(snapshots) == 40
    # Each writer (its Spark application) made 20 of them.
    (apps,) = team.sql(
        "a",
        "select summary['spark.app.id'] as app, count(*) as n"
        " from team_writers.counter.snapshots group by 1",
    )
    assert sorted(r["n"] for r in apps) == [20, 20], apps
    # Each commit held the metastore's table lock, and none is left.
    (locks_after,) = catalog.query("select nl_next from next_lock_id")
    assert int(locks_after[0]) - int(locks_before[0]) >= 40
    assert catalog.query("select count(*) from hive_locks") == [["0"]]


def test_a_team_target_without_its_password_stops_with_the_reason(
    team_of: Callable[[str], Team],
) -> None:
    team = team_of("team_nopassword")
    result = team.run("a", "sql", "select 1", TSDEDUP_CATALOG_PASSWORD="")
    assert result.code == 2
    assert re.search(
        r"needs its password in TSDEDUP_CATALOG_PASSWORD, which is not set", result.stderr
    )
    assert "Traceback" not in result.stderr
