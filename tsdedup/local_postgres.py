"""A throw-away PostgreSQL server on 127.0.0.1, in a temporary folder of its
own, for the shared catalog's checks and tests: Debian's ``postgresql``
binaries, a new cluster, one role and one database, stopped and deleted when
done.

    with LocalPostgres() as server:
        server.environment()  # TSDEDUP_CATALOG_* settings for the `team` target

The role's password is generated and passed to the server on standard input,
never on a command line or in a file.
"""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from tsdedup.loopback import HOST, free_port
from tsdedup.shared_catalog import DRIVER_JAR, JDBC_JAR_ENV, PASSWORD_ENV

ROLE = "tsdedup"
DATABASE = "tsdedup"
# initdb and postgres refuse to run as root; a root process runs them as this user.
SERVER_USER = "postgres"
INSTALL_HINT = "apt-get install postgresql libpostgresql-jdbc-java (.ci/run installs them)"


class PostgresError(RuntimeError):
    """The throw-away server could not start or answer."""


class PostgresUnavailable(PostgresError):
    """PostgreSQL's server binaries or its JDBC driver are not installed."""


def server_binaries() -> Path:
    """The folder with ``initdb``, ``pg_ctl`` and ``psql``: on PATH, else Debian's."""
    on_path = shutil.which("pg_ctl")
    if on_path and shutil.which("initdb"):
        return Path(on_path).resolve().parent
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(folder) / "pg_ctl").is_file() and (Path(folder) / "initdb").is_file():
            return Path(folder)
    raise PostgresUnavailable(f"no PostgreSQL server binaries (initdb, pg_ctl): {INSTALL_HINT}")


def missing() -> str | None:
    """Why no throw-away server can start here, or None when one can."""
    try:
        binaries = server_binaries()
    except PostgresUnavailable as exc:
        return str(exc)
    if not (binaries / "psql").is_file():
        return f"no psql beside {binaries / 'pg_ctl'}: {INSTALL_HINT}"
    jar = os.environ.get(JDBC_JAR_ENV) or DRIVER_JAR
    if not Path(jar).is_file():
        return f"no PostgreSQL JDBC driver at {jar}: {INSTALL_HINT}"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(SERVER_USER)
        except KeyError:
            return f"running as root and there is no '{SERVER_USER}' user to run the server"
    return None


@dataclass
class LocalPostgres:
    """A PostgreSQL cluster in a new temporary folder (where the server's user
    reaches it), serving ``port`` on 127.0.0.1."""

    port: int = field(default_factory=free_port)
    password: str = field(default_factory=lambda: secrets.token_urlsafe(18))
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="tsdedup-pg-")))

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def socket_dir(self) -> Path:
        return self.folder / "socket"

    @property
    def url(self) -> str:
        return f"jdbc:postgresql://{HOST}:{self.port}/{DATABASE}"

    def _run(self, *command: str, stdin: str | None = None) -> None:
        prefix = ["runuser", "-u", SERVER_USER, "--"] if os.geteuid() == 0 else []
        done = subprocess.run(
            [*prefix, *command], input=stdin, capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise PostgresError(
                f"{Path(command[0]).name} failed ({done.returncode}): "
                f"{(done.stderr or done.stdout).strip()[-2000:]}"
            )

    def start(self) -> LocalPostgres:
        why = missing()
        if why:
            raise PostgresUnavailable(why)
        binaries = server_binaries()
        self.socket_dir.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            server = pwd.getpwnam(SERVER_USER)
            for path in (self.folder, self.socket_dir):
                os.chown(path, server.pw_uid, server.pw_gid)
        self._run(
            str(binaries / "initdb"), "-D", str(self.data), "-U", ROLE, "-E", "UTF8",
            "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync",
        )  # fmt: skip
        options = (
            f"-p {self.port} -k {self.socket_dir} -c listen_addresses={HOST} "
            "-c fsync=off -c max_connections=200"
        )
        try:
            self._run(
                str(binaries / "pg_ctl"), "-D", str(self.data), "-o", options,
                "-l", str(self.folder / "server.log"), "-w", "-t", "60", "start",
            )  # fmt: skip
        except PostgresError as exc:
            raise PostgresError(f"{exc}\n--- the server's log:\n{self.log()}") from None
        # The role's password, over the local socket (trusted), from standard input;
        # psql's error would quote the statement, so it is not passed on.
        try:
            self._run(
                str(binaries / "psql"), "-q", "-v", "ON_ERROR_STOP=1", "-h", str(self.socket_dir),
                "-p", str(self.port), "-U", ROLE, "-d", "postgres", "-f", "-",
                stdin=f"alter role {ROLE} password '{self.password}';\n"
                f"create database {DATABASE};\n",
            )  # fmt: skip
        except PostgresError:
            raise PostgresError(f"setting up role {ROLE} and database {DATABASE} failed") from None
        return self

    def stop(self) -> None:
        """Stop the server and delete its folder."""
        try:
            if (self.data / "postmaster.pid").exists():
                self._run(
                    str(server_binaries() / "pg_ctl"), "-D", str(self.data), "-m", "fast",
                    "-w", "stop",
                )  # fmt: skip
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def log(self) -> str:
        """The end of the server's log."""
        path = self.folder / "server.log"
        return path.read_text(encoding="utf-8", errors="replace")[-4000:] if path.exists() else ""

    def query(self, sql: str) -> list[list[str]]:
        """The rows of ``sql`` in the catalog's database, over the local socket
        (psql, unaligned): what a test watches the server with."""
        done = subprocess.run(
            [*self._psql(), "-c", sql], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise PostgresError(f"psql failed: {done.stderr.strip()}")
        return [line.split("\t") for line in done.stdout.splitlines() if line]

    def _psql(self) -> list[str]:
        return [
            str(server_binaries() / "psql"), "-X", "-A", "-t", "-F", "\t",
            "-v", "ON_ERROR_STOP=1", "-h", str(self.socket_dir), "-p", str(self.port),
            "-U", ROLE, "-d", DATABASE,
        ]  # fmt: skip

    @contextmanager
    def holding(self, sql: str, timeout: float = 60.0) -> Iterator[None]:
        """A session that ran ``sql`` in a transaction it keeps open until the
        block ends, so the locks ``sql`` took (``select ... for update``) are held
        that long: how a test makes other sessions wait at a point it chose."""
        name = f"tsdedup-holder-{secrets.token_hex(4)}"
        session = subprocess.Popen(
            self._psql(),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PGAPPNAME": name},
        )
        assert session.stdin is not None
        try:
            # The session is idle in its transaction after `begin` too, before
            # `sql` has run: a last statement naming the session marks that
            # `sql` is done (psql stops at a failing one, ON_ERROR_STOP).
            session.stdin.write(f"begin;\n{sql};\nselect '{name}' as held;\n")
            session.stdin.flush()
            deadline = time.monotonic() + timeout
            while self.query(
                "select count(*) from pg_stat_activity"
                f" where application_name = '{name}' and state = 'idle in transaction'"
                f" and position('{name}' in query) > 0"
            ) != [["1"]]:
                if session.poll() is not None or time.monotonic() > deadline:
                    raise PostgresError(f"holding {sql!r} failed: {session.communicate()[1]}")
                time.sleep(0.1)
            yield
        finally:
            if session.poll() is None:
                session.communicate("commit;\n\\q\n", timeout=timeout)

    def environment(self) -> dict[str, str]:
        """The `team` target's catalog settings for this server."""
        return {
            "TSDEDUP_CATALOG_URL": self.url,
            "TSDEDUP_CATALOG_USER": ROLE,
            PASSWORD_ENV: self.password,
        }

    def __enter__(self) -> LocalPostgres:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
