"""``ce-filter serve``'s seams: a fetch follows http(s) only, on /extract and /explain alike;
the explain view runs under the page budget and its answer is bounded; the service says where
it listens, and stops quietly on SIGTERM or Ctrl-C."""

from __future__ import annotations

import http.client
import io
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
from typing import Any

import pytest

from ce_filter.run.budget import Budget
from ce_filter.service import netguard
from ce_filter.service.serve import App, Options

from .test_netguard import ftp_port, redirect_to  # noqa: F401 - fixtures

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WAIT_S = 60  # a hang guard, not a timing assertion


def wsgi(app: App, method: str, path: str, body: bytes = b"", ctype: str = "") -> tuple[int, bytes]:
    path, _, query = path.partition("?")
    environ = {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": query, "CONTENT_TYPE": ctype,
               "CONTENT_LENGTH": str(len(body)), "wsgi.input": io.BytesIO(body)}
    got: dict[str, int] = {}

    def start_response(status: str, headers: Any) -> None:
        got["status"] = int(status[:3])

    out = b"".join(app(environ, start_response))
    return got["status"], out


@pytest.fixture(scope="module")
def app() -> App:
    return App(options=Options(fetch_timeout=5))


@pytest.mark.parametrize("endpoint", ["extract", "explain"])
def test_a_redirect_to_ftp_is_refused_on_every_path(app: App, redirect_to, ftp_port, monkeypatch,  # noqa: F811
                                                    endpoint: str) -> None:
    base, seen = redirect_to
    port, connected = ftp_port
    monkeypatch.setattr(netguard, "is_public", lambda a: a == "127.0.0.1")  # the redirecting page is "public"
    url = f"{base}/r?{urllib.parse.quote(f'ftp://user:pass@127.0.0.1:{port}/secret.html', safe='')}"
    if endpoint == "extract":
        status, out = wsgi(app, "POST", "/extract", json.dumps({"url": url}).encode(), "application/json")
    else:
        status, out = wsgi(app, "GET", f"/explain?url={urllib.parse.quote(url, safe='')}")
    err = json.loads(out)
    assert status == 400 and err["status"] == 400 and "ftp:" in err["error"], err
    assert len(seen) == 1 and not connected()


SLOW = b"<html><body>" + b"<div>" * 13_000 + b"<p>deep</p></body></html>"  # ~0.2 s of CPU


def test_explain_runs_under_the_page_budget() -> None:
    app = App(options=Options(budget=Budget(seconds=0.05, memory_mb=0)))
    status, out = wsgi(app, "POST", "/explain", SLOW, "text/html")
    assert status == 200 and b"over budget: time (0.05 s)" in out, out[-2000:]
    assert b'class="blk' not in out
    short = b"<html><body><p>A short page of a few words.</p></body></html>"
    status, out = wsgi(app, "POST", "/explain", short, "text/html")
    assert status == 200 and b'class="blk' in out and b"over budget" not in out


def test_explain_answer_is_bounded(app: App) -> None:
    """40,000 paragraphs: the view lists the first 2,000 blocks and says so (50.7 MB of view
    without the cap); one block of a million characters is cut short and marked."""
    max_blocks, max_text = 2000, 1 << 20  # explain.max_blocks, MAX_TEXT
    status, out = wsgi(app, "POST", "/explain", b"<html><body>" + b"<p>x</p>" * 40_000 + b"</body></html>",
                       "text/html")
    assert status == 200
    assert out.count(b'class="blk ') == max_blocks
    assert f"the first {max_blocks:,} of the page's 40,000 blocks".encode() in out
    assert len(out) < 4_000_000, len(out)
    long_block = b"<html><body><p>" + b"word&quot; " * 300_000 + b"</p></body></html>"
    status, out = wsgi(app, "POST", "/explain", long_block, "text/html")
    assert status == 200 and b"1 block texts cut short" in out
    assert len(out) < 4 * max_text + 1_000_000, len(out)


# ------------------------------------------------------------------ the process


def _start(*extra: str) -> tuple[subprocess.Popen, int, queue.Queue[str]]:
    """``ce-filter serve`` on a port of its own choosing (--port 0), read from its "listening
    on" line; its output lines on the queue."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ce_filter.service.serve", "--port", "0", "--workers", "2", "--no-fetch",
         *extra],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            lines.put(raw.decode(errors="replace"))
        lines.put("")

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + WAIT_S
    seen = []
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            continue
        seen.append(line)
        m = re.search(r"ce-filter serve: listening on http://127\.0\.0\.1:(\d+) with 2 workers; "
                      r"Ctrl-C or SIGTERM stops it", line)
        if m:
            return proc, int(m.group(1)), lines
        if line == "":
            break
    _kill(proc)
    raise RuntimeError("no 'listening on' line: " + "".join(seen)[-3000:])


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)


def _until_count(lines: queue.Queue[str], text: str, n: int) -> str:
    """The output lines up to the ``n``-th holding ``text`` (a bound of WAIT_S against a hang)."""
    out: list[str] = []
    deadline = time.monotonic() + WAIT_S
    while sum(text in ln for ln in out) < n:
        assert time.monotonic() < deadline, f"fewer than {n} lines with {text!r}: {''.join(out)[-3000:]}"
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            continue
        assert line, f"the output ended before {n} lines with {text!r}: {''.join(out)[-3000:]}"
        out.append(line)
    return "".join(out)


def _rest(proc: subprocess.Popen, lines: queue.Queue[str]) -> str:
    out = []
    while True:
        line = lines.get(timeout=WAIT_S)
        if line == "":
            return "".join(out)
        out.append(line)


def _healthy(port: int) -> None:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("POST", "/extract", b"<p>Some words in a paragraph here.</p>",
                      {"Content-Type": "text/html"})
            if c.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the service did not answer a page")


@pytest.fixture
def served() -> Iterator[tuple[subprocess.Popen, int, queue.Queue[str]]]:
    proc, port, lines = _start()
    try:
        yield proc, port, lines
    finally:
        _kill(proc)


@pytest.mark.parametrize("how", ["SIGTERM to the master", "Ctrl-C"])
def test_stopping_is_quiet(served: tuple[subprocess.Popen, int, queue.Queue[str]], how: str) -> None:
    """The service says where it listens (the port it was given: 0 picks a free one); stopped,
    it logs no traceback, every worker exits 0 and the last line says it stopped."""
    proc, port, lines = served
    _healthy(port)
    booted = _until_count(lines, "worker ready (pid:", 2)  # both workers can stop cleanly
    if how == "Ctrl-C":
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal sends it: to the whole group
    else:
        os.kill(proc.pid, signal.SIGTERM)
    assert proc.wait(timeout=WAIT_S) == 0
    log = booted + _rest(proc, lines)
    assert "Traceback" not in log and "Error" not in log, log[-3000:]
    # gunicorn logs a worker that exits with another code than 0, or that it had to kill
    assert "exited with code" not in log and "was sent SIG" not in log, log[-3000:]
    if how != "Ctrl-C":  # with Ctrl-C the whole group gets SIGINT: a worker may end on its own
        # signal before it logs its last line, and that is no fault of the service's
        assert log.count("Worker exiting") == 2, log[-3000:]
    assert log.rstrip().endswith("ce-filter serve: stopped"), log[-3000:]
    with pytest.raises(OSError):  # nothing listens there any more
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
