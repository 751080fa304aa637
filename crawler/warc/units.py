"""One unit of input at a time: a gzip member, or one record of an uncompressed WARC.

warcio is given one unit as its stream, so a break costs only that unit: its :class:`Damage`
(CRC, corrupt data, truncation, a bad Content-Length, a member over MEMBER_CAP) is found here,
below warcio, and the unit can be given back (rewound) for the resync to look at again.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

from .rawinput import SCAN, RawInput
from .resync import GZIP_MAGIC, RECORD_LINE, next_plain

# Bytes one gzip member may decompress to; past it the member is reported (too-large) and
# skipped. Read when a member is opened, so a test can set a small one (monkeypatch).
MEMBER_CAP = 1 << 30
REWIND = 1 << 20  # raw bytes of a corrupt gzip member looked at again for the next member
PLAIN_LOOK = 32 << 20  # uncompressed WARC: how far a Content-Length is checked against the end
HEAD_LOOK = 64 << 10  # uncompressed WARC: the most a record's WARC headers may take
LENGTH_DIGITS = 18  # a Content-Length longer than this (an exabyte) is damage, not a number


@dataclass
class Damage:
    kind: str  # crc | corrupt | truncated | content-length | not-a-record | too-large | unreadable
    message: str


class Unit:
    """One gzip member (or, in an uncompressed WARC, one record's bytes) as a stream warcio can
    read: it ends where the member ends. ``damage`` says what went wrong underneath."""

    def __init__(self, src: RawInput, limit: int | None = None) -> None:
        self.src = src
        self.start = src.pos
        self.limit = limit  # plain WARC: the record's length; None: a gzip member
        self.d = zlib.decompressobj(31) if limit is None else None
        self.cap = MEMBER_CAP  # the module's value when the member is opened
        self.out = b""
        self.size = 0  # bytes given out
        self.done = False
        self.damage: Damage | None = None
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
            data = self._take(min(limit - self.size - len(self.out), SCAN))
            if not data:
                self.done = True
                if self.size + len(self.out) < limit:
                    self.damage = Damage("truncated", "input ends inside a record (truncated file)")
            self.out += data
            return
        d = self.d
        while not self.out:
            raw = d.unconsumed_tail or self._take(SCAN)
            if not raw:
                self.done = True
                self.damage = Damage("truncated", "input ends inside a record (truncated file)")
                return
            try:
                self.out = d.decompress(raw, SCAN * 4)  # bounded output: bombs stay small
            except zlib.error as e:
                self.done = True
                crc = "incorrect data check" in str(e) or "incorrect length check" in str(e)
                self.damage = (Damage("crc", "CRC error in the gzip member (its data is damaged)")
                               if crc else Damage("corrupt", f"corrupt gzip data ({e})"))
                return
            if d.eof:
                self.src.unread(d.unused_data)
                self.recent.clear()
                self.done = True
                return
            if self.size + len(self.out) > self.cap:
                self.done = True
                self.out = b""
                self.damage = Damage("too-large", f"gzip member over {_bytes(self.cap)} "
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


def gzip_unit(src: RawInput) -> tuple[Unit | None, Damage | None]:
    if src.peek(3) != GZIP_MAGIC:
        return None, Damage("not-a-record", "bytes that are not a gzip member")
    return Unit(src), None


_CONTENT_LENGTH = re.compile(rb"\ncontent-length:[ \t]*([^\r\n]*)", re.I)


_BLANK = re.compile(rb"[\r\n]*")
_DIGITS = re.compile(rb"[0-9]{1,%d}" % LENGTH_DIGITS)


def skip_blank(src: RawInput) -> bool:
    """Pass over the blank lines between records; whether anything follows them."""
    while src.fill(1):
        blank = _BLANK.match(src.buf).end()  # type: ignore[union-attr]
        if not blank:
            return True
        src.take(blank)
    return False


def plain_unit(src: RawInput) -> tuple[Unit | None, Damage | None]:
    """The next record of an uncompressed WARC, framed by its Content-Length."""
    if not skip_blank(src):
        return None, None
    if src.peek(5) != b"WARC/":
        return None, Damage("not-a-record", "bytes that are not a WARC record")
    src.fill(HEAD_LOOK)
    buf = src.buf
    ends = [i for i in (buf.find(b"\r\n\r\n", 0, HEAD_LOOK), buf.find(b"\n\n", 0, HEAD_LOOK))
            if i >= 0]
    if not ends:
        if src.eof and len(buf) < HEAD_LOOK:
            return None, Damage("truncated", "input ends inside a record (truncated file)")
        return None, Damage("unreadable", f"record headers over {_bytes(HEAD_LOOK)}")
    hend = min(ends) + (4 if buf.startswith(b"\r\n\r\n", min(ends)) else 2)
    m = _CONTENT_LENGTH.search(buf, 0, hend)
    declared = m.group(1).strip() if m else b""
    if m is None or not _DIGITS.fullmatch(declared):
        value = declared[:40].decode("latin-1") if m else "none"
        if declared.isdigit():  # all digits, too many: no file is that long
            value = f"{len(declared)} digits"
        return None, Damage("content-length", f"bad Content-Length ({value!r})")
    length = hend + int(declared)
    # A Content-Length too large swallows the records after it: the record separator and a
    # record start inside the declared length (looked for in its first PLAIN_LOOK bytes), or
    # a record start before the input ends, say so.
    src.fill(min(length, hend + PLAIN_LOOK))
    inside = src.buf.find(b"\r\n\r\nWARC/1.", hend, min(length, len(src.buf)))
    if inside < 0 and src.eof and len(src.buf) < length:
        inside = next_plain(src.buf, hend, len(src.buf), RECORD_LINE)
    if inside >= 0:
        return None, Damage("content-length", f"bad Content-Length ({int(declared)} bytes "
                            "declared, the next record starts before that)")
    return Unit(src, limit=length), None


def length_ok(declared: str) -> bool:
    return _DIGITS.fullmatch(declared.encode("latin-1", "replace")) is not None
