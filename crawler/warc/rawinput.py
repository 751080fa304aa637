"""The raw bytes of one input, with lookahead and an offset, read through one place.

Damage has to be skipped on stdin too (which cannot seek), so the reader never seeks: it
peeks, takes and gives back bytes here. Every read comes through :meth:`RawInput.fill`, which
also counts progress and raises :class:`Halted` when the run is told to stop.
"""

from __future__ import annotations

from collections.abc import Callable

from .sources import Readable
from .stats import WarcStats

SCAN = 1 << 16  # read size
LOOK = 1 << 16  # bytes a possible record start needs after it to be checked


class Halted(BaseException):
    """The reader's ``halt`` turned truthy: the run ends (a BaseException, so the handlers
    that keep a broken record from ending the run do not keep it either)."""


class RawInput:
    """The raw input from file offset ``pos`` on, with lookahead (so damage can be skipped on
    streams too: stdin cannot seek)."""

    def __init__(self, fh: Readable, pos: int, stats: WarcStats | None = None,
                 halt: object = None) -> None:
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
            data = self.fh.read(max(n - len(self.buf), SCAN))
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

    def skip_to(self, find: Callable[[bytearray, int, int], int], stop: int | None) -> None:
        """Pass over bytes up to the next offset (after the current one) where ``find(buf, i,
        limit)`` (the first record start in buf[i:limit], or -1) sees a record start, or to the
        end of the input, or to ``stop``. Memory stays bounded whatever the gap, and every
        step consumes input: a window of at least SCAN new bytes is searched (each start
        with LOOK bytes after it to be checked), then dropped but for its last byte."""
        i = 1
        while True:
            self.fill(i + SCAN + LOOK)
            limit = len(self.buf) if self.eof else len(self.buf) - LOOK  # >= i + SCAN
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
