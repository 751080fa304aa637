"""warcio's record iterator, made linear in long header lines and quiet about short records.

warcio joins a long line piece by piece (quadratic) and prints a warning where a record is not
followed by a blank line; the reader needs neither (a 32 MiB header line must not stall it, and
the warning is damage to count, not to print).
"""

from __future__ import annotations

from typing import Any

from warcio.archiveiterator import ArchiveIterator
from warcio.bufferedreaders import DecompressingBufferedReader

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


def linear_lines(it: ArchiveIterator) -> None:
    if type(it.reader) is DecompressingBufferedReader:
        it.reader.__class__ = _LineReader


class Records(ArchiveIterator):
    """warcio's iterator over one unit; its warning about a record not followed by a blank
    line (a Content-Length too small) is counted in ``err_count``, not printed."""

    INC_RECORD = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        linear_lines(self)
