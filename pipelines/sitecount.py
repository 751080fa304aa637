"""The first pass of a run with the site memory: every page's blocks counted under its host.

``ce-filter warc`` counts all its input files at once; the Spark job counts each task's file.
Both then filter each page with ``options.with_counts(counts)``: a SiteCounts reads a
page's host's counts with the page itself left out, so the records do not depend on the order
of the pages (ce_filter.score.site.memory).

A page is read as the filter reads it (``ce_filter.read.page.read``: decoded, checked, parsed,
segmented) and only its block fingerprints are kept. Two shortcuts leave the counts exactly as
they would be: a page whose host, charset hint and bytes are those of a page already counted is
not read again (its fingerprints would be the same, and ``SiteCounts.add`` counts a page with
the same fingerprints as one of its host's once), and each page's fingerprints are made unique
once (in ``SiteCounts.add``). ``warc`` with one process reads the input here and, for inputs of
CHILD_BYTES or more, segments the pages in a child process, a few pages in flight, so the
reading and the segmenting overlap; with more, each process reads and segments byte ranges of
the gzip files itself.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, cast

import numpy as np
from ce_filter.crawler.warc import Source, WarcStats, expand_sources, iter_pages
from ce_filter.crawler.warc_shards import plan, read_shard

from ce_filter.options import ExtractOptions
from ce_filter.read.rawpage import RawPage
from ce_filter.run.budget import Budget, OverBudget, cpu_deadline
from ce_filter.run.pool import Handler, Pool, wall_limit
from ce_filter.score.site.memory import SiteCounts, host_of, page_set

if TYPE_CHECKING:
    from ce_filter.extractor import Extractor

log = logging.getLogger(__name__)

# a first pass's page for its child: (body, charset hint, host, URL, its bytes' key)
PageSetTask = tuple[bytes, str | None, str, str, tuple[str, str, bytes]]

IN_FLIGHT = 2  # pages handed to the first pass's child at a time (one process)
# inputs from this size on are segmented in a child while this process reads them (one
# process): the overlap saves about a quarter of the pass, the child's start costs about a
# second (the pass over 18 MB of gzip WARC, 1,000 pages, takes some 2 s)
CHILD_BYTES = 64 << 20


def _size(inputs: Source | Iterable[Source]) -> int:
    """The input files' size in bytes (0 where one cannot be sized: a stream)."""
    try:  # (getsize of a stream: TypeError)
        return sum(os.path.getsize(cast(str, src)) for _name, src in expand_sources(inputs))
    except (OSError, TypeError, ValueError):
        return 0


def _fingerprints(body: bytes, encoding: str | None, decoder: Extractor, seconds: float = 0.0
                  ) -> np.ndarray | None:
    """The block fingerprints of a page's bytes, read (``decoder``: an Extractor, whose ``read``,
    ce_filter.read.page.read under its caps, does not depend on its model) as the extractor reads
    them; None for a page whose bytes give no text, that fails, or that takes more than
    ``seconds`` of CPU time (0: no limit): it is not counted, the second pass gives it its
    reason."""
    from ce_filter.score.site.memory import block_fingerprints

    try:
        with cpu_deadline(seconds):
            page = decoder.read(body, encoding)
            if page.blocks is None:
                return None
            return block_fingerprints(page.blocks)
    except (Exception, OverBudget):  # noqa: BLE001 - one page's failure is that page's
        return None


def _page_sets(pages: Iterable[RawPage], decoder: Extractor, seconds: float = 0.0,
               stop: object = None) -> Iterator[tuple[str, str, np.ndarray]]:
    """(host, URL, distinct block fingerprints) of each page with a host whose bytes give text
    (``_fingerprints``). ``stop`` (truthy once set, as offline.Stop): the pass ends at the next
    page."""
    for p in pages:
        if stop:
            return
        host = host_of(p.url)
        if not host:
            continue
        fps = _fingerprints(p.body, p.encoding, decoder, seconds)
        if fps is not None:
            yield host, p.url, page_set(fps)


class _Counted:
    """The pages counted so far by their bytes (host, charset hint, digest of the body): a
    page that is one of them gives the same fingerprints, which ``SiteCounts.add`` would not
    count again. A page is entered only once ``add`` counted it (a page it left out for its
    URL does not make another page with its bytes one to leave out). 16 bytes of digest a
    page, as SiteCounts keeps a digest a page until it is pruned."""

    def __init__(self) -> None:
        self.keys: set[tuple[str, str, bytes]] = set()

    @staticmethod
    def key(host: str, page: RawPage) -> tuple[str, str, bytes]:
        # SHA-256 (its first 16 bytes): the hash the CPU computes fastest here (SHA extensions)
        return host, page.encoding or "", hashlib.sha256(page.body).digest()[:16]

    def add(self, counts: SiteCounts, host: str, fps: np.ndarray, url: str,
            key: tuple[str, str, bytes]) -> None:
        """``counts.add`` the page, and remember its bytes if it was counted."""
        before = counts.pages[host]
        counts.add(host, fps, url)
        if counts.pages[host] > before:
            self.keys.add(key)


def count_pages(pages: Iterable[RawPage], decoder: Extractor, seconds: float = 0.0,
                stop: object = None) -> SiteCounts:
    """The SiteCounts of ``pages``, each page's fingerprints (``_fingerprints``) counted under
    its host, in this process; the fingerprints seen on a single page are dropped (left out of
    that page they count 0 anyway). Pages without a host, whose bytes give no text or that
    fail or run past ``seconds`` of CPU time are not counted; a page with the bytes of one
    counted already is not read again (``_Counted``)."""
    counts, counted = SiteCounts(), _Counted()
    for p in pages:
        if stop:
            break
        host = host_of(p.url)
        if not host:
            continue
        key = counted.key(host, p)
        if key in counted.keys:
            continue
        fps = _fingerprints(p.body, p.encoding, decoder, seconds)
        if fps is not None:
            counted.add(counts, host, fps, p.url, key)
    counts.prune()
    return counts


def count_sites(inputs: Source | Iterable[Source], options: ExtractOptions, all_statuses: bool = False,
                revisits: bool = False, workers: int = 1, files: list[str] | None = None,
                seconds: float = 0.0, stop: object = None) -> SiteCounts:
    """``count_pages`` over every page of ``inputs`` (paths, globs: read here once more).

    With ``workers`` > 1 and ``files`` (the inputs as gzip files on disk, which split into
    byte-range shards), the shards are read and segmented in that many processes and their
    pages added here in the order one pass would add them, so the counts are the same (the
    shards run as tasks of ce_filter.run.pool, each page a unit). Otherwise the pages are read
    here, and from CHILD_BYTES of input on segmented in one child process, IN_FLIGHT pages at a
    time, their results added in input order. A page whose process dies (one that crashes
    the parser) is left out with a warning, and the pass goes on in a new process past it.
    ``stop`` (truthy once set): the pass ends at once, with what it has counted (the runner's
    children ignore SIGINT: the parent decides)."""
    base = options.alone()
    # each page within ``seconds`` of CPU time in its child (cpu_deadline), the wall-clock limit
    # of that budget on a child stuck in a C call
    wall = wall_limit(Budget(seconds, 0))
    if workers <= 1 or not files:
        pages = iter_pages(inputs, WarcStats(), all_statuses=all_statuses, revisits=revisits,
                           halt=stop, seconds=seconds)
        if _size(inputs) < CHILD_BYTES:  # not worth a child's start
            return count_pages(pages, base.extractor(), seconds, stop)
        pool = Pool(_SetsSetup(base, all_statuses, seconds, shards=False), 1, Budget(0, 0),
                    depth=IN_FLIGHT, stop=stop, wall_s=wall, name="ce-filter-sites")
        try:
            return _count_stream(pool, pages)
        finally:
            pool.close()
    shards = [(f, a, b) for f in files for a, b in plan(f, workers)]
    counts = SiteCounts()
    # the shards' pages in the order one pass reads them (ordered results), so the counts are
    # the same
    pool = Pool(_SetsSetup(base, all_statuses, seconds), workers, Budget(0, 0), stop=stop,
                wall_s=wall, name="ce-filter-sites")
    try:
        for r in pool.run(shards, ordered=True):
            if r.failed:
                path, start, _stop = r.task
                log.warning("site memory: the first pass lost a page of %s from byte %d (%s); "
                            "it is not counted", path, start, r.failed)
            elif not r.end and r.value is not None:
                host, url, raw = r.value
                counts.add(host, np.frombuffer(raw, dtype=np.uint64), url)
    finally:
        pool.close()
    counts.prune()
    return counts


def _count_stream(pool: Pool, pages: Iterable[RawPage]) -> SiteCounts:
    """``count_pages`` with the pages read here and segmented by ``pool``'s child: what the
    child gives is added in input order (so the counts are one pass's)."""
    counts, counted = SiteCounts(), _Counted()

    def tasks() -> Iterator[PageSetTask]:
        for p in pages:
            host = host_of(p.url)
            if not host:
                continue
            key = counted.key(host, p)
            if key not in counted.keys:  # (one still in flight is read again: add decides)
                yield p.body, p.encoding, host, p.url, key

    for r in pool.run(tasks(), ordered=True):
        _body, _encoding, host, url, key = r.task
        if r.failed:
            log.warning("site memory: the first pass lost the page %s (%s); it is not counted",
                        url, r.failed)
        elif r.value is not None:
            counted.add(counts, host, np.frombuffer(r.value, dtype=np.uint64), url, key)
    counts.prune()
    return counts


class _SetsSetup:
    """A runner child of the first pass. With ``shards``, a task is a byte range of a gzip WARC
    file (path, start, stop) whose units are the range's pages, each giving (host, URL,
    distinct fingerprints as bytes) or None (``_page_sets``: a page without a host or text, or
    that failed, is not counted); else a task is one page, (body, charset hint, ...), giving
    its fingerprints as bytes or None."""

    def __init__(self, options: ExtractOptions, all_statuses: bool, seconds: float,
                 shards: bool = True) -> None:
        self.options, self.all_statuses, self.seconds = options, all_statuses, seconds
        self.shards = shards

    def __call__(self) -> Handler:
        if not self.shards:
            return _PageSetHandler(self.options.extractor(), self.seconds)
        return _SetsHandler(self.options.extractor(), self.all_statuses, self.seconds)


SHARD_MEMO = 4096  # page sets a shard child keeps by their bytes (a few kB each)


class _SetsHandler(Handler):
    """A shard's pages to (host, URL, distinct fingerprints); a page with the bytes (and charset
    hint) of one this child has read gives the set it gave, without being read again (the
    parent's SiteCounts.add decides, as for any page)."""

    multi = True

    def __init__(self, decoder: Extractor, all_statuses: bool, seconds: float) -> None:
        self.decoder, self.all_statuses, self.seconds = decoder, all_statuses, seconds
        self.memo: dict[tuple[str, str, bytes], bytes] = {}

    def units(self, task: tuple[str, int, int | None]) -> Iterator[tuple[str, RawPage]]:
        path, start, stop = task
        for page in read_shard(path, start, stop, WarcStats(), self.all_statuses, seconds=self.seconds):
            yield page.url, page

    def run(self, work: RawPage) -> tuple[str, str, bytes] | None:
        host = host_of(work.url)
        if not host:
            return None
        key = _Counted.key(host, work)
        got = self.memo.get(key)
        if got is not None:
            return host, work.url, got
        for host, url, s in _page_sets([work], self.decoder, self.seconds):
            raw = s.tobytes()
            if len(self.memo) < SHARD_MEMO:
                self.memo[key] = raw
            return host, url, raw
        return None


class _PageSetHandler(Handler):
    def __init__(self, decoder: Extractor, seconds: float) -> None:
        self.decoder, self.seconds = decoder, seconds

    def run(self, work: PageSetTask) -> bytes | None:
        fps = _fingerprints(work[0], work[1], self.decoder, self.seconds)
        return None if fps is None else page_set(fps).tobytes()
