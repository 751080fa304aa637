"""Health and Prometheus metrics of a filter worker, served over HTTP on an optional port.

The metrics are prometheus_client's (the ``kafka`` extra): its counters, histogram and text
exposition, with content negotiation (OpenMetrics for a scraper that asks) and gzip. One
:class:`Metrics` object per process, with its own registry; the worker updates it from its
poll loop and :meth:`Metrics.serve` answers, on daemon threads:

- ``GET /metrics``: the metrics below (Prometheus text format 0.0.4 unless the scraper asks
  for another);
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
``last_poll_timestamp_seconds``, ``ready``, ``info{version,model}``; and the process's own
(``process_start_time_seconds``, ``process_cpu_seconds_total``, ``process_resident_memory_bytes``,
...) from prometheus_client's process collector.

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
import threading
import time
import urllib.request
from collections.abc import Iterable, Iterator, Mapping
from socketserver import ThreadingMixIn
from typing import TYPE_CHECKING, TypedDict, cast
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    Info,
    ProcessCollector,
    make_wsgi_app,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.parser import text_string_to_metric_families

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

    from .kafka_io import Consumer, KafkaSettings, Partition

log = logging.getLogger(__name__)

NAMESPACE = "ce_filter"
# Seconds per page: from half a millisecond (small pages) to 10 s (pathological ones).
DEFAULT_BUCKETS: tuple[float, ...] = (
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
)


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

        self.stale_after_s = stale_after_s
        self.registry = r = CollectorRegistry()
        ns = NAMESPACE
        Info(ns, "Version of the filter and its model.", registry=r).info(
            {"version": __version__, **dict(info or {})})
        self._in = Counter("pages_in", "Messages consumed from the input topic.", namespace=ns, registry=r)
        self._out = Counter("pages_out", "Records produced to the output topic.", namespace=ns, registry=r)
        self._failed = Counter("pages_failed", "Messages sent to the dead-letter topic, by reason.",
                               ["reason"], namespace=ns, registry=r)
        self._bytes_in = Counter("bytes_in", "HTML bytes consumed.", namespace=ns, registry=r)
        self._bytes_out = Counter("bytes_out", "Record bytes produced.", namespace=ns, registry=r)
        self._duration = Histogram("page_duration_seconds", "Time to filter and hand on one message.",
                                   namespace=ns, registry=r, buckets=tuple(sorted(buckets)))
        self._commits = Counter("commits", "Offset commits.", namespace=ns, registry=r)
        self._last_poll = Gauge("last_poll_timestamp_seconds", "When the poll loop last ran (Unix time; "
                                "0 = never).", namespace=ns, registry=r)
        self._ready = Gauge("ready", "1 when connected and subscribed.", namespace=ns, registry=r)
        ProcessCollector(registry=r)
        self._lock = threading.Lock()
        self.lag: dict[tuple[str, int], int] = {}
        r.register(_LagCollector(self))
        self._last_poll_mono: float | None = None
        self.ready = False

    # ------------------------------------------------------------ updates

    def observe(
        self, bytes_in: int, seconds: float, *, bytes_out: int = 0, failed: str | None = None
    ) -> None:
        """One consumed message: ``failed`` is the dead-letter reason, None when a record went out."""
        self._in.inc()
        self._bytes_in.inc(int(bytes_in))
        if failed is None:
            self._out.inc()
            self._bytes_out.inc(int(bytes_out))
        else:
            self._failed.labels(failed).inc()
        self._duration.observe(seconds)

    def commit(self, n: int = 1) -> None:
        """``n`` offset commits done."""
        self._commits.inc(n)

    def heartbeat(self) -> None:
        """Called once per poll: /healthz is 200 while this keeps being called."""
        self._last_poll_mono = time.monotonic()
        self._last_poll.set_to_current_time()

    def set_ready(self, ready: bool = True) -> None:
        """Ready (/readyz 200) once subscribed; not ready while starting and shutting down."""
        with self._lock:
            self.ready = bool(ready)
            self._ready.set(int(self.ready))
            if ready and self._last_poll_mono is None:
                self.heartbeat()

    def set_lag(self, lag: Mapping[tuple[str, int], int]) -> None:
        """Messages behind the end, per (topic, partition) assigned to this worker (replaces
        the previous map, so revoked partitions disappear)."""
        new = {(str(t), int(p)): max(0, int(v)) for (t, p), v in lag.items()}
        with self._lock:
            self.lag = new

    def update_lag(self, consumer: Consumer) -> dict[tuple[str, int], int]:
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
            # (every unknown high watermark is filled in by end_offsets)
            lag = {(tp.topic, tp.partition): cast(int, high[tp]) - consumer.position(tp) for tp in tps}
        except Exception as e:  # noqa: BLE001 - metrics must never stop the worker
            log.debug("consumer lag not updated: %s", e)
            return dict(self.lag)
        self.set_lag(lag)
        return lag

    # ------------------------------------------------------------ reading

    def healthy(self) -> bool:
        """Whether the poll loop ran within ``stale_after_s``."""
        last = self._last_poll_mono
        return last is not None and time.monotonic() - last <= self.stale_after_s

    def snapshot(self) -> dict[str, object]:
        """The main figures as plain numbers (for logs and status views)."""
        def get(name: str) -> int:
            return int(self.registry.get_sample_value(f"{NAMESPACE}_{name}") or 0)

        with self._lock:
            lag = dict(self.lag)
        return {
            "pages_in": get("pages_in_total"),
            "pages_out": get("pages_out_total"),
            "pages_failed": get("pages_in_total") - get("pages_out_total"),
            "bytes_in": get("bytes_in_total"),
            "bytes_out": get("bytes_out_total"),
            "commits": get("commits_total"),
            "lag": sum(lag.values()),
            "partitions": sorted(lag),
            "ready": self.ready,
        }

    def render(self) -> str:
        """The exposition text (format 0.0.4), as /metrics serves it by default."""
        from prometheus_client import generate_latest

        return generate_latest(self.registry).decode("utf-8")

    # ------------------------------------------------------------ HTTP

    def wsgi_app(self) -> WSGIApplication:
        """/metrics (prometheus_client's app), /healthz and /readyz as one WSGI app."""
        metrics_app = make_wsgi_app(self.registry)

        def app(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
            path = environ.get("PATH_INFO", "/").rstrip("/") or "/"
            if path == "/metrics":
                return metrics_app(environ, start_response)
            if path in ("/healthz", "/health", "/livez"):
                ok = self.healthy()
                code, body = (200, "ok\n") if ok else (503, "poll loop stalled\n")
            elif path == "/readyz":
                code, body = (200, "ready\n") if self.ready else (503, "not ready\n")
            else:
                code, body = 404, "try /metrics, /healthz or /readyz\n"
            data = body.encode()
            start_response(f"{code} {_REASONS[code]}", [("Content-Type", "text/plain; charset=utf-8"),
                                                        ("Content-Length", str(len(data)))])
            return [data]

        return app

    def serve(self, port: int, host: str = "0.0.0.0") -> MetricsServer:
        """Serve /metrics, /healthz and /readyz on ``host:port`` (0 = a free port) from a
        daemon thread; ``close()`` the returned server to stop."""
        return MetricsServer(self, port, host)


_REASONS = {200: "OK", 404: "Not Found", 503: "Service Unavailable"}


class _LagCollector:
    """The lag gauges, read from ``Metrics.lag`` at scrape time: a revoked partition's gauge
    goes away with it, and a scrape never sees half of a replaced map."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[GaugeMetricFamily]:
        with self.metrics._lock:
            lag = dict(self.metrics.lag)
        per = GaugeMetricFamily(f"{NAMESPACE}_consumer_lag", "Messages behind the end of each assigned "
                                "partition.", labels=["topic", "partition"])
        for (t, p), v in sorted(lag.items()):
            per.add_metric([t, str(p)], v)
        yield per
        yield GaugeMetricFamily(f"{NAMESPACE}_consumer_lag_sum", "Messages behind, over the assigned "
                                "partitions.", value=sum(lag.values()))
        yield GaugeMetricFamily(f"{NAMESPACE}_assigned_partitions", "Partitions assigned to this worker.",
                                value=len(lag))


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, *args: object) -> None:  # scrapes every few seconds: keep them out of the log
        pass


class MetricsServer:
    """The HTTP server of one Metrics object, on its own daemon thread."""

    def __init__(self, metrics: Metrics, port: int, host: str = "0.0.0.0") -> None:
        self.httpd = make_server(host, port, metrics.wsgi_app(), server_class=_Server,
                                 handler_class=_QuietHandler)
        self.host = host
        self.port: int = self.httpd.server_address[1]
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="metrics-http", daemon=True)
        self._thread.start()
        log.info("metrics on http://%s:%d/metrics", host, self.port)

    @property
    def url(self) -> str:
        """The base URL to reach it from this machine."""
        host = "127.0.0.1" if self.host in ("", "0.0.0.0") else self.host
        return f"http://{host}:{self.port}"

    def close(self) -> None:
        """Stop serving and free the port."""
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> MetricsServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ---------------------------------------------------------------- scraping (status views, tests)

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def parse_exposition(text: str) -> Samples:
    """Samples of a text exposition (prometheus_client's parser): ``{(name, ((label, value),
    ...)): value}``. Raises ValueError on a line that is not a comment, blank or a sample."""
    return {(smp.name, tuple(sorted(smp.labels.items()))): smp.value
            for fam in text_string_to_metric_families(text) for smp in fam.samples}


def end_offsets(consumer: Consumer, tps: list[Partition], timeout_s: float = 10.0) -> dict[Partition, int]:
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


class PartitionLag(TypedDict):
    """A partition's row of ``group_lag``."""

    topic: str
    partition: int
    committed: int | None  # the group's committed offset; None: it never committed one
    end: int
    lag: int


class GroupLag(TypedDict):
    total: int
    partitions: list[PartitionLag]


def group_lag(settings: KafkaSettings, group_id: str, topics: Iterable[str], timeout_s: float = 10.0
              ) -> GroupLag:
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
    rows: list[PartitionLag] = []
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


def scrape(url: str, timeout: float = 5.0) -> Samples:
    """GET ``url`` (``.../metrics``) and parse it."""
    with urllib.request.urlopen(url, timeout=timeout) as r:  # noqa: S310 - our own endpoint
        return parse_exposition(r.read().decode("utf-8"))


def value(samples: Mapping[tuple[str, tuple], float], name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels`` (0 when none)."""
    want = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and want <= set(ls))
