"""Fixtures of the pipeline tests: a real HTTP server for the fixture site, and helpers that
run the CLI in subprocesses which are always stopped, also when a test fails. The session's
Kafka broker (``broker``, ``kafka``) comes from tests/kafka_fixtures.py."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SITE = Path(__file__).with_name("site")
CLI_TIMEOUT_S = 180  # a hang guard for subprocesses, not a timing assertion


# ------------------------------------------------------------------ HTTP site


class _SiteHandler(SimpleHTTPRequestHandler):
    requests: list[str]

    def guess_type(self, path: Any) -> str:
        if str(path).endswith("b.html"):  # Latin-1 page whose charset only the server states
            return "text/html; charset=iso-8859-1"
        return super().guess_type(path)

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self.requests.append(self.path)
        super().do_GET()


@pytest.fixture(scope="session")
def _site_server_session():
    requests: list[str] = []
    handler = type("Handler", (_SiteHandler,), {"requests": requests})
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(SITE)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    server.requests = requests  # type: ignore[attr-defined]
    server.base = f"http://127.0.0.1:{server.server_address[1]}"  # type: ignore[attr-defined]
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def site_server(_site_server_session):
    """The fixture site on 127.0.0.1 (one server for the session); ``.requests`` lists every
    path asked for during this test only (cleared before each test)."""
    _site_server_session.requests.clear()
    return _site_server_session


# ------------------------------------------------------------------ ports


@contextlib.contextmanager
def dead_port() -> Iterator[int]:
    """A loopback port nothing answers on while the block runs: bound (so no one else can take
    it) but not listening, so a connection to it is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants (from /proc)."""
    parents: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat", "rb") as fh:
                    ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += parents.get(p, [])
    return out


def listening_ports(pid: int) -> set[int]:
    """The TCP ports a process or one of its descendants listens on (Linux /proc): how a test
    learns the port a server it started with ``--port 0`` was given, with no window in which
    another process could take it."""
    inodes = set()
    for p in _tree(pid):
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{p}/fd"):
                with contextlib.suppress(OSError):
                    link = os.readlink(f"/proc/{p}/fd/{fd}")
                    if link.startswith("socket:["):
                        inodes.add(link[8:-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as fh:
            for line in fh.readlines()[1:]:
                f = line.split()
                if f[3] == "0A" and f[9] in inodes:  # 0A: LISTEN
                    ports.add(int(f[1].rsplit(":", 1)[1], 16))
    return ports


# ------------------------------------------------------------------ Kafka


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def kcat_read(bootstrap: str, topic: str) -> list[dict[str, Any]]:
    """Every message of ``topic`` as kcat sees it (JSON envelope per message). librdkafka's
    version probe does not parse Tansu's ApiVersions v3 answer, so kcat is told the
    protocol level and starts from explicit offsets instead of asking for them."""
    out = subprocess.run(
        [
            "kcat",
            "-b",
            bootstrap,
            "-X",
            "api.version.request=false",
            "-X",
            "broker.version.fallback=0.9.0",
            "-C",
            "-t",
            topic,
            "-o",
            "0",
            "-e",
            "-q",
            "-J",
        ],
        capture_output=True,
        timeout=60,
        check=True,
    )
    return [json.loads(line) for line in out.stdout.decode("utf-8").splitlines() if line.strip()]


@pytest.fixture
def kcat():
    if shutil.which("kcat") is None:
        pytest.skip("kcat not installed: the cross-check with an independent client is skipped")
    return kcat_read


# ------------------------------------------------------------------ CLI subprocesses


def cli_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CE_FILTER_")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.update(extra)
    return env


def run_cli(
    args: list[str],
    *,
    input: bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float = CLI_TIMEOUT_S,
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ce_filter.cli", *args],
        cwd=REPO,
        input=input,
        capture_output=True,
        env=env or cli_env(),
        timeout=timeout,
    )


class Proc:
    """A CLI subprocess whose stderr goes to a file (read it with ``.log()``)."""

    def __init__(self, args: list[str], log_path: Path) -> None:
        self.log_path = log_path
        self._fh = open(log_path, "wb")
        self.p = subprocess.Popen(
            [sys.executable, "-m", "ce_filter.cli", *args],
            cwd=REPO,
            env=cli_env(),
            stdout=self._fh,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def wait_for(self, text: str, timeout: float = 60.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.log():
                return True
            if self.p.poll() is not None:
                return text in self.log()
            time.sleep(0.2)
        return False

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60.0) -> int:
        if self.p.poll() is None:
            self.p.send_signal(sig)
        try:
            return self.p.wait(timeout=timeout)
        finally:
            self._fh.close()

    def kill(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait(timeout=10)
        self._fh.close()


@pytest.fixture
def start_cli(tmp_path):
    """``start_cli(args) -> Proc``; every process still running at the end is killed."""
    procs: list[Proc] = []

    def start(args: list[str]) -> Proc:
        proc = Proc(args, tmp_path / f"proc{len(procs)}.log")
        procs.append(proc)
        return proc

    yield start
    for p in procs:
        p.kill()
