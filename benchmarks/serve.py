"""``ce-filter serve`` throughput against in-process extraction on the same pages.

``python -m ce_filter.bench.serve [corpus ...]`` (writes the "serve" section of docs/SERVE.md).

In-process: ``Extractor().extract`` over the pages in this process, pinned to one core, pages
per second (best of ``--repeat`` passes). Served: the real service (gunicorn) with one worker
pinned to that same core, and the client (``--clients`` threads, one connection per request:
gunicorn's sync workers close after each response) pinned to the other core, requests per
second over the same pages posted as HTML bodies. The passes alternate (in-process, served, in-
process, ...) so both see the same machine. The ratio is what HTTP, JSON and the
record cost on top of the filter itself. Both run with one thread per numeric library
(``OPENBLAS_NUM_THREADS=1`` and its kin), as a service should: on a pinned core, BLAS's
extra threads only compete with the work. On a machine with more cores, ``--workers N`` (not
pinned) shows the scaling.
"""

from __future__ import annotations

import argparse
import http.client
import os
import signal
import socket
import subprocess
import sys
import threading
import time

from . import pages
from .measure import single_core
from .report import run_header, table, update_doc

DOC = pages.REPO / "docs" / "SERVE.md"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _local_pass(ex: object, bodies: list[bytes]) -> float:
    t0 = time.perf_counter()
    for b in bodies:
        ex.extract(b)  # type: ignore[attr-defined]
    return len(bodies) / (time.perf_counter() - t0)


def measure(bodies: list[bytes], workers: int, clients: int, repeat: int, server_cpu: int | None,
            client_cpu: int | None) -> tuple[float, float, int]:
    """(in-process pages/s, served requests/s, failed requests): the passes alternate, so both
    see the same machine; best pass of each."""
    from ce_filter.api import Extractor

    ex = Extractor()
    port = free_port()
    cmd = [sys.executable, "-m", "ce_filter.service.serve", "--port", str(port), "--workers", str(workers),
           "--no-fetch"]
    if server_cpu is not None:
        cmd = ["taskset", "-c", str(server_cpu), *cmd]
    single_core()  # one thread per numeric library, here and (inherited) in the service
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_healthy(port, proc, 60)
        local, best, failures = 0.0, 0.0, 0
        for k in range(repeat + 1):  # the first passes warm up both
            if server_cpu is not None:
                os.sched_setaffinity(0, {server_cpu})
            rate = _local_pass(ex, bodies)
            local = max(local, rate) if k else 0.0
            if client_cpu is not None:
                os.sched_setaffinity(0, {client_cpu})
            rate, fails = _one_pass(port, bodies, clients)
            best, failures = (max(best, rate) if k else 0.0), failures + fails
        return local, best, failures
    finally:
        stop_service(proc)


def wait_healthy(port: int, proc: subprocess.Popen[bytes], seconds: float) -> None:
    """Until the service on ``port`` answers ``/healthz`` 200; RuntimeError when ``proc`` exits
    or ``seconds`` pass first."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/healthz")
            if c.getresponse().status == 200:
                return
        except OSError:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            raise RuntimeError("the service did not start")
        time.sleep(0.2)


def stop_service(proc: subprocess.Popen[bytes], seconds: float = 30) -> None:
    """SIGTERM to the service's process group, SIGKILL past ``seconds``."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def _one_pass(port: int, bodies: list[bytes], clients: int) -> tuple[float, int]:
    """(requests/s, failed requests) of posting every page once from ``clients`` threads."""
    todo = list(range(len(bodies)))
    lock = threading.Lock()
    fails = [0]

    def client() -> None:
        while True:
            with lock:
                if not todo:
                    return
                i = todo.pop()
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            try:
                c.request("POST", "/extract", body=bodies[i], headers={"Content-Type": "text/html"})
                r = c.getresponse()
                r.read()
                if r.status != 200:
                    fails[0] += 1
            except OSError:
                fails[0] += 1
            finally:
                c.close()

    t0 = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return len(bodies) / (time.perf_counter() - t0), fails[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ce_filter.bench.serve", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", nargs="*", default=list(pages.DEFAULT_SPEED))
    ap.add_argument("--limit", type=int)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--clients", type=int, default=2)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--no-pin", action="store_true", help="do not pin (server core 1, client core 0)")
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args(argv)
    bodies = [d.html for d in pages.load(a.corpus, a.limit)]
    pin = not a.no_pin and len(os.sched_getaffinity(0)) >= 2
    local, rps, fails = measure(bodies, a.workers, a.clients, a.repeat, 1 if pin else None,
                                0 if pin else None)
    rows = [["in-process `Extractor().extract`" + (" (core 1)" if pin else ""), f"{local:.0f}", "1.00"],
            [f"`ce-filter serve --workers {a.workers}`" + (" (core 1; client on core 0)" if pin else ""),
             f"{rps:.0f}", f"{rps / local:.2f}"]]
    body = (f"{len(bodies)} pages ({', '.join(map(pages.label, a.corpus))}), {a.clients} client threads, "
            f"{fails} failed requests.\n\n" + table(["run", "pages/s", "ratio"], rows))
    print(body)
    if not a.no_write:
        cmd = "python -m ce_filter.bench.serve " + " ".join(a.corpus)
        update_doc(DOC, {"serve": f"{run_header(cmd, 1 if pin else None)}\n\n{body}"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
