"""Serve a generated dbt docs site and look at it in headless Chromium.

The site (``target/`` after ``tsdedup docs generate``: index.html, manifest.json,
catalog.json) is served by Python's http.server on 127.0.0.1; Chromium is driven
through chromedriver's WebDriver HTTP interface with plain urllib, so nothing
beyond Debian's ``chromium`` and ``chromium-driver`` packages is needed. The
docs are a single-page app: what matters is what its JavaScript renders, so the
checks run scripts in the page once it has rendered.
"""

from __future__ import annotations

import base64
import functools
import http.server
import json
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from tsdedup.loopback import free_port

# Flags that keep a headless Chromium from reaching for the network or a desktop.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,900",
)


def missing_browser() -> str | None:
    """Why the browser check cannot run here, or None when it can."""
    missing = [name for name in ("chromium", "chromedriver") if shutil.which(name) is None]
    if missing:
        return (
            f"{' and '.join(missing)} not found on PATH "
            "(Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
        )
    return None


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serve(folder: Path) -> Iterator[str]:
    """Serve ``folder`` on 127.0.0.1 (a free port) while the block runs; yields its URL."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


class Browser:
    """One headless Chromium session through chromedriver (W3C WebDriver)."""

    def __init__(self, driver_url: str, session: str) -> None:
        self._base = f"{driver_url}/session/{session}"

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        return _request(method, self._base + path, body)

    def open(self, url: str) -> None:
        self._call("POST", "/url", {"url": url})

    def run(self, script: str, *args: Any) -> Any:
        """Run a function body in the page (``return ...``) and give its result."""
        return self._call("POST", "/execute/sync", {"script": script, "args": list(args)})

    def wait_for(self, script: str, timeout: float = 30.0) -> Any:
        """Poll ``script`` until it returns a truthy value; give that value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.run(script)
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"the page did not get there in {timeout:.0f} s: {script}")
            time.sleep(0.25)

    def screenshot(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(self._call("GET", "/screenshot")))
        return path


def _request(method: str, url: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            answer = json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        detail = exc.read().decode("utf-8", "replace")
        raise AssertionError(f"WebDriver {method} {url}: {exc.code} {detail[:500]}") from None
    return answer.get("value")


@contextmanager
def browser() -> Iterator[Browser]:
    """A headless Chromium with a fresh profile, closed (with its driver) afterwards."""
    port = free_port()
    driver = subprocess.Popen(
        [shutil.which("chromedriver") or "chromedriver", f"--port={port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    driver_url = f"http://127.0.0.1:{port}"
    profile = tempfile.mkdtemp(prefix="tsdedup-chromium-")
    session = None
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if _request("GET", f"{driver_url}/status").get("ready"):
                    break
            except (urllib.error.URLError, ConnectionError):
                pass
            if time.monotonic() > deadline or driver.poll() is not None:
                raise AssertionError("chromedriver did not start")
            time.sleep(0.2)
        options = {
            "binary": shutil.which("chromium"),
            "args": [*CHROMIUM_FLAGS, f"--user-data-dir={profile}"],
        }
        capabilities = {"alwaysMatch": {"goog:chromeOptions": options}}
        created = _request("POST", f"{driver_url}/session", {"capabilities": capabilities})
        session = str(created["sessionId"])
        yield Browser(driver_url, session)
    finally:
        if session is not None:
            with suppress(AssertionError, urllib.error.URLError, ConnectionError):
                _request("DELETE", f"{driver_url}/session/{session}")
        driver.terminate()
        try:
            driver.wait(timeout=30)
        except subprocess.TimeoutExpired:
            driver.kill()
            driver.wait()
        shutil.rmtree(profile, ignore_errors=True)
