"""ARC files (and inputs that are neither gzip nor WARC), read by warcio alone.

ARC is legacy and rare, so it gets no resync: its records are read up to the first break,
which is recorded with its offset like any other.
"""

from __future__ import annotations

from collections.abc import Iterator

from warcio.archiveiterator import ArchiveIterator

from ce_filter.read.rawpage import RawPage

from .lines import linear_lines
from .pages import TRUNCATED, page_from_record
from .rawinput import SCAN, RawInput
from .revisits import RevisitIndex
from .stats import WarcStats, unreadable_message


class _Counting:
    """Counts the bytes read, so offsets are stream positions even on stdin."""

    def __init__(self, src: RawInput) -> None:
        self.src = src

    def tell(self) -> int:
        return self.src.pos

    def read(self, size: int = -1) -> bytes:
        return self.src.take(size if size is not None and size >= 0 else SCAN)


class _Iterator(ArchiveIterator):
    """warcio's iterator, noting whether the last gzip member was complete when it stopped."""

    member_cut = False

    def close(self) -> None:
        d = self.reader.decompressor if self.reader is not None else None
        self.member_cut = d is not None and not getattr(d, "eof", True)
        super().close()


def iter_arc(name: str, src: RawInput, stats: WarcStats, all_statuses: bool,
             revisits: RevisitIndex | None, seconds: float = 0.0) -> Iterator[RawPage]:
    """ARC (and anything that is neither gzip nor WARC): warcio alone, up to the first break."""
    base = src.pos
    it = _Iterator(_Counting(src), arc2warc=True)
    linear_lines(it)
    start = base
    try:
        for record in it:
            start = it.offset
            stats.records += 1
            page, reason = page_from_record(record, name, all_statuses, revisits, seconds)
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
        stats.error(name, it.offset, unreadable_message(e), kind="unreadable")
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
