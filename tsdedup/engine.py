"""A resident engine: one warm Spark session that ``tsdedup`` commands reuse.

Every ``tsdedup`` command otherwise starts a JVM, opens the metastore and runs
its first queries before the JIT has compiled anything: most of the time of a
run that has little to do. ``tsdedup engine start`` starts a background process
that keeps one Spark session of the selected target open; while it runs, every
``tsdedup`` command for the same state folder (``TSDEDUP_HOME``) runs inside it,
with the caller's arguments, environment, working folder, standard input,
output and error (the descriptors themselves are passed over a Unix socket, so
the output is the command's own). It stops after ``--idle-minutes`` without a
command (default 30), on ``tsdedup engine stop``, or when a command needs other
Spark settings than it was started with (another target, changed profile, or
changed Python code): that command stops it and runs in a process of its own.

Locking is the same as without it: the engine takes the state folder's lock
(tsdedup/state.py) while it starts and for each command, so a command that
arrives while another one runs stops at once with the same message, and a
command in a process of its own never opens the metastore while the engine has
it. Interrupting a command (Ctrl-C), or killing its caller, stops the engine, as
it stops a command's own process; the next run finishes what the interrupted
one started.

    engine.json  in the state folder: the engine's process, socket and settings.
    engine.log   in the state folder: what the engine printed outside commands.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import socket
import stat
import struct
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path

from tsdedup.packages import code_sources

RECORD_NAME = "engine.json"
LOG_NAME = "engine.log"
IDLE_MINUTES = 30.0
# The answer to a request the engine took but stopped before running: the
# caller runs the command in a process of its own.
NOT_RUN = -1
# A request's header: its length in 8 bytes, then JSON.
_LENGTH_BYTES = 8


class EngineError(RuntimeError):
    """The engine cannot be started, reached or stopped."""


@dataclass(frozen=True)
class EngineRecord:
    """A running engine, as engine.json describes it."""

    pid: int
    socket: str
    fingerprint: str
    target: str
    started: float
    idle_minutes: float

    def describe(self) -> str:
        started = time.strftime("%H:%M:%S", time.localtime(self.started))
        return (
            f"engine process {self.pid} (target {self.target}, started {started}, "
            f"stops after {self.idle_minutes:g} idle minutes)"
        )


def record_path(home: Path) -> Path:
    return home / RECORD_NAME


def _private(folder: Path) -> bool:
    try:
        info = folder.lstat()
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077


def socket_folder() -> Path:
    """A folder only this user can enter, so another user cannot put a socket or
    a link where the engine will listen: ``$XDG_RUNTIME_DIR`` when it is such a
    folder, else ``tsdedup-<uid>`` in the temporary folder, created mode 0700."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and _private(Path(runtime)):
        return Path(runtime)
    folder = Path(tempfile.gettempdir()) / f"tsdedup-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    if not _private(folder):
        raise EngineError(
            f"the engine's socket folder {folder} is not a folder private to this user "
            "(owned by it, mode 0700): remove it, or set XDG_RUNTIME_DIR to such a folder"
        )
    return folder


def socket_path(home: Path) -> Path:
    """A short path for the engine's socket (Unix socket paths are limited to
    about 100 bytes; a state folder's path may be longer), in socket_folder()."""
    key = hashlib.sha256(str(home.resolve()).encode("utf-8")).hexdigest()[:16]
    return socket_folder() / f"tsdedup-{key}.sock"


# Settings outside the Spark conf that shape a session: the JVM it starts and
# the log level set on it.
_SESSION_ENVIRONMENT = (
    "TSDEDUP_SPARK_LOG_LEVEL",
    "JAVA_HOME",
    "JAVA_TOOL_OPTIONS",
    "SPARK_CONF_DIR",
    "SPARK_HOME",
    "HADOOP_CONF_DIR",
)
_SESSION_PACKAGES = ("pyspark", "pyarrow", "dbt-core", "dbt-spark")


def fingerprint(conf: Mapping[str, str], environ: Mapping[str, str] | None = None) -> str:
    """What a session depends on: its Spark settings, the environment its JVM
    starts with, the Python, the versions of the packages it runs and this
    package's code. A command whose fingerprint differs needs another engine."""
    environ = os.environ if environ is None else environ
    digest = hashlib.sha256()
    digest.update(json.dumps(sorted(conf.items())).encode("utf-8"))
    digest.update(json.dumps([environ.get(name) for name in _SESSION_ENVIRONMENT]).encode("utf-8"))
    digest.update(sys.executable.encode("utf-8"))
    for name in _SESSION_PACKAGES:
        try:
            digest.update(f"{name}={metadata.version(name)}\0".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{name}=\0".encode())
    for source in code_sources():
        info = source.stat()
        digest.update(f"{source}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
    return digest.hexdigest()


def process_running(pid: int) -> bool:
    """Whether process ``pid`` exists and has not exited. A process that exited
    but that its parent has not reaped yet (a zombie; an engine's parent is
    whatever adopted it) holds nothing any more, and counts as gone."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            status = handle.read()
    except OSError:
        return True  # no /proc: the signal test is all there is
    # "pid (command) state ...": the command may hold spaces and parentheses.
    return status[status.rfind(b")") + 2 : status.rfind(b")") + 3] != b"Z"


# The engine's module, as its command line names it: now, and before the move.
ENGINE_MODULES = (b"tsdedup.engine_server", b"python_udfs.engine_server")


def _is_engine(pid: int) -> bool:
    """Whether process ``pid`` runs an engine (after a restart, the process id
    of engine.json may belong to anything)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            command = handle.read()
    except FileNotFoundError:
        return False
    except OSError:  # no /proc here: trust the process id
        return process_running(pid)
    # An engine started before its module moved from python_udfs/ is one too:
    # a command stops it (its settings differ) instead of losing track of it.
    return any(module in command for module in ENGINE_MODULES)


def read_record(home: Path) -> EngineRecord | None:
    """The running engine of ``home``, if any; a record left by an engine that
    died (killed, machine restarted) is removed."""
    path = record_path(home)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        record = EngineRecord(**data)
    except FileNotFoundError:
        return None
    except (ValueError, TypeError):
        path.unlink(missing_ok=True)
        return None
    if not _is_engine(record.pid):
        path.unlink(missing_ok=True)
        Path(record.socket).unlink(missing_ok=True)
        return None
    return record


def write_record(home: Path, record: EngineRecord) -> None:
    path = record_path(home)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(asdict(record)), encoding="utf-8")
    os.replace(tmp, path)


def remove_record(home: Path, pid: int) -> None:
    """Remove engine.json if it is the record of process ``pid``."""
    path = record_path(home)
    try:
        if json.loads(path.read_text(encoding="utf-8")).get("pid") == pid:
            path.unlink()
    except (FileNotFoundError, ValueError):
        pass


# --- the client side: what a `tsdedup` command does when an engine runs ---


def _descriptors() -> list[int]:
    """The caller's standard input, output and error; one that is closed is
    replaced by /dev/null."""
    fds = []
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
            fds.append(fd)
        except OSError:
            fds.append(os.open(os.devnull, os.O_RDWR))
    return fds


def send_request(sock: socket.socket, request: Mapping[str, object], fds: Sequence[int]) -> None:
    payload = json.dumps(request).encode("utf-8")
    message = len(payload).to_bytes(_LENGTH_BYTES, "big") + payload
    sent = socket.send_fds(sock, [message], list(fds))
    if sent < len(message):
        sock.sendall(message[sent:])


def receive_request(sock: socket.socket) -> tuple[dict[str, object], list[int]]:
    """A request and the descriptors that came with it; on any error the
    descriptors are closed before it is raised."""
    data, fds, _flags, _address = socket.recv_fds(sock, 1 << 16, 3)
    try:
        return _parse_request(sock, data), list(fds)
    except BaseException:
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        raise


def _parse_request(sock: socket.socket, data: bytes) -> dict[str, object]:
    while len(data) < _LENGTH_BYTES:
        more = sock.recv(1 << 16)
        if not more:
            raise EngineError("the request ended early")
        data += more
    length = int.from_bytes(data[:_LENGTH_BYTES], "big")
    while len(data) < _LENGTH_BYTES + length:
        more = sock.recv(1 << 16)
        if not more:
            raise EngineError("the request ended early")
        data += more
    body: dict[str, object] = json.loads(data[_LENGTH_BYTES : _LENGTH_BYTES + length])
    return body


def _receive_reply(sock: socket.socket) -> dict[str, object] | None:
    data = b""
    while chunk := sock.recv(1 << 12):
        data += chunk
    try:
        reply = json.loads(data) if data else None
    except ValueError:
        return None
    return reply if isinstance(reply, dict) else None


def _connect(record: EngineRecord) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(record.socket)
    except OSError as exc:
        sock.close()
        raise EngineError(f"cannot reach the {record.describe()}: {exc}") from None
    if peer_uid(sock) != os.getuid():
        sock.close()
        raise EngineError(f"{record.socket} is not this user's engine; not sending to it")
    return sock


def peer_uid(sock: socket.socket) -> int:
    """The user id of the process at the other end of a Unix socket."""
    credentials = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", credentials)[1])


def run_in_engine(record: EngineRecord, home: Path, args: Sequence[str]) -> int:
    """Run a command in the engine; returns its exit code. Ctrl-C stops the
    engine (and with it the command), as it would stop the command's process."""
    sock = _connect(record)
    try:
        request = {"op": "run", "args": list(args), "env": dict(os.environ), "cwd": os.getcwd()}
        send_request(sock, request, _descriptors())
        reply = _receive_reply(sock)
    except KeyboardInterrupt:
        os.kill(record.pid, signal.SIGTERM)
        try:
            wait_for_exit(record.pid, 60)
        except EngineError as exc:
            print(f"tsdedup: interrupted; {exc} after SIGTERM.", file=sys.stderr)
            return 130
        print(
            f"tsdedup: interrupted; stopped the {record.describe()}. The next run "
            "finishes what this one started.",
            file=sys.stderr,
        )
        return 130
    finally:
        sock.close()
    if reply is None:
        print(
            f"tsdedup: the engine (process {record.pid}) stopped during the command; "
            f"what it printed is in {home / LOG_NAME}. The next run finishes what this "
            "one started.",
            file=sys.stderr,
        )
        return 2
    code = int(reply.get("code", 2))  # type: ignore[call-overload]
    if code == NOT_RUN:
        raise EngineError(f"the {record.describe()} stopped before running the command")
    return code


def wait_for_exit(pid: int, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while process_running(pid):
        if time.monotonic() > deadline:
            raise EngineError(f"the engine (process {pid}) did not stop in {timeout:g} s")
        time.sleep(0.1)


def stop_engine(record: EngineRecord, timeout: float = 120.0) -> None:
    """Ask the engine to stop and wait until it (and its JVM) has gone."""
    sock = _connect(record)
    try:
        send_request(sock, {"op": "stop"}, _descriptors())
        reply = _receive_reply(sock)
    finally:
        sock.close()
    if reply is not None and reply.get("code") != 0:
        raise EngineError(str(reply.get("error") or "the engine refused to stop"))
    wait_for_exit(record.pid, timeout)


def start_engine(
    home: Path, target_args: Sequence[str], idle_minutes: float, timeout: float = 600.0
) -> EngineRecord:
    """Start an engine in the background and wait until it serves commands."""
    import subprocess

    home.mkdir(parents=True, exist_ok=True)
    log = home / LOG_NAME
    command = [
        sys.executable,
        "-m",
        "tsdedup.engine_server",
        "--idle-minutes",
        f"{idle_minutes:g}",
        *target_args,
    ]
    with open(log, "ab") as out:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        record = read_record(home)
        if record is not None and record.pid == process.pid:
            return record
        code = process.poll()
        if code is not None:
            tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-15:]
            raise EngineError(
                f"the engine stopped while starting (exit {code}); the end of {log}:\n"
                + "\n".join(tail)
            )
        time.sleep(0.2)
    process.kill()
    raise EngineError(f"the engine did not start within {timeout:g} s; see {log}")
