"""A catalog several processes share: the Hive metastore in PostgreSQL.

A target whose metastore URL is PostgreSQL's (the profile's ``team`` target)
gets, on top of its settings (decision 0029):

- the password from TSDEDUP_CATALOG_PASSWORD only, set inside the JVM after it
  starts: it is in no file and on no command line;
- the JDBC driver on the driver JVM's class path (TSDEDUP_JDBC_DRIVER, else
  Debian's /usr/share/java/postgresql.jar);
- a first start that creates what the metastore lacks (tsdedup/catalog_setup.py);
- the builder lock: a command that writes holds a PostgreSQL advisory lock
  of its schema from its start to its end, so a second builder waits for it
  (TSDEDUP_LOCK_WAIT seconds, default 0) or stops with a message naming it.
"""

from __future__ import annotations

import math
import os
import socket
import time
import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from py4j.protocol import Py4JError, Py4JJavaError

from tsdedup.dbt_runner import status

URL_KEY = "spark.hadoop.javax.jdo.option.ConnectionURL"
USER_KEY = "spark.hadoop.javax.jdo.option.ConnectionUserName"
PASSWORD_KEY = "javax.jdo.option.ConnectionPassword"
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
    {"sql", "show", "compile", "test", "docs", "generate", "report", "debug", "list", "ls",
     "source", "freshness"}
)  # fmt: skip
# The password each catalog's session was given, by URL: what this process's
# own connections to it use (a command in the resident engine may not carry it).
_PASSWORDS: dict[str, str] = {}
# The builder locks this process holds: (URL, schema key).
_HELD: set[tuple[str, int]] = set()


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
    if not math.isfinite(seconds) or seconds < 0:
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
        self.password(environ)
        jar = environ.get(JDBC_JAR_ENV) or DRIVER_JAR
        if not os.path.isfile(jar):
            raise CatalogError(
                f"the PostgreSQL JDBC driver is not at {jar}: install it "
                f"(apt-get install libpostgresql-jdbc-java) or name its jar in {JDBC_JAR_ENV}"
            )
        own = conf.get("spark.driver.extraClassPath", "")
        return {**conf, "spark.driver.extraClassPath": ":".join(filter(None, [own, jar]))}

    def password(self, environ: Mapping[str, str] | None = None) -> str:
        """The password from ``environ`` (os.environ), else the one this process's
        session was given; CatalogError when neither has one."""
        found = (os.environ if environ is None else environ).get(PASSWORD_ENV)
        found = found or _PASSWORDS.get(self.url)
        if not found:
            raise CatalogError(
                f"the catalog at {self.url} needs its password in {PASSWORD_ENV}, which is not set"
            )
        return found

    def connect_metastore(self, spark: Any) -> None:
        """Give the session's metastore clients the password, before their first use:
        Spark's (the shared state's Hadoop settings) and Iceberg's (the context's)."""
        password = self.password()
        spark._jsparkSession.sharedState().hadoopConf().set(PASSWORD_KEY, password)
        spark._jsc.hadoopConfiguration().set(PASSWORD_KEY, password)
        _PASSWORDS[self.url] = password

    @contextmanager
    def connection(self, spark: Any, purpose: str) -> Iterator[Any]:
        """A JDBC connection to the catalog's database, through the driver JVM;
        PostgreSQL lists it under ``purpose`` (pg_stat_activity.application_name)."""
        jvm = spark._jvm
        properties = jvm.java.util.Properties()
        properties.setProperty("user", self.user)
        properties.setProperty("password", self.password())
        properties.setProperty("ApplicationName", purpose[:63])
        properties.setProperty("tcpKeepAlive", "true")
        try:
            connection = jvm.java.sql.DriverManager.getConnection(self.url, properties)
        except Py4JError as exc:
            raise CatalogError(
                f"cannot connect to the catalog at {self.url}: {reason(exc)}"
            ) from None
        try:
            yield connection
        finally:
            connection.close()

    def holds(self, schema: str) -> bool:
        """Whether this process holds ``schema``'s builder lock."""
        return (self.url, schema_key(schema)) in _HELD

    @contextmanager
    def builder_lock(
        self, spark: Any, schema: str, command: str, wait_seconds: float
    ) -> Iterator[None]:
        """Hold ``schema``'s builder lock while the block runs: wait for another
        holder up to ``wait_seconds``, then raise BuilderLockedError naming it."""
        who = f"tsdedup {command} (process {os.getpid()} on {socket.gethostname()})"
        key = schema_key(schema)
        mine = f"select 1 where pg_try_advisory_lock({LOCK_CLASS}, {key})"
        with self.connection(spark, who) as connection:
            deadline = time.monotonic() + wait_seconds
            said = False
            while not rows(connection, mine):
                holder = _holder(connection, key)
                if time.monotonic() >= deadline:
                    waited = f" after waiting {wait_seconds:.0f} s" if wait_seconds else ""
                    raise BuilderLockedError(
                        f"{holder} is writing schema {schema}{waited}; this {command} stopped "
                        "before writing anything. Run it again when that one is done, or set "
                        f"{LOCK_WAIT_ENV} to the seconds it may wait."
                    )
                if not said:
                    status(f"waiting for {holder} to finish writing schema {schema}")
                    said = True
                time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
            _HELD.add((self.url, key))
            try:
                yield
                _check_still_held(connection, key, schema)
            finally:
                _HELD.discard((self.url, key))


def _holder(connection: Any, key: int) -> str:
    """Who holds builder lock ``key`` in this database, as PostgreSQL names it."""
    found = rows(
        connection,
        "select coalesce(nullif(a.application_name, ''), 'another process'),"
        " to_char(a.backend_start, 'YYYY-MM-DD HH24:MI:SS TZ')"
        " from pg_locks as l join pg_stat_activity as a on a.pid = l.pid"
        f" where l.locktype = 'advisory' and l.granted and l.classid = {LOCK_CLASS}"
        f" and l.objid = {key & 0xFFFFFFFF} and l.objsubid = 2"
        " and l.database = (select oid from pg_database where datname = current_database())",
    )
    if not found:
        return "another process"
    name, since = found[0]
    return f"{name}, connected since {since},"


def _check_still_held(connection: Any, key: int, schema: str) -> None:
    """Say so when the lock's connection dropped during the block (PostgreSQL then
    released the lock): another builder may have written beside this one."""
    try:
        held = rows(
            connection,
            "select 1 from pg_locks where locktype = 'advisory' and granted"
            f" and pid = pg_backend_pid() and classid = {LOCK_CLASS}"
            f" and objid = {key & 0xFFFFFFFF} and objsubid = 2",
        )
    except CatalogError:
        held = []
    if not held:
        status(
            f"warning: the connection that held schema {schema}'s builder lock dropped during "
            "this command, so another builder may have run beside it (each commit stayed "
            "whole); check the catalog's idle_session_timeout and the network"
        )


def execute(connection: Any, sql: str) -> None:
    """Run one statement on a JDBC connection; CatalogError with the database's reason."""
    try:
        statement = connection.createStatement()
        try:
            statement.execute(sql)
        finally:
            statement.close()
    except Py4JError as exc:
        raise CatalogError(f"the catalog's database refused `{sql[:80]}`: {reason(exc)}") from None


def rows(connection: Any, sql: str) -> list[tuple[Any, ...]]:
    """The rows of a query on a JDBC connection; CatalogError with the database's reason."""
    try:
        statement = connection.createStatement()
        try:
            result = statement.executeQuery(sql)
            width = result.getMetaData().getColumnCount()
            found = []
            while result.next():
                found.append(tuple(result.getObject(i) for i in range(1, width + 1)))
            return found
        finally:
            statement.close()
    except Py4JError as exc:
        raise CatalogError(f"the catalog's database refused `{sql[:80]}`: {reason(exc)}") from None


def reason(exc: Exception) -> str:
    """A Java exception's own message (the first line), else the Python one's."""
    java = exc.java_exception if isinstance(exc, Py4JJavaError) else None
    text = str(java.getMessage()) if java is not None else str(exc)
    return text.strip().splitlines()[0] if text.strip() else type(exc).__name__
