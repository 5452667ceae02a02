"""The embedded Spark session that dbt uses, with Iceberg and the project's UDFs.

dbt-spark's ``session`` method calls ``SparkSession.builder.getOrCreate()``; if a
session already exists in the process it is reused. ``tsdedup`` builds that
session first, with exactly the settings of the selected profile target plus the
project's defaults, registers the Python functions, then runs dbt in-process.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tsdedup.catalog_setup import prepare
from tsdedup.iceberg_jars import spark_jar_conf
from tsdedup.packages import EXECUTOR_PACKAGE
from tsdedup.shared_catalog import CatalogError, SharedCatalog

LOG4J2 = """\
# Written by tsdedup: keep Spark's Java logging out of dbt's output.
rootLogger.level = {level}
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{{HH:mm:ss}} %p %c{{1}}: %m%n
logger.derby.name = org.apache.derby
logger.derby.level = error
# Spark sets the shell's level from the logger of its entry point; pin it to the
# root level so it does not announce "Setting default log level".
logger.repl.name = org.apache.spark.api.python.PythonGatewayServer
logger.repl.level = {level}
"""


@dataclass(frozen=True)
class Paths:
    """Where a tsdedup home keeps its state."""

    home: Path

    @property
    def warehouse(self) -> Path:
        return self.home / "warehouse"

    @property
    def metastore(self) -> Path:
        return self.home / "metastore_db"

    @property
    def conf(self) -> Path:
        return self.home / "conf"

    @property
    def jars(self) -> Path:
        return self.home / "jars"


# The driver JVM's collector: the throughput collector, because G1's concurrent
# threads compete with the task threads while a cold JVM warms up (decision 0016).
DRIVER_GC_OPTIONS = ("-XX:+UseParallelGC",)

# How many shuffle partitions a measurement's row-level merge runs with
# (macros/materializations/merge_shuffle_partitions.sql). Adaptive execution can
# only join whole partitions, so a small merge's few uneven hash partitions
# became one task with twice the rows of the others, run alone at the end; one
# partition per core keeps every core busy (decision 0033). A local session gets
# its core count; a cluster target may set it, or keeps its own setting.
MERGE_SHUFFLE_PARTITIONS = "spark.tsdedup.mergeShufflePartitions"


def local_cores(master: str) -> int | None:
    """The cores a local master runs tasks on (``local``, ``local[4]``,
    ``local[*]``, ``local[4,2]`` with retries), or None for a cluster's master."""
    found = re.fullmatch(r"local(?:\[(\*|[0-9]+)(?:,[0-9]+)?\])?", master.strip())
    if found is None:
        return None
    count = found.group(1)
    if count is None:
        return 1
    if count == "*":
        return os.cpu_count() or 1
    return max(int(count), 1)


def with_merge_partitions(conf: dict[str, str]) -> dict[str, str]:
    """``conf`` with MERGE_SHUFFLE_PARTITIONS, a local master's cores, unless the
    target sets it. It is a setting Spark starts with, which the resident
    engine's RESET between commands keeps."""
    cores = local_cores(conf.get("spark.master", ""))
    if cores is None or MERGE_SHUFFLE_PARTITIONS in conf:
        return conf
    return {**conf, MERGE_SHUFFLE_PARTITIONS: str(cores)}


# Log4j levels that TSDEDUP_SPARK_LOG_LEVEL may name.
LOG_LEVELS = ("OFF", "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE", "ALL")


class LogLevelError(ValueError):
    """TSDEDUP_SPARK_LOG_LEVEL names no log level."""


def spark_log_level() -> str:
    """Spark's Java log level: ERROR (quiet) unless TSDEDUP_SPARK_LOG_LEVEL asks
    for more (WARN, INFO, DEBUG, ...) or less (OFF)."""
    level = os.environ.get("TSDEDUP_SPARK_LOG_LEVEL", "").strip().upper() or "ERROR"
    if level not in LOG_LEVELS:
        raise LogLevelError(
            f"TSDEDUP_SPARK_LOG_LEVEL={level!r} is not a log level; use one of "
            + ", ".join(LOG_LEVELS)
        )
    return level


def base_conf(paths: Paths, log_level: str | None = None) -> dict[str, str]:
    """Settings every target needs: Iceberg as the session catalog on an
    embedded Derby metastore under ``paths.home`` (a target may override any).
    Spark's Java logging goes to stderr at ``log_level`` (default
    spark_log_level()), from the JVM's start on."""
    paths.conf.mkdir(parents=True, exist_ok=True)
    log4j = paths.conf / "log4j2.properties"
    level = (log_level or spark_log_level()).lower()
    log4j.write_text(LOG4J2.format(level=level), encoding="utf-8")
    java_opts = " ".join(
        [
            *DRIVER_GC_OPTIONS,
            f"-Dlog4j2.configurationFile={log4j.as_uri()}",
            f"-Dderby.system.home={paths.home}",
            f"-Dderby.stream.error.file={paths.home / 'derby.log'}",
        ]
    )
    conf = {
        "spark.master": "local[2]",
        "spark.app.name": "tsdedup",
        "spark.driver.memory": "4g",
        "spark.driver.extraJavaOptions": java_opts,
        "spark.executor.extraJavaOptions": f"-Dlog4j2.configurationFile={log4j.as_uri()}",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "4",
        # Landed files are grouped into tasks by size (maxPartitionBytes, 128 MB),
        # and Spark counts each file as at least openCostInBytes (4 MB). A task of
        # the file-reading table function has a fixed cost of its own (0.1-0.2 s
        # here), so files count as the bytes they have: a run reads a thousand
        # 400 KB files in 4 tasks instead of 35.
        "spark.sql.files.openCostInBytes": str(64 * 1024),
        # A run's new files are one scan of `folder/{name1,name2,...}`; past this
        # many paths Spark lists them with a job of one task per path (3.4 s for a
        # thousand local files, 0.02 s listed on the driver). On an object store
        # a cluster target may lower it again.
        "spark.sql.sources.parallelPartitionDiscovery.threshold": "4096",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.caseSensitive": "true",
        "spark.sql.ansi.enabled": "false",
        # Spark replaces ${name}, ${env:NAME} and ${system:name} anywhere in a SQL
        # text, string literals and quoted names included: a field named
        # `${env:HOME}` would have become the folder's path, and an unknown
        # ${var} vanishes. Names from data must reach the statement untouched.
        "spark.sql.variable.substitute": "false",
        "spark.sql.extensions": (
            "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
        ),
        "spark.sql.catalog.spark_catalog": "org.apache.iceberg.spark.SparkSessionCatalog",
        "spark.sql.catalog.spark_catalog.type": "hive",
        # The metastore ignores the case of table names (a discovered `Mem` is
        # `mem`), and so must Iceberg's table cache: with case-sensitive keys a
        # read of `Mem` after a write through `mem` saw the old snapshot.
        "spark.sql.catalog.spark_catalog.cache.case-sensitive": "false",
        "spark.sql.catalogImplementation": "hive",
        "spark.sql.warehouse.dir": str(paths.warehouse),
        "spark.hadoop.javax.jdo.option.ConnectionURL": (
            f"jdbc:derby:;databaseName={paths.metastore};create=true"
        ),
        "spark.hadoop.datanucleus.schema.autoCreateAll": "true",
        "spark.hadoop.hive.metastore.schema.verification": "false",
        # A measurement table gains columns in the middle when a new tag appears;
        # the embedded metastore would refuse that replace as a "type change" and
        # leave the Iceberg commit in an unknown state.
        "spark.hadoop.hive.metastore.disallow.incompatible.col.type.changes": "false",
        "spark.hadoop.iceberg.engine.hive.lock-enabled": "false",
    }
    conf.update(spark_jar_conf(paths.jars))
    return conf


# The session build_session registered the project's functions in: the
# process's one (Spark's own "active session" is per thread).
_REGISTERED: list[Any] = []


def registered_session() -> Any | None:
    """This process's Spark session with the project's functions, if it has one."""
    return _REGISTERED[-1] if _REGISTERED else None


def build_session(conf: dict[str, str], preload_modules: Sequence[str] = ()) -> Any:
    """Start (or reuse) the process's Spark session with ``conf`` and register UDFs.
    ``preload_modules`` load while the JVM starts (``dbt.cli.main`` before a dbt
    command: about 1.4 s of imports). A catalog in PostgreSQL gets its driver
    and password, and what it lacks on its first use (tsdedup/shared_catalog.py);
    its errors raise CatalogError."""
    catalog = SharedCatalog.of(conf)
    if catalog is not None:
        conf = catalog.session_conf(conf)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", _python())
    # The modules of the file-reading table function (pandas, Arrow compute:
    # about 0.7 s) load while the JVM starts, and any the caller names.
    preload = threading.Thread(target=_import_quietly, args=("python_udfs.udtf", *preload_modules))
    preload.start()
    from pyspark.sql import SparkSession

    conf = with_merge_partitions(conf)
    builder = SparkSession.builder.enableHiveSupport()
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    if catalog is not None:
        catalog.connect_metastore(spark)
    preload.join()
    from python_udfs import sort_key, udtf

    spark.sparkContext.setLogLevel(spark_log_level())
    udtf.register(spark)
    sort_key.register(spark)
    if catalog is not None:
        prepare(catalog, spark, heartbeat_ms=_heartbeat_ms(conf))
    _REGISTERED[:] = [spark]
    return spark


# Iceberg's table lock heartbeat setting, and its default (4 minutes).
HEARTBEAT_KEY = "spark.hadoop.iceberg.hive.lock-heartbeat-interval-ms"


def _heartbeat_ms(conf: dict[str, str]) -> int:
    value = conf.get(HEARTBEAT_KEY, "240000")
    try:
        return int(value)
    except ValueError:
        raise CatalogError(f"{HEARTBEAT_KEY}={value!r} is not a number of milliseconds") from None


def _import_quietly(*modules: str) -> None:
    """Import ``modules`` ahead of their use; a failure shows where they are used."""
    for module in modules:
        try:
            importlib.import_module(module)
        except Exception:  # the import where it is used reports it
            sys.modules.pop(module, None)


def _python() -> str:
    return sys.executable


def ship_udfs(spark: Any, home: Path) -> Path:
    """Zip the ``python_udfs`` package into the state folder ``home`` and add it
    to the session, so executors on a cluster can import the UDFs. Returns the
    zip's path."""
    import zipfile

    package = EXECUTOR_PACKAGE
    target = home / "python_udfs.zip"
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".zip.tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
        for source in sorted(package.rglob("*.py")):
            archive.write(source, Path("python_udfs") / source.relative_to(package))
    os.replace(tmp, target)
    spark.sparkContext.addPyFile(str(target))
    return target
