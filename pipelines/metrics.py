"""Health and Prometheus metrics of a filter worker, served over HTTP on an optional port.

No dependency: the Prometheus text exposition format (version 0.0.4) is a few lines of text,
written here. One :class:`Metrics` object per process; the worker updates it from its poll
loop and :meth:`Metrics.serve` answers, on a daemon thread:

- ``GET /metrics``: the metrics below, ``text/plain; version=0.0.4``;
- ``GET /healthz``: 200 ``ok`` while the poll loop is alive (a :meth:`heartbeat` within
  ``stale_after_s``), else 503 (a liveness probe: restart a worker whose loop is stuck);
- ``GET /readyz``: 200 once :meth:`set_ready` was called with True (connected, subscribed),
  503 before and after (e.g. while shutting down).

Metrics (prefix ``ce_filter_``): ``pages_in_total`` (messages consumed), ``pages_out_total``
(records produced), ``pages_failed_total{reason}`` (dead-lettered), ``bytes_in_total`` (HTML
bytes consumed), ``bytes_out_total`` (record bytes produced), ``page_duration_seconds``
(histogram of the time per page, the ms/page figure in Prometheus' base unit),
``commits_total``, ``consumer_lag{topic,partition}`` and ``consumer_lag_sum`` (messages
behind the end of each assigned partition), ``assigned_partitions``,
``last_poll_timestamp_seconds``, ``ready``, ``info{version,model}`` and
``process_start_time_seconds``.

Wiring it into a worker loop (the consumer is not thread-safe: call ``update_lag`` from
the thread that polls)::

    metrics = Metrics(info={"model": model_version(extractor)})
    server = metrics.serve(port)                  # port 0 = any free port: server.port
    metrics.set_ready(True)                       # after subscribe()
    while running:
        batch = consumer.poll(timeout_ms=500)
        metrics.heartbeat()
        for msg in messages(batch):
            t0 = time.perf_counter()
            ...                                   # filter, produce
            metrics.observe(len(msg.value or b""), time.perf_counter() - t0,
                            bytes_out=len(value_out))          # or failed="reason"
        consumer.commit(); metrics.commit()
        metrics.update_lag(consumer)
    metrics.set_ready(False); server.close()
"""

from __future__ import annotations

import logging
import math
import re
import threading
import time
import urllib.request
from collections.abc import Iterable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

log = logging.getLogger(__name__)

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
PREFIX = "ce_filter_"
# Seconds per page: from half a millisecond (small pages) to 10 s (pathological ones).
DEFAULT_BUCKETS: tuple[float, ...] = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    10.0,
)


def _escape(v: str) -> str:
    return str(v).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(d: Mapping[str, Any]) -> str:
    if not d:
        return ""
    return "{" + ",".join(f'{k}="{_escape(v)}"' for k, v in d.items()) + "}"


def _num(v: float) -> str:
    if isinstance(v, float):
        if math.isinf(v):
            return "+Inf" if v > 0 else "-Inf"
        if math.isnan(v):
            return "NaN"
        if v.is_integer() and abs(v) < 1e15:
            return str(int(v))
        return repr(v)
    return str(v)


class Metrics:
    """The counters, gauges and histogram of one worker process (thread-safe)."""

    def __init__(
        self,
        *,
        buckets: Iterable[float] = DEFAULT_BUCKETS,
        stale_after_s: float = 120.0,
        info: Mapping[str, str] | None = None,
    ) -> None:
        from ce_filter import __version__

        self.buckets = tuple(sorted(float(b) for b in buckets))
        self.stale_after_s = stale_after_s
        self.info = {"version": __version__, **dict(info or {})}
        self._lock = threading.Lock()
        self.start_time = time.time()
        self.pages_in = 0
        self.pages_out = 0
        self.failed: dict[str, int] = {}
        self.bytes_in = 0
        self.bytes_out = 0
        self.commits = 0
        self._bucket_counts = [0] * len(self.buckets)
        self._duration_sum = 0.0
        self.lag: dict[tuple[str, int], int] = {}
        self.last_poll: float | None = None  # wall clock (time.time)
        self._last_poll_mono: float | None = None
        self.ready = False

    # ------------------------------------------------------------ updates

    def observe(
        self, bytes_in: int, seconds: float, *, bytes_out: int = 0, failed: str | None = None
    ) -> None:
        """One consumed message: ``failed`` is the dead-letter reason, None when a record went out."""
        with self._lock:
            self.pages_in += 1
            self.bytes_in += int(bytes_in)
            if failed is None:
                self.pages_out += 1
                self.bytes_out += int(bytes_out)
            else:
                self.failed[failed] = self.failed.get(failed, 0) + 1
            self._duration_sum += seconds
            for i, b in enumerate(self.buckets):
                if seconds <= b:
                    self._bucket_counts[i] += 1
                    break

    def commit(self, n: int = 1) -> None:
        with self._lock:
            self.commits += n

    def heartbeat(self) -> None:
        """Called once per poll: /healthz is 200 while this keeps being called."""
        with self._lock:
            self.last_poll = time.time()
            self._last_poll_mono = time.monotonic()

    def set_ready(self, ready: bool = True) -> None:
        with self._lock:
            self.ready = bool(ready)
            if ready and self._last_poll_mono is None:
                self.last_poll, self._last_poll_mono = time.time(), time.monotonic()

    def set_lag(self, lag: Mapping[tuple[str, int], int]) -> None:
        """Messages behind the end, per (topic, partition) assigned to this worker (replaces
        the previous map, so revoked partitions disappear)."""
        with self._lock:
            self.lag = {(str(t), int(p)): max(0, int(v)) for (t, p), v in lag.items()}

    def update_lag(self, consumer: Any) -> dict[tuple[str, int], int]:
        """Lag of a kafka-python consumer's assignment: the high watermark its fetches saw
        minus its position (no broker request when both are known; ``end_offsets`` otherwise).
        Call it from the polling thread. Errors are logged, never raised."""
        try:
            tps = list(consumer.assignment())
            if not tps:
                self.set_lag({})
                return {}
            high = {tp: consumer.highwater(tp) for tp in tps}
            unknown = [tp for tp, h in high.items() if h is None]
            if unknown:
                high.update(consumer.end_offsets(unknown))
            lag = {(tp.topic, tp.partition): high[tp] - consumer.position(tp) for tp in tps}
        except Exception as e:  # noqa: BLE001 - metrics must never stop the worker
            log.debug("consumer lag not updated: %s", e)
            return dict(self.lag)
        self.set_lag(lag)
        return lag

    # ------------------------------------------------------------ reading

    def healthy(self) -> bool:
        with self._lock:
            last = self._last_poll_mono
        return last is not None and time.monotonic() - last <= self.stale_after_s

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {
                "pages_in": self.pages_in,
                "pages_out": self.pages_out,
                "pages_failed": sum(self.failed.values()),
                "failed": dict(self.failed),
                "bytes_in": self.bytes_in,
                "bytes_out": self.bytes_out,
                "commits": self.commits,
                "lag": sum(self.lag.values()),
                "partitions": sorted(self.lag),
                "ready": self.ready,
            }

    def render(self) -> str:
        """The exposition text."""
        with self._lock:
            lines: list[str] = []

            def metric(name: str, kind: str, help: str, samples: list[tuple[str, dict, float]]) -> None:
                lines.append(f"# HELP {PREFIX}{name} {help}")
                lines.append(f"# TYPE {PREFIX}{name} {kind}")
                for suffix, labels, value in samples:
                    lines.append(f"{PREFIX}{name}{suffix}{_labels(labels)} {_num(value)}")

            metric("info", "gauge", "Version of the filter and its model.", [("", self.info, 1)])
            metric(
                "pages_in_total",
                "counter",
                "Messages consumed from the input topic.",
                [("", {}, self.pages_in)],
            )
            metric(
                "pages_out_total",
                "counter",
                "Records produced to the output topic.",
                [("", {}, self.pages_out)],
            )
            metric(
                "pages_failed_total",
                "counter",
                "Messages sent to the dead-letter topic, by reason.",
                [("", {"reason": r}, n) for r, n in sorted(self.failed.items())],
            )
            metric("bytes_in_total", "counter", "HTML bytes consumed.", [("", {}, self.bytes_in)])
            metric("bytes_out_total", "counter", "Record bytes produced.", [("", {}, self.bytes_out)])
            cum, samples = 0, []
            for b, c in zip(self.buckets, self._bucket_counts):
                cum += c
                samples.append(("_bucket", {"le": _num(b)}, cum))
            samples += [
                ("_bucket", {"le": "+Inf"}, self.pages_in),
                ("_sum", {}, self._duration_sum),
                ("_count", {}, self.pages_in),
            ]
            metric("page_duration_seconds", "histogram", "Time to filter and hand on one message.", samples)
            metric("commits_total", "counter", "Offset commits.", [("", {}, self.commits)])
            metric(
                "consumer_lag",
                "gauge",
                "Messages behind the end of each assigned partition.",
                [("", {"topic": t, "partition": p}, v) for (t, p), v in sorted(self.lag.items())],
            )
            metric(
                "consumer_lag_sum",
                "gauge",
                "Messages behind, over the assigned partitions.",
                [("", {}, sum(self.lag.values()))],
            )
            metric(
                "assigned_partitions",
                "gauge",
                "Partitions assigned to this worker.",
                [("", {}, len(self.lag))],
            )
            metric(
                "last_poll_timestamp_seconds",
                "gauge",
                "When the poll loop last ran (Unix time; 0 = never).",
                [("", {}, self.last_poll or 0.0)],
            )
            metric("ready", "gauge", "1 when connected and subscribed.", [("", {}, int(self.ready))])
            lines.append("# HELP process_start_time_seconds Start time of the process (Unix time).")
            lines.append("# TYPE process_start_time_seconds gauge")
            lines.append(f"process_start_time_seconds {_num(self.start_time)}")
        return "\n".join(lines) + "\n"

    # ------------------------------------------------------------ HTTP

    def serve(self, port: int, host: str = "0.0.0.0") -> MetricsServer:
        """Serve /metrics, /healthz and /readyz on ``host:port`` (0 = a free port) from a
        daemon thread; ``close()`` the returned server to stop."""
        return MetricsServer(self, port, host)


class MetricsServer:
    def __init__(self, metrics: Metrics, port: int, host: str = "0.0.0.0") -> None:
        handler = type("Handler", (_Handler,), {"metrics": metrics})
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self.host = host
        self.port: int = self.httpd.server_address[1]
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="metrics-http", daemon=True)
        self._thread.start()
        log.info("metrics on http://%s:%d/metrics", host, self.port)

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("", "0.0.0.0") else self.host
        return f"http://{host}:{self.port}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> MetricsServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class _Handler(BaseHTTPRequestHandler):
    metrics: Metrics

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        path = self.path.split("?", 1)[0].rstrip("/") or "/"
        if path == "/metrics":
            self._send(200, self.metrics.render(), CONTENT_TYPE)
        elif path in ("/healthz", "/health", "/livez"):
            ok = self.metrics.healthy()
            self._send(200 if ok else 503, "ok\n" if ok else "poll loop stalled\n")
        elif path == "/readyz":
            ok = self.metrics.ready
            self._send(200 if ok else 503, "ready\n" if ok else "not ready\n")
        else:
            self._send(404, "try /metrics, /healthz or /readyz\n")

    def _send(self, code: int, body: str, ctype: str = "text/plain; charset=utf-8") -> None:
        data = body.encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:  # scrapes every few seconds: keep them out of the log
        pass


# ---------------------------------------------------------------- scraping (status views, tests)

_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\d+)?$")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_exposition(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Samples of a text exposition: ``{(name, ((label, value), ...)): value}``. Raises
    ValueError on a line that is not a comment, blank or a sample."""
    out: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        if not m:
            raise ValueError(f"line {n} is not a sample: {line!r}")
        labels = tuple(
            (k, v.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\"))
            for k, v in _LABEL.findall(m.group(3) or "")
        )
        out[(m.group(1), labels)] = float(m.group(4))
    return out


def end_offsets(consumer: Any, tps: list[Any], timeout_s: float = 10.0) -> dict[Any, int]:
    """The end offset of each partition, as a fetch response's high watermark reports it.

    ``consumer.end_offsets`` (ListOffsets) is right on Apache Kafka, but some Kafka-protocol
    brokers (Tansu 0.6) answer it with the last *batch*'s base offset + 1, which undercounts
    whenever a batch holds several records; the high watermark of a fetch is right on both.
    So: seek each partition to what ListOffsets says, fetch once, take the larger value.
    ``consumer`` must be a group-less kafka-python consumer; its assignment is replaced."""
    listed = consumer.end_offsets(tps)
    consumer.assign(tps)
    for tp in tps:
        consumer.seek(tp, listed[tp])
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and any(consumer.highwater(tp) is None for tp in tps):
        consumer.poll(timeout_ms=200, max_records=1)
    return {tp: max(listed[tp], consumer.highwater(tp) or 0) for tp in tps}


def group_lag(settings: Any, group_id: str, topics: Iterable[str], timeout_s: float = 10.0) -> dict[str, Any]:
    """A consumer group's lag on ``topics``: its committed offsets (OffsetFetch, asked by a
    consumer of the group that does not join it) against each partition's end.
    ``settings`` is a ``ce_filter.pipelines.kafka_io.KafkaSettings``. A partition the group never
    committed counts from its beginning (``auto_offset_reset`` earliest, the worker's
    default). Returns ``{"total": n, "partitions": [{"topic", "partition", "committed",
    "end", "lag"}, ...]}``."""
    from kafka import TopicPartition

    from .kafka_io import make_consumer

    consumer = make_consumer(settings, group_id=group_id, enable_auto_commit=False)
    try:
        tps = []
        for t in topics:
            deadline = time.monotonic() + timeout_s
            parts = consumer.partitions_for_topic(t)
            while not parts and time.monotonic() < deadline:
                time.sleep(0.2)
                parts = consumer.partitions_for_topic(t)
            tps += [TopicPartition(t, p) for p in sorted(parts or ())]
        if not tps:
            return {"total": 0, "partitions": []}
        committed = {tp: consumer.committed(tp) for tp in tps}
        begin = consumer.beginning_offsets(tps)
        end = end_offsets(consumer, tps, timeout_s)
    finally:
        consumer.close(autocommit=False)
    rows = []
    for tp in tps:
        c = committed[tp]
        c = c if c is not None and c >= 0 else None
        rows.append(
            {
                "topic": tp.topic,
                "partition": tp.partition,
                "committed": c,
                "end": end[tp],
                "lag": max(0, end[tp] - (c if c is not None else begin[tp])),
            }
        )
    return {"total": sum(r["lag"] for r in rows), "partitions": rows}


def scrape(url: str, timeout: float = 5.0) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """GET ``url`` (``.../metrics``) and parse it."""
    with urllib.request.urlopen(url, timeout=timeout) as r:  # noqa: S310 - our own endpoint
        return parse_exposition(r.read().decode("utf-8"))


def value(samples: Mapping[tuple[str, tuple], float], name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels`` (0 when none)."""
    want = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and want <= set(ls))
