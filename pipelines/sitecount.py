"""The first pass of a run with the site memory: every page's blocks counted under its host.

``ce-filter warc`` counts all its input files at once; the Spark job counts each task's file.
Both then filter each page with ``options.with_counts(counts)``: a SiteCounts reads a
page's host's counts with the page itself left out, so the records do not depend on the order
of the pages (ce_filter.site.memory).
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import signal
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import numpy as np
from ce_filter.crawler.warc import WarcStats, iter_pages
from ce_filter.crawler.warc_shards import plan, read_shard

from ce_filter.budget import OverBudget, cpu_deadline
from ce_filter.options import ExtractOptions
from ce_filter.rawpage import RawPage
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
    pages added here in the order one pass would add them, so the counts are the same. A shard
    whose process dies (a page that crashes the parser) is left out with a warning: its pages
    are filtered with the other pages' counts only. ``stop`` (truthy once set): the pass ends
    at the next page or shard, with what it has counted (the pool processes ignore SIGINT, as
    the filter's do: the parent decides)."""
    if workers <= 1 or not files:
        ex = options.alone().extractor()
        pages = iter_pages(inputs, WarcStats(), all_statuses=all_statuses, revisits=revisits,
                           halt=stop, seconds=seconds)
        return count_pages(pages, ex, seconds, stop)
    shards = [(f, a, b) for f in files for a, b in plan(f, workers)]
    base = options.alone()
    counts = SiteCounts()
    ctx = mp.get_context("spawn")  # as the filter pool: the parent may run threads
    halt = ctx.Event()  # set on stop: the pool processes end their shards at the next page
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_child_init,
                             initargs=(halt,)) as pool:
        futures = [pool.submit(_shard_sets, path, a, b, base, all_statuses, seconds)
                   for path, a, b in shards]
        for (path, a, _b), fut in zip(shards, futures):
            sets = _result(fut, stop)
            if stop:
                halt.set()
                for f in futures:
                    f.cancel()
                break
            if sets is None:
                log.warning("site memory: the first pass lost %s from byte %d (its process died); "
                            "its pages are not counted", path, a)
                continue
            for host, url, raw in sets:
                counts.add(host, np.frombuffer(raw, dtype=np.uint64), url)
    counts.prune()
    return counts


def _result(fut: Future, stop: Any) -> Any:
    """The shard's result, None where its process died; waits in short steps so that a stop
    set by a signal handler is seen (then None, and the caller checks ``stop``)."""
    while not stop:
        try:
            return fut.result(timeout=0.2)
        except TimeoutError:
            continue
        except BrokenProcessPool:
            return None
    return None


class _Halt:
    """A pool process's stop: truthy once the parent has set the shared event."""

    def __init__(self, event: Any) -> None:
        self.event = event

    def __bool__(self) -> bool:
        return bool(self.event.is_set())


_CHILD: dict[str, Any] = {}  # a pool process's Extractor (for read) and its stop


def _child_init(halt: Any) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    _CHILD["halt"] = _Halt(halt)


def _shard_sets(path: str, start: int, stop: int | None, options: ExtractOptions,
                all_statuses: bool, seconds: float = 0.0) -> list[tuple[str, str, bytes]]:
    """One shard's ``_page_sets``, the fingerprints as bytes (what travels back to the parent)."""
    if "decoder" not in _CHILD:
        _CHILD["decoder"] = options.extractor()
    pages = read_shard(path, start, stop, WarcStats(), all_statuses, halt=_CHILD.get("halt"),
                       seconds=seconds)
    return [(host, url, s.tobytes())
            for host, url, s in _page_sets(pages, _CHILD["decoder"], seconds, _CHILD.get("halt"))]
