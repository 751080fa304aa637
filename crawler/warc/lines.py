"""warcio's record iterator, made linear in long header lines and quiet about short records.

warcio joins a long line piece by piece (quadratic) and prints a warning where a record is not
followed by a blank line; the reader needs neither (a 32 MiB header line must not stall it, and
the warning is damage to count, not to print).
"""

from __future__ import annotations

from typing import Protocol

from warcio.archiveiterator import ArchiveIterator
from warcio.bufferedreaders import DecompressingBufferedReader

from .sources import Readable

LINE_CAP = 1 << 20  # a header line is handed to warcio in pieces of at most this many bytes


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


# warcio ships no type information (mypy knows nothing of its classes): what the reader uses of the
# records its iterator gives, as Protocols that warcio's classes meet


class WarcHeaders(Protocol):
    """A record's WARC headers, or its HTTP status line and headers: warcio's StatusAndHeaders."""

    headers: list[tuple[str, str]]

    def get_header(self, name: str, default_value: str | None = None) -> str | None: ...

    def get_statuscode(self) -> str: ...


class WarcRecord(Protocol):
    """A record as warcio's iterator gives it (ArcWarcRecord; an ARC record as WARC)."""

    rec_type: str  # response, resource, revisit, request, metadata, warcinfo, ...
    rec_headers: WarcHeaders
    http_headers: WarcHeaders | None  # a response's or revisit's HTTP head, where it has one
    raw_stream: Readable  # the record's block after its HTTP head, as stored


def linear_lines(it: ArchiveIterator) -> None:
    if type(it.reader) is DecompressingBufferedReader:
        it.reader.__class__ = _LineReader


class Records(ArchiveIterator):
    """warcio's iterator over one unit; its warning about a record not followed by a blank
    line (a Content-Length too small) is counted in ``err_count``, not printed."""

    INC_RECORD = ""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        linear_lines(self)
