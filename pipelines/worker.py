"""The Kafka worker: raw HTML in (consumer group), clean records out, poison to a dead-letter topic.

Input messages (key = URL, optional):
- value = the raw HTML bytes as fetched (charset from a ``content-type`` message header if
  present, else sniffed), or
- value = a JSON envelope ``{"url": ..., "html": "<html>..."}``; instead of ``html`` the
  bytes may come base64-encoded as ``html_b64`` (keeps the original charset). Optional:
  ``fetch_time``, ``status``, ``content_type`` (or ``encoding`` for the charset alone).
  A value whose first non-blank byte is ``{`` is read as an envelope.

Output: the record of ``ce_filter/record.schema.json`` on the output topic, key = URL.

Dead letters: whatever a message does wrong other than fail its delivery: an empty message,
an envelope that is not valid JSON (nested past the parser, lone surrogates, ...) or lacks the
HTML, binary content, a filter error or a dead filter process, a record over the producer's
max_request_size. They go to the dead-letter topic *unchanged* (same key and value, so they can
be replayed), with the error in message headers ``ce-filter-reason`` (empty-message,
invalid-envelope, undecodable, filter-error, output-error), ``ce-filter-error`` (text) and
``ce-filter-source`` (topic/partition/offset; also ``-topic``, ``-partition``, ``-offset``).
A dead letter that would not fit max_request_size is cut to fit, with ``ce-filter-truncated``
(its original size). The stream goes on.

Budget: pages are filtered in a child process under a per-page CPU and memory budget
(ce_filter.run.budget; the CPU budget at most a fifth of max.poll.interval); a page past it gets a
record with an empty text and the reason. A batch that runs past 40% of max.poll.interval is
cut there: the messages done are committed and the rest is polled again, so a slow batch
never costs the worker its partitions (and never makes a redelivery loop).

Pages in flight: the filter process holds IN_FLIGHT pages at a time (BoundedExtractor.
extract_many): while it filters one, the next is in its pipe and this process reads the next
messages and makes and sends the records before it. ``--filters N``: N filter processes, each
page to the one of its host (``ce_filter.run.bounded.page_slot``), so that a host's pages meet one
site memory in their order and each record is what one filter process would have made.
Records leave in each partition's order; a page that kills a filter process gets its record
with the reason and the pages queued behind it go to the new process in its place. No page is
handed out past the batch's deadline, and one handed out before it whose turn comes after it is
not filtered: it is read again at the next poll, so a batch takes no longer than with one page
at a time (with several filter processes, a page after it may have been filtered by another
one: it is filtered again at the next poll, as a redelivered message is).

Site memory (on unless ``--no-site-memory``): the filter process remembers the blocks of the
pages it has seen per host (ce_filter.score.site.memory.SiteMemory), so a site's repeated navigation
and footers weigh against those blocks; key the input by host to keep a site on one worker
(within a worker, ``--filters`` keeps a host on one filter process).

Delivery: at-least-once. Offsets are committed only after every output and dead letter of
the messages done is acknowledged (acks=all). A delivery failure stops the worker (exit 3)
without committing, so the batch is processed again on restart. SIGTERM/SIGINT finish the
batch in hand, flush, commit, leave the group and exit 0.

Idle exit (``--idle-exit S``, batch use): the worker exits 0 once nothing arrived for S seconds
and the broker, asked anew, says every assigned partition is read to its end. An idle worker
whose broker does not answer, or whose partitions hold records that do not arrive, is not idle:
it waits up to ``--broker-wait`` seconds for them, then exits 2 saying the topic was not read
to its end.

Metrics: with ``metrics_port`` set (``--metrics-port``; 0 = a free port, logged) the worker
serves ``/metrics``, ``/healthz`` and ``/readyz`` (``ce_filter.pipelines.metrics``) while it runs.
"""

from __future__ import annotations

import base64
import binascii
import collections
import json
import logging
import signal
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import cast

from ce_filter.api import Extraction
from ce_filter.options import ExtractOptions
from ce_filter.read.rawpage import RawPage
from ce_filter.record import dumps, make_record, model_version
from ce_filter.run.bounded import BoundedExtractor
from ce_filter.run.budget import FILTER_ERROR, PROCESS_DIED, Budget, PageFilter, guarded

from .kafka_io import Consumer, Delivery, Headers, KafkaSettings, Message, Partition, make_consumer
from .metrics import Metrics, MetricsServer
from .sinks import KafkaSink

log = logging.getLogger("ce_filter.worker")

EXIT_OK = 0
EXIT_BROKER = 2
EXIT_DELIVERY = 3
IN_FLIGHT = 2  # pages in the filter process's hands at a time (the one it filters, the next)
FAILED = (FILTER_ERROR, PROCESS_DIED)  # record reasons that make a dead letter, not a record
DEAD_LETTER_SLACK = 64 * 1024  # room left in max_request_size for the batch framing and headers
# a page for the filter: (html, url, charset hint, the time.monotonic() deadline of its turn)
PageTask = tuple[bytes, str | None, str | None, float]


class PoisonMessage(Exception):
    def __init__(self, reason: str, error: str) -> None:
        super().__init__(f"{reason}: {error}")
        self.reason = reason
        self.error = error


def _header(headers: Headers | None, name: str) -> str | None:
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


def page_from_message(msg: Message) -> RawPage:
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


def _text(v: str) -> str:
    """``v`` with lone surrogates (a JSON ``\\ud800`` escape) replaced: they cannot be encoded."""
    return v.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _read_envelope(value: bytes, page: RawPage) -> None:
    try:
        env = json.loads(value.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise PoisonMessage("invalid-envelope", f"not a valid JSON envelope: {type(e).__name__}: "
                            f"{str(e)[:200]}") from None
    if not isinstance(env, dict):
        raise PoisonMessage("invalid-envelope", "JSON envelope is not an object")
    if isinstance(env.get("html"), str):
        page.body = env["html"].encode("utf-8", "surrogatepass")  # lone surrogates: bad bytes
        page.content_type = "text/html; charset=utf-8"  # the bytes are ours now: UTF-8
    elif isinstance(env.get("html_b64"), str):
        try:
            page.body = base64.b64decode(env["html_b64"], validate=True)
        except (binascii.Error, ValueError) as e:
            raise PoisonMessage("invalid-envelope", f"html_b64 is not base64: {e}") from None
        ctype = env.get("content_type") or (
            f"text/html; charset={env['encoding']}" if env.get("encoding") else ""
        )
        page.content_type = _text(str(ctype or page.content_type))
    else:
        raise PoisonMessage("invalid-envelope", "envelope has no 'html' (string) or 'html_b64' field")
    if not page.body.strip():
        raise PoisonMessage("empty-message", "envelope html is empty")
    page.url = _text(str(env.get("url") or page.url))
    page.fetch_time = _text(env["fetch_time"]) if isinstance(env.get("fetch_time"), str) else None
    status = env.get("status")
    page.status = status if isinstance(status, int) and not isinstance(status, bool) else None


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
    idle_exit_s: float = 0.0  # >0: exit when caught up and nothing arrived for this long (batch use)
    # idle-exit: how long an idle worker waits for a broker that does not answer (or for the
    # records it reports to arrive) before it exits non-zero, saying work may be left
    broker_wait_s: float = 300.0
    extract: ExtractOptions = field(default_factory=ExtractOptions)  # model and cut
    metrics_port: int | None = None  # serve /metrics, /healthz, /readyz here (0 = a free port)
    page_budget_s: float = 10.0  # CPU seconds per page (0 = no limit; at most a fifth of the poll interval)
    page_memory_mb: int = 1024  # memory per page beyond the filter's own (0 = no limit)
    filters: int = 1  # filter processes (a host's pages all go to one of them)

    def __post_init__(self) -> None:
        self.dead_letter_topic = self.dead_letter_topic or f"{self.input_topic}.dlq"

    @property
    def batch_s(self) -> float:
        """How long one batch may take before the rest of it is left for the next poll: well
        inside max.poll.interval, so a slow batch never costs the worker its partitions."""
        return self.max_poll_interval_ms / 1000 * 0.4

    def budget(self) -> Budget:
        """The page budget, fitted to the poll interval: one page, even killed at its wall-clock
        deadline (2x its CPU budget), leaves the batch inside max.poll.interval."""
        cap = self.batch_s / 2
        seconds = min(self.page_budget_s, cap) if self.page_budget_s > 0 else cap
        return Budget(seconds, self.page_memory_mb)


@dataclass
class WorkerStats:
    consumed: int = 0
    produced: int = 0
    dead_lettered: int = 0
    commits: int = 0
    reasons: dict[str, int] = field(default_factory=dict)


IDLE_CHECK_S = 2.0  # between two asks of the broker while idle
IDLE_CHECK_TIMEOUT_MS = 5000


class _Idle:
    """--idle-exit's rule: idle means caught up with the broker reachable. An idle worker
    whose broker does not answer, or that has records left that do not arrive, waits up to
    ``broker_wait_s`` and then exits EXIT_BROKER, saying so; caught up, it exits 0."""

    def __init__(self, cfg: WorkerConfig) -> None:
        self.cfg = cfg
        self.since: float | None = None  # when the wait for the broker (or the records) began
        self.why = ""

    def reset(self) -> None:
        self.since, self.why = None, ""

    def check(self, left: int | None, now: float, quiet_s: float) -> int | None:
        """The exit code to stop with, or None to go on polling."""
        if left == 0:
            log.info("idle for %.0f s and caught up with the broker: exiting", quiet_s)
            return EXIT_OK
        why = "the broker does not answer" if left is None else f"{left} records left, none arriving"
        if self.since is None or why != self.why:
            if self.since is None:
                self.since = now
            self.why = why
            log.warning("idle for %.0f s but %s: not idle; waiting up to %.0f s", quiet_s, why,
                        self.cfg.broker_wait_s)
        if now - self.since >= self.cfg.broker_wait_s:
            log.error("exiting after %.0f s: %s, so %s is not read to its end", now - self.since, why,
                      self.cfg.input_topic)
            return EXIT_BROKER
        return None


class Worker:
    def __init__(self, config: WorkerConfig, extractor: PageFilter | None = None,
                 stop_event: threading.Event | None = None) -> None:
        """``stop_event``: set by a signal that came while the worker was being built (the CLI
        installs its handler first), so a worker stopped during start-up exits cleanly."""
        self.cfg = config
        self._own_extractor = extractor is None
        if extractor is None:  # filtered in a child process under the page budget
            budget = config.budget()
            extractor = BoundedExtractor(budget, wall_s=2 * budget.seconds + 1, options=config.extract,
                                         workers=config.filters)
        self.extractor: PageFilter = extractor
        self.stats = WorkerStats()
        self.metrics = Metrics(info={"model": model_version(self.extractor)})
        self.metrics_server: MetricsServer | None = None  # while serving
        self._stop = stop_event if stop_event is not None else threading.Event()

    def stop(self, *_: object) -> None:
        """Finish the batch in hand, commit, leave the group (safe from a signal handler)."""
        self._stop.set()

    def _connect(self) -> tuple[Consumer, KafkaSink]:
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
        restore = self._install_signals()  # before connecting: a stop while connecting is clean
        try:
            consumer, sink = self._connect()
        except BaseException:
            restore()
            self._close_extractor()
            raise
        if self.cfg.metrics_port is not None:
            try:
                self.metrics_server = self.metrics.serve(self.cfg.metrics_port)
            except OSError:  # e.g. the port is taken: nothing started may stay open
                sink.close()
                consumer.close(autocommit=False)
                restore()
                self._close_extractor()
                raise
        self.metrics.set_ready(True)
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
            self._close_extractor()
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

    def _left(self, consumer: Consumer) -> int | None:
        """Records of the assigned partitions not yet read, as the broker says now (the end
        offsets asked anew); None when the broker does not answer."""
        try:
            tps = list(consumer.assignment())
            ends = consumer.end_offsets(tps, timeout_ms=IDLE_CHECK_TIMEOUT_MS)
            return sum(max(0, ends[tp] - consumer.position(tp, timeout_ms=IDLE_CHECK_TIMEOUT_MS))
                       for tp in tps)
        except Exception as e:  # noqa: BLE001 - any failure to ask is a broker not answering
            log.debug("end offsets not read: %s: %s", type(e).__name__, e)
            return None

    def _loop(self, consumer: Consumer, sink: KafkaSink) -> int:
        idle = _Idle(self.cfg)
        next_check = 0.0
        last_log = last_msg = time.monotonic()
        logged = 0
        assigned: set[Partition] = set()
        while not self._stop.is_set():
            batch = consumer.poll(timeout_ms=500)
            self.metrics.heartbeat()
            if self.metrics_server is not None and consumer.assignment() != assigned:
                assigned = set(consumer.assignment())  # a rebalance: the lag gauges follow it
                self.metrics.update_lag(consumer)
            now = time.monotonic()
            if batch:
                last_msg = now
                futures: list[Delivery] = []
                done: dict[Partition, int] = {}  # partition -> messages of it handled, in order
                try:
                    self._batch(batch, sink, now + self.cfg.batch_s, futures, done)
                except Exception as e:  # noqa: BLE001 - a delivery refused at once (even a dead letter)
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
                if sum(done.values()) == len(futures) == sum(len(v) for v in batch.values()):
                    self._commit(consumer)
                else:  # out of time: commit what is done, read the rest again next poll
                    self._commit_part(consumer, batch, done)
            elif not consumer.assignment():
                last_msg = now  # idle time counts from when there are partitions to read
            elif self.cfg.idle_exit_s and now - last_msg >= self.cfg.idle_exit_s and now >= next_check:
                code = idle.check(self._left(consumer), now, now - last_msg)
                if code is not None:
                    return code
                next_check = time.monotonic() + IDLE_CHECK_S
            if batch:
                idle.reset()
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

    def _commit(self, consumer: Consumer) -> None:
        from kafka.errors import KafkaError

        try:
            consumer.commit()  # the positions after everything polled, all of it acknowledged
            self.stats.commits += 1
            self.metrics.commit()
            if self.metrics_server is not None:
                self.metrics.update_lag(consumer)
        except KafkaError as e:  # e.g. a rebalance took the partitions: they will be redelivered
            log.warning("offset commit failed (%s): those messages will be processed again", e)

    def _commit_part(self, consumer: Consumer, batch: dict[Partition, list[Message]],
                     done: dict[Partition, int]) -> None:
        """Commit the handled prefix of each partition of ``batch`` and seek every partition
        back to its first message not handled."""
        from kafka.errors import KafkaError
        from kafka.structs import OffsetAndMetadata

        offsets: dict[Partition, object] = {}  # kafka-python's OffsetAndMetadata
        for tp, msgs in batch.items():
            k = done.get(tp, 0)
            if k:
                offsets[tp] = OffsetAndMetadata(msgs[k - 1].offset + 1, "", -1)
            if k < len(msgs):
                consumer.seek(tp, msgs[k].offset)
        log.warning("batch over %.0f s: %d of %d messages done, the rest is read again",
                    self.cfg.batch_s, sum(done.values()), sum(len(v) for v in batch.values()))
        try:
            consumer.commit(offsets=offsets)
            self.stats.commits += 1
            self.metrics.commit()
        except KafkaError as e:
            log.warning("offset commit failed (%s): those messages will be processed again", e)

    def _batch(self, batch: dict[Partition, list[Message]], sink: KafkaSink, deadline: float,
               futures: list[Delivery], done: dict[Partition, int]) -> None:
        """Filter a batch's messages in order and send each one's record (or dead letter),
        adding the deliveries' futures to ``futures`` and counting the messages handled per
        partition in ``done`` (always a prefix of each partition's messages).

        The pages overlap with the parent's work: IN_FLIGHT pages are in each filter process's
        hands at a time (``BoundedExtractor.extract_many``), so while it filters one page this
        process reads the next messages and makes and sends the records before it. No page is
        handed out past ``deadline``, and a page handed out before it whose turn comes after it
        is not filtered (the filter process skips it): it and the messages after it are left
        for the next poll, so a batch takes no longer than with one page at a time. Only a
        delivery refused at once raises: everything a message can do wrong ends as its dead
        letter, so no message can stop the worker or block its partition."""
        queue: collections.deque[_InFlight] = collections.deque()  # read, not yet sent, in order

        def pages() -> Iterator[PageTask]:  # read lazily, as the filter process has room
            for i, (tp, m) in enumerate((tp, m) for tp, msgs in batch.items() for m in msgs):
                if i and time.monotonic() > deadline:
                    return
                item = _InFlight(tp, m, time.perf_counter())
                try:
                    item.page = page_from_message(m)
                except PoisonMessage as p:
                    item.poison = p
                queue.append(item)
                if item.page is not None:
                    yield item.page.body, item.page.url or None, item.page.encoding, deadline

        def send(item: _InFlight, ex: Extraction | None) -> None:
            futures.append(self._handle(item, ex, sink))
            done[item.tp] = done.get(item.tp, 0) + 1

        skipped = False
        results = _extract_many(self.extractor, pages())
        try:
            for ex in results:
                while queue[0].poison is not None:  # the dead letters before this page
                    send(queue.popleft(), None)
                item = queue.popleft()
                skipped = skipped or ex is None  # its turn came past the deadline: left, with the rest
                if not skipped:
                    send(item, ex)
        finally:
            results.close()
        while queue and not skipped:  # the dead letters after the last page
            send(queue.popleft(), None)

    def _handle(self, item: _InFlight, ex: Extraction | None, sink: KafkaSink) -> Delivery:
        """Send the record of one message whose page gave ``ex`` (or its dead letter); returns
        the delivery's future."""
        from kafka.errors import MessageSizeTooLargeError

        msg = item.msg
        self.stats.consumed += 1
        bytes_in = len(msg.value or b"") if isinstance(msg.value, bytes) else 0
        try:
            if item.poison is not None:
                raise item.poison
            # a message without poison has its page, and (its turn come) its Extraction
            assert item.page is not None and ex is not None
            key, value = self._output(msg, item.page, ex)
        except PoisonMessage as p:
            self.metrics.observe(bytes_in, time.perf_counter() - item.t0, failed=p.reason)
            return self._dead_letter(msg, p, sink)
        try:
            fut = sink.send(value, key)
        except MessageSizeTooLargeError as e:  # the record is over max_request_size
            self.metrics.observe(bytes_in, time.perf_counter() - item.t0, failed="output-error")
            return self._dead_letter(msg, PoisonMessage("output-error", f"{type(e).__name__}: {e}"), sink)
        self.stats.produced += 1
        self.metrics.observe(bytes_in, time.perf_counter() - item.t0, bytes_out=len(value))
        return fut

    def record_of(self, msg: Message) -> tuple[bytes | None, bytes]:
        """(key, value) of one message's record, or PoisonMessage saying why there is none: a
        batch's steps for a single message, without a broker (what the fuzzing target runs)."""
        page = page_from_message(msg)
        ex = next(_extract_many(self.extractor, iter([(page.body, page.url or None, page.encoding,
                                                        float("inf"))])))
        assert ex is not None  # (no deadline: the page is filtered)
        return self._output(msg, page, ex)

    def _output(self, msg: Message, page: RawPage, ex: Extraction) -> tuple[bytes | None, bytes]:
        """(key, value) of the record of ``msg``, whose page gave the Extraction ``ex``, or
        PoisonMessage saying why there is none."""
        stage = "filter-error"
        try:
            rec = make_record(page, ex, self.extractor)
            if rec["reason"] == "binary content" or _control_heavy(page.body):
                raise PoisonMessage("undecodable", "binary content, not HTML")
            if (rec["reason"] or "").startswith(FAILED):  # (an error or a dead process, as the record says)
                raise PoisonMessage("filter-error", rec["reason"] or "")
            stage = "output-error"
            return (rec["url"].encode("utf-8") if rec["url"] else msg.key), dumps(rec)
        except PoisonMessage:
            raise
        except Exception as e:  # noqa: BLE001 - whatever a message does, it is that message's fault
            raise PoisonMessage(stage, f"{type(e).__name__}: {str(e)[:500]}") from e

    def _dead_letter(self, msg: Message, p: PoisonMessage, sink: KafkaSink) -> Delivery:
        """The message, unchanged, to the dead-letter topic with why and where from in headers.
        One that would not fit the producer's max_request_size is cut to fit, and says so in
        ``ce-filter-truncated`` (its original size); the whole of it is still on the input
        topic at ``ce-filter-source`` (also split into -topic, -partition, -offset)."""
        from kafka.errors import MessageSizeTooLargeError

        self.stats.dead_lettered += 1
        self.stats.reasons[p.reason] = self.stats.reasons.get(p.reason, 0) + 1
        log.warning("dead letter %s/%d/%d: %s", msg.topic, msg.partition, msg.offset,
                    str(p).encode("utf-8", "replace")[:300].decode("utf-8", "replace"))
        ours: list[tuple[str, bytes | None]] = [
            ("ce-filter-reason", p.reason.encode()),
            ("ce-filter-error", p.error.encode("utf-8", "replace")[:2000]),
            ("ce-filter-source", f"{msg.topic}/{msg.partition}/{msg.offset}".encode()),
            ("ce-filter-source-topic", str(msg.topic).encode()),
            ("ce-filter-source-partition", str(msg.partition).encode()),
            ("ce-filter-source-offset", str(msg.offset).encode()),
        ]
        theirs = [(k, v) for k, v in (msg.headers or []) if not str(k).startswith("ce-filter-")]
        value, key = msg.value or b"", msg.key
        room = int(cast(int, sink.producer.config.get("max_request_size", 1 << 20))) - DEAD_LETTER_SLACK
        size = len(value) + len(key or b"") + sum(len(k) + len(v or b"") for k, v in theirs)
        if size > room:  # cut, rather than refused (which would stop the worker)
            theirs = [] if sum(len(k) + len(v or b"") for k, v in theirs) > room // 4 else theirs
            key = key[:4096] if key else key
            value = value[: max(room - len(key or b"") - sum(len(k) + len(v or b"") for k, v in theirs), 0)]
            ours.append(("ce-filter-truncated", str(len(msg.value or b"")).encode()))
        try:
            return sink.send(value, key, topic=self.cfg.dead_letter_topic, headers=theirs + ours)
        except MessageSizeTooLargeError:  # the estimate was short: the headers alone, then
            ours.append(("ce-filter-truncated", str(len(msg.value or b"")).encode()))
            return sink.send(b"", key[:1024] if key else key, topic=self.cfg.dead_letter_topic,
                             headers=ours)

    def _close_extractor(self) -> None:
        if self._own_extractor:  # the BoundedExtractor made in __init__
            cast(BoundedExtractor, self.extractor).close()

    def _install_signals(self) -> Callable[[], None]:
        if threading.current_thread() is not threading.main_thread():
            return lambda: None
        old = {s: signal.signal(s, self.stop) for s in (signal.SIGTERM, signal.SIGINT)}

        def restore() -> None:
            for s, h in old.items():
                signal.signal(s, h)

        return restore


@dataclass
class _InFlight:
    """A message of the batch in hand, read: its page, or why it has none."""

    tp: Partition
    msg: Message
    t0: float  # when it was read (the metrics' time per message runs from here)
    page: RawPage | None = None
    poison: PoisonMessage | None = None


def _extract_many(extractor: PageFilter, pages: Iterator[PageTask]
                  ) -> Generator[Extraction | None, None, None]:
    """The Extractions of ``pages`` (html, url, encoding, until) in order: IN_FLIGHT at a time
    in each of a BoundedExtractor's filter processes, else one by one here (an Extractor given to the
    Worker), a page whose turn comes after its ``until`` not filtered (None)."""
    many = getattr(extractor, "extract_many", None)
    if many is not None:
        yield from many(pages, IN_FLIGHT)
        return
    for html, url, encoding, until in pages:
        if time.monotonic() > until:
            yield None
        else:  # an exception of the filter is that page's dead letter, not the worker's end
            yield guarded(extractor, html, url, encoding)


def _rebalance_logger() -> object:
    from kafka import ConsumerRebalanceListener

    class RebalanceLog(ConsumerRebalanceListener):
        """Logs partition assignment. Nothing to commit here: every batch is committed
        before the next poll, and rebalances happen inside poll."""

        def on_partitions_revoked(self, revoked: Iterable[Partition]) -> None:
            log.info("partitions revoked: %s", _fmt(revoked))

        def on_partitions_assigned(self, assigned: Iterable[Partition]) -> None:
            log.info("partitions assigned: %s", _fmt(assigned))

    return RebalanceLog()


def _fmt(tps: Iterable[Partition]) -> str:
    return (
        ",".join(f"{tp.topic}[{tp.partition}]" for tp in sorted(tps, key=lambda t: (t.topic, t.partition)))
        or "-"
    )
