"""``tsdedup``: run dbt with the project's Spark session and Python UDFs.

    tsdedup <any dbt arguments>     e.g. tsdedup build, tsdedup show --inline "..."
    tsdedup sample                  build the bundled sample data and print a summary
    tsdedup sql [--json] "<sql>"...  run Spark SQL statements on the project's tables
    tsdedup report [--out FILE]     an HTML page of duplicates removed and chunk overlap
    tsdedup retract CHUNK|FILE...   retract chunks (by number or file name); the next run
                                    rebuilds the day partitions they had points in
    tsdedup engine start|stop|status  a resident Spark session the commands reuse
                                    (python_udfs/engine.py)

Python UDFs cannot be declared in Spark SQL, so plain ``dbt run`` would fail with
UNRESOLVED_ROUTINE. This command starts the Spark session with the selected
profile target's settings, registers the UDFs, then runs dbt in the same
process; dbt-spark's session method picks that session up.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from python_udfs import engine, jvm_archive, jvm_mode, up_to_date, warm_up
from python_udfs.profile import ProfileError, read_target, spark_parameters
from python_udfs.progress import ProgressSettingError, interval_from_environment
from python_udfs.report import ReportUsageError
from python_udfs.run_summary import (
    LandedMeasurement,
    model_ran,
    read_run_results,
    target_path,
    target_schema,
)
from python_udfs.spark_session import LogLevelError, spark_log_level
from python_udfs.sql_command import SqlUsageError
from python_udfs.state import HomeLock, HomeLockedError

# dbt commands followed by a summary of what they did (python_udfs/run_summary.py).
SUMMARIZED = {"run", "build"}
# dbt commands that need no Spark session (nor `docs serve`, which only serves target/).
_NO_SPARK = {"clean", "deps", "init", "list", "ls", "parse", "--version", "--help", "-h"}


def find_project_dir(args: Sequence[str]) -> Path:
    """The dbt project: --project-dir, DBT_PROJECT_DIR, the current folder or
    one above it, else the folder this package was installed from."""
    for i, arg in enumerate(args):
        if arg == "--project-dir" and i + 1 < len(args):
            return Path(args[i + 1]).resolve()
        if arg.startswith("--project-dir="):
            return Path(arg.split("=", 1)[1]).resolve()
    if os.environ.get("DBT_PROJECT_DIR"):
        return Path(os.environ["DBT_PROJECT_DIR"]).resolve()
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / "dbt_project.yml").is_file():
            return folder
    return Path(__file__).resolve().parent.parent


def _option(args: Sequence[str], *names: str) -> str | None:
    for i, arg in enumerate(args):
        for name in names:
            if arg == name and i + 1 < len(args):
                return args[i + 1]
            if arg.startswith(name + "="):
                return arg.split("=", 1)[1]
    return None


def configure_environment(project_dir: Path) -> None:
    """Defaults for the state folder, the landing folder and the profile."""
    os.environ["DBT_PROJECT_DIR"] = str(project_dir)
    home = Path(os.environ.get("TSDEDUP_HOME") or project_dir / ".tsdedup").resolve()
    os.environ["TSDEDUP_HOME"] = str(home)
    landing = Path(os.environ.get("TSDEDUP_LANDING") or project_dir / "landing")
    if "://" not in str(landing):
        landing = landing.resolve()
        landing.mkdir(parents=True, exist_ok=True)
    os.environ["TSDEDUP_LANDING"] = str(landing)
    os.environ.setdefault("DBT_PROFILES_DIR", str(project_dir / "profiles"))
    os.environ.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")


def status(message: str) -> None:
    """A line on what the command is doing, on standard error (standard output
    stays dbt's, and JSON for `sql --json`)."""
    print(f"tsdedup: {message}", file=sys.stderr, flush=True)


def session_conf(args: Sequence[str]) -> tuple[str, dict[str, str]]:
    """The target selected by ``args`` and the Spark settings of its session:
    the project's defaults, then the target's own."""
    from python_udfs.spark_session import Paths, base_conf

    profiles_dir = Path(_option(args, "--profiles-dir") or os.environ["DBT_PROFILES_DIR"])
    target = _option(args, "--target", "-t")
    name, settings = read_target(profiles_dir, target)
    conf = base_conf(Paths(Path(os.environ["TSDEDUP_HOME"])))
    conf.update(spark_parameters(settings))
    return name, conf


def start_spark(
    args: Sequence[str], *, warm: bool = False, jvm: jvm_mode.JvmMode | None = None
) -> object:
    """Start the Spark session for the target selected by ``args``, saying so:
    the JVM, the metastore and the warm-up take a while. With ``warm``, a dbt
    run follows: Spark warms up in the background meanwhile (python_udfs/warm_up.py).
    ``jvm``: the driver JVM's mode (python_udfs/jvm_mode.py; the default if None)."""
    from python_udfs.spark_session import build_session, ship_udfs

    name, conf = session_conf(args)
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
    spark = build_session(conf, preload_modules=("dbt.cli.main",) if warm else ())
    if not conf.get("spark.master", "").startswith("local"):
        ship_udfs(spark)
    status(f"Spark started in {time.monotonic() - started:.1f} s")
    if warm:
        warm_up.start_warm_up(spark, target_schema(args), os.environ["TSDEDUP_LANDING"])
    return spark


def _active_spark() -> object | None:
    """The process's Spark session, if one was started (pyspark not imported otherwise)."""
    if "pyspark.sql" not in sys.modules:
        return None
    from pyspark.sql import SparkSession

    return SparkSession.getActiveSession()


def run_dbt(args: Sequence[str]) -> int:
    """Run dbt in-process; returns dbt's exit code (0 ok, 1 failures, 2 error).
    A long model gets progress lines (python_udfs/progress.py)."""
    from dbt.cli.main import dbtRunner

    from python_udfs.progress import Heartbeat

    with Heartbeat(interval_from_environment(), _active_spark()) as heartbeat:
        result = dbtRunner(callbacks=[heartbeat.on_event]).invoke(list(args))
    if result.exception is not None:
        return 2
    return 0 if result.success else 1


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


def run_dbt_discovering(project_dir: Path, args: Sequence[str]) -> DbtOutcome:
    """Run dbt with a table for every measurement (python_udfs/discovery.py).

    Generated models that a model file of the user's now replaces are removed
    first. A run or build of everything that lands new measurements then
    builds their tables in a second dbt invocation; other commands (and a run
    of selected models) keep the generated models there are, and `docs
    generate` adds those the warehouse has landed since."""
    from python_udfs import discovery
    from python_udfs.run_summary import read_run_results, target_path

    shadowed = discovery.remove_shadowed(project_dir)
    if shadowed:
        status(
            f"a file of the project's now has the name of {', '.join(shadowed)}: "
            "generated model(s) removed"
        )
    started = time.time()
    if args[0] not in SUMMARIZED:
        _discover(project_dir, args, add=args[:2] == ["docs", "generate"])
        return DbtOutcome(run_dbt(args), since=started)
    code = run_dbt(args)
    build_new = code != 2 and not discovery.has_selection(args)
    new, refused, landed = _discover(project_dir, args, add=build_new)
    if not new:
        return DbtOutcome(code, refused=refused, since=started, landed=landed)
    earlier = read_run_results(target_path(project_dir, args), started)
    status(f"building the tables of {len(new)} new measurement(s): {', '.join(new)}")
    follow_up_started = time.time()
    follow_up = run_dbt(discovery.follow_up_args(args, new))
    return DbtOutcome(
        max(code, follow_up), [] if earlier is None else [earlier], refused, follow_up_started
    )


def _discover(
    project_dir: Path, args: Sequence[str], add: bool
) -> tuple[list[str], Mapping[str, str], tuple[LandedMeasurement, ...] | None]:
    """Write the generated models of the measurements in the raw log (with
    ``add``, also of those that have none yet: a build follows). Returns the
    new ones, why some get none, and the rows of rpt_measurements read (None
    when not read). Nothing happens without a Spark session, or before a
    build has left a manifest and rpt_measurements."""
    from pyspark.errors import PySparkException

    from python_udfs import discovery
    from python_udfs.run_summary import query_measurements, target_path, target_schema

    manifest = discovery.read_manifest(target_path(project_dir, args))
    spark = _active_spark()
    if manifest is None or spark is None:
        return [], {}, None
    try:
        rows = tuple(query_measurements(spark, target_schema(args), {}))
    except PySparkException:
        return [], {}, None
    present = discovery.generated_measurements(project_dir)
    verdict = discovery.plan(
        [m.measurement for m in rows], discovery.read_project(manifest), present
    )
    measurements = list(verdict.generate)
    if not add:
        measurements = [m for m in measurements if m in present]
    return discovery.write_generated(project_dir, measurements), verdict.refused, rows


def retract_args(chunks: Sequence[str]) -> list[str]:
    """``tsdedup retract 7 feed.lp`` as the dbt command it runs."""
    import json

    if not chunks or any(c.startswith("-") for c in chunks):
        raise RetractUsageError("usage: tsdedup retract CHUNK_NUMBER|FILE_NAME [...]")
    return ["run-operation", "retract_chunks", "--args", json.dumps({"chunks": list(chunks)})]


class RetractUsageError(ValueError):
    """`tsdedup retract` without chunks, or with an option."""


def run_command(project_dir: Path, args: list[str], spark: object, inputs: str | None) -> int:
    """Run a command that needs the Spark session (started): one of tsdedup's
    own, or dbt's, followed by its summary."""
    if args[0] == "sample":
        from python_udfs.sample import run_sample

        return run_sample(project_dir, args[1:])
    if args[0] == "sql":
        from python_udfs.sql_command import run_sql

        return run_sql(spark, args[1:])
    if args[0] == "report":
        from python_udfs.report import run_report

        return run_report(spark, project_dir, args[1:])
    landing = up_to_date.local_landing(os.environ)
    listing = up_to_date.landing_listing(landing) if landing and args[0] in SUMMARIZED else None
    outcome = run_dbt_discovering(project_dir, args)
    if args[0] in SUMMARIZED:
        from python_udfs.run_summary import print_run_summary

        print_run_summary(
            project_dir, args, outcome.since, outcome.earlier, outcome.refused, outcome.landed
        )
    home = Path(os.environ["TSDEDUP_HOME"])
    if outcome.code == 0 and inputs is not None:
        up_to_date.remember(home, inputs, args)
    if outcome.code == 0 and listing is not None and _ingested(project_dir, args, outcome):
        jvm_mode.remember_landing(home, listing)
    return outcome.code


def _ingested(project_dir: Path, args: Sequence[str], outcome: DbtOutcome) -> bool:
    """Whether the command's dbt invocations ran ``raw_chunks`` (read the landing folder)."""
    last = read_run_results(target_path(project_dir, args), outcome.since)
    runs = [*outcome.earlier, *([last] if last is not None else [])]
    return any(model_ran(run, "raw_chunks") for run in runs)


def engine_command(home: Path, args: Sequence[str]) -> int:
    """``tsdedup engine start|stop|status [--idle-minutes N] [--target NAME]``."""
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
    idle = _option(args, "--idle-minutes")
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
    _, conf = session_conf(target_args)
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


def run_in_running_engine(home: Path, args: Sequence[str]) -> int | None:
    """Run the command in the engine of ``home``, if one runs with the settings
    the command needs; None when the command must start Spark itself (an engine
    with other settings is stopped first)."""
    record = engine.read_record(home)
    if record is None:
        return None
    own_command = args[0] in ("sample", "sql", "report")
    _, conf = session_conf([] if own_command else args)
    if record.fingerprint != engine.fingerprint(conf):
        status(
            f"the {record.describe()} has other settings (target, profile or Python "
            "code) than this command: stopping it"
        )
        engine.stop_engine(record)
        return None
    try:
        return engine.run_in_engine(record, home, args)
    except engine.EngineError:  # it is stopping: run without it
        engine.wait_for_exit(record.pid)
        return None


def main(argv: Sequence[str] | None = None, *, in_engine: bool = False) -> int:
    """The ``tsdedup`` command; ``in_engine`` when the resident engine runs it
    (python_udfs/engine_server.py)."""
    args = list(sys.argv[1:] if argv is None else argv)
    project_dir = find_project_dir(args)
    configure_environment(project_dir)
    try:  # settings read later, checked before anything starts
        interval_from_environment()
        spark_log_level()
        jvm_mode.mode_setting(os.environ)
    except (ProgressSettingError, LogLevelError, jvm_mode.JvmModeError) as exc:
        print(f"tsdedup: {exc}", file=sys.stderr)
        return 2
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return run_dbt(["--help"])
    if args[0] in _NO_SPARK or args[:2] == ["docs", "serve"]:
        return run_dbt(args)
    home = Path(os.environ["TSDEDUP_HOME"])
    try:
        if args[0] == "engine":
            if in_engine:
                raise EngineUsageError("`tsdedup engine` cannot run inside the engine")
            return engine_command(home, args[1:])
        if args[0] == "sql":
            from python_udfs.sql_command import parse_args

            parse_args(args[1:])  # fail on bad arguments before starting Spark
        if args[0] == "report":
            from python_udfs.report import parse_args as parse_report_args

            parse_report_args(args[1:])
        if args[0] == "retract":
            args = retract_args(args[1:])
        if not in_engine:
            code = run_in_running_engine(home, args)
            if code is not None:
                return code
        with HomeLock(home):
            inputs = up_to_date.fingerprint(args, project_dir, os.environ)
            finished_at = up_to_date.last_success(home, inputs) if inputs else None
            if finished_at is not None:
                print(up_to_date.skip_message(args, finished_at))
                return 0
            up_to_date.forget(home)
            session_args = [] if args[0] in ("sample", "sql", "report") else args
            if in_engine:
                spark = _active_spark()
                status(f"running in the resident engine (process {os.getpid()})")
            else:
                spark = start_spark(
                    session_args,
                    warm=args[0] not in ("sql", "report"),
                    jvm=jvm_mode.choose(args, os.environ, home),
                )
            try:
                return run_command(project_dir, args, spark, inputs)
            finally:
                jvm_archive.build_in_background()
    except (
        HomeLockedError,
        ProfileError,
        SqlUsageError,
        ReportUsageError,
        RetractUsageError,
        EngineUsageError,
        engine.EngineError,
    ) as exc:
        print(f"tsdedup: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
