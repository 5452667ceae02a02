"""The resident engine's plumbing without Spark: its record, its settings'
fingerprint, the request protocol, and how a command borrows the caller's
descriptors, environment and folder (tests/integration/test_engine.py runs
real commands in it)."""

from __future__ import annotations

import json
import os
import queue
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tsdedup import engine, engine_server
from tsdedup.engine import EngineRecord


def record_for(pid: int, tmp_path: Path) -> EngineRecord:
    return EngineRecord(
        pid=pid,
        socket=str(tmp_path / "engine.sock"),
        fingerprint="f",
        target="local",
        started=time.time(),
        idle_minutes=30.0,
    )


# An engine's module now, and before it moved (an engine left running from then).
@pytest.mark.parametrize("module", ["tsdedup.engine_server", "python_udfs.engine_server"])
def test_a_record_is_read_back_and_a_dead_engines_record_is_removed(
    tmp_path: Path, module: str
) -> None:
    # A process whose command line is an engine's.
    stand_in = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", module])
    try:
        # Until the child has started its program, its command line is ours.
        cmdline = Path(f"/proc/{stand_in.pid}/cmdline")
        deadline = time.monotonic() + 30
        while module.encode() not in cmdline.read_bytes():
            assert time.monotonic() < deadline, "the stand-in process did not start"
            time.sleep(0.01)
        live = record_for(stand_in.pid, tmp_path)
        engine.write_record(tmp_path, live)
        assert engine.read_record(tmp_path) == live
    finally:
        stand_in.kill()
        stand_in.wait()

    # A live process that is not an engine (a process id reused after a restart).
    engine.write_record(tmp_path, record_for(os.getpid(), tmp_path))
    assert engine.read_record(tmp_path) is None
    assert not engine.record_path(tmp_path).exists()

    finished = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    dead = record_for(int(finished.stdout), tmp_path)
    Path(dead.socket).touch()
    engine.write_record(tmp_path, dead)
    assert engine.read_record(tmp_path) is None
    assert not engine.record_path(tmp_path).exists()
    assert not Path(dead.socket).exists()

    engine.record_path(tmp_path).write_text("{not json", encoding="utf-8")
    assert engine.read_record(tmp_path) is None
    assert not engine.record_path(tmp_path).exists()


def test_remove_record_leaves_another_engines_record(tmp_path: Path) -> None:
    engine.write_record(tmp_path, record_for(os.getpid(), tmp_path))
    engine.remove_record(tmp_path, os.getpid() + 1)
    assert engine.record_path(tmp_path).exists()
    engine.remove_record(tmp_path, os.getpid())
    assert not engine.record_path(tmp_path).exists()


def test_the_fingerprint_follows_every_spark_setting() -> None:
    conf = {"spark.master": "local[2]", "spark.sql.shuffle.partitions": "4"}
    assert engine.fingerprint(conf) == engine.fingerprint(dict(reversed(conf.items())))
    assert engine.fingerprint(conf) != engine.fingerprint({**conf, "spark.master": "local[1]"})
    assert engine.fingerprint(conf) != engine.fingerprint({**conf, "spark.x": "1"})


def test_the_fingerprint_follows_the_jvms_environment() -> None:
    conf = {"spark.master": "local[2]"}
    environ = {"PATH": "/usr/bin"}
    assert engine.fingerprint(conf, environ) == engine.fingerprint(conf, {**environ, "X": "1"})
    for name in ("TSDEDUP_SPARK_LOG_LEVEL", "JAVA_HOME", "JAVA_TOOL_OPTIONS", "SPARK_CONF_DIR"):
        changed = engine.fingerprint(conf, {**environ, name: "other"})
        assert changed != engine.fingerprint(conf, environ), name


def test_the_socket_path_is_short_and_one_per_state_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    deep = tmp_path.joinpath(*["a-rather-long-folder-name"] * 8)
    assert len(str(engine.socket_path(deep))) < 100
    assert engine.socket_path(deep) != engine.socket_path(deep / "other")
    assert engine.socket_path(deep) == engine.socket_path(deep / "x" / "..")
    folder = engine.socket_path(deep).parent
    assert folder == Path(engine.tempfile.gettempdir()) / f"tsdedup-{os.getuid()}"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_the_socket_lives_in_a_folder_no_other_user_can_enter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setattr(engine.tempfile, "gettempdir", lambda: str(tmp_path))
    assert engine.socket_path(tmp_path).parent == runtime
    runtime.chmod(0o755)  # a runtime folder others can enter is not used
    assert engine.socket_path(tmp_path).parent == tmp_path / f"tsdedup-{os.getuid()}"
    # A folder of that name that others can write to (as another user would
    # leave it) is refused with a message that says what to do.
    (tmp_path / f"tsdedup-{os.getuid()}").chmod(0o777)
    with pytest.raises(engine.EngineError, match="not a folder private to this user"):
        engine.socket_path(tmp_path)


def test_descriptors_of_a_request_that_cannot_be_read_are_closed(tmp_path: Path) -> None:
    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with open(tmp_path / "out.txt", "w", encoding="utf-8") as out:
        # a length header promising more than is sent, then the caller hangs up
        socket.send_fds(left, [(100).to_bytes(8, "big") + b"{"], [out.fileno()])
        left.close()
        before = set(os.listdir("/proc/self/fd"))
        with pytest.raises(engine.EngineError, match="ended early"):
            engine.receive_request(right)
        assert set(os.listdir("/proc/self/fd")) <= before
    right.close()


def test_a_request_carries_its_body_and_the_callers_descriptors(tmp_path: Path) -> None:
    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    target = tmp_path / "out.txt"
    with open(target, "w", encoding="utf-8") as out:
        body = {"op": "run", "args": ["run"], "env": {"BIG": "x" * 200_000}, "cwd": "/"}
        sender = threading.Thread(target=engine.send_request, args=(left, body, [out.fileno()] * 3))
        sender.start()  # larger than a socket buffer: sent while it is read
        received, fds = engine.receive_request(right)
        sender.join()
    assert received == body
    assert len(fds) == 3
    os.write(fds[1], b"written through the passed descriptor")
    engine_server.close_all(fds)
    assert target.read_text(encoding="utf-8") == "written through the passed descriptor"
    left.close()
    right.close()


def test_a_command_borrows_the_callers_streams_environment_and_folder(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    out_path, err_path = tmp_path / "out", tmp_path / "err"
    env_before, cwd_before = dict(os.environ), os.getcwd()
    seen: dict[str, str] = {}

    def command() -> int:
        os.write(1, b"to the caller's output\n")
        os.write(2, b"to the caller's error\n")
        seen["variable"] = os.environ.get("ONLY_THE_CALLER_HAS_IT", "")
        seen["cwd"] = os.getcwd()
        raise SystemExit(3)

    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        fds = [os.open(os.devnull, os.O_RDONLY), out.fileno(), err.fileno()]
        code = engine_server.run_with_descriptors(
            fds, {"ONLY_THE_CALLER_HAS_IT": "yes"}, str(tmp_path), command
        )
        os.close(fds[0])
    assert code == 3
    assert seen == {"variable": "yes", "cwd": str(tmp_path)}
    assert out_path.read_text(encoding="utf-8") == "to the caller's output\n"
    assert err_path.read_text(encoding="utf-8") == "to the caller's error\n"
    assert dict(os.environ) == env_before
    assert os.getcwd() == cwd_before
    print("back to this process")
    assert capfd.readouterr().out == "back to this process\n"


def test_a_command_that_arrives_while_another_runs_is_refused(tmp_path: Path) -> None:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    address = str(tmp_path / "s.sock")
    listener.bind(address)
    listener.listen(2)
    requests: queue.Queue[engine_server.Request] = queue.Queue()
    busy = engine_server.Busy()
    threading.Thread(
        target=engine_server.accept_loop, args=(listener, requests, busy), daemon=True
    ).start()
    record = record_for(os.getpid(), tmp_path)
    record = EngineRecord(**{**record.__dict__, "socket": address})

    def send(err: Path) -> socket.socket:
        sock = engine._connect(record)
        with open(err, "wb") as handle:
            engine.send_request(sock, {"op": "run", "args": ["run"]}, [handle.fileno()] * 3)
        return sock

    first = send(tmp_path / "first.err")
    queued = requests.get(timeout=10)
    assert queued.body["args"] == ["run"]
    second = send(tmp_path / "second.err")
    assert engine._receive_reply(second)["code"] == 2
    assert "is running another command" in (tmp_path / "second.err").read_text()
    engine_server.close_all(queued.fds)
    engine_server.reply(queued.connection, 0)
    assert engine._receive_reply(first) == {"code": 0, "error": None}
    busy.release()
    third = send(tmp_path / "third.err")
    assert requests.get(timeout=10).body["op"] == "run"
    for sock in (first, second, third):
        sock.close()
    listener.close()


class _AnswerRecorder:
    """A caller's connection that notes, when the answer is sent, whether a
    next command would find the engine free."""

    def __init__(self, busy: engine_server.Busy) -> None:
        self.busy = busy
        self.free_when_answered: bool | None = None
        self.sent = b""

    def sendall(self, data: bytes) -> None:
        self.free_when_answered = self.busy.try_take()
        if self.free_when_answered:
            self.busy.release()
        self.sent += data

    def close(self) -> None:
        pass


@pytest.mark.parametrize("stopping", [False, True])
def test_the_engine_is_free_before_the_caller_hears_the_answer(stopping: bool) -> None:
    busy = engine_server.Busy()
    assert busy.try_take()  # a command runs
    caller = _AnswerRecorder(busy)
    engine_server.answer(caller, 3, busy, stopping=stopping)  # type: ignore[arg-type]
    assert json.loads(caller.sent) == {"code": 3, "error": None}
    # A caller that runs its next command as soon as it hears the answer finds
    # the engine free; a stopping engine stays taken until it has answered.
    assert caller.free_when_answered is (not stopping)
    assert busy.try_take()


def test_engine_commands_check_their_arguments_before_starting_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tsdedup import cli

    monkeypatch.setenv("TSDEDUP_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TSDEDUP_LANDING", str(tmp_path / "landing"))
    monkeypatch.setattr(engine, "start_engine", lambda *a: pytest.fail("an engine started"))
    assert cli.main(["engine", "start", "--idle-minutes", "soon"]) == 2
    assert "--idle-minutes 'soon' is not a number" in capsys.readouterr().err
    assert cli.main(["engine", "start", "--idle-minutes=0"]) == 2
    assert "--idle-minutes must be more than 0" in capsys.readouterr().err
    assert cli.main(["engine", "restart"]) == 2
    assert "usage: tsdedup engine start" in capsys.readouterr().err
    assert cli.main(["engine", "status"]) == 0
    assert capsys.readouterr().out.strip() == "no engine runs"
    assert cli.main(["engine", "stop"]) == 0
    assert "no engine runs" in capsys.readouterr().out


def test_an_engine_does_not_start_while_a_command_holds_the_state_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tsdedup.state import HomeLock

    home = tmp_path / "home"
    monkeypatch.setenv("TSDEDUP_HOME", str(home))
    monkeypatch.setenv("TSDEDUP_LANDING", str(tmp_path / "landing"))
    with HomeLock(home):
        assert engine_server.serve(["--idle-minutes", "1"]) == 2
    assert f"another tsdedup run (process {os.getpid()})" in capsys.readouterr().err
    assert engine.read_record(home) is None


def test_only_the_engines_own_user_may_connect() -> None:
    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    assert engine_server.same_user(right)
    left.close()
    right.close()


def test_a_caller_that_went_away_costs_the_command_not_the_engine(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the caller's pipe is gone
    saved = sys.stdout

    def command() -> int:
        sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115 - left for the engine to drop
        sys.stdout.write("never read")
        raise SystemExit

    null = os.open(os.devnull, os.O_RDWR)
    try:
        assert engine_server.run_with_descriptors([null, write_end, null], {}, "/", command) == 0
        assert sys.stdout is saved
        missing = str(tmp_path / "deleted")
        assert engine_server.run_with_descriptors([null, null, null], {}, missing, command) == 1
        assert os.getcwd() != missing
    finally:
        os.close(write_end)
        os.close(null)


def test_the_engine_survives_bad_requests_and_a_request_it_did_not_run_runs_elsewhere(
    tmp_path: Path,
) -> None:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    address = str(tmp_path / "s.sock")
    listener.bind(address)
    listener.listen(2)
    requests: queue.Queue[engine_server.Request] = queue.Queue()
    threading.Thread(
        target=engine_server.accept_loop,
        args=(listener, requests, engine_server.Busy()),
        daemon=True,
    ).start()
    record = EngineRecord(**{**record_for(os.getpid(), tmp_path).__dict__, "socket": address})

    # Not a JSON object: the connection is closed, the engine goes on.
    bad = engine._connect(record)
    payload = b"[1, 2]"
    bad.sendall(len(payload).to_bytes(8, "big") + payload)
    assert bad.recv(16) == b""
    bad.close()

    # A request the engine took and then stopped without running: the caller
    # hears so and runs the command in a process of its own (EngineError).
    def answer_not_run() -> None:
        taken = requests.get(timeout=10)
        engine_server.close_all(taken.fds)
        engine_server.reply(taken.connection, engine.NOT_RUN, "stopped")

    answering = threading.Thread(target=answer_not_run)
    answering.start()
    with pytest.raises(engine.EngineError, match="stopped before running the command"):
        engine.run_in_engine(record, tmp_path, ["run"])
    answering.join()
    listener.close()


def test_a_caller_that_is_killed_ends_the_command_and_one_that_waits_does_not() -> None:
    hung_up: list[bool] = []
    # The caller waits for its answer: nothing happens until the command ends.
    caller, engine_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    finished = threading.Event()
    watcher = threading.Thread(
        target=engine_server.watch_caller,
        args=(engine_end, finished, lambda: hung_up.append(True)),
    )
    watcher.start()
    time.sleep(0.5)
    assert watcher.is_alive() and not hung_up
    finished.set()
    watcher.join(timeout=5)
    assert not watcher.is_alive() and not hung_up
    caller.close()
    engine_end.close()
    # The caller's process dies: its end of the connection closes.
    caller, engine_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    watcher = threading.Thread(
        target=engine_server.watch_caller,
        args=(engine_end, threading.Event(), lambda: hung_up.append(True)),
    )
    watcher.start()
    caller.close()
    watcher.join(timeout=5)
    assert not watcher.is_alive()
    assert hung_up == [True]
    engine_end.close()


# A process whose main thread is blocked in a call (as the engine's is in a
# query) while another thread idles, and the kernel can hand SIGTERM to no
# thread but the others. A handler of the main thread's would wait for the
# call to return (4 of 6 tries did not exit within 3 s).
BLOCKED_MAIN = """
import os, signal, socket, threading, time
from tsdedup.engine_server import run_on_signal
run_on_signal(signal.SIGTERM, lambda: os._exit(143))
threading.Thread(target=time.sleep, args=(120,), daemon=True).start()
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
waiting, _ = socket.socketpair()
print("blocked", flush=True)
waiting.recv(1)
"""


def test_sigterm_ends_the_engine_while_its_main_thread_is_blocked() -> None:
    root = Path(__file__).resolve().parents[2]
    process = subprocess.Popen(
        [sys.executable, "-c", BLOCKED_MAIN],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == b"blocked"
        time.sleep(0.5)  # into recv
        process.send_signal(15)
        assert process.wait(timeout=30) == 143
    finally:
        process.kill()
        process.wait()


def test_an_exited_process_nobody_reaped_is_not_running() -> None:
    """A caller waits for an interrupted engine to be gone. An engine's parent is
    whatever adopted it, which may reap it late: the exited process (a zombie)
    must count as gone, though the signal test still finds its process id."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.5)"])
    assert engine.process_running(child.pid)
    deadline = time.monotonic() + 30
    while engine.process_running(child.pid):
        assert time.monotonic() < deadline, "the exited child still counts as running"
        time.sleep(0.05)
    os.kill(child.pid, 0)  # not reaped yet: the process id still exists
    engine.wait_for_exit(child.pid, 1)
    assert child.wait(timeout=5) == 0
    assert not engine.process_running(child.pid)
