"""``tsdedup``: run dbt with the project's Spark session and Python UDFs.

    tsdedup <any dbt arguments>     e.g. tsdedup build, tsdedup show --inline "..."
    tsdedup sample                  build the bundled sample data and print a summary
    tsdedup sql [--json] "<sql>"...  run Spark SQL statements on the project's tables
    tsdedup report [--out FILE]     an HTML page of duplicates removed and chunk overlap
    tsdedup retract CHUNK|FILE...   retract chunks (by number or file name); the next run
                                    rebuilds the day partitions they had points in
    tsdedup engine start|stop|status  a resident Spark session the commands reuse
                                    (tsdedup/engine.py)

This command starts the Spark session with the selected profile target's
settings, registers the UDFs, then runs dbt in the same process; the profile's
adapter (``tsdedup_spark``) picks that session up. Around dbt it adds tables for
measurements without a model file, the run summary, progress lines, skipping
unchanged runs and the resident engine (plain ``dbt`` works without them,
decision 0028).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tsdedup import (
    discovery,
    engine,
    jvm_archive,
    jvm_mode,
    spark_session,
    up_to_date,
    warm_up,
)
from tsdedup.dbt_runner import active_spark, run_dbt, status
from tsdedup.invocation import Invocation, option
from tsdedup.profile import ProfileError, spark_parameters
from tsdedup.progress import ProgressSettingError, interval_from_environment
from tsdedup.report import ReportUsageError, run_report
from tsdedup.report import parse_args as parse_report_args
from tsdedup.run_summary import (
    LandedMeasurement,
    model_ran,
    print_run_summary,
    query_measurements,
    read_run_results,
)
from tsdedup.sample import run_sample
from tsdedup.shared_catalog import CatalogError, SharedCatalog, lock_wait_seconds, writes
from tsdedup.spark_session import LogLevelError, Paths, base_conf, spark_log_level
from tsdedup.sql_command import SqlUsageError, run_sql
from tsdedup.sql_command import parse_args as parse_sql_args
from tsdedup.state import HomeLock, HomeLockedError

# dbt commands followed by a summary of what they did (tsdedup/run_summary.py).
SUMMARIZED = {"run", "build"}
# dbt commands that need no Spark session (nor `docs serve`, which only serves target/).
_NO_SPARK = {"clean", "deps", "init", "list", "ls", "parse", "--version", "--help", "-h"}


def session_conf(invocation: Invocation) -> tuple[str, dict[str, str]]:
    """The selected target's name and the Spark settings of its session: the
    project's defaults, then the target's own."""
    name, settings = invocation.profile_target()
    conf = base_conf(Paths(invocation.home))
    conf.update(spark_parameters(settings))
    return name, conf


def start_spark(
    invocation: Invocation, *, warm: bool = False, jvm: jvm_mode.JvmMode | None = None
) -> object:
    """Start the Spark session for the selected target, saying so: the JVM, the
    metastore and the warm-up take a while. With ``warm``, a dbt run follows:
    Spark warms up in the background meanwhile (tsdedup/warm_up.py).
    ``jvm``: the driver JVM's mode (tsdedup/jvm_mode.py; the default if None)."""
    name, conf = session_conf(invocation)
    driver = jvm_archive.driver()
    extra_options = [*driver.options, *(jvm.java_options if jvm else ())]
    if extra_options:
        driver_options = conf.get("spark.driver.extraJavaOptions", "")
        conf["spark.driver.extraJavaOptions"] = " ".join([driver_options, *extra_options]).strip()
    if driver.class_path:
        own = conf.get("spark.driver.extraClassPath", "")
        conf["spark.driver.extraClassPath"] = ":".join(
            [*map(str, driver.class_path), *filter(None, [own])]
        )
    started = time.monotonic()
    short = f"; a short-lived JVM: {jvm.reason}" if jvm and jvm.short else ""
    status(f"starting Spark (target {name}, master {conf.get('spark.master', '?')}{short})")
    spark = spark_session.build_session(conf, preload_modules=("dbt.cli.main",) if warm else ())
    if not conf.get("spark.master", "").startswith("local"):
        spark_session.ship_udfs(spark, invocation.home)
    status(f"Spark started in {time.monotonic() - started:.1f} s")
    if warm:
        warm_up.start_warm_up(spark, invocation.schema(), invocation.landing)
    return spark


@dataclass(frozen=True)
class DbtOutcome:
    """What running one dbt command took: its exit code, the run results of the
    invocations before the last, and why some measurements have no table."""

    code: int
    earlier: list[dict[str, Any]] = field(default_factory=list)
    refused: Mapping[str, str] = field(default_factory=dict)
    # When the last invocation started (epoch seconds): its run results are newer.
    since: float = 0.0
    # rpt_measurements as discovery read it after the last invocation (None if
    # it was not read): the summary needs it read no second time.
    landed: tuple[LandedMeasurement, ...] | None = None


def run_dbt_discovering(invocation: Invocation) -> DbtOutcome:
    """Run dbt with a table for every measurement (tsdedup/discovery.py).

    Generated models that a model file of the user's now replaces are removed
    first. A run or build of everything that lands new measurements then
    builds their tables in a second dbt invocation; other commands (and a run
    of selected models) keep the generated models there are, and `docs
    generate` adds those the warehouse has landed since."""
    args = invocation.args
    shadowed = discovery.remove_shadowed(invocation.project_dir)
    if shadowed:
        status(
            f"a file of the project's now has the name of {', '.join(shadowed)}: "
            "generated model(s) removed"
        )
    started = time.time()
    if invocation.command not in SUMMARIZED:
        _discover(invocation, add=args[:2] == ("docs", "generate"))
        return DbtOutcome(run_dbt(args), since=started)
    code = run_dbt(args)
    build_new = code != 2 and not discovery.has_selection(args)
    new, refused, landed = _discover(invocation, add=build_new)
    if not new:
        return DbtOutcome(code, refused=refused, since=started, landed=landed)
    earlier = read_run_results(invocation.target_path, started)
    status(f"building the tables of {len(new)} new measurement(s): {', '.join(new)}")
    follow_up_started = time.time()
    follow_up = run_dbt(discovery.follow_up_args(args, new))
    return DbtOutcome(
        max(code, follow_up), [] if earlier is None else [earlier], refused, follow_up_started
    )


def _discover(
    invocation: Invocation, add: bool
) -> tuple[list[str], Mapping[str, str], tuple[LandedMeasurement, ...] | None]:
    """Write the generated models of the measurements in the raw log (with
    ``add``, also of those that have none yet: a build follows). Returns the
    new ones, why some get none, and the rows of rpt_measurements read (None
    when not read). Nothing happens without a Spark session, or before a
    build has left a manifest and rpt_measurements."""
    manifest = discovery.read_manifest(invocation.target_path)
    spark = active_spark()
    if manifest is None or spark is None:
        return [], {}, None
    from pyspark.errors import PySparkException

    try:
        rows = tuple(query_measurements(spark, invocation.schema(), {}))
    except PySparkException:
        return [], {}, None
    present = discovery.generated_measurements(invocation.project_dir)
    verdict = discovery.plan(
        [m.measurement for m in rows], discovery.read_project(manifest), present
    )
    measurements = list(verdict.generate)
    if not add:
        measurements = [m for m in measurements if m in present]
    return (
        discovery.write_generated(invocation.project_dir, measurements),
        verdict.refused,
        rows,
    )


def retract_args(chunks: Sequence[str]) -> list[str]:
    """``tsdedup retract 7 feed.lp`` as the dbt command it runs."""
    if not chunks or any(c.startswith("-") for c in chunks):
        raise RetractUsageError("usage: tsdedup retract CHUNK_NUMBER|FILE_NAME [...]")
    return ["run-operation", "retract_chunks", "--args", json.dumps({"chunks": list(chunks)})]


class RetractUsageError(ValueError):
    """`tsdedup retract` without chunks, or with an option."""


def run_command(invocation: Invocation, spark: object, inputs: str | None) -> int:
    """Run a command that needs the Spark session (started): one of tsdedup's
    own, or dbt's, followed by its summary."""
    command = invocation.command
    if command == "sample":
        return run_sample(invocation)
    if command == "sql":
        return run_sql(spark, list(invocation.args[1:]))
    if command == "report":
        return run_report(spark, invocation)
    landing = up_to_date.local_landing(os.environ)
    listing = up_to_date.landing_listing(landing) if landing and command in SUMMARIZED else None
    outcome = run_dbt_discovering(invocation)
    if command in SUMMARIZED:
        print_run_summary(
            invocation, outcome.since, outcome.earlier, outcome.refused, outcome.landed
        )
    if outcome.code == 0 and inputs is not None:
        up_to_date.remember(invocation.home, inputs, invocation.args)
    if outcome.code == 0 and listing is not None and _ingested(invocation, outcome):
        jvm_mode.remember_landing(invocation.home, listing)
    return outcome.code


def _ingested(invocation: Invocation, outcome: DbtOutcome) -> bool:
    """Whether the command's dbt invocations ran ``raw_chunks`` (read the landing folder)."""
    last = read_run_results(invocation.target_path, outcome.since)
    runs = [*outcome.earlier, *([last] if last is not None else [])]
    return any(model_ran(run, "raw_chunks") for run in runs)


def engine_command(invocation: Invocation) -> int:
    """``tsdedup engine start|stop|status [--idle-minutes N] [--target NAME]``."""
    args, home = invocation.args[1:], invocation.home
    if not args or args[0] not in ("start", "stop", "status"):
        raise EngineUsageError(
            "usage: tsdedup engine start [--idle-minutes N] [--target NAME] | stop | status"
        )
    record = engine.read_record(home)
    if args[0] == "status":
        print(f"tsdedup: the {record.describe()} serves {home}" if record else "no engine runs")
        return 0
    if args[0] == "stop":
        if record is None:
            print("tsdedup: no engine runs")
            return 0
        engine.stop_engine(record)
        print(f"tsdedup: stopped the engine (process {record.pid})")
        return 0
    idle = option(args, "--idle-minutes")
    target_args: list[str] = []
    rest = iter(args[1:])
    for arg in rest:
        if arg == "--idle-minutes":
            next(rest, None)
        elif not arg.startswith("--idle-minutes="):
            target_args.append(arg)
    try:
        idle_minutes = engine.IDLE_MINUTES if idle is None else float(idle)
    except ValueError:
        raise EngineUsageError(f"--idle-minutes {idle!r} is not a number") from None
    if idle_minutes <= 0:
        raise EngineUsageError("--idle-minutes must be more than 0")
    _, conf = session_conf(invocation)
    if record is not None:
        if record.fingerprint == engine.fingerprint(conf):
            print(f"tsdedup: the {record.describe()} already runs")
            return 0
        status(f"the {record.describe()} has other settings: stopping it")
        engine.stop_engine(record)
    status("starting the engine (Spark, the metastore, dbt)")
    started = time.monotonic()
    record = engine.start_engine(home, target_args, idle_minutes)
    print(f"tsdedup: started the {record.describe()} in {time.monotonic() - started:.1f} s")
    return 0


class EngineUsageError(ValueError):
    """`tsdedup engine` without start, stop or status, or with a bad option."""


def run_in_running_engine(invocation: Invocation) -> int | None:
    """Run the command in the engine of the state folder, if one runs with the
    settings the command needs; None when the command must start Spark itself
    (an engine with other settings is stopped first). On a shared catalog a
    reader runs in a process of its own, beside whatever the engine runs."""
    record = engine.read_record(invocation.home)
    if record is None:
        return None
    if not writes(invocation.command) and _shared_catalog(invocation) is not None:
        return None
    _, conf = session_conf(invocation)
    if record.fingerprint != engine.fingerprint(conf):
        status(
            f"the {record.describe()} has other settings (target, profile or Python "
            "code) than this command: stopping it"
        )
        engine.stop_engine(record)
        return None
    try:
        return engine.run_in_engine(record, invocation.home, list(invocation.args))
    except engine.EngineError:  # it is stopping: run without it
        engine.wait_for_exit(record.pid)
        return None


def main(argv: Sequence[str] | None = None, *, in_engine: bool = False) -> int:
    """The ``tsdedup`` command; ``in_engine`` when the resident engine runs it
    (tsdedup/engine_server.py)."""
    invocation = Invocation.parse(sys.argv[1:] if argv is None else argv)
    invocation.export()
    try:  # settings read later, checked before anything starts
        interval_from_environment()
        spark_log_level()
        jvm_mode.mode_setting(os.environ)
    except (ProgressSettingError, LogLevelError, jvm_mode.JvmModeError) as exc:
        print(f"tsdedup: {exc}", file=sys.stderr)
        return 2
    command = invocation.command
    if command in ("", "-h", "--help"):
        print(__doc__)
        return run_dbt(["--help"])
    if command in _NO_SPARK or invocation.args[:2] == ("docs", "serve"):
        return run_dbt(invocation.args)
    try:
        if command == "engine":
            if in_engine:
                raise EngineUsageError("`tsdedup engine` cannot run inside the engine")
            return engine_command(invocation)
        if command == "sql":
            parse_sql_args(list(invocation.args[1:]))  # bad arguments fail before Spark starts
        if command == "report":
            parse_report_args(invocation.args[1:])
        if command == "retract":
            invocation = invocation.with_args(retract_args(invocation.args[1:]))
        if not in_engine:
            code = run_in_running_engine(invocation)
            if code is not None:
                return code
        return _run_locked(invocation, in_engine)
    except (
        HomeLockedError,
        CatalogError,
        ProfileError,
        SqlUsageError,
        ReportUsageError,
        RetractUsageError,
        EngineUsageError,
        engine.EngineError,
    ) as exc:
        print(f"tsdedup: {exc}", file=sys.stderr)
        return 2


def _run_locked(invocation: Invocation, in_engine: bool) -> int:
    """Run the command in this process's Spark session (the engine's) or one
    started for it. On the embedded metastore, under the state folder's lock,
    and an unchanged run is skipped; on a shared catalog, a command that writes
    holds the schema's builder lock once Spark runs, and none is skipped (another
    process may have written since), while readers take no lock at all."""
    args, home = invocation.args, invocation.home
    catalog = _shared_catalog(invocation)
    with contextlib.ExitStack() as held:
        inputs = None
        if catalog is None:
            held.enter_context(HomeLock(home))
            inputs = up_to_date.fingerprint(
                args, invocation.project_dir, os.environ, invocation.profiles_dir
            )
            finished_at = up_to_date.last_success(home, inputs) if inputs else None
            if finished_at is not None:
                print(up_to_date.skip_message(args, finished_at))
                return 0
        wait = lock_wait_seconds(os.environ) if catalog is not None else 0.0
        up_to_date.forget(home)
        if in_engine:
            spark = active_spark()
            status(f"running in the resident engine (process {os.getpid()})")
        else:
            spark = start_spark(
                invocation,
                warm=invocation.command not in ("sql", "report"),
                jvm=jvm_mode.choose(args, os.environ, home),
            )
        if catalog is not None and writes(invocation.command):
            held.enter_context(
                catalog.builder_lock(spark, invocation.schema(), invocation.command, wait)
            )
        try:
            return run_command(invocation, spark, inputs)
        finally:
            jvm_archive.build_in_background()


def _shared_catalog(invocation: Invocation) -> SharedCatalog | None:
    """The selected target's shared catalog, None when it has none or its profile
    cannot be read (starting Spark says why)."""
    try:
        return SharedCatalog.of(spark_parameters(invocation.profile_target()[1]))
    except ProfileError:
        return None


if __name__ == "__main__":
    raise SystemExit(main())
