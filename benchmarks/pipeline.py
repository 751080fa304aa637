"""Pipeline rows: ``ce-filter warc IN --to jsonl:OUT --workers 1|2`` pages/s, and ``ce-filter
worker`` messages/s against a throwaway local Tansu broker.

The pipeline commands belong to pipelines/ (another part of the project); this module only
drives them as a user would, finds their flags in their argparse parsers, and says "not
available" when a command or flag it needs is not there.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict, overload

from . import pages
from .measure import child_env
from .report import num, table
from .synthwarc import write_warc

if TYPE_CHECKING:
    from ce_filter.learn.corpus import Doc

REPO = pages.REPO
MAX_MESSAGE = 900_000  # bytes: stay under Kafka's default 1 MB message limit
HOSTS = 8  # the Kafka stream's hosts: the worker's filter processes split the hosts between them


# measure's figures: "pages_in", and per run ("warc1", "warc2": a WarcRow; "kafka1", "kafka2": a
# KafkaRow) its figures or {"error": why not}
PipelineResult = dict[str, Any]  # Any: an int and rows of two shapes, under f-string keys (no TypedDict)


class WarcRow(TypedDict):
    """``ce-filter warc ... --to jsonl``: pages filtered, seconds, pages per second."""

    pages: int
    seconds: float
    pps: float


class KafkaRow(TypedDict):
    """``ce-filter worker``: messages out, seconds to the first, steady and overall msgs/s."""

    messages: int
    startup_s: float
    steady_mps: float
    overall_mps: float


class NotAvailable(Exception):
    pass


def subcommands() -> dict[str, argparse.ArgumentParser]:
    from ce_filter.cli import build_parser

    for a in build_parser()._actions:
        if isinstance(a, argparse._SubParsersAction):
            return dict(a.choices)
    return {}


@overload
def _flag(p: argparse.ArgumentParser, cmd: str, *candidates: str, required: Literal[True] = ...) -> str: ...


@overload
def _flag(p: argparse.ArgumentParser, cmd: str, *candidates: str, required: bool) -> str | None: ...


def _flag(p: argparse.ArgumentParser, cmd: str, *candidates: str, required: bool = True) -> str | None:
    have = {s for a in p._actions for s in a.option_strings}
    for c in candidates:
        if c in have:
            return c
    if required:
        raise NotAvailable(f"`ce-filter {cmd}` has none of {', '.join(candidates)}")
    return None


def _command(name: str) -> argparse.ArgumentParser:
    sub = subcommands().get(name)
    if sub is None:
        raise NotAvailable(f"`ce-filter {name}` is not available yet (pipelines/ has not registered it)")
    return sub


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "ce_filter.cli", *args]


def warc_to_jsonl(warc: Path, workers: int, tmp: Path, timeout: float) -> WarcRow:
    p = _command("warc")
    to = _flag(p, "warc", "--to")
    wk = _flag(p, "warc", "--workers")
    out = tmp / f"out-{workers}.jsonl"
    cmd = _cli("warc", str(warc), to, f"jsonl:{out}", wk, str(workers))
    quiet = _flag(p, "warc", "--quiet", "-q", required=False)
    cmd += [quiet] if quiet else []
    stats_flag = _flag(p, "warc", "--stats", required=False)
    stats_path = tmp / f"stats-{workers}.json"
    cmd += [stats_flag, str(stats_path)] if stats_flag else []
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=child_env(), cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          timeout=timeout)
    secs = time.perf_counter() - t0
    if proc.returncode != 0:
        tail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        raise NotAvailable(f"`ce-filter warc` exited {proc.returncode}: {tail[0][:200]}")
    with open(out, "rb") as f:
        n = sum(1 for _ in f)  # one record a page
    if stats_path.exists():  # the command's own count of pages filtered, where it writes one
        n = int(json.loads(stats_path.read_text()).get("pages", n))
    return {"pages": n, "seconds": secs, "pps": n / secs if secs else float("nan")}


def _create_topics(bootstrap: str, names: tuple[str, ...]) -> None:
    from kafka.admin import KafkaAdminClient, NewTopic
    from kafka.errors import TopicAlreadyExistsError

    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.create_topics([NewTopic(n, num_partitions=1, replication_factor=1) for n in names])
    except TopicAlreadyExistsError:
        pass
    finally:
        admin.close()


def kafka_worker(docs: list[Doc], n_msgs: int, timeout: float, filters: int = 1, hosts: int = HOSTS
                 ) -> KafkaRow:
    """Fill an input topic with ``n_msgs`` raw pages of ``hosts`` hosts (message i: the pages
    cycled, host i mod hosts, so each host's site memory sees its pages again), start one
    ``ce-filter worker`` with ``filters`` filter processes and time the output topic filling up:
    steady msgs/s from first to last output, and the start-up."""
    p = _command("worker")
    boot = _flag(p, "worker", "--bootstrap-servers", "--bootstrap", "--brokers")
    f_in = _flag(p, "worker", "--input-topic", "--in-topic", "--input", "--in")
    f_out = _flag(p, "worker", "--output-topic", "--out-topic", "--output", "--out")
    f_group = _flag(p, "worker", "--group-id", "--group", required=False)
    # Tansu completes a group join only after the rebalance timeout (kafka-python's
    # max_poll_interval_ms, 5 min by default): keep it short so start-up is seconds.
    f_poll = _flag(p, "worker", "--max-poll-interval-ms", required=False)
    try:
        from ce_filter.pipelines.embedded_broker import EmbeddedBroker
        from kafka import KafkaConsumer, KafkaProducer
    except ImportError as e:
        raise NotAvailable(f"Kafka parts missing: {e}") from None
    docs = [d for d in docs if len(d.html) < MAX_MESSAGE]
    with EmbeddedBroker() as broker:
        _create_topics(broker.bootstrap, ("bench-in", "bench-out", "bench-in.dlq"))
        prod = KafkaProducer(bootstrap_servers=broker.bootstrap, acks="all", linger_ms=20,
                             max_request_size=4 * MAX_MESSAGE)
        for i in range(n_msgs):
            d = docs[i % len(docs)]
            prod.send("bench-in", key=f"http://site{i % hosts}.bench.invalid/{i}/{d.id}".encode(),
                      value=d.html)
        prod.flush()
        prod.close()
        cons = KafkaConsumer("bench-out", bootstrap_servers=broker.bootstrap, auto_offset_reset="earliest",
                             group_id=None, consumer_timeout_ms=1000, fetch_max_bytes=64 * MAX_MESSAGE)
        cmd = _cli("worker", boot, broker.bootstrap, f_in, "bench-in", f_out, "bench-out")
        if f_group:
            cmd += [f_group, "bench"]
        if f_poll:
            cmd += [f_poll, "10000"]
        if filters > 1:
            cmd += [_flag(p, "worker", "--filters"), str(filters)]
        t0 = time.perf_counter()
        worker = subprocess.Popen(cmd, env=child_env(), cwd=REPO, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE)
        got, first, last = 0, None, None
        try:
            deadline = time.monotonic() + timeout
            while got < n_msgs and time.monotonic() < deadline and worker.poll() is None:
                for _ in cons:
                    got += 1
                    last = time.perf_counter()
                    first = first or last
                    if got >= n_msgs:
                        break
        finally:
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
                try:
                    worker.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    worker.kill()
                    worker.wait()
            cons.close()
    if got < n_msgs:
        err = worker.stderr.read().decode("utf-8", "replace") if worker.stderr else ""
        tail = err.strip().splitlines()[-1:]
        raise NotAvailable(f"worker produced {got}/{n_msgs} outputs (exit {worker.returncode}; {tail[:1]})")
    if first is None or last is None:  # n_msgs == 0: no output to time
        raise NotAvailable("no messages to time (n_msgs = 0)")
    steady = (got - 1) / (last - first) if last > first else float("nan")
    return {"messages": got, "startup_s": first - t0, "steady_mps": steady, "overall_mps": got / (last - t0)}


def measure(docs: list[Doc], n_pages: int, timeout: float) -> PipelineResult:
    """All pipeline rows; each one that cannot run says why instead."""
    out: PipelineResult = {"pages_in": n_pages}
    with tempfile.TemporaryDirectory(prefix="ce-bench-pipe-") as tmp_s:
        tmp = Path(tmp_s)
        warc = tmp / "in.warc.gz"
        write_warc(warc, docs, n_pages)
        for w in (1, 2):
            try:
                out[f"warc{w}"] = warc_to_jsonl(warc, w, tmp, timeout)
            except (NotAvailable, subprocess.TimeoutExpired) as e:
                out[f"warc{w}"] = {"error": str(e)}
    for f in (1, 2):
        try:
            out[f"kafka{f}"] = kafka_worker(docs, n_pages, timeout, f)
        except (NotAvailable, OSError, RuntimeError) as e:
            out[f"kafka{f}"] = {"error": str(e)}
    return out


def pipeline_table(r: PipelineResult) -> str:
    rows = []
    one = r.get("warc1", {}).get("pps")
    for w in (1, 2):
        x = r.get(f"warc{w}", {})
        name = f"`ce-filter warc IN.warc.gz --to jsonl:OUT --workers {w}`"
        if "error" in x:
            rows.append([name, "—", "—", x["error"], "—"])
        else:
            rows.append([name, str(x["pages"]), num(x["seconds"], ".1f"), num(x["pps"]),
                         num(x["pps"] / one, ".2f") + "×" if one else "—"])
    one_k = r.get("kafka1", {}).get("steady_mps")
    for f in (1, 2):
        k = r.get(f"kafka{f}", {})
        name = (f"`ce-filter worker --filters {f}` ({HOSTS} hosts, local Tansu broker), msgs/s "
                "first→last output")
        if "error" in k:
            rows.append([name, "—", "—", k["error"], "—"])
        else:
            rows.append([name, str(k["messages"]), f"start-up {k['startup_s']:.1f}", num(k["steady_mps"]),
                         num(k["steady_mps"] / one_k, ".2f") + "×" if one_k else "—"])
    return table(["pipeline", "pages / messages", "seconds", "pages/s (msgs/s)", "vs 1 worker / filter"],
                 rows)
