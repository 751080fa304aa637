"""Fuzz targets: what must hold for *any* input bytes. Each raises AssertionError (or lets an
unexpected exception through) when a property breaks, and returns the seconds the product call
itself took (the checks against the reference implementations are not counted); the runner
(fuzz/run.py) and the tests (tests/reliability/test_fuzz.py) call them.

- ``extract``: ``Extractor.extract`` never raises, an empty text always has a reason, the C
  pre-parse scan equals its Python reference, and the C walk gives the Python walk's blocks
  (both compared on inputs under 256 KB: the Python references are slow).
- ``warc``: the WARC reader never raises, its counts add up (records = pages + skipped), its
  errors name an offset inside the input and a known kind, and a stream read in small pieces
  (like stdin) gives the same as the bytes at once; no step of it ends where it began (its
  guard against spinning never fires).
- ``resync``: the bytes as damage between good records, gzip and plain: the reader ends,
  and every good record before and after the damage comes out.
- ``decode``: undoing gzip / deflate Content-Encoding is linear in the input: the bytes handed
  to zlib are at most a constant times the body's length, however many members it holds.
- ``message``: the Kafka worker's handling of a message never raises anything but its
  dead-letter signal (PoisonMessage), and what it would send is a valid record.
"""

from __future__ import annotations

import io
import json
import time
from functools import lru_cache
from typing import Any

STALLED = "the reader made no progress here (a bug): one byte passed over"  # ce_filter.crawler.warc.STALLED
REFERENCE_MAX = 256 << 10  # largest input compared with the (slow) Python references
KINDS = {"crc", "corrupt", "truncated", "content-length", "not-a-record", "too-large", "unreadable"}


@lru_cache(maxsize=1)
def _extractor() -> Any:
    from ce_filter import Extractor

    return Extractor()


def extract(data: bytes) -> float:
    from ce_filter.read import precheck, segment
    from ce_filter.read.decode import decode_html

    t0 = time.perf_counter()
    r = _extractor().extract(data)
    took = time.perf_counter() - t0
    assert isinstance(r.text, str) and isinstance(r.reason, str)
    assert r.text or r.reason, "an empty result without a reason"
    if len(data) >= REFERENCE_MAX:
        return took
    from tests.oracles.precheck_scan import scan as oracle_scan

    caps = (precheck.DEFAULT_LIMITS.max_elements, precheck.DEFAULT_LIMITS.max_attr_work,
            precheck.DEFAULT_LIMITS.max_nesting_work, precheck.DEFAULT_LIMITS.max_reconstructed)
    assert precheck._c.scan(data, *caps) == oracle_scan(data, *caps), "C scan != Python scan"
    if not r.reason.startswith("too costly"):
        text, _ = decode_html(data)
        from tests.oracles.walk_python import walk

        assert segment.segment(segment.parse(text)).same_as(walk(text)), "C walk != its Python oracle"
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
        assert e["error"] != STALLED, e
    s2 = WarcStats()
    again = list(iter_pages(io.BufferedReader(_Trickle(data), 7), s2))
    assert [(p.url, p.body) for p in again] == [(p.url, p.body) for p in pages]
    assert [(e["offset"], e["kind"]) for e in s2.errors] == [(e["offset"], e["kind"]) for e in stats.errors]
    return took


@lru_cache(maxsize=1)
def _good() -> tuple[bytes, list[int], list[bytes]]:
    import gzip

    from tests.reliability.warcs import pages

    data, offsets = pages(4, "good")
    plain = [gzip.decompress(data[offsets[i]:offsets[i + 1]]) for i in range(4)]
    return data, offsets, plain


GOOD = [f"http://good.test/{i}" for i in range(4)]


def resync(junk: bytes) -> float:
    """Two good records, the damage, two good records: in a gzip WARC (any bytes) and in a
    plain one (any bytes that hold no ``WARC/``, the start of a record): all four come out."""
    from ce_filter.crawler.warc import WarcStats, read_all

    data, offsets, plain = _good()
    took = 0.0
    for whole in (data[:offsets[2]] + junk + data[offsets[2]:],
                  b"".join(plain[:2]) + junk.replace(b"WARC/", b"WARC_") + b"".join(plain[2:])):
        stats = WarcStats()
        t0 = time.perf_counter()
        urls = [p.url for p in read_all(whole, stats)]
        took += time.perf_counter() - t0
        assert [u for u in urls if u in GOOD] == GOOD, (urls, stats.errors)
        assert stats.records == stats.pages + stats.skipped_total
        assert all(e["error"] != STALLED for e in stats.errors), stats.errors
    return took


class _Counted:
    """A zlib decompressor that counts the bytes handed to it."""

    fed = 0

    def __init__(self, make: Any, *args: Any) -> None:
        self._d = make(*args)

    def decompress(self, data: Any, *args: Any) -> bytes:
        _Counted.fed += len(data)
        return self._d.decompress(data, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._d, name)


def decode(data: bytes) -> float:
    """``data`` as a gzip and as a deflate body: zlib is handed at most 40 bytes per byte of
    body (each member fed in pieces doubling from 256 bytes; handing it the rest of the body
    at every member, as once, is the square of the members)."""
    import zlib
    from unittest import mock

    from ce_filter.crawler.warc import decode_content

    took = 0.0
    real = zlib.decompressobj
    for coding in ("gzip", "deflate"):
        _Counted.fed = 0
        with mock.patch.object(zlib, "decompressobj", lambda *a: _Counted(real, *a)):
            t0 = time.perf_counter()
            try:
                decode_content(data, coding)
            except (zlib.error, ValueError):
                pass
            took += time.perf_counter() - t0
        assert _Counted.fed <= 40 * len(data) + 1024, (coding, len(data), _Counted.fed)
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
    from ce_filter.pipelines.worker import PoisonMessage

    from ce_filter.record import validate

    t0 = time.perf_counter()
    try:
        k, value = _worker().record_of(Message(data, key, headers))
    except PoisonMessage as p:
        assert p.reason in POISON_REASONS, p.reason
        return time.perf_counter() - t0
    took = time.perf_counter() - t0
    rec = json.loads(value)
    assert validate(rec) == [], validate(rec)
    assert k is None or isinstance(k, bytes)
    return took


TARGETS = {"extract": extract, "warc": warc, "message": message, "resync": resync, "decode": decode}
