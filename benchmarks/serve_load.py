"""``ce-filter serve`` under sustained load: requests at a fixed rate for a fixed time, some of
them hostile, with slow clients holding connections open the whole time.

    python -m ce_filter.bench.serve_load [--seconds 600] [--rate 10] [--workers 2] [corpus ...]

The real service (the front and its gunicorn workers, ``--no-fetch``) on a free loopback port.
Requests are sent open-loop: request i is due at ``i / rate`` seconds, whatever the earlier ones
did, and its latency counts from when it was due (so a stalled service shows as latency, not
as fewer requests). Pages: corpus pages (the speed corpora by default), and every
``--hostile-every``-th request one of the parse-cost shapes (deep nesting, attribute and
formatting bombs, a select of 100,000 options, 100,000 paragraphs) or a malformed request (a
JSON body nested 100,000 deep, a lone surrogate). ``--slow`` connections send a request head and
a few body bytes and then nothing, reopened when the service drops them. Every
``--sample`` seconds: the resident memory of the service's processes (front, master, workers),
summed, from /proc. Prints a Markdown report (latency percentiles by kind, status counts,
throughput, memory over time) and with ``--json PATH`` writes the raw figures.

Bounded: it stops after ``--seconds`` (at most an hour), talks only to 127.0.0.1, and stops the
service it started.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypedDict

from .serve import free_port, stop_service, wait_healthy

REPO = Path(__file__).resolve().parents[1]
MAX_SECONDS = 3600


def hostile() -> list[tuple[str, bytes, str]]:
    """(name, body, content type) of the hostile requests."""
    pages = {
        "nested divs": b"<div>" * 100_000 + b"x",
        "100k attributes": b"<p " + b" ".join(b"a%d" % i for i in range(100_000)) + b">x",
        "formatting reconstruction": b"<div>" + b"".join(b"<b class=c%d>" % i for i in range(3000))
        + b"</div>" + b"<div>x</div>" * 3000,
        "select of 100k options": b"<p>Some text.</p><select>" + b"<option>x" * 100_000 + b"</select>",
        "100k paragraphs": b"<p>word " * 100_000,
    }
    out = [(k, v, "text/html") for k, v in pages.items()]
    out.append(("JSON nested 100k deep", b"[" * 100_000 + b"]" * 100_000, "application/json"))
    out.append(("JSON lone surrogate", b'{"html": "<p>\\ud800</p>"}', "application/json"))
    return out


def _tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and its descendants (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(d))
            except (OSError, ValueError, IndexError):
                pass
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo += children.get(p, [])
        try:
            with open(f"/proc/{p}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def _post(port: int, body: bytes, ctype: str, timeout: float) -> int:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        c.request("POST", "/extract", body=body, headers={"Content-Type": ctype})
        r = c.getresponse()
        r.read()
        return r.status
    finally:
        c.close()


def _slow_client(port: int, stop: threading.Event, counts: dict[str, int]) -> None:
    """One connection that never finishes its request; reopened when the service drops it."""
    while not stop.is_set():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                s.sendall(b"POST /extract HTTP/1.1\r\nHost: x\r\nContent-Type: text/html\r\n"
                          b"Content-Length: 100000\r\n\r\n<p>slow")
                counts["opened"] += 1
                s.settimeout(1.0)
                while not stop.is_set():
                    try:
                        if not s.recv(4096):
                            break
                    except TimeoutError:
                        continue
                    except OSError:
                        break
        except OSError:
            time.sleep(0.5)


class KindFigures(TypedDict):
    """One kind of request's (page, hostile): how many, latency percentiles and maximum in
    seconds, and the count of each HTTP status ("0": no answer)."""

    requests: int
    p50_s: float
    p99_s: float
    max_s: float
    statuses: dict[str, int]


class LoadResult(TypedDict):
    """run's figures: the run's seconds, rate and workers, the slow clients and the connections
    they opened, each kind of request's figures, /healthz's latency while loaded, and the
    service's resident memory (seconds into the run, bytes)."""

    seconds: float
    rate: float
    workers: int
    slow_clients: int
    slow_connections_opened: int
    by_kind: dict[str, KindFigures]
    healthz_p99_s: float
    healthz_max_s: float
    rss: list[tuple[float, int]]


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def run(bodies: list[bytes], seconds: float, rate: float, workers: int, hostile_every: int, slow: int,
        sample: float, timeout: float) -> LoadResult:
    port = free_port()
    cmd = [sys.executable, "-m", "ce_filter.service.serve", "--port", str(port), "--workers", str(workers),
           "--no-fetch", "--client-timeout", "30"]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        wait_healthy(port, proc, 120)
        bad = hostile()
        results: list[tuple[str, float, int]] = []  # (kind, latency s, status; 0 = no answer)
        lock = threading.Lock()
        stop = threading.Event()
        slow_counts = {"opened": 0}
        slow_threads = [threading.Thread(target=_slow_client, args=(port, stop, slow_counts), daemon=True)
                        for _ in range(slow)]
        for t in slow_threads:
            t.start()
        rss: list[tuple[float, int]] = []
        health: list[float] = []

        def sampler() -> None:
            t0 = time.monotonic()
            while not stop.is_set():
                rss.append((time.monotonic() - t0, _tree_rss(proc.pid)))
                h0 = time.monotonic()
                try:
                    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                    c.request("GET", "/healthz")
                    c.getresponse().read()
                    health.append(time.monotonic() - h0)
                except OSError:
                    health.append(float("inf"))
                stop.wait(sample)

        def one(i: int, due: float) -> None:
            if hostile_every and i % hostile_every == hostile_every - 1:
                name, body, ctype = bad[(i // hostile_every) % len(bad)]
                kind = "hostile"
            else:
                body, ctype, kind = bodies[i % len(bodies)], "text/html", "page"
            try:
                status = _post(port, body, ctype, timeout)
            except OSError:
                status = 0
            with lock:
                results.append((kind, time.monotonic() - due, status))

        samp = threading.Thread(target=sampler, daemon=True)
        samp.start()
        t0 = time.monotonic()
        n = int(seconds * rate)
        with ThreadPoolExecutor(max_workers=max(8, int(rate * 4))) as pool:
            for i in range(n):
                due = t0 + i / rate
                wait = due - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                pool.submit(one, i, due)
        elapsed = time.monotonic() - t0
        stop.set()
        samp.join(15)
        for t in slow_threads:
            t.join(5)
    finally:
        stop_service(proc)
    by_kind: dict[str, KindFigures] = {}
    for kind in ("page", "hostile"):
        lat = [r[1] for r in results if r[0] == kind]
        statuses: dict[str, int] = {}
        for r in results:
            if r[0] == kind:
                statuses[str(r[2])] = statuses.get(str(r[2]), 0) + 1
        by_kind[kind] = {"requests": len(lat), "p50_s": _pct(lat, 0.5), "p99_s": _pct(lat, 0.99),
                         "max_s": max(lat, default=float("nan")), "statuses": statuses}
    return {"seconds": round(elapsed, 1), "rate": rate, "workers": workers, "slow_clients": slow,
            "slow_connections_opened": slow_counts["opened"], "by_kind": by_kind,
            "healthz_p99_s": _pct(health, 0.99), "healthz_max_s": max(health, default=float("nan")),
            "rss": [(round(t, 1), b) for t, b in rss]}


def report(r: LoadResult) -> str:
    lines = [f"{r['seconds']:.0f} s at {r['rate']:g} requests/s, {r['workers']} workers, "
             f"{r['slow_clients']} slow clients held open ({r['slow_connections_opened']} connections "
             "opened in all)", "",
             "| requests | count | p50 | p99 | max | statuses |", "|---|---:|---:|---:|---:|---|"]
    for kind, k in r["by_kind"].items():
        st = ", ".join(f"{s}: {n}" for s, n in sorted(k["statuses"].items()))
        lines.append(f"| {kind} | {k['requests']} | {k['p50_s'] * 1000:.0f} ms | {k['p99_s'] * 1000:.0f} ms "
                     f"| {k['max_s'] * 1000:.0f} ms | {st} |")
    lines += ["", f"/healthz while loaded: p99 {r['healthz_p99_s'] * 1000:.0f} ms, "
                  f"max {r['healthz_max_s'] * 1000:.0f} ms", ""]
    rss = r["rss"]
    if rss:
        step = max(1, len(rss) // 8)
        pts = rss[::step] + ([rss[-1]] if (len(rss) - 1) % step else [])
        lines.append("Resident memory of the service (front + master + workers): "
                     + ", ".join(f"{t:.0f} s: {b / 2**20:.0f} MiB" for t, b in pts))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ce_filter.bench.serve_load",
                                 description=(__doc__ or "").split("\n")[0])
    ap.add_argument("corpus", nargs="*", default=["dragnet", "wcxb-dev"])
    ap.add_argument("--seconds", type=float, default=600.0)
    ap.add_argument("--rate", type=float, default=10.0, help="requests per second (open loop)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--hostile-every", type=int, default=25, help="every Nth request is hostile (0: none)")
    ap.add_argument("--slow", type=int, default=20, help="slow clients held open throughout")
    ap.add_argument("--sample", type=float, default=10.0, help="seconds between memory samples")
    ap.add_argument("--timeout", type=float, default=60.0, help="client timeout per request")
    ap.add_argument("--limit", type=int, default=300, help="corpus pages used (cycled)")
    ap.add_argument("--json", help="write the raw figures here")
    a = ap.parse_args(argv)
    if not 0 < a.seconds <= MAX_SECONDS or a.rate <= 0:
        ap.error(f"--seconds must be in (0, {MAX_SECONDS}] and --rate above 0")
    from . import pages

    bodies = [d.html for d in pages.load(a.corpus, a.limit)]
    if not bodies:
        ap.error("no corpus pages found")
    r = run(bodies, a.seconds, a.rate, a.workers, a.hostile_every, a.slow, a.sample, a.timeout)
    if a.json:
        Path(a.json).write_text(json.dumps(r, indent=1))
    print(report(r))
    errors = sum(n for k in r["by_kind"].values() for s, n in k["statuses"].items() if s in ("0", "500"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
