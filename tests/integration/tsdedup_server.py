"""A long-lived ``tsdedup`` process for one test workspace.

Every ``tsdedup`` command starts a JVM, opens the metastore and runs Spark's
queries before the JIT has compiled anything: about ten seconds before the first
model, and slow queries after it. A scenario that runs twenty commands pays that
twenty times. This process runs ``python_udfs.cli.main`` (the code behind the
``tsdedup`` command) once per request, in one process, so the Spark session,
the metastore connection and the compiled code are reused from one command to
the next. Each command still parses the project, takes the home's lock and
starts dbt afresh, exactly as the command does.

Protocol: the client passes two pipe descriptors; it writes one JSON line per
request (``{"args": [...]}``) and reads one JSON line per answer
(``{"code": int, "stdout": str, "stderr": str}``).

    python -m tests.integration.tsdedup_server REQUEST_FD ANSWER_FD
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import traceback


def run_command(args: list[str], environment: dict[str, str]) -> dict[str, object]:
    """Run one ``tsdedup`` command in this process and capture what it printed.
    The command starts from ``environment``, as a new process would: what an
    earlier command set (``tsdedup sample`` points the landing folder at the
    bundled files) does not leak into the next."""
    from python_udfs.cli import main

    os.environ.clear()
    os.environ.update(environment)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(args)
        except SystemExit as exc:  # argparse and friends
            code = exc.code if isinstance(exc.code, int) else 1
        except Exception:  # a crash is the command's output, not the server's end
            traceback.print_exc()
            code = 1
    return {"code": int(code or 0), "stdout": out.getvalue(), "stderr": err.getvalue()}


def serve(requests: io.TextIOBase, answers: io.TextIOBase) -> None:
    environment = dict(os.environ)
    for line in requests:
        if not line.strip():
            continue
        answer = run_command(list(json.loads(line)["args"]), environment)
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


def main(argv: list[str]) -> int:
    request_fd, answer_fd = (int(a) for a in argv)
    with (
        os.fdopen(request_fd, "r", encoding="utf-8") as requests,
        os.fdopen(answer_fd, "w", encoding="utf-8") as answers,
    ):
        serve(requests, answers)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
