"""The resident engine's process (tsdedup/engine.py says what it is for).

    python -m tsdedup.engine_server [--idle-minutes N] [dbt target options]

Started by ``tsdedup engine start`` with the caller's environment. It starts
the Spark session of the selected target under the state folder's lock, then
serves one command at a time: a thread accepts connections and answers at once
when a command is already running; the main thread runs each command with the
caller's descriptors, environment and working folder, through the same code
as the ``tsdedup`` command (tsdedup/cli.py).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import queue
import select
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from multiprocessing import resource_tracker
from pathlib import Path
from typing import Any

from tsdedup import cli
from tsdedup.engine import (
    NOT_RUN,
    EngineError,
    EngineRecord,
    fingerprint,
    peer_uid,
    read_record,
    receive_request,
    remove_record,
    socket_path,
    write_record,
)
from tsdedup.invocation import Invocation
from tsdedup.state import HomeLock, HomeLockedError


@dataclass
class Request:
    connection: socket.socket
    body: Mapping[str, Any]
    fds: list[int]


def reply(connection: socket.socket, code: int, error: str | None = None) -> None:
    import json

    try:
        connection.sendall(json.dumps({"code": code, "error": error}).encode("utf-8"))
    except OSError:  # the caller went away
        pass
    finally:
        connection.close()


def close_all(fds: Sequence[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


class Busy:
    """One command at a time: the acceptor refuses a command while one runs."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def try_take(self) -> bool:
        return self._lock.acquire(blocking=False)

    def release(self) -> None:
        self._lock.release()


def answer(connection: socket.socket, code: int, busy: Busy, stopping: bool) -> None:
    """Tell the caller its command's exit code. The engine takes commands again
    before the caller hears it: a caller that ends on the answer and starts the
    next command at once must find the engine free, not refused as busy. An
    engine that stops frees itself after, so a caller that comes in between
    is told that it stopped."""
    if not stopping:
        busy.release()
    reply(connection, code)
    if stopping:
        busy.release()


def accept_loop(listener: socket.socket, requests: queue.Queue[Request], busy: Busy) -> None:
    """Accept connections; queue a request when no command runs, else refuse it."""
    while True:
        try:
            connection, _ = listener.accept()
        except OSError:  # the listener was closed: the engine stops
            return
        if not same_user(connection):
            connection.close()
            continue
        try:
            connection.settimeout(10.0)  # a caller that stalls blocks no one
            body, fds = receive_request(connection)
            connection.settimeout(None)
            if not isinstance(body, dict):
                raise EngineError("a request is a JSON object")
        except (OSError, ValueError, EngineError):
            connection.close()
            continue
        if busy.try_take():
            requests.put(Request(connection, body, fds))
            continue
        message = (
            f"tsdedup: the engine (process {os.getpid()}) is running another command for "
            "this state folder; this one stopped before touching anything. Wait for the "
            "other to finish.\n"
        )
        if body.get("op") == "run" and len(fds) == 3:
            with contextlib.suppress(OSError):
                os.write(fds[2], message.encode("utf-8"))
        close_all(fds)
        reply(connection, 2, message.removeprefix("tsdedup: ").strip())


def watch_caller(
    connection: socket.socket, finished: threading.Event, on_hangup: Callable[[], None]
) -> None:
    """While a command runs, watch its caller's end of the connection: a caller
    sends nothing after its request, so the connection becomes readable only
    when the caller is gone (killed, or its terminal closed). Then ``on_hangup``
    ends the engine, as the command would have ended with the caller's own
    process; the next run finishes what it started."""
    while not finished.is_set():
        try:
            readable, _, _ = select.select([connection], [], [], 0.2)
            if not readable or finished.is_set():
                continue
            if connection.recv(1 << 12) == b"":
                on_hangup()
                return
        except (OSError, ValueError):  # the connection was closed: the command ended
            return


def same_user(connection: socket.socket) -> bool:
    """Whether the caller runs as this process's user (the socket is private
    already; this holds even if its folder's permissions do not)."""
    return peer_uid(connection) == os.getuid()


def _flush() -> None:
    """Flush Python's standard streams; a caller that went away (a closed pipe
    or terminal) loses what was left, never the engine."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()


def run_with_descriptors(
    fds: Sequence[int],
    env: Mapping[str, str],
    cwd: str,
    command: Callable[[], int],
) -> int:
    """Run ``command`` with the caller's standard streams, environment and
    working folder; everything is put back afterwards, whatever happened."""
    _flush()
    saved_fds = [os.dup(fd) for fd in (0, 1, 2)]
    saved_streams = (sys.stdin, sys.stdout, sys.stderr)
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.environ.clear()
        os.environ.update(env)
        try:
            os.chdir(cwd)
            return command()
        except SystemExit as exc:
            if exc.code is None:
                return 0
            return exc.code if isinstance(exc.code, int) else 1
        except Exception:  # a crash is the command's, not the engine's
            with contextlib.suppress(OSError, ValueError):
                traceback.print_exc()
            return 1
    finally:
        _flush()
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        for target, fd in enumerate(saved_fds):
            os.dup2(fd, target)
        close_all(saved_fds)
        os.environ.clear()
        os.environ.update(saved_env)
        os.chdir(saved_cwd)


def reset_session(spark: Any, catalog: str, database: str) -> None:
    """Leave the session as a command in a process of its own finds it: SQL
    settings back to the engine's start (RESET keeps the settings Spark
    started with), ``catalog`` and ``database`` current, no temporary view,
    nothing cached. The project's registered functions stay."""
    spark.sql("RESET")
    spark.catalog.setCurrentCatalog(catalog)
    spark.catalog.setCurrentDatabase(database)
    # Lists the global temporary views and the session's own (namespace '').
    for row in spark.sql("show views in global_temp").collect():
        if row["isTemporary"] and row["namespace"]:
            spark.catalog.dropGlobalTempView(row["viewName"])
        elif row["isTemporary"]:
            spark.catalog.dropTempView(row["viewName"])
    spark.catalog.clearCache()


def stop_spark(spark: Any) -> None:
    """Stop the session and wait for its JVM to exit (it holds the metastore)."""
    gateway = getattr(spark.sparkContext, "_gateway", None)
    process = getattr(gateway, "proc", None)
    spark.stop()
    if process is not None:
        try:
            process.stdin.close()  # the JVM exits when its input closes
            process.wait(timeout=60)
        except Exception:
            process.kill()


def _end_now(spark: Any, home: Path) -> Callable[[], None]:
    """What SIGTERM does (Ctrl-C in a command): end the JVM, which holds the
    metastore, before this process, as a command's own process ends with its
    JVM; the caller waits for this process to be gone."""

    def end() -> None:
        gateway = getattr(spark.sparkContext, "_gateway", None)
        process = getattr(gateway, "proc", None)
        if process is not None:
            with contextlib.suppress(Exception):
                process.kill()
                process.wait(timeout=30)
        remove_record(home, os.getpid())
        os._exit(128 + signal.SIGTERM)

    return end


def run_on_signal(signum: int, action: Callable[[], None]) -> None:
    """Run ``action`` in a thread of its own when the process gets ``signum``.

    Python runs a signal's handler in the main thread, between two bytecodes.
    The main thread of the engine spends a command blocked in calls into the
    JVM (a query that runs for minutes), and the kernel may hand the signal to
    another thread, which does not interrupt that call: the handler would wait
    for the query. Every signal's number is also written to a wakeup pipe,
    by whichever thread receives it; a thread reading that pipe runs
    ``action`` at once. ``action`` may run twice at once (it ends the
    process). Call from the main thread."""
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
    # The handler itself is what makes Python write the pipe; it also acts
    # when the main thread gets there first.
    signal.signal(signum, lambda number, frame: action())

    def wait() -> None:
        while True:
            if signum in os.read(read_fd, 64):
                action()

    threading.Thread(target=wait, name=f"tsdedup-signal-{signum}", daemon=True).start()


def parse_args(argv: Sequence[str]) -> tuple[float, list[str]]:
    parser = argparse.ArgumentParser(prog="python -m tsdedup.engine_server")
    parser.add_argument("--idle-minutes", type=float, default=30.0)
    known, target_args = parser.parse_known_args(list(argv))
    return known.idle_minutes, target_args


def open_engine(
    invocation: Invocation, address: Path, idle_minutes: float
) -> tuple[Any, socket.socket, EngineRecord]:
    """Under the state folder's lock: start Spark, listen, write engine.json."""
    home = invocation.home
    with HomeLock(home):
        running = read_record(home)
        if running is not None:
            raise EngineError(f"the {running.describe()} already runs")
        target, conf = cli.session_conf(invocation)
        # warms up while dbt loads and, after, while no command runs
        spark = cli.start_spark(invocation, warm=True)
        spark.sql("show databases").collect()  # a metastore that cannot open stops the start
        import dbt.cli.main  # noqa: F401 - loaded once, used by every command

        # A process the engine starts during a command inherits that command's
        # output: a caller reading it through a pipe would wait for that process
        # to end. dbt's first run starts multiprocessing's resource tracker, a
        # process that lives as long as the engine: start it now.
        resource_tracker.ensure_running()

        address.unlink(missing_ok=True)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        umask = os.umask(0o177)  # the socket is the owner's from its creation
        try:
            listener.bind(str(address))
        finally:
            os.umask(umask)
        listener.listen(8)
        record = EngineRecord(
            pid=os.getpid(),
            socket=str(address),
            fingerprint=fingerprint(conf),
            target=target,
            started=time.time(),
            idle_minutes=idle_minutes,
        )
        write_record(home, record)
    return spark, listener, record


def serve(argv: Sequence[str]) -> int:
    idle_minutes, target_args = parse_args(argv)
    invocation = Invocation.parse(target_args)
    invocation.export()
    home = invocation.home
    try:
        address = socket_path(home)
        opened = open_engine(invocation, address, idle_minutes)
    except (HomeLockedError, EngineError) as exc:
        print(f"tsdedup: {exc}", file=sys.stderr)
        return 2
    spark, listener, record = opened
    catalog, database = spark.catalog.currentCatalog(), spark.catalog.currentDatabase()
    run_on_signal(signal.SIGTERM, _end_now(spark, home))
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    sys.stderr.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    cli.status(f"serving commands as the {record.describe()}")
    requests: queue.Queue[Request] = queue.Queue()
    busy = Busy()
    threading.Thread(target=accept_loop, args=(listener, requests, busy), daemon=True).start()
    last_used = time.monotonic()
    try:
        while True:
            idle_left = idle_minutes * 60 - (time.monotonic() - last_used)
            if idle_left <= 0:
                cli.status(f"no command for {idle_minutes:g} minutes: stopping")
                break
            try:
                request = requests.get(timeout=min(idle_left, 5.0))
            except queue.Empty:
                continue
            if request.body.get("op") == "stop":
                close_all(request.fds)
                reply(request.connection, 0)
                cli.status("stopping, as asked")
                break
            args = [str(a) for a in request.body.get("args", [])]
            finished = threading.Event()
            watcher = threading.Thread(
                target=watch_caller,
                args=(request.connection, finished, lambda: os.kill(os.getpid(), signal.SIGTERM)),
                daemon=True,
            )
            watcher.start()
            try:
                code = run_with_descriptors(
                    request.fds,
                    {str(k): str(v) for k, v in dict(request.body.get("env", {})).items()},
                    str(request.body.get("cwd", os.getcwd())),
                    lambda args=args: cli.main(args, in_engine=True),
                )
            finally:
                finished.set()
                watcher.join()
            stopping = False
            try:
                reset_session(spark, catalog, database)
            except Exception as exc:  # the next command must not inherit this one's state
                message = f"could not reset the session after the command ({exc}): stopping"
                cli.status(message)
                with contextlib.suppress(OSError):
                    os.write(request.fds[2], f"tsdedup: the engine {message}\n".encode())
                stopping = True
            close_all(request.fds)
            last_used = time.monotonic()
            answer(request.connection, code, busy, stopping)
            if stopping:
                break
    finally:
        # Callers arriving now find no engine; one already queued is told so.
        address.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            listener.shutdown(socket.SHUT_RDWR)
        listener.close()
        while not requests.empty():
            late = requests.get_nowait()
            close_all(late.fds)
            reply(late.connection, NOT_RUN, "the engine stopped before running it")
        with contextlib.ExitStack() as stack:
            # A command in a process of its own waits for the JVM's end.
            with contextlib.suppress(HomeLockedError):
                stack.enter_context(HomeLock(home))
            stop_spark(spark)
            remove_record(home, os.getpid())
            address.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(serve(sys.argv[1:]))
