"""The Kafka worker: raw HTML in (consumer group), clean records out, poison to a dead-letter topic.

Input messages (key = URL, optional):
- value = the raw HTML bytes as fetched (charset from a ``content-type`` message header if
  present, else sniffed), or
- value = a JSON envelope ``{"url": ..., "html": "<html>..."}``; instead of ``html`` the
  bytes may come base64-encoded as ``html_b64`` (keeps the original charset). Optional:
  ``fetch_time``, ``status``, ``content_type`` (or ``encoding`` for the charset alone).
  A value whose first non-blank byte is ``{`` is read as an envelope.

Output: the record of ``pipelines/record.schema.json`` on the output topic, key = URL.

Dead letters: an empty message, an envelope that is not valid JSON or lacks the HTML,
binary content, or any error in the filter go to the dead-letter topic *unchanged* (same key
and value, so they can be replayed), with the error in message headers ``ce-filter-reason``
(empty-message, invalid-envelope, undecodable, filter-error), ``ce-filter-error`` (text) and
``ce-filter-source`` (topic/partition/offset). The stream goes on.

Delivery: at-least-once. Offsets are committed only after every output and dead letter of
the polled batch is acknowledged (acks=all). A delivery failure stops the worker (exit 3)
without committing, so the batch is processed again on restart. SIGTERM/SIGINT finish the
batch in hand, flush, commit, leave the group and exit 0.

Metrics: with ``metrics_port`` set (``--metrics-port``; 0 = a free port, logged) the worker
serves ``/metrics``, ``/healthz`` and ``/readyz`` (``ce_filter.pipelines.metrics``) while it runs.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from ce_filter.crawler.page import RawPage

from ce_filter.options import ExtractOptions

from .kafka_io import KafkaSettings, make_consumer
from .metrics import Metrics
from .record import dumps, filter_page, model_version
from .sinks import KafkaSink

log = logging.getLogger("ce_filter.worker")

EXIT_OK = 0
EXIT_BROKER = 2
EXIT_DELIVERY = 3


class PoisonMessage(Exception):
    def __init__(self, reason: str, error: str) -> None:
        super().__init__(f"{reason}: {error}")
        self.reason = reason
        self.error = error


def _header(headers: Any, name: str) -> str | None:
    for k, v in headers or ():
        if k.lower() == name and v is not None:
            return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)
    return None


_CONTROL = bytes(c for c in range(32) if c not in (9, 10, 12, 13))


def _control_heavy(body: bytes) -> bool:
    """More than 5% C0 control bytes: no text encoding of HTML looks like that (UTF-16 has a
    BOM or many NULs, which the filter itself recognises), binary data does."""
    head = body[:4096]
    return bool(head) and len(head) - len(head.translate(None, _CONTROL)) > len(head) // 20


def page_from_message(msg: Any) -> RawPage:
    """The page a Kafka message carries (see the module doc), or PoisonMessage."""
    value: bytes | None = msg.value
    key = msg.key.decode("utf-8", "replace") if isinstance(msg.key, bytes) else (msg.key or "")
    where = f"{msg.topic}/{msg.partition}/{msg.offset}"
    if not value or not value.strip():
        raise PoisonMessage("empty-message", "message value is empty")
    page = RawPage(
        url=key,
        body=value,
        content_type=_header(msg.headers, "content-type") or "",
        source="kafka",
        source_name=where,
    )
    if value.lstrip()[:1] == b"{":
        _read_envelope(value, page)
    return page


def envelope(page: RawPage) -> bytes:
    """The JSON envelope of a raw page, as the worker reads it (``html_b64`` keeps the bytes
    as fetched; the charset hint travels in ``content_type``). Send it with key = URL."""
    env = {
        "url": page.url,
        "html_b64": base64.b64encode(page.body).decode("ascii"),
        "content_type": page.content_type,
        "fetch_time": page.fetch_time,
        "status": page.status,
    }
    return json.dumps(env).encode("utf-8")


def _read_envelope(value: bytes, page: RawPage) -> None:
    try:
        env = json.loads(value.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise PoisonMessage("invalid-envelope", f"not a valid JSON envelope: {e}") from None
    if not isinstance(env, dict):
        raise PoisonMessage("invalid-envelope", "JSON envelope is not an object")
    if isinstance(env.get("html"), str):
        page.body = env["html"].encode("utf-8")
        page.content_type = "text/html; charset=utf-8"  # the bytes are ours now: UTF-8
    elif isinstance(env.get("html_b64"), str):
        try:
            page.body = base64.b64decode(env["html_b64"], validate=True)
        except (binascii.Error, ValueError) as e:
            raise PoisonMessage("invalid-envelope", f"html_b64 is not base64: {e}") from None
        ctype = env.get("content_type") or (
            f"text/html; charset={env['encoding']}" if env.get("encoding") else ""
        )
        page.content_type = str(ctype or page.content_type)
    else:
        raise PoisonMessage("invalid-envelope", "envelope has no 'html' (string) or 'html_b64' field")
    if not page.body.strip():
        raise PoisonMessage("empty-message", "envelope html is empty")
    page.url = str(env.get("url") or page.url)
    page.fetch_time = env.get("fetch_time") if isinstance(env.get("fetch_time"), str) else None
    page.status = env.get("status") if isinstance(env.get("status"), int) else None


@dataclass
class WorkerConfig:
    input_topic: str
    output_topic: str
    dead_letter_topic: str = ""  # default: <input_topic>.dlq
    group_id: str = "ce-filter"
    kafka: KafkaSettings = field(default_factory=KafkaSettings)
    auto_offset_reset: str = "earliest"
    max_poll_records: int = 100
    max_poll_interval_ms: int = 300_000
    session_timeout_ms: int = 10_000
    heartbeat_interval_ms: int = 3_000
    compression: str = "gzip"
    log_interval_s: float = 30.0
    idle_exit_s: float = 0.0  # >0: exit when nothing arrived for this long (batch use)
    extract: ExtractOptions = field(default_factory=ExtractOptions)  # model and cut
    metrics_port: int | None = None  # serve /metrics, /healthz, /readyz here (0 = a free port)

    def __post_init__(self) -> None:
        self.dead_letter_topic = self.dead_letter_topic or f"{self.input_topic}.dlq"


@dataclass
class WorkerStats:
    consumed: int = 0
    produced: int = 0
    dead_lettered: int = 0
    commits: int = 0
    reasons: dict[str, int] = field(default_factory=dict)


class Worker:
    def __init__(self, config: WorkerConfig, extractor: Any = None) -> None:
        self.cfg = config
        self.extractor = extractor if extractor is not None else config.extract.extractor()
        self.stats = WorkerStats()
        self.metrics = Metrics(info={"model": model_version(self.extractor)})
        self.metrics_server: Any = None  # a ce_filter.pipelines.metrics.MetricsServer while serving
        self._stop = threading.Event()

    def stop(self, *_: Any) -> None:
        """Finish the batch in hand, commit, leave the group (safe from a signal handler)."""
        self._stop.set()

    def _connect(self) -> tuple[Any, KafkaSink]:
        cfg = self.cfg
        sink = KafkaSink(cfg.output_topic, cfg.kafka, compression_type=cfg.compression)
        try:
            consumer = make_consumer(
                cfg.kafka,
                group_id=cfg.group_id,
                enable_auto_commit=False,
                auto_offset_reset=cfg.auto_offset_reset,
                max_poll_records=cfg.max_poll_records,
                max_poll_interval_ms=cfg.max_poll_interval_ms,
                session_timeout_ms=cfg.session_timeout_ms,
                heartbeat_interval_ms=cfg.heartbeat_interval_ms,
            )
        except BaseException:
            sink.close()
            raise
        consumer.subscribe(topics=[cfg.input_topic], listener=_rebalance_logger())
        return consumer, sink

    def run(self) -> int:
        """Consume until stopped. Returns the exit code (raises BrokerUnavailable at start)."""
        consumer, sink = self._connect()
        if self.cfg.metrics_port is not None:
            try:
                self.metrics_server = self.metrics.serve(self.cfg.metrics_port)
            except OSError:  # e.g. the port is taken: nothing started may stay open
                sink.close()
                consumer.close(autocommit=False)
                raise
        self.metrics.set_ready(True)
        restore = self._install_signals()
        log.info(
            "worker started: %s -> %s (dead letters: %s), group %s, brokers %s%s",
            self.cfg.input_topic,
            self.cfg.output_topic,
            self.cfg.dead_letter_topic,
            self.cfg.group_id,
            self.cfg.kafka.describe(),
            f", metrics port {self.metrics_server.port}" if self.metrics_server else "",
        )
        code = EXIT_OK
        try:
            code = self._loop(consumer, sink)
        finally:
            self.metrics.set_ready(False)
            sink.close()
            consumer.close(autocommit=False)  # leaves the group
            restore()
            if self.metrics_server is not None:
                self.metrics_server.close()
                self.metrics_server = None
            s = self.stats
            log.info(
                "worker stopped: %d consumed, %d out, %d dead-lettered, %d commits; exit %d",
                s.consumed,
                s.produced,
                s.dead_lettered,
                s.commits,
                code,
            )
        return code

    def _loop(self, consumer: Any, sink: KafkaSink) -> int:
        last_log = last_msg = time.monotonic()
        logged = 0
        assigned: set[Any] = set()
        while not self._stop.is_set():
            batch = consumer.poll(timeout_ms=500)
            self.metrics.heartbeat()
            if self.metrics_server is not None and consumer.assignment() != assigned:
                assigned = set(consumer.assignment())  # a rebalance: the lag gauges follow it
                self.metrics.update_lag(consumer)
            now = time.monotonic()
            if batch:
                last_msg = now
                try:
                    futures = [self._handle(m, sink) for msgs in batch.values() for m in msgs]
                except Exception as e:  # noqa: BLE001 - even the dead-letter send was refused
                    log.error("cannot produce (%s: %s); stopping without commit", type(e).__name__, e)
                    return EXIT_DELIVERY
                sink.flush()
                failed = [f for f in futures if not f.is_done or f.failed()]
                if failed:
                    err = failed[0].exception if failed[0].is_done else "not acknowledged in time"
                    log.error(
                        "%d of %d deliveries failed (%s); stopping without commit: the batch "
                        "is processed again on restart",
                        len(failed),
                        len(futures),
                        err,
                    )
                    return EXIT_DELIVERY
                self._commit(consumer)
            elif not consumer.assignment():
                last_msg = now  # idle time counts from when there are partitions to read
            elif self.cfg.idle_exit_s and now - last_msg >= self.cfg.idle_exit_s:
                log.info("idle for %.0f s: exiting", now - last_msg)
                break
            if now - last_log >= self.cfg.log_interval_s:
                n = self.stats.consumed - logged
                log.info(
                    "throughput: %d msgs in %.0f s (%.1f/s); total %d consumed, %d out, %d dead-lettered",
                    n,
                    now - last_log,
                    n / (now - last_log),
                    self.stats.consumed,
                    self.stats.produced,
                    self.stats.dead_lettered,
                )
                last_log, logged = now, self.stats.consumed
        return EXIT_OK

    def _commit(self, consumer: Any) -> None:
        from kafka.errors import KafkaError

        try:
            consumer.commit()  # the positions after everything polled, all of it acknowledged
            self.stats.commits += 1
            self.metrics.commit()
            if self.metrics_server is not None:
                self.metrics.update_lag(consumer)
        except KafkaError as e:  # e.g. a rebalance took the partitions: they will be redelivered
            log.warning("offset commit failed (%s): those messages will be processed again", e)

    def _handle(self, msg: Any, sink: KafkaSink) -> Any:
        self.stats.consumed += 1
        t0 = time.perf_counter()
        bytes_in = len(msg.value or b"")
        try:
            page = page_from_message(msg)
            try:
                rec = filter_page(self.extractor, page)
            except Exception as e:  # noqa: BLE001 - the filter should not raise; if it does, dead-letter
                raise PoisonMessage("filter-error", f"{type(e).__name__}: {e}") from e
            if rec["reason"] == "binary content" or _control_heavy(page.body):
                raise PoisonMessage("undecodable", "binary content, not HTML")
        except PoisonMessage as p:
            self.metrics.observe(bytes_in, time.perf_counter() - t0, failed=p.reason)
            return self._dead_letter(msg, p, sink)
        key = rec["url"].encode("utf-8") if rec["url"] else msg.key
        value = dumps(rec)
        try:
            fut = sink.send(value, key)
        except Exception as e:  # noqa: BLE001 - refused at once (e.g. over max_request_size)
            self.metrics.observe(bytes_in, time.perf_counter() - t0, failed="output-error")
            return self._dead_letter(msg, PoisonMessage("output-error", f"{type(e).__name__}: {e}"), sink)
        self.stats.produced += 1
        self.metrics.observe(bytes_in, time.perf_counter() - t0, bytes_out=len(value))
        return fut

    def _dead_letter(self, msg: Any, p: PoisonMessage, sink: KafkaSink) -> Any:
        self.stats.dead_lettered += 1
        self.stats.reasons[p.reason] = self.stats.reasons.get(p.reason, 0) + 1
        log.warning("dead letter %s/%d/%d: %s", msg.topic, msg.partition, msg.offset, p)
        headers = [(k, v) for k, v in (msg.headers or []) if not k.startswith("ce-filter-")]
        headers += [
            ("ce-filter-reason", p.reason.encode()),
            ("ce-filter-error", p.error.encode("utf-8", "replace")[:2000]),
            ("ce-filter-source", f"{msg.topic}/{msg.partition}/{msg.offset}".encode()),
        ]
        return sink.send(msg.value or b"", msg.key, topic=self.cfg.dead_letter_topic, headers=headers)

    def _install_signals(self) -> Any:
        if threading.current_thread() is not threading.main_thread():
            return lambda: None
        old = {s: signal.signal(s, self.stop) for s in (signal.SIGTERM, signal.SIGINT)}

        def restore() -> None:
            for s, h in old.items():
                signal.signal(s, h)

        return restore


def _rebalance_logger() -> Any:
    from kafka import ConsumerRebalanceListener

    class RebalanceLog(ConsumerRebalanceListener):
        """Logs partition assignment. Nothing to commit here: every batch is committed
        before the next poll, and rebalances happen inside poll."""

        def on_partitions_revoked(self, revoked: Any) -> None:
            log.info("partitions revoked: %s", _fmt(revoked))

        def on_partitions_assigned(self, assigned: Any) -> None:
            log.info("partitions assigned: %s", _fmt(assigned))

    return RebalanceLog()


def _fmt(tps: Any) -> str:
    return (
        ",".join(f"{tp.topic}[{tp.partition}]" for tp in sorted(tps, key=lambda t: (t.topic, t.partition)))
        or "-"
    )
