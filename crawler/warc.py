"""WARC in: ``.warc`` / ``.warc.gz`` (multi-member gzip) from paths, globs, directories or stdin.

``iter_pages(source, stats)`` yields one :class:`~ce_filter.rawpage.RawPage` per HTML-ish
``response`` (or ``resource``) record, with HTTP chunking and content-encoding undone and the
``Content-Type`` charset kept as the filter's encoding hint. Everything else is skipped and
counted by reason in :class:`WarcStats`, never silently. A broken or truncated file does not
raise: every whole record before the break is yielded, then the break (file and offset) is
recorded in ``stats.errors`` and reading goes on with the next file.

``revisit`` records (a later capture whose payload is identical to an earlier one, so the
archive stores no body) are skipped by default: a corpus wants each text once. With
``revisits=True`` they are resolved against the originals read earlier in the same run (see
:class:`RevisitIndex`) and become pages of their own, dated and addressed as the revisit.
"""

from __future__ import annotations

import glob
import io
import os
import re
import sys
import time
import zlib
from collections import Counter, OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Protocol, cast

from warcio.archiveiterator import ArchiveIterator
from warcio.bufferedreaders import ChunkedDataReader, DecompressingBufferedReader
from warcio.limitreader import LimitReader

from ce_filter.rawpage import RawPage, is_html_type, media_type


class Readable(Protocol):
    """Any binary stream a source can be: expand_sources takes what has ``read`` as a stream
    (its ``name``, where it has one, names the records' source)."""

    def read(self, size: int = -1, /) -> bytes: ...


Source = str | os.PathLike | IO[bytes] | Readable
WARC_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz")
PAGE_TYPES = ("response", "resource")
TRUNCATED = "truncated record"
REVISIT_SKIPPED = "revisit (no payload)"
REVISIT_UNRESOLVED = "revisit (original not in input)"
REVISIT_CACHE_BYTES = 64 << 20


@dataclass
class WarcStats:
    """Counts for a run. Invariant: ``records == pages + sum(skipped.values())``."""

    files: int = 0
    records: int = 0
    pages: int = 0
    skipped: Counter = field(default_factory=Counter)
    errors: list[dict[str, Any]] = field(default_factory=list)
    bytes_read: int = 0  # input bytes read, as stored (compressed): progress against file sizes

    def skip(self, reason: str) -> None:
        self.skipped[reason] += 1

    @property
    def skipped_total(self) -> int:
        return sum(self.skipped.values())

    def error(self, source: str, offset: int | None, message: str, *, kind: str = "unreadable",
              skipped: int | None = None) -> None:
        """A break in an input: where, what (``kind``: crc, corrupt, truncated, content-length,
        not-a-record, too-large, unreadable) and how many bytes were passed over."""
        e: dict[str, Any] = {"source": source, "offset": offset, "error": message, "kind": kind}
        if skipped is not None:
            e["skipped"] = skipped
        self.errors.append(e)

    def merge(self, other: WarcStats) -> None:
        self.files += other.files
        self.records += other.records
        self.pages += other.pages
        self.skipped.update(other.skipped)
        self.errors.extend(other.errors)
        self.bytes_read += other.bytes_read

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "records": self.records,
            "pages": self.pages,
            "skipped": dict(sorted(self.skipped.items())),
            "errors": list(self.errors),
        }

    def summary(self) -> str:
        skipped = ", ".join(f"{n} {r}" for r, n in sorted(self.skipped.items())) or "none"
        line = f"{self.files} file(s), {self.records} records: {self.pages} pages; skipped: {skipped}"
        for e in self.errors:
            line += f"\nerror: {e['source']}: {e['error']} at offset {e['offset']}"
            if e.get("skipped"):
                line += f" ({e['skipped']} bytes passed over)"
        return line


class RevisitIndex:
    """The pages read so far, by the keys a revisit record can name its original with:
    ``WARC-Refers-To`` (record id), ``WARC-Payload-Digest`` (identical-payload-digest
    revisits) and ``WARC-Refers-To-Target-URI`` + ``WARC-Refers-To-Date``.

    Bodies are kept, not file offsets, so stdin and shards work the same way; the cache is
    bounded by ``max_bytes`` (least recently stored dropped first), so a run over a large
    archive holds at most that much. Originals in other files of the run are found; originals
    outside the run (an earlier crawl's WARC) are not, and the revisit is counted as
    ``revisit (original not in input)``."""

    def __init__(self, max_bytes: int = REVISIT_CACHE_BYTES) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        # record id -> (page, its other keys); the keys go with the page when it is dropped
        self._pages: OrderedDict[str, tuple[RawPage, tuple[str, ...]]] = OrderedDict()
        self._keys: dict[str, str] = {}  # digest / "uri date" -> record id

    def __len__(self) -> int:
        return len(self._pages)

    def add(self, page: RawPage, digest: str | None) -> None:
        rid = page.record_id
        if not rid or len(page.body) > self.max_bytes:
            return
        self._drop(rid)
        keys = tuple(k for k in (digest, _uri_date(page.url, page.fetch_time)) if k)
        self._pages[rid] = (page, keys)
        self.bytes += len(page.body)
        for k in keys:
            self._keys[k] = rid
        while self.bytes > self.max_bytes:
            self._drop(next(iter(self._pages)))

    def _drop(self, rid: str) -> None:
        held = self._pages.pop(rid, None)
        if held is None:
            return
        self.bytes -= len(held[0].body)
        for k in held[1]:
            if self._keys.get(k) == rid:
                del self._keys[k]

    def find(self, headers: Any) -> RawPage | None:
        """The original a revisit's WARC headers point at, if it is still held."""
        get = headers.get_header
        for rid in (
            get("WARC-Refers-To"),
            self._keys.get(get("WARC-Payload-Digest") or ""),
            self._keys.get(_uri_date(get("WARC-Refers-To-Target-URI"), get("WARC-Refers-To-Date"))),
        ):
            held = self._pages.get(rid or "")
            if held is not None:
                return held[0]
        return None


def _uri_date(uri: str | None, date: str | None) -> str:
    return f"{uri} {date}" if uri and date else ""


def expand_sources(source: Source | Iterable[Source]) -> list[tuple[str, Any]]:
    """(name, path-or-stream) pairs. ``-`` is stdin; globs and directories expand (sorted).
    Raises FileNotFoundError for a path or glob that names nothing."""
    # one path or stream, or an iterable of them (hasattr, as at run time, narrows no type)
    sources: Iterable[Source]
    if isinstance(source, (str, os.PathLike)) or hasattr(source, "read"):
        sources = [cast(Source, source)]
    else:
        sources = source
    out: list[tuple[str, Any]] = []
    for s in sources:
        if hasattr(s, "read"):
            out.append((getattr(s, "name", "<stream>"), s))
            continue
        name = os.fspath(s)
        if name == "-":
            out.append(("<stdin>", sys.stdin.buffer))
        elif Path(name).is_dir():
            files = sorted(str(p) for p in Path(name).rglob("*") if p.name.endswith(WARC_SUFFIXES))
            out.extend((f, f) for f in files)
        elif Path(name).exists():
            out.append((name, name))
        elif glob.has_magic(name) and glob.glob(name):
            out.extend((f, f) for f in sorted(glob.glob(name)))
        else:
            raise FileNotFoundError(f"no WARC input at {name!r}")
    return out


def iter_pages(
    source: Source | Iterable[Source], stats: WarcStats | None = None, *, all_statuses: bool = False,
    revisits: bool | RevisitIndex = False, halt: Any = None, seconds: float | None = None,
) -> Iterator[RawPage]:
    """Pages from WARC files, globs, directories, ``-`` (stdin) or binary streams.

    Inputs are resolved at call time (a missing file raises FileNotFoundError here, not
    later); records are read lazily. ``all_statuses`` keeps non-2xx responses too.
    ``revisits`` resolves revisit records against the originals read before them (True, or
    a :class:`RevisitIndex` to choose its size or share it between calls). ``halt``: an
    object that turns truthy to stop the run (a signal handler's flag): the reader checks it
    at every read of the input (at most 64 KiB apart) and then ends, as at the end of the
    input. ``seconds``: the CPU seconds one body's Content-Encoding may take to undo (the
    page budget; default DECODE_SECONDS, 0 for no limit): a body past it is skipped.
    """
    inputs = expand_sources(source)
    stats = stats if stats is not None else WarcStats()
    index = _revisit_index(revisits)
    return _iter_inputs(inputs, stats, all_statuses, index, halt, decode_budget(seconds))


def _revisit_index(revisits: bool | RevisitIndex | None) -> RevisitIndex | None:
    if isinstance(revisits, RevisitIndex):
        return revisits
    return RevisitIndex() if revisits else None


def decode_budget(seconds: float | None) -> float:
    return DECODE_SECONDS if seconds is None else max(float(seconds), 0.0)


def _iter_inputs(inputs: list[tuple[str, Any]], stats: WarcStats, all_statuses: bool,
                 revisits: RevisitIndex | None, halt: Any = None,
                 seconds: float = 0.0) -> Iterator[RawPage]:
    try:
        for name, src in inputs:
            stats.files += 1
            if hasattr(src, "read"):
                yield from iter_stream(name, src, stats, all_statuses, revisits=revisits,
                                        halt=halt, seconds=seconds)
            else:
                with open(src, "rb") as fh:
                    yield from iter_stream(name, fh, stats, all_statuses, revisits=revisits,
                                            halt=halt, seconds=seconds)
    except Halted:
        return  # stopped from outside: the caller says so (offline.RunStats.interrupted)


GZIP_MAGIC = b"\x1f\x8b\x08"
# Bounds on what one record may cost, whatever its headers say.
PAYLOAD_CAP = 16 << 20  # bytes of one HTTP body kept as sent (the rest is read past)
BODY_CAP = 16 << 20  # bytes of one body once its Content-Encoding is undone
# Bytes one gzip member may decompress to; past it the member is reported (too-large) and
# skipped. Read when a member is opened, so a test can set a small one (monkeypatch).
MEMBER_CAP = 1 << 30
HOLD_BYTES = 32 << 20  # pages of one gzip member held until its CRC is checked (see _read_unit)
_SCAN = 1 << 16  # read size
REWIND = 1 << 20  # raw bytes of a corrupt gzip member looked at again for the next member
_LOOK = 1 << 16  # bytes a possible record start needs after it to be checked
PLAIN_LOOK = 32 << 20  # uncompressed WARC: how far a Content-Length is checked against the end
HEAD_LOOK = 64 << 10  # uncompressed WARC: the most a record's WARC headers may take
LENGTH_DIGITS = 18  # a Content-Length longer than this (an exabyte) is damage, not a number
NAME_LOOK = 1 << 10  # a gzip member start candidate: the most its FNAME / FCOMMENT may take
DEFLATE_LOOK = 4 << 10  # ... and the deflate bytes looked at for its first 5 bytes ("WARC/")
LINE_CAP = 1 << 20  # a header line is handed to warcio in pieces of at most this many bytes
DECODE_SECONDS = 10.0  # CPU seconds to undo one body's Content-Encoding (the page budget's default)
_PIECE = 256  # first piece of a gzip member fed to zlib (doubling): see _inflate


class Halted(BaseException):
    """The reader's ``halt`` turned truthy: the run ends (a BaseException, so the handlers
    that keep a broken record from ending the run do not keep it either)."""


class _Source:
    """The raw input from file offset ``pos`` on, with lookahead (so damage can be skipped on
    streams too: stdin cannot seek)."""

    def __init__(self, fh: IO[bytes], pos: int, stats: WarcStats | None = None,
                 halt: Any = None) -> None:
        self.fh, self.pos = fh, pos
        self.buf = bytearray()
        self.eof = False
        self.stats = stats  # its bytes_read: how much of the input is done (progress)
        self.halt = halt  # truthy once the run is to stop: checked at every read (Halted)

    def fill(self, n: int) -> int:
        """Buffer at least ``n`` bytes if the input has them; returns how many are buffered.
        Raises Halted when ``halt`` is set: every loop of the reader reads through here."""
        while len(self.buf) < n and not self.eof:
            if self.halt:
                raise Halted
            data = self.fh.read(max(n - len(self.buf), _SCAN))
            if not data:
                self.eof = True
            elif self.stats is not None:
                self.stats.bytes_read += len(data)
            self.buf += data
        return len(self.buf)

    def peek(self, n: int) -> bytes:
        self.fill(n)
        return bytes(self.buf[:n])

    def take(self, n: int) -> bytes:
        """Up to ``n`` bytes (fewer only at the end of the input)."""
        self.fill(n)
        out = bytes(self.buf[:n])
        del self.buf[:n]
        self.pos += len(out)
        return out

    def unread(self, data: bytes) -> None:
        self.buf[:0] = data
        self.pos -= len(data)

    def skip_to(self, find: Any, stop: int | None) -> None:
        """Pass over bytes up to the next offset (after the current one) where ``find(buf, i,
        limit)`` (the first record start in buf[i:limit], or -1) sees a record start, or to the
        end of the input, or to ``stop``. Memory stays bounded whatever the gap, and every
        step consumes input: a window of at least _SCAN new bytes is searched (each start
        with _LOOK bytes after it to be checked), then dropped but for its last byte."""
        i = 1
        while True:
            self.fill(i + _SCAN + _LOOK)
            limit = len(self.buf) if self.eof else len(self.buf) - _LOOK  # >= i + _SCAN
            j = find(self.buf, i, limit) if limit > i else -1
            if j >= 0:
                break
            if self.eof:
                j = len(self.buf)
                break
            drop = max(limit - 1, 1)  # one byte kept: a record start needs the byte before it
            self.pos += drop
            del self.buf[:drop]
        if stop is not None:
            j = min(j, max(stop - self.pos, 0))
        self.take(j)


def member_starts_record(buf: Any, i: int = 0) -> bool:
    """Whether ``buf[i:]`` (raw bytes) starts a gzip member that decompresses to a WARC record.

    Bounded work whatever the bytes (a resync tries every ``1f 8b 08`` in the gap): the gzip
    header is parsed here (an FNAME or FCOMMENT of at most NAME_LOOK bytes, an FEXTRA of at
    most _LOOK), and only the first DEFLATE_LOOK bytes of the deflate data are inflated, for
    5 bytes of output."""
    end = min(len(buf), i + _LOOK)
    if end - i < 18 or buf[i: i + 3] != GZIP_MAGIC:
        return False
    flags = buf[i + 3]
    if flags & 0xE0:  # reserved bits: zlib refuses the member
        return False
    h = i + 10
    if flags & 4:  # FEXTRA
        h += 2 + (buf[h] | buf[h + 1] << 8)  # (h + 1 < end: 18 bytes at least)
    for bit in (8, 16):  # FNAME, FCOMMENT: zero-terminated
        if flags & bit and h < end:
            z = buf.find(b"\0", h, min(end, h + NAME_LOOK))
            if z < 0:
                return False
            h = z + 1
    if flags & 2:  # FHCRC
        h += 2
    if h >= end:
        return False
    try:
        out = zlib.decompressobj(-zlib.MAX_WBITS).decompress(
            memoryview(buf)[h: min(end, h + DEFLATE_LOOK)], 5)
    except zlib.error:
        return False
    return out == b"WARC/"


def _next_member(buf: bytearray, i: int, limit: int) -> int:
    while True:
        i = buf.find(GZIP_MAGIC, i, limit + len(GZIP_MAGIC) - 1)
        if i < 0 or member_starts_record(buf, i):
            return i
        i += 1


# A record start found by a resync: anywhere (junk before it need not end in a line break).
_RECORD_START = re.compile(rb"WARC/1\.[01]\r?\n")
_RECORD_LINE = re.compile(rb"(?<=\n)WARC/1\.[01]\r?\n")  # one at the start of a line


def _next_plain(buf: bytearray, i: int, limit: int, start: re.Pattern = _RECORD_START) -> int:
    m = start.search(buf, i, limit + 12)
    return -1 if m is None or m.start() >= limit else m.start()


def _next_any(buf: bytearray, i: int, limit: int) -> int:
    found = [j for j in (_next_member(buf, i, limit), _next_plain(buf, i, limit)) if j >= 0]
    return min(found, default=-1)


@dataclass
class _Damage:
    kind: str  # crc | corrupt | truncated | content-length | not-a-record | too-large | unreadable
    message: str


class _Unit:
    """One gzip member (or, in an uncompressed WARC, one record's bytes) as a stream warcio can
    read: it ends where the member ends. ``damage`` says what went wrong underneath."""

    def __init__(self, src: _Source, limit: int | None = None) -> None:
        self.src = src
        self.start = src.pos
        self.limit = limit  # plain WARC: the record's length; None: a gzip member
        self.d = zlib.decompressobj(31) if limit is None else None
        self.cap = MEMBER_CAP  # the module's value when the member is opened
        self.out = b""
        self.size = 0  # bytes given out
        self.done = False
        self.damage: _Damage | None = None
        self.recent = bytearray()  # the last raw bytes taken (at most REWIND), for rewind()

    def tell(self) -> int:
        return self.size

    def _take(self, n: int) -> bytes:
        raw = self.src.take(n)
        self.recent += raw
        if len(self.recent) > REWIND:
            del self.recent[: len(self.recent) - REWIND]
        return raw

    def rewind(self) -> None:
        """Give back the raw bytes taken last: a corrupt member may have been read past its
        true end, into the members after it."""
        self.src.unread(bytes(self.recent))
        self.recent.clear()

    def _more(self) -> None:
        if self.d is None:  # plain: the record's own bytes
            limit = self.limit
            assert limit is not None  # no decompressor only where the record's length was given
            data = self._take(min(limit - self.size - len(self.out), _SCAN))
            if not data:
                self.done = True
                if self.size + len(self.out) < limit:
                    self.damage = _Damage("truncated", "input ends inside a record (truncated file)")
            self.out += data
            return
        d = self.d
        while not self.out:
            raw = d.unconsumed_tail or self._take(_SCAN)
            if not raw:
                self.done = True
                self.damage = _Damage("truncated", "input ends inside a record (truncated file)")
                return
            try:
                self.out = d.decompress(raw, _SCAN * 4)  # bounded output: bombs stay small
            except zlib.error as e:
                self.done = True
                crc = "incorrect data check" in str(e) or "incorrect length check" in str(e)
                self.damage = (_Damage("crc", "CRC error in the gzip member (its data is damaged)")
                               if crc else _Damage("corrupt", f"corrupt gzip data ({e})"))
                return
            if d.eof:
                self.src.unread(d.unused_data)
                self.recent.clear()
                self.done = True
                return
            if self.size + len(self.out) > self.cap:
                self.done = True
                self.out = b""
                self.damage = _Damage("too-large", f"gzip member over {_bytes(self.cap)} "
                                      "decompressed: skipped")
                return

    def read(self, size: int = -1) -> bytes:
        if not self.out and not self.done:
            self._more()
        n = len(self.out) if size is None or size < 0 else size
        data, self.out = self.out[:n], self.out[n:]
        self.size += len(data)
        return data

    def drain(self) -> None:
        """Read to the unit's end (so its CRC is checked and the next unit's start is known)."""
        while self.read(1 << 20):
            pass


def _bytes(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} bytes"


class _LineReader(DecompressingBufferedReader):
    """warcio's buffered reader with a linear ``readline``: warcio's own joins a long line
    piece by piece (``bytes +=``, quadratic: a 32 MiB header line took 14 s), and holds it
    whole. Here the pieces are joined once, and a line comes in pieces of at most LINE_CAP
    bytes (the rest of it is the next line the parser sees: a broken header, not a stall)."""

    def readline(self, length: int | None = None) -> bytes:
        want = LINE_CAP if length is None or length < 0 else min(length, LINE_CAP)
        if want == 0:
            return b""
        parts: list[bytes] = []
        while want > 0:
            self._fillbuff()
            if self.empty():
                break
            part = self.buff.readline(want)
            parts.append(part)
            want -= len(part)
            if part.endswith(b"\n"):
                break
        return b"".join(parts)


def _linear_lines(it: ArchiveIterator) -> None:
    if type(it.reader) is DecompressingBufferedReader:
        it.reader.__class__ = _LineReader


class _Records(ArchiveIterator):
    """warcio's iterator over one unit; its warning about a record not followed by a blank
    line (a Content-Length too small) is counted in ``err_count``, not printed."""

    INC_RECORD = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _linear_lines(self)


def iter_stream(name: str, fh: IO[bytes], stats: WarcStats, all_statuses: bool,
                 base: int = 0, stop: int | None = None, revisits: RevisitIndex | None = None,
                 halt: Any = None, seconds: float = 0.0) -> Iterator[RawPage]:
    """``base``: the stream's offset in the file (error offsets are file offsets); ``stop``:
    records starting at or after this file offset belong to the next shard (warc_shards);
    ``halt``, ``seconds``: as in iter_pages.

    Gzip WARCs are read member by member, uncompressed ones record by record; a damaged one
    (CRC error, corrupt data, bad Content-Length, bytes that are no record) is reported with
    its offset and kind, and reading goes on at the next record (the next gzip member that
    decompresses to a WARC record, or the next ``WARC/1.x`` line), so one bad record costs
    only itself. ARC files are read by warcio alone, up to the first damage.

    Every step consumes input (a step that did not would spin forever): a step that ends
    where it began is a bug, reported as ``unreadable`` and passed over by one byte."""
    src = _Source(fh, base, stats, halt)
    head = src.peek(9)
    if not head:
        return
    if head.startswith(b"filedesc:"):
        yield from _iter_arc(name, src, stats, all_statuses, revisits, seconds)
        return
    if not head.startswith((GZIP_MAGIC, b"WARC/")):  # damage at the start: which records follow?
        src.skip_to(_next_any, stop)
        stats.error(name, base, "bytes that are not a WARC record", kind="not-a-record",
                    skipped=src.pos - base)
    gz = src.peek(3) == GZIP_MAGIC
    find = _next_member if gz else _next_plain
    while src.fill(1) and (stop is None or src.pos < stop):
        if not gz and not _skip_blank(src):
            break
        start = src.pos
        unit, damage = _gzip_unit(src) if gz else _plain_unit(src)
        if unit is not None:
            held: list[RawPage] = []
            damage = yield from _read_unit(unit, name, stats, all_statuses, revisits, held,
                                           seconds)
            if damage is None or damage.kind == "truncated":
                yield from _commit(held, stats)  # a cut input still has whole records
        if damage is None:
            _progress(src, start, stop, name, stats)
            continue
        if damage.kind == "truncated" and (unit is None or unit.d is None):
            while src.take(_SCAN):  # what is left is the cut record
                pass
        elif damage.kind == "truncated" and unit is not None:  # a cut member may have run on into the members
            unit.rewind()  # after it (its deflate data need not fail on their bytes): look
            src.skip_to(find, stop)  # again, as after a corrupt member
        elif unit is None or unit.damage is not None:
            if unit is not None:
                unit.rewind()  # the member's end is unknown: look again from its start
            src.skip_to(find, stop)  # (else the unit was whole: the next one follows it)
        if damage.kind != "not-a-record":  # (bytes that are no record are not counted as one)
            stats.records += 1
            stats.skip("damaged record")
        stats.error(name, start, damage.message, kind=damage.kind, skipped=src.pos - start)
        _progress(src, start, stop, name, stats)


def _progress(src: _Source, start: int, stop: int | None, name: str, stats: WarcStats) -> None:
    """The guard of "every step consumes input": none of the steps above can end where it
    began (the fuzz properties check that this never fires), but if one did, the reader
    would spin forever; instead the byte is passed over and said."""
    if src.pos <= start and src.fill(1) and (stop is None or src.pos < stop):
        src.take(1)
        stats.error(name, start, STALLED, kind="unreadable", skipped=1)


STALLED = "the reader made no progress here (a bug): one byte passed over"


def _gzip_unit(src: _Source) -> tuple[_Unit | None, _Damage | None]:
    if src.peek(3) != GZIP_MAGIC:
        return None, _Damage("not-a-record", "bytes that are not a gzip member")
    return _Unit(src), None


_CONTENT_LENGTH = re.compile(rb"\ncontent-length:[ \t]*([^\r\n]*)", re.I)


_BLANK = re.compile(rb"[\r\n]*")
_DIGITS = re.compile(rb"[0-9]{1,%d}" % LENGTH_DIGITS)


def _skip_blank(src: _Source) -> bool:
    """Pass over the blank lines between records; whether anything follows them."""
    while src.fill(1):
        blank = _BLANK.match(src.buf).end()  # type: ignore[union-attr]
        if not blank:
            return True
        src.take(blank)
    return False


def _plain_unit(src: _Source) -> tuple[_Unit | None, _Damage | None]:
    """The next record of an uncompressed WARC, framed by its Content-Length."""
    if not _skip_blank(src):
        return None, None
    if src.peek(5) != b"WARC/":
        return None, _Damage("not-a-record", "bytes that are not a WARC record")
    src.fill(HEAD_LOOK)
    buf = src.buf
    ends = [i for i in (buf.find(b"\r\n\r\n", 0, HEAD_LOOK), buf.find(b"\n\n", 0, HEAD_LOOK))
            if i >= 0]
    if not ends:
        if src.eof and len(buf) < HEAD_LOOK:
            return None, _Damage("truncated", "input ends inside a record (truncated file)")
        return None, _Damage("unreadable", f"record headers over {_bytes(HEAD_LOOK)}")
    hend = min(ends) + (4 if buf.startswith(b"\r\n\r\n", min(ends)) else 2)
    m = _CONTENT_LENGTH.search(buf, 0, hend)
    declared = m.group(1).strip() if m else b""
    if m is None or not _DIGITS.fullmatch(declared):
        value = declared[:40].decode("latin-1") if m else "none"
        if declared.isdigit():  # all digits, too many: no file is that long
            value = f"{len(declared)} digits"
        return None, _Damage("content-length", f"bad Content-Length ({value!r})")
    length = hend + int(declared)
    # A Content-Length too large swallows the records after it: the record separator and a
    # record start inside the declared length (looked for in its first PLAIN_LOOK bytes), or
    # a record start before the input ends, say so.
    src.fill(min(length, hend + PLAIN_LOOK))
    inside = src.buf.find(b"\r\n\r\nWARC/1.", hend, min(length, len(src.buf)))
    if inside < 0 and src.eof and len(src.buf) < length:
        inside = _next_plain(src.buf, hend, len(src.buf), _RECORD_LINE)
    if inside >= 0:
        return None, _Damage("content-length", f"bad Content-Length ({int(declared)} bytes "
                             "declared, the next record starts before that)")
    return _Unit(src, limit=length), None


def _read_unit(unit: _Unit, name: str, stats: WarcStats, all_statuses: bool,
               revisits: RevisitIndex | None, held: list[RawPage], seconds: float = 0.0) -> Any:
    """Parse the records of one unit into ``held`` (a generator returning the damage, if any).
    Pages and counts wait until the unit is read to its end and its CRC checked, so a damaged
    member gives none and counts as one damaged record; a member holding more than HOLD_BYTES
    of pages (many records in one gzip stream) lets them out early, and damage found later can
    then only be reported."""
    it = _Records(unit, arc2warc=True)
    local = WarcStats()  # counts of the records in ``held``
    damage = None
    try:
        for record in it:
            page, reason = _page_from_record(record, name, all_statuses, revisits, seconds)
            if reason == TRUNCATED:
                damage = _Damage("content-length", _length_message(record, unit))
                break
            local.records += 1
            if page is None:
                local.skip(reason)
                continue
            if revisits is not None and record.rec_type != "revisit":
                revisits.add(page, record.rec_headers.get_header("WARC-Payload-Digest"))
            held.append(page)
            if sum(len(p.body) for p in held) > HOLD_BYTES:
                stats.merge(local)
                local = WarcStats()
                yield from _commit(held, stats)
    except Exception as e:  # noqa: BLE001 - a broken record is data, not a crash
        damage = _Damage("unreadable", _unreadable(e))
        if isinstance(e, ValueError) and "integer string conversion" in str(e):
            damage = _Damage("content-length", "bad Content-Length (thousands of digits)")
    if it.err_count:  # warcio found a record not followed by a blank line
        damage = _Damage("content-length", "bad Content-Length: a record's data continues past "
                         "its declared length")
    unit.drain()
    if unit.damage is not None:  # what went wrong underneath explains the rest
        damage = unit.damage
    if damage is not None and damage.kind != "truncated":
        held.clear()  # not given out: the unit counts as one damaged record
    else:
        stats.merge(local)
    return damage


def _unreadable(e: BaseException) -> str:
    first = str(e).strip().splitlines()[0][:120] if str(e).strip() else ""
    return f"unreadable record: {type(e).__name__} {first}".strip()


def _length_ok(declared: str) -> bool:
    return _DIGITS.fullmatch(declared.encode("latin-1", "replace")) is not None


def _length_message(record: Any, unit: _Unit) -> str:
    declared = (record.rec_headers.get_header("Content-Length") or "").strip()
    if not _length_ok(declared):
        return f"bad Content-Length ({declared[:40]!r})"
    return (f"bad Content-Length: the record declares {int(declared)} bytes, its "
            f"{'gzip member' if unit.d is not None else 'file'} ends before that")


def _commit(held: list[RawPage], stats: WarcStats) -> Iterator[RawPage]:
    stats.pages += len(held)
    yield from held
    held.clear()


class _Counting:
    """Counts the bytes read, so offsets are stream positions even on stdin."""

    def __init__(self, src: _Source) -> None:
        self.src = src

    def tell(self) -> int:
        return self.src.pos

    def read(self, size: int = -1) -> bytes:
        return self.src.take(size if size is not None and size >= 0 else _SCAN)


class _Iterator(ArchiveIterator):
    """warcio's iterator, noting whether the last gzip member was complete when it stopped."""

    member_cut = False

    def close(self) -> None:
        d = self.reader.decompressor if self.reader is not None else None
        self.member_cut = d is not None and not getattr(d, "eof", True)
        super().close()


def _iter_arc(name: str, src: _Source, stats: WarcStats, all_statuses: bool,
              revisits: RevisitIndex | None, seconds: float = 0.0) -> Iterator[RawPage]:
    """ARC (and anything that is neither gzip nor WARC): warcio alone, up to the first break."""
    base = src.pos
    it = _Iterator(_Counting(src), arc2warc=True)
    _linear_lines(it)
    start = base
    try:
        for record in it:
            start = it.offset
            stats.records += 1
            page, reason = _page_from_record(record, name, all_statuses, revisits, seconds)
            if page is None:
                stats.skip(reason)
                if reason == TRUNCATED:
                    stats.error(name, start, "input ends inside a record (truncated file)",
                                kind="truncated")
                    return
                continue
            stats.pages += 1
            yield page
    except Exception as e:  # noqa: BLE001 - a broken file is data, not a crash
        stats.error(name, it.offset, _unreadable(e), kind="unreadable")
        return
    while src.take(65536):  # anything warcio did not take as a record
        pass
    end = it.offset
    if src.pos > end:
        stats.error(name, end, f"input ends inside a record (truncated file; {src.pos - end} "
                    "bytes after the last whole record)", kind="truncated")
    elif it.member_cut and src.pos > base:
        stats.error(name, start, "input ends inside the gzip member of the last record (truncated file)",
                    kind="truncated")


def _page_from_record(record: Any, name: str, all_statuses: bool,
                      revisits: RevisitIndex | None = None,
                      seconds: float = 0.0) -> tuple[RawPage | None, str]:
    """The page in a record, or (None, why it is skipped)."""
    if not _length_ok((record.rec_headers.get_header("Content-Length") or "").strip()):
        return None, TRUNCATED  # headers cut short (or broken): where the record ends is unknown
    rtype = record.rec_type
    http = record.http_headers if rtype in ("response", "revisit") else None
    ctype = _content_type(record, http)
    status = _status(http)
    body = b""
    original = None
    if rtype == "revisit":
        original = revisits.find(record.rec_headers) if revisits is not None else None
        if original is not None:
            # a server-not-modified revisit records the 304; the page is the original's. The
            # record's own Content-Type is application/http, so only an HTTP one counts.
            status = original.status if status in (None, 304) else status
            ctype = (http.get_header("Content-Type") if http is not None else "") or original.content_type
            http = http if http is not None and http.headers else None
    if rtype == "revisit" and original is None:
        skip = REVISIT_SKIPPED if revisits is None else REVISIT_UNRESOLVED
    elif rtype not in PAGE_TYPES and original is None:
        skip = f"record type {rtype}"
    elif http is not None and not all_statuses and not (status is not None and 200 <= status < 300):
        skip = f"http status {status}"
    elif ctype and not is_html_type(ctype):
        skip = f"non-html {media_type(ctype)}"
    elif original is not None:
        body, skip = original.body, ""
    else:
        body, skip = _payload(record, http, seconds)
    if not _drained(record):  # the input ended before the record's Content-Length was read
        return None, TRUNCATED
    if skip:
        return None, skip
    if not ctype and not _sniff_html(body):
        return None, "non-html (no content type)"
    if not body.strip():
        return None, "empty payload"
    return (
        RawPage(
            url=record.rec_headers.get_header("WARC-Target-URI") or "",
            body=body,
            fetch_time=record.rec_headers.get_header("WARC-Date"),
            status=status,
            headers=_headers_dict(http.headers) if http is not None else
            (dict(original.headers) if original is not None else {}),
            content_type=ctype,
            record_id=record.rec_headers.get_header("WARC-Record-ID"),
            source="warc",
            source_name=name,
            revisit_of=original.record_id if original is not None else None,
        ),
        "",
    )


def _content_type(record: Any, http: Any) -> str:
    if http is None:
        return record.rec_headers.get_header("Content-Type") or ""
    return (
        http.get_header("Content-Type") or record.rec_headers.get_header("WARC-Identified-Payload-Type") or ""
    )


def _status(http: Any) -> int | None:
    if http is None:
        return None
    try:
        return int(http.get_statuscode())
    except (TypeError, ValueError):
        return None


def _payload(record: Any, http: Any, seconds: float = 0.0) -> tuple[bytes, str]:
    """The body with transfer- and content-encoding undone, or (b'', why not). At most
    PAYLOAD_CAP bytes are taken as sent and BODY_CAP decoded (the filter cuts pages at 8 MiB
    anyway); the rest of the record is read past, never held. Undoing the content-encoding
    may take ``seconds`` of CPU time (0: no limit); past that the body is skipped."""
    raw = record.raw_stream
    if http is not None and "chunked" in (http.get_header("Transfer-Encoding") or "").lower():
        raw = ChunkedDataReader(raw)  # falls back to the bytes as they are if not really chunked
    data = _read_upto(raw, PAYLOAD_CAP)
    coding = (http.get_header("Content-Encoding") or "") if http is not None else ""
    try:
        return decode_content(data, coding, seconds=seconds), ""
    except DecodeOverBudget as e:
        return b"", f"undecodable body ({coding.strip().lower()}: {e})"
    except LookupError as e:
        return b"", str(e)
    except Exception as e:  # noqa: BLE001 - servers lie about encodings; a lie that is HTML is kept
        if _sniff_html(data):
            return data, ""
        return b"", f"undecodable body ({coding.strip().lower()}: {type(e).__name__})"


def _read_upto(stream: Any, n: int) -> bytes:
    out = []
    while n > 0:
        b = stream.read(min(n, 1 << 20))
        if not b:
            break
        out.append(b)
        n -= len(b)
    return b"".join(out)


class DecodeOverBudget(Exception):
    """Undoing a body's Content-Encoding ran past its CPU seconds (decode_content)."""


def decode_content(data: bytes, coding: str | None, limit: int = BODY_CAP,
                   seconds: float = 0.0) -> bytes:
    """Undo an HTTP Content-Encoding (gzip, deflate, br, zstd where available; a list of them
    is undone last-applied first), giving at most ``limit`` bytes of each layer (a bomb is cut,
    not inflated). Raises LookupError for an encoding it cannot undo and the codec's own error
    for bytes that are not what the header says.

    Linear in the bytes in and out, however many gzip members the body holds (_inflate);
    ``seconds`` > 0 bounds the CPU time (this thread's) as the page budget bounds a parse:
    past it, DecodeOverBudget."""
    deadline = time.thread_time() + seconds if seconds > 0 else None
    for c in reversed([c.strip().lower() for c in (coding or "").split(",") if c.strip()]):
        if c in ("identity", "none"):
            continue
        if c in ("gzip", "x-gzip"):
            data = _inflate(data, 16 + zlib.MAX_WBITS, limit, deadline)
        elif c == "deflate":
            try:
                data = _inflate(data, zlib.MAX_WBITS, limit, deadline)
            except zlib.error:
                data = _inflate(data, -zlib.MAX_WBITS, limit, deadline)  # raw deflate, as some servers send
        elif c == "br":
            try:
                import brotli
            except ImportError:
                raise LookupError("unsupported content-encoding br (brotli not installed)") from None
            data = brotli.Decompressor().process(data, output_buffer_limit=limit)[:limit]
        elif c == "zstd":
            data = _zstd(data, limit)
        else:
            raise LookupError(f"unsupported content-encoding {c}")
        _check(deadline)
    return data


def _check(deadline: float | None) -> None:
    if deadline is not None and time.thread_time() > deadline:
        raise DecodeOverBudget("past the page budget's CPU seconds")


def _inflate(data: bytes, wbits: int, limit: int, deadline: float | None = None) -> bytes:
    """Decompress every member (gzip may be multi-member), at most ``limit`` bytes; a cut
    stream gives what it has.

    Linear: zlib copies what follows a member's end into ``unused_data``, so handing it the
    whole rest of the body at every member costs the square of their number (300,000 empty
    members in 6 MB: 22 s). Each member is fed in pieces instead, from _PIECE bytes doubling,
    so what a member's end leaves over is at most its own size again plus _PIECE. The
    deadline (thread CPU time) is checked every 64 pieces."""
    view = memoryview(data)
    n, pos, room, pieces = len(data), 0, limit, 0
    out: list[bytes] = []
    while pos < n and room > 0:
        d = zlib.decompressobj(wbits)
        step = _PIECE
        while True:
            pieces += 1
            if not pieces & 63:
                _check(deadline)
            piece = view[pos: pos + step]
            chunk = d.decompress(piece, room)
            if chunk:
                out.append(chunk)
                room -= len(chunk)
            if room <= 0:  # the cap: the rest is not inflated
                return b"".join(out)
            if d.eof:  # (room left: zlib took the whole piece, up to the member's end)
                pos += len(piece) - len(d.unused_data)
                break
            pos += len(piece)
            if pos >= n:  # cut inside a member: what it has
                out.append(d.flush()[:room])
                room -= len(out[-1])
                break
            step = min(step * 2, 1 << 20)
    return b"".join(out)


def _zstd(data: bytes, limit: int) -> bytes:
    try:
        if sys.version_info >= (3, 14):
            try:
                from compression import zstd
            except ImportError:  # built without _zstd
                from backports import zstd
        else:
            from backports import zstd
    except ImportError:
        raise LookupError("unsupported content-encoding zstd (no zstd module)") from None
    return zstd.ZstdDecompressor().decompress(data, max_length=limit)


def _headers_dict(pairs: list[tuple[str, str]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in pairs:
        out[k] = f"{out[k]}, {v}" if k in out else v
    return out


def _drained(record: Any) -> bool:
    """Read what is left of a record's block; False when the input ends inside it."""
    raw = record.raw_stream
    if not isinstance(raw, LimitReader):  # no Content-Length, or 0: nothing of its own to read
        return True
    while raw.read(65536):
        pass
    return raw.limit <= 0


def _sniff_html(body: bytes) -> bool:
    head = body[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith(b"<")


def read_all(data: bytes, stats: WarcStats | None = None) -> list[RawPage]:
    """Every page of an in-memory WARC (handy for tests and small tools)."""
    return list(iter_pages(io.BytesIO(data), stats))
