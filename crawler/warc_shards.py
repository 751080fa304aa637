"""Byte-range shards of gzip WARC files, so N processes each read and filter their own part.

Why: with one reader feeding N filter processes, the reader (warcio, in Python) and the
pickling of every page to a worker compete with the filters for the cores; with the filter now
fast, that reader was the limit of ``--workers 2``. A gzip WARC is a series of gzip members,
one per record, so the file can be cut at member starts (as Hadoop/Spark WARC readers do): each
shard's process seeks to its start and reads records until the next shard's start.

A cut point is the first gzip member at or after an even split of the file that decompresses to
``WARC/``; a file where none is found (one big gzip stream, plain ``.warc``) stays one shard.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ce_filter.read.rawpage import RawPage

from .warc.bodies import decode_budget
from .warc.rawinput import Halted
from .warc.reader import iter_stream
from .warc.resync import GZIP_MAGIC, member_starts_record
from .warc.stats import WarcStats

SHARD_BYTES = 8 << 20  # at most this much compressed input per shard (bounded memory per task)
SCAN = 1 << 20  # how far past a split point to look for a member start


def _member_start(fh, pos: int, limit: int) -> int | None:
    """The first offset in [pos, pos + SCAN) (and < limit) where a gzip member starts that
    decompresses to the start of a WARC record (the test the reader uses to find the next
    record after damage, so shards and a whole-file read agree)."""
    fh.seek(pos)
    buf = fh.read(min(SCAN, max(limit - pos, 0)) + 64 * 1024)
    i = buf.find(GZIP_MAGIC)
    while 0 <= i and pos + i < limit:
        if member_starts_record(buf, i):
            return pos + i
        i = buf.find(GZIP_MAGIC, i + 1)
    return None


def plan(path: str, n: int) -> list[tuple[int, int | None]]:
    """(start, stop) byte ranges covering the file, at least ``n`` where the file allows (stop
    None: to the end). Files that are not gzip WARCs come back as one range."""
    size = Path(path).stat().st_size
    with open(path, "rb") as fh:
        if fh.read(3) != GZIP_MAGIC or n <= 1:
            return [(0, None)]
        parts = max(n, -(-size // SHARD_BYTES))
        cuts = [0]
        for k in range(1, parts):
            at = _member_start(fh, max(size * k // parts, cuts[-1] + 1), size)
            if at is not None and at > cuts[-1]:
                cuts.append(at)
    return [(a, b) for a, b in zip(cuts, cuts[1:])] + [(cuts[-1], None)]


def read_shard(path: str, start: int, stop: int | None, stats: WarcStats,
               all_statuses: bool = False, *, halt: object = None,
               seconds: float | None = None) -> Iterator[RawPage]:
    """The pages of the records that start in [start, stop). The first shard of a file counts
    the file in ``stats``; errors carry file offsets. ``halt``, ``seconds``: as in
    ``iter_pages`` (a set ``halt`` ends the shard at the next read)."""
    if start == 0:
        stats.files += 1
    with open(path, "rb") as fh:
        fh.seek(start)
        try:
            yield from iter_stream(path, fh, stats, all_statuses, base=start, stop=stop,
                                    halt=halt, seconds=decode_budget(seconds))
        except Halted:
            return
