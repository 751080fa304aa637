"""Fuzz targets: what must hold for *any* input bytes. Each raises AssertionError (or lets an
unexpected exception through) when a property breaks, and returns the seconds the product call
itself took (the checks against the reference implementations are not counted); the runner
(fuzz/run.py) and the tests (tests/reliability/test_fuzz.py) call them.

- ``extract``: ``Extractor.extract`` never raises, an empty text always has a reason, the C
  pre-parse scan equals its Python reference, and the C walk gives the Python walk's blocks
  (both compared on inputs under 256 KB: the Python references are slow).
- ``warc``: the WARC reader never raises, its counts add up (records = pages + skipped), its
  errors name an offset inside the input and a known kind, and a stream read in small pieces
  (like stdin) gives the same as the bytes at once.
- ``message``: the Kafka worker's handling of a message never raises anything but its
  dead-letter signal (PoisonMessage), and what it would send is a valid record.
"""

from __future__ import annotations

import io
import json
import time
from functools import lru_cache
from typing import Any

REFERENCE_MAX = 256 << 10  # largest input compared with the (slow) Python references
KINDS = {"crc", "corrupt", "truncated", "content-length", "not-a-record", "too-large", "unreadable"}


@lru_cache(maxsize=1)
def _extractor() -> Any:
    from ce_filter import Extractor

    return Extractor()


def extract(data: bytes) -> float:
    from ce_filter import precheck, segment
    from ce_filter.decode import decode_html

    t0 = time.perf_counter()
    r = _extractor().extract(data)
    took = time.perf_counter() - t0
    assert isinstance(r.text, str) and isinstance(r.reason, str)
    assert r.text or r.reason, "an empty result without a reason"
    if len(data) >= REFERENCE_MAX:
        return took
    if precheck._c_scan is not None:
        caps = (precheck.DEFAULT_LIMITS.max_elements, precheck.DEFAULT_LIMITS.max_attr_work,
                precheck.DEFAULT_LIMITS.max_nesting_work, precheck.DEFAULT_LIMITS.max_reconstructed)
        assert precheck._c_scan(data, *caps) == precheck._scan_py(data, *caps), "C scan != Python scan"
    if segment._fast is not None and not r.reason.startswith("too costly"):
        text, _ = decode_html(data)
        from selectolax.lexbor import LexborHTMLParser

        assert segment.segment(segment.parse(text)).same_as(segment.segment_tree(LexborHTMLParser(text))), \
            "C walk != Python walk"
    return took


class _Trickle(io.RawIOBase):
    """A stream that gives at most 7 bytes per read and cannot seek (stdin at its worst)."""

    def __init__(self, data: bytes) -> None:
        self._b = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        chunk = self._b.read(min(len(b), 7))
        b[: len(chunk)] = chunk
        return len(chunk)


def warc(data: bytes) -> float:
    from ce_filter.crawler.warc import WarcStats, iter_pages, read_all

    stats = WarcStats()
    t0 = time.perf_counter()
    pages = read_all(data, stats)
    took = time.perf_counter() - t0
    assert stats.records == stats.pages + stats.skipped_total, stats.to_dict()
    assert stats.pages == len(pages)
    for e in stats.errors:
        assert e["offset"] is not None and 0 <= e["offset"] <= len(data), e
        assert e["kind"] in KINDS, e
    s2 = WarcStats()
    again = list(iter_pages(io.BufferedReader(_Trickle(data), 7), s2))
    assert [(p.url, p.body) for p in again] == [(p.url, p.body) for p in pages]
    assert [(e["offset"], e["kind"]) for e in s2.errors] == [(e["offset"], e["kind"]) for e in stats.errors]
    return took


POISON_REASONS = {"empty-message", "invalid-envelope", "undecodable", "filter-error", "output-error"}


class Message:
    """What kafka-python's ConsumerRecord has that the worker reads."""

    def __init__(self, value: bytes | None, key: bytes | None = b"http://fuzz.test/",
                 headers: list[tuple[str, bytes]] | None = None) -> None:
        self.topic, self.partition, self.offset = "fuzz", 0, 0
        self.key, self.value, self.headers = key, value, headers or []


@lru_cache(maxsize=1)
def _worker() -> Any:
    from ce_filter.pipelines.worker import Worker, WorkerConfig

    return Worker(WorkerConfig("fuzz", "fuzz.out"), extractor=_extractor())


def message(data: bytes, key: bytes | None = b"http://fuzz.test/",
            headers: list[tuple[str, bytes]] | None = None) -> float:
    from ce_filter.pipelines.record import validate
    from ce_filter.pipelines.worker import PoisonMessage

    t0 = time.perf_counter()
    try:
        k, value = _worker()._output(Message(data, key, headers))
    except PoisonMessage as p:
        assert p.reason in POISON_REASONS, p.reason
        return time.perf_counter() - t0
    took = time.perf_counter() - t0
    rec = json.loads(value)
    assert validate(rec) == [], validate(rec)
    assert k is None or isinstance(k, bytes)
    return took


TARGETS = {"extract": extract, "warc": warc, "message": message}
