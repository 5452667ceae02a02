"""A catalog several processes share: the Hive metastore in PostgreSQL.

A target whose metastore URL is PostgreSQL's (the profile's ``team`` target)
gets, on top of its settings (decision 0029):

- the password from TSDEDUP_CATALOG_PASSWORD only, set inside the JVM after it
  starts: it is in no file and on no command line;
- the JDBC driver on the driver JVM's class path (TSDEDUP_JDBC_DRIVER, else
  Debian's /usr/share/java/postgresql.jar);
- a first start that creates the metastore's tables and the lock tables
  Iceberg's commits take a table lock in, one process at a time (prepare);
- the builder lock: a command that writes holds a PostgreSQL advisory lock
  of its schema from its start to its end, so a second builder waits for it
  (TSDEDUP_LOCK_WAIT seconds, default 0) or stops with a message naming it.
"""

from __future__ import annotations

import os
import socket
import time
import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

URL_KEY = "spark.hadoop.javax.jdo.option.ConnectionURL"
USER_KEY = "spark.hadoop.javax.jdo.option.ConnectionUserName"
PASSWORD_KEY = "javax.jdo.option.ConnectionPassword"
HEARTBEAT_KEY = "spark.hadoop.iceberg.hive.lock-heartbeat-interval-ms"
PASSWORD_ENV = "TSDEDUP_CATALOG_PASSWORD"
JDBC_JAR_ENV = "TSDEDUP_JDBC_DRIVER"
LOCK_WAIT_ENV = "TSDEDUP_LOCK_WAIT"
DRIVER_JAR = "/usr/share/java/postgresql.jar"
# The advisory locks' first key: "ts"; the second is 0 for the catalog's set-up,
# a hash of the schema for its builder lock.
LOCK_CLASS = 0x7473
SETUP_KEY = 0
# dbt and tsdedup commands that write nothing to the warehouse: they take no lock.
READ_ONLY_COMMANDS = frozenset(
    {"sql", "show", "compile", "test", "docs", "generate", "report", "debug", "list", "ls"}
)

# The tables the metastore's lock API uses (Hive 2.3's transaction schema): the
# metastore creates its other tables itself, these it only expects. Names are
# unquoted, as its SQL writes them.
LOCK_TABLES = (
    "create table if not exists txns (txn_id bigint primary key, txn_state char(1) not null,"
    " txn_started bigint not null, txn_last_heartbeat bigint not null,"
    " txn_user varchar(128) not null, txn_host varchar(128) not null,"
    " txn_agent_info varchar(128), txn_meta_info varchar(128), txn_heartbeat_count integer)",
    "create table if not exists txn_components (tc_txnid bigint references txns (txn_id),"
    " tc_database varchar(128) not null, tc_table varchar(128), tc_partition varchar(767),"
    " tc_operation_type char(1) not null)",
    "create table if not exists completed_txn_components (ctc_txnid bigint,"
    " ctc_database varchar(128) not null, ctc_table varchar(256), ctc_partition varchar(767))",
    "create table if not exists next_txn_id (ntxn_next bigint not null)",
    "insert into next_txn_id select 1 where not exists (select 1 from next_txn_id)",
    "create table if not exists hive_locks (hl_lock_ext_id bigint not null,"
    " hl_lock_int_id bigint not null, hl_txnid bigint, hl_db varchar(128) not null,"
    " hl_table varchar(128), hl_partition varchar(767), hl_lock_state char(1) not null,"
    " hl_lock_type char(1) not null, hl_last_heartbeat bigint not null, hl_acquired_at bigint,"
    " hl_user varchar(128) not null, hl_host varchar(128) not null, hl_heartbeat_count integer,"
    " hl_agent_info varchar(128), hl_blockedby_ext_id bigint, hl_blockedby_int_id bigint,"
    " primary key (hl_lock_ext_id, hl_lock_int_id))",
    "create table if not exists next_lock_id (nl_next bigint not null)",
    "insert into next_lock_id select 1 where not exists (select 1 from next_lock_id)",
    "create table if not exists aux_table (mt_key1 varchar(128) not null,"
    " mt_key2 bigint not null, mt_comment varchar(255), primary key (mt_key1, mt_key2))",
    "create table if not exists write_set (ws_database varchar(128) not null,"
    " ws_table varchar(128) not null, ws_partition varchar(767), ws_txnid bigint not null,"
    " ws_commit_id bigint not null, ws_operation_type char(1) not null)",
    "create table if not exists compaction_queue (cq_id bigint primary key,"
    " cq_database varchar(128) not null, cq_table varchar(128) not null,"
    " cq_partition varchar(767), cq_state char(1) not null, cq_type char(1) not null,"
    " cq_tblproperties varchar(2048), cq_worker_id varchar(128), cq_start bigint,"
    " cq_run_as varchar(128), cq_highest_txn_id bigint, cq_meta_info bytea,"
    " cq_hadoop_job_id varchar(32))",
    "create table if not exists next_compaction_queue_id (ncq_next bigint not null)",
    "insert into next_compaction_queue_id select 1"
    " where not exists (select 1 from next_compaction_queue_id)",
    "create table if not exists completed_compactions (cc_id bigint primary key,"
    " cc_database varchar(128) not null, cc_table varchar(128) not null,"
    " cc_partition varchar(767), cc_state char(1) not null, cc_type char(1) not null,"
    " cc_tblproperties varchar(2048), cc_worker_id varchar(128), cc_start bigint,"
    " cc_end bigint, cc_run_as varchar(128), cc_highest_txn_id bigint, cc_meta_info bytea,"
    " cc_hadoop_job_id varchar(32))",
)


class CatalogError(RuntimeError):
    """The shared catalog cannot be used as configured."""


class BuilderLockedError(CatalogError):
    """Another process holds the schema's builder lock."""


def lock_wait_seconds(environ: Mapping[str, str]) -> float:
    """How long a builder waits for another (TSDEDUP_LOCK_WAIT, default 0)."""
    value = environ.get(LOCK_WAIT_ENV, "").strip()
    try:
        seconds = float(value) if value else 0.0
    except ValueError:
        seconds = -1.0
    if seconds < 0:
        raise CatalogError(f"{LOCK_WAIT_ENV}={value!r} is not a number of seconds (0 or more)")
    return seconds


def schema_key(schema: str) -> int:
    """The builder lock's second key for ``schema``: a signed 32-bit hash."""
    value = zlib.crc32(schema.lower().encode("utf-8"))
    return value - (1 << 32) if value >= 1 << 31 else value


def writes(command: str) -> bool:
    """Whether a command (``build``, ``sql``, ...) may write to the warehouse."""
    return command not in READ_ONLY_COMMANDS


@dataclass(frozen=True)
class SharedCatalog:
    """The metastore in PostgreSQL at ``url``, as ``user``."""

    url: str
    user: str

    @classmethod
    def of(cls, conf: Mapping[str, str]) -> SharedCatalog | None:
        """The shared catalog a session's settings name, or None (embedded Derby)."""
        url = conf.get(URL_KEY, "")
        if not url.startswith("jdbc:postgresql:"):
            return None
        return cls(url, conf.get(USER_KEY, ""))

    def session_conf(
        self, conf: Mapping[str, str], environ: Mapping[str, str] | None = None
    ) -> dict[str, str]:
        """``conf`` with the JDBC driver on the driver's class path, once the
        password and the driver are known to be there."""
        environ = os.environ if environ is None else environ
        if f"spark.hadoop.{PASSWORD_KEY}" in conf:
            raise CatalogError(
                f"the profile sets the catalog's password; remove it and set {PASSWORD_ENV} "
                "instead (a password belongs in no file)"
            )
        if not environ.get(PASSWORD_ENV):
            raise CatalogError(
                f"the catalog at {self.url} needs its password in {PASSWORD_ENV}, which is not set"
            )
        jar = environ.get(JDBC_JAR_ENV) or DRIVER_JAR
        if not os.path.isfile(jar):
            raise CatalogError(
                f"the PostgreSQL JDBC driver is not at {jar}: install it "
                f"(apt-get install libpostgresql-jdbc-java) or name its jar in {JDBC_JAR_ENV}"
            )
        own = conf.get("spark.driver.extraClassPath", "")
        return {**conf, "spark.driver.extraClassPath": ":".join(filter(None, [own, jar]))}

    def connect_metastore(self, spark: Any, environ: Mapping[str, str] | None = None) -> None:
        """Give the session's metastore clients the password, before their first use:
        Spark's (the shared state's Hadoop settings) and Iceberg's (the context's)."""
        password = (os.environ if environ is None else environ)[PASSWORD_ENV]
        spark._jsparkSession.sharedState().hadoopConf().set(PASSWORD_KEY, password)
        spark._jsc.hadoopConfiguration().set(PASSWORD_KEY, password)

    @contextmanager
    def connection(self, spark: Any, purpose: str) -> Iterator[Any]:
        """A JDBC connection to the catalog's database, through the driver JVM;
        PostgreSQL lists it under ``purpose`` (pg_stat_activity.application_name)."""
        jvm = spark._jvm
        properties = jvm.java.util.Properties()
        properties.setProperty("user", self.user)
        properties.setProperty("password", os.environ[PASSWORD_ENV])
        properties.setProperty("ApplicationName", purpose[:63])
        properties.setProperty("tcpKeepAlive", "true")
        try:
            connection = jvm.java.sql.DriverManager.getConnection(self.url, properties)
        except Exception as exc:  # py4j wraps the SQLException
            raise CatalogError(
                f"cannot connect to the catalog at {self.url}: {_reason(exc)}"
            ) from None
        try:
            yield connection
        finally:
            connection.close()

    def prepare(self, spark: Any, heartbeat_ms: int) -> None:
        """Create what the metastore expects and does not create itself, and drop
        the table locks of writers that died (no heartbeat for five intervals,
        and at least the metastore's own 300 s), one process at a time."""
        with self.connection(spark, f"tsdedup set-up (process {os.getpid()})") as connection:
            _execute(connection, f"select pg_advisory_lock({LOCK_CLASS}, {SETUP_KEY})")
            try:
                fresh = not _rows(
                    connection,
                    "select 1 from information_schema.tables where table_name = 'DBS'",
                )
                for statement in LOCK_TABLES:
                    _execute(connection, statement)
                if fresh:
                    create_metastore_tables(spark)
                stale = int(time.time() * 1000) - max(5 * heartbeat_ms, 300_000)
                _execute(connection, f"delete from hive_locks where hl_last_heartbeat < {stale}")
            finally:
                _execute(connection, f"select pg_advisory_unlock({LOCK_CLASS}, {SETUP_KEY})")

    @contextmanager
    def builder_lock(
        self, spark: Any, schema: str, command: str, wait_seconds: float
    ) -> Iterator[None]:
        """Hold ``schema``'s builder lock while the block runs: wait for another
        holder up to ``wait_seconds``, then raise BuilderLockedError naming it."""
        who = f"tsdedup {command} (process {os.getpid()} on {socket.gethostname()})"
        key = schema_key(schema)
        with self.connection(spark, who) as connection:
            deadline = time.monotonic() + wait_seconds
            said = False
            while not _rows(
                connection, f"select 1 where pg_try_advisory_lock({LOCK_CLASS}, {key})"
            ):
                holder = self._holder(connection, key)
                if time.monotonic() >= deadline:
                    waited = f" after waiting {wait_seconds:.0f} s" if wait_seconds else ""
                    raise BuilderLockedError(
                        f"{holder} is writing schema {schema}{waited}; this {command} stopped "
                        "before writing anything. Run it again when that one is done, or set "
                        f"{LOCK_WAIT_ENV} to the seconds it may wait."
                    )
                if not said:
                    print(f"tsdedup: waiting for {holder} to finish writing schema {schema}")
                    said = True
                time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
            yield

    def _holder(self, connection: Any, key: int) -> str:
        rows = _rows(
            connection,
            "select coalesce(nullif(a.application_name, ''), 'another process'),"
            " to_char(a.backend_start, 'YYYY-MM-DD HH24:MI:SS TZ')"
            " from pg_locks as l join pg_stat_activity as a on a.pid = l.pid"
            f" where l.locktype = 'advisory' and l.granted and l.classid = {LOCK_CLASS}"
            f" and l.objid = {key & 0xFFFFFFFF} and l.objsubid = 2",
        )
        if not rows:
            return "another process"
        name, since = rows[0]
        return f"{name}, connected since {since},"


def create_metastore_tables(spark: Any) -> None:
    """Have the metastore create the tables a project's statements use, in one
    process, before several can race to create them: a database, an Iceberg
    table with properties, a view replaced, then all dropped again."""
    statements = (
        "create database if not exists tsdedup_catalog_setup",
        "create table tsdedup_catalog_setup.t (a int) using iceberg",
        "alter table tsdedup_catalog_setup.t set tblproperties ('tsdedup.setup' = '1')",
        "create view tsdedup_catalog_setup.v as select a from tsdedup_catalog_setup.t",
        "drop view tsdedup_catalog_setup.v",
        "drop table tsdedup_catalog_setup.t purge",
        "drop database tsdedup_catalog_setup",
    )
    for statement in statements:
        spark.sql(statement).collect()


def _execute(connection: Any, sql: str) -> None:
    statement = connection.createStatement()
    try:
        statement.execute(sql)
    finally:
        statement.close()


def _rows(connection: Any, sql: str) -> list[tuple[Any, ...]]:
    statement = connection.createStatement()
    try:
        result = statement.executeQuery(sql)
        width = result.getMetaData().getColumnCount()
        rows = []
        while result.next():
            rows.append(tuple(result.getObject(i) for i in range(1, width + 1)))
        return rows
    finally:
        statement.close()


def _reason(exc: Exception) -> str:
    java = getattr(exc, "java_exception", None)
    return str(java.getMessage()) if java is not None else str(exc)
