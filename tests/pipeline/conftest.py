"""Fixtures of the pipeline tests: a real HTTP server for the fixture site, and helpers that
run the CLI in subprocesses which are always stopped, also when a test fails. The session's
Kafka broker (``broker``, ``kafka``) comes from tests/kafka_fixtures.py."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
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
def site_server():
    """The fixture site on 127.0.0.1; ``.requests`` lists every path asked for."""
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
