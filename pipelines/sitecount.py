"""The first pass of a run with the site memory: every page's blocks counted under its host.

``ce-filter warc`` counts all its input files at once; the Spark job counts each task's file.
Both then filter each page with ``options.with_counts(counts)``: a SiteCounts reads a
page's host's counts with the page itself left out, so the records do not depend on the order
of the pages (ce_filter.site.memory).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
from ce_filter.crawler.warc import WarcStats, iter_pages
from ce_filter.crawler.warc_shards import plan, read_shard

from ce_filter.budget import Budget, OverBudget, cpu_deadline
from ce_filter.options import ExtractOptions
from ce_filter.rawpage import RawPage
from ce_filter.runner import Handler, Pool, wall_limit
from ce_filter.site.memory import SiteCounts

log = logging.getLogger(__name__)


def _page_sets(pages: Iterable[RawPage], decoder: Any, seconds: float = 0.0,
               stop: Any = None) -> Iterator[tuple[str, str, np.ndarray]]:
    """(host, URL, distinct block fingerprints) of each page with a host whose bytes give text:
    each page read (``decoder``: an Extractor, whose ``read``, ce_filter.page.read under its
    caps, does not depend on its model) as the extractor reads it. A page that fails, or takes
    more than ``seconds`` of CPU time (0: no limit), is not counted: the second pass gives it its reason.
    ``stop`` (truthy once set, as offline.Stop): the pass ends at the next page."""
    from ce_filter.site.memory import block_fingerprints, host_of, page_set

    for p in pages:
        if stop:
            return
        host = host_of(p.url)
        if not host:
            continue
        try:
            with cpu_deadline(seconds):
                page = decoder.read(p.body, p.encoding)
                if page.blocks is None:
                    continue
                s = page_set(block_fingerprints(page.blocks))
        except (Exception, OverBudget):  # noqa: BLE001 - one page's failure is that page's
            continue
        yield host, p.url, s


def count_pages(pages: Iterable[RawPage], decoder: Any, seconds: float = 0.0,
                stop: Any = None) -> SiteCounts:
    """The SiteCounts of ``pages`` (``_page_sets``), each page's fingerprints counted under its
    host; the fingerprints seen on a single page are dropped (left out of that page they count
    0 anyway). Pages without a host, whose bytes give no text or that fail or run past
    ``seconds`` of CPU time are not counted."""
    counts = SiteCounts()
    for host, url, s in _page_sets(pages, decoder, seconds, stop):
        counts.add(host, s, url)
    counts.prune()
    return counts


def count_sites(inputs: Any, options: ExtractOptions, all_statuses: bool = False,
                revisits: bool = False, workers: int = 1, files: list[str] | None = None,
                seconds: float = 0.0, stop: Any = None) -> SiteCounts:
    """``count_pages`` over every page of ``inputs`` (paths, globs: read here once more).

    With ``workers`` > 1 and ``files`` (the inputs as gzip files on disk, which split into
    byte-range shards), the shards are read and segmented in that many processes and their
    pages added here in the order one pass would add them, so the counts are the same (the
    shards run as tasks of ce_filter.runner, each page a unit). A page whose process dies (one
    that crashes the parser) is left out with a warning, and its shard goes on in a new process
    past it. ``stop`` (truthy once set): the pass ends at once, with what it has counted (the
    runner's children ignore SIGINT: the parent decides)."""
    if workers <= 1 or not files:
        ex = options.alone().extractor()
        pages = iter_pages(inputs, WarcStats(), all_statuses=all_statuses, revisits=revisits,
                           halt=stop, seconds=seconds)
        return count_pages(pages, ex, seconds, stop)
    shards = [(f, a, b) for f in files for a, b in plan(f, workers)]
    base = options.alone()
    counts = SiteCounts()
    # the shards' pages in the order one pass reads them (ordered results), so the counts are
    # the same; each page within ``seconds`` of CPU time in its child (cpu_deadline), the
    # wall-clock limit of that budget on a child stuck in a C call
    pool = Pool(_SetsSetup(base, all_statuses, seconds), workers, Budget(0, 0), stop=stop,
                wall_s=wall_limit(Budget(seconds, 0)), name="ce-filter-sites")
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


class _SetsSetup:
    """A runner child of the first pass: a task is a byte range of a gzip WARC file (path,
    start, stop); its units are the range's pages, each giving (host, URL, fingerprints as
    bytes) or None (``_page_sets``: a page without a host or text, or that failed, is not
    counted)."""

    def __init__(self, options: ExtractOptions, all_statuses: bool, seconds: float) -> None:
        self.options, self.all_statuses, self.seconds = options, all_statuses, seconds

    def __call__(self) -> Handler:
        return _SetsHandler(self.options.extractor(), self.all_statuses, self.seconds)


class _SetsHandler(Handler):
    multi = True

    def __init__(self, decoder: Any, all_statuses: bool, seconds: float) -> None:
        self.decoder, self.all_statuses, self.seconds = decoder, all_statuses, seconds

    def units(self, task: Any) -> Iterator[tuple[Any, Any]]:
        path, start, stop = task
        for page in read_shard(path, start, stop, WarcStats(), self.all_statuses, seconds=self.seconds):
            yield page.url, page

    def run(self, work: Any) -> tuple[str, str, bytes] | None:
        for host, url, s in _page_sets([work], self.decoder, self.seconds):
            return host, url, s.tobytes()
        return None
