"""Where records go: JSON lines, Kafka, or WARC (WET-style ``conversion`` records).

Every sink counts what it wrote, what was confirmed and what failed (``SinkStats``); a
failure is counted and its error kept, never dropped silently. ``open_sink("kafka:TOPIC")``
and friends parse the ``--to`` specs of the CLI.
"""

from __future__ import annotations

import io
import json
import logging
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

from ce_filter.read.rawpage import RawPage, now_iso
from ce_filter.record import Record, dumps

from .kafka_io import Delivery, Headers, KafkaSettings, ProducerOptions, make_producer

if TYPE_CHECKING:
    from typing_extensions import Unpack

log = logging.getLogger(__name__)
MAX_KEPT_ERRORS = 20


@dataclass
class SinkStats:
    written: int = 0  # handed to the sink
    delivered: int = 0  # confirmed (file: written; Kafka: acknowledged by the broker)
    failed: int = 0
    errors: list[str] = field(default_factory=list)

    def fail(self, error: str) -> None:
        self.failed += 1
        if len(self.errors) < MAX_KEPT_ERRORS:
            self.errors.append(error)

    def to_dict(self) -> dict[str, int | list[str]]:
        return {
            "written": self.written,
            "delivered": self.delivered,
            "failed": self.failed,
            "errors": list(self.errors),
        }


class SinkError(OSError):
    """A sink that can no longer write (a closed pipe, a full disk): the run must stop, since
    every later record would be lost too."""


class Sink:
    """``write(record, page)`` each record, then ``close()`` (flushes; stats are final)."""

    name = "sink"

    def __init__(self) -> None:
        self.stats = SinkStats()

    def write(self, record: Record, page: RawPage | None = None) -> None:
        raise NotImplementedError

    def flush(self) -> None:
        pass

    def close(self) -> SinkStats:
        self.flush()
        return self.stats

    def __enter__(self) -> Sink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def summary(self) -> str:
        s = self.stats
        line = f"{self.name}: {s.delivered} delivered, {s.failed} failed"
        return line + "".join(f"\n  error: {e}" for e in s.errors)


class _FileSink(Sink):
    """A sink over a file or stdout (``-``). A record counts as delivered once the buffer
    holding it has been handed to the operating system; a write error (a closed pipe, a full
    disk) fails the records not yet delivered and raises SinkError."""

    FLUSH_EVERY = 256  # records between flushes (so "delivered" never lags far behind)

    def __init__(self, path: str | Path, binary: bool) -> None:
        super().__init__()
        self.path = str(path)
        self._pending = 0  # written to the buffer, not yet flushed
        self._broken: str = ""
        self.flush_every = self.FLUSH_EVERY
        if self.path == "-":
            self.fh: IO[bytes] | IO[str] = sys.stdout.buffer if binary else sys.stdout
            self._own = False
            # a reader may stop at any record (`| head`): each record is handed to the system
            # on its own, so delivered counts exactly what went out before the pipe closed
            self.flush_every = 1
        else:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self.fh = open(self.path, "wb" if binary else "w", encoding=None if binary else "utf-8")
            self._own = True

    def _put(self, write: Callable[..., object], *args: object) -> None:
        """Write one record through ``write``; the delivered/failed counts follow."""
        self.stats.written += 1
        if self._broken:
            self.stats.failed += 1  # (its error is kept once, when the sink broke)
            raise SinkError(f"{self.name}: {self._broken}")
        self._pending += 1  # (failed with the buffer if this write or a flush fails)
        try:
            write(*args)
            if self._pending >= self.flush_every:
                self.flush()
        except OSError as e:
            self._break(e)

    def _break(self, e: OSError) -> None:
        self._broken = f"cannot write: {e.strerror or e}"
        if len(self.stats.errors) < MAX_KEPT_ERRORS:
            self.stats.errors.append(self._broken)
        self.stats.failed += self._pending  # every record not yet handed to the system
        self._pending = 0
        if self.path == "-":  # nothing more may reach the closed stdout, not even at exit
            _silence_stdout()
        raise SinkError(f"{self.name}: {self._broken}") from e

    def flush(self) -> None:
        if self._broken:
            return
        try:
            self.fh.flush()
        except OSError as e:
            self._break(e)
        self.stats.delivered += self._pending
        self._pending = 0

    def close(self) -> SinkStats:
        try:
            self.flush()
        finally:
            if self._own and not self.fh.closed:
                try:
                    self.fh.close()
                except OSError:
                    pass
        return self.stats


def _silence_stdout() -> None:
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


class JsonlSink(_FileSink):
    """One JSON document per line, UTF-8. ``path`` ``-`` is stdout."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(path, binary=False)
        self.name = f"jsonl:{self.path}"

    def write(self, record: Record, page: RawPage | None = None) -> None:
        self._put(self.fh.write, json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")


class WarcSink(_FileSink):
    """WET-style output: a ``warcinfo`` record, then one ``conversion`` record per page whose
    block is the clean text (text/plain, UTF-8), with ``WARC-Refers-To`` naming the source
    record where there is one, ``WARC-Identified-Content-Language`` the text's language (ISO
    639-1) and ``WARC-Title`` the article's title where the record has them. Gzip per record
    when the path ends in ``.gz``."""

    def __init__(
        self, path: str | Path, *, gzip: bool | None = None, info: dict[str, str] | None = None
    ) -> None:
        from warcio.warcwriter import WARCWriter

        super().__init__(path, binary=True)
        self.name = f"warc:{self.path}"
        self.writer = WARCWriter(self.fh, gzip=self.path.endswith(".gz") if gzip is None else gzip)
        meta = {
            "software": "ce-filter",
            "format": "WARC file version 1.0",
            "description": "clean main-content text (WET-style conversion records)",
        }
        meta.update(info or {})
        self.writer.write_record(self.writer.create_warcinfo_record(Path(self.path).name, meta))

    def write(self, record: Record, page: RawPage | None = None) -> None:
        self._put(self._write_record, record)

    def _write_record(self, record: Record) -> None:
        headers: dict[str, str | None] = {
            "WARC-Date": record.get("fetch_time") or record.get("processed_at") or now_iso()}
        refers = (record.get("source") or {}).get("record_id")
        if refers:
            headers["WARC-Refers-To"] = refers
        if record.get("language"):  # as Common Crawl's WET files name it (there: ISO 639-3)
            headers["WARC-Identified-Content-Language"] = record["language"]
        if record.get("title"):
            headers["WARC-Title"] = record["title"]
        body = record.get("text", "").encode("utf-8")
        rec = self.writer.create_warc_record(
            record.get("url") or "",
            "conversion",
            payload=io.BytesIO(body),
            length=len(body),
            warc_content_type="text/plain; charset=utf-8",
            warc_headers_dict=headers,
        )
        self.writer.write_record(rec)


class KafkaSink(Sink):
    """Records to a Kafka topic: key = URL, value = the JSON record.

    The producer uses acks=all, retries, compression and batching (``PRODUCER_DEFAULTS``).
    Sends are asynchronous; each result is counted by a callback, and ``flush``/``close``
    wait for every outstanding send, so after ``close`` ``stats`` holds the final truth."""

    def __init__(
        self,
        topic: str,
        settings: KafkaSettings | None = None,
        *,
        flush_timeout_s: float = 60.0,
        **producer_options: Unpack[ProducerOptions],
    ) -> None:
        super().__init__()
        self.topic = topic
        self.name = f"kafka:{topic}"
        self.flush_timeout_s = flush_timeout_s
        self.settings = settings or KafkaSettings()
        self.producer = make_producer(self.settings, **producer_options)
        self._pending = 0
        self._lock = threading.Lock()  # callbacks run on the producer's I/O thread

    def send(
        self,
        value: bytes,
        key: bytes | None = None,
        *,
        topic: str | None = None,
        headers: Headers | None = None,
    ) -> Delivery:
        """Send raw bytes; returns kafka-python's future. Outcome is counted either way."""
        with self._lock:
            self.stats.written += 1
            self._pending += 1
        try:
            fut = self.producer.send(topic or self.topic, value=value, key=key, headers=headers or None)
        except Exception as e:  # noqa: BLE001 - e.g. a record over max_request_size
            self._err(e)
            raise
        fut.add_callback(self._ok)
        fut.add_errback(self._err)
        return fut

    def _ok(self, _meta: object) -> None:
        with self._lock:
            self._pending -= 1
            self.stats.delivered += 1

    def _err(self, exc: BaseException) -> None:
        with self._lock:
            self._pending -= 1
            self.stats.fail(f"{type(exc).__name__}: {exc}")
        log.error("kafka delivery to %s failed: %s", self.topic, exc)

    def write(self, record: Record, page: RawPage | None = None) -> None:
        key = (record.get("url") or "").encode("utf-8") or None
        try:
            self.send(dumps(record), key)
        except Exception:  # noqa: BLE001 - counted in send(); the stream goes on
            pass

    def flush(self, timeout_s: float | None = None) -> None:
        try:
            self.producer.flush(timeout=timeout_s if timeout_s is not None else self.flush_timeout_s)
        except Exception as e:  # noqa: BLE001 - KafkaTimeoutError: what is pending is counted below
            log.error("kafka flush: %s", e)

    def close(self) -> SinkStats:
        self.flush()
        if self._pending > 0:
            for _ in range(self._pending):
                self.stats.fail("not acknowledged before the flush timeout")
            self._pending = 0
        self.producer.close(timeout=5)
        return self.stats


class MultiSink(Sink):
    """The same records to several sinks."""

    def __init__(self, sinks: list[Sink]) -> None:
        super().__init__()
        self.sinks = sinks
        self.name = "+".join(s.name for s in sinks)

    def write(self, record: Record, page: RawPage | None = None) -> None:
        for s in self.sinks:
            s.write(record, page)

    def flush(self) -> None:
        for s in self.sinks:
            s.flush()

    def close(self) -> SinkStats:
        errors = []
        for s in self.sinks:
            try:
                s.close()
            except SinkError as e:  # the other sinks are still closed (and flushed)
                errors.append(e)
        if errors:
            raise errors[0]
        return self.stats

    @property
    def failed(self) -> int:
        return sum(s.stats.failed for s in self.sinks)

    def summary(self) -> str:
        return "\n".join(s.summary() for s in self.sinks)


SINK_KINDS = ("jsonl", "kafka", "warc")


def parse_spec(spec: str) -> tuple[str, str]:
    """``kafka:TOPIC`` -> ("kafka", "TOPIC"). Raises ValueError on an unknown kind."""
    kind, sep, target = spec.partition(":")
    if not sep or kind not in SINK_KINDS or not target:
        raise ValueError(f"bad sink {spec!r}: expected jsonl:PATH, kafka:TOPIC or warc:PATH")
    return kind, target


def open_sink(spec: str, kafka: KafkaSettings | None = None, **producer_options: Unpack[ProducerOptions]
              ) -> Sink:
    kind, target = parse_spec(spec)
    if kind == "jsonl":
        return JsonlSink(target)
    if kind == "warc":
        return WarcSink(target)
    return KafkaSink(target, kafka, **producer_options)


def open_sinks(specs: list[str], kafka: KafkaSettings | None = None,
               **producer_options: Unpack[ProducerOptions]) -> MultiSink:
    """All the ``--to`` sinks; the ones already opened are closed again if a later one fails."""
    for s in specs:
        parse_spec(s)
    opened: list[Sink] = []
    try:
        for s in specs:
            opened.append(open_sink(s, kafka, **producer_options))
    except BaseException:
        for o in opened:
            o.close()
        raise
    return MultiSink(opened)
