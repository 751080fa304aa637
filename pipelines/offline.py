"""Offline cleaning: WARC files -> filter -> sinks, in child processes under a per-page budget.

With a budget (``ce-filter warc`` always sets one) or ``workers`` > 1, pages are filtered in N
child processes, each with its own Extractor, a CPU-time timer per page and an address-space
cap (ce_filter.run.budget). Gzip WARC files on disk are cut into byte ranges at record boundaries
(crawler/warc_shards.py) and each child reads and filters its ranges; streams, plain ``.warc``
files and runs that resolve revisits are read here and the pages handed to the children. The
main process only writes the sinks.

A child that dies (its page ran past the budget, it ran out of memory, it crashed or was
killed) is replaced. The page it was on gets a record with an empty text and the reason
(``over budget: time (10 s)``, ``filter process died (SIGKILL)``); a page whose child was
killed from outside is first retried once. A byte range is then read again by the new child
from its start, skipping the pages already done, so its counts stay exact. Output order may
differ from input order; the counts always add up: ``records = pages + skipped`` and
``pages = kept + empty =`` records written to each sink.
"""

from __future__ import annotations

import os
import signal
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from types import FrameType
from typing import TYPE_CHECKING, cast

from ce_filter.crawler.warc import Source, WarcStats, expand_sources, iter_pages
from ce_filter.crawler.warc_shards import GZIP_MAGIC, plan, read_shard

from ce_filter.api import Extraction
from ce_filter.options import ExtractOptions
from ce_filter.progress import Ticker
from ce_filter.read.rawpage import RawPage
from ce_filter.record import ExtractorRef, Record, make_record
from ce_filter.run.bounded import ExtractHandler
from ce_filter.run.budget import (
    FILTER_ERROR,
    OVER_MEMORY,
    PROCESS_DIED,
    Budget,
    guarded,
)
from ce_filter.run.pool import Handler, Pool

from .sinks import Sink, SinkError
from .sitecount import count_sites

if TYPE_CHECKING:
    from ce_filter.extractor import Extractor

Inputs = Source | Iterable[Source]  # what a run reads: paths, globs, ``-``, streams
ShardTask = tuple[str, int, int | None]  # a byte range of a gzip WARC file: (path, start, stop)

FAILED = (FILTER_ERROR, PROCESS_DIED)  # reasons of pages the filter could not process
IN_FLIGHT = 2  # pages handed to one child at a time (stream mode)


@dataclass
class RunStats:
    warc: WarcStats = field(default_factory=WarcStats)
    kept: int = 0  # pages with text
    empty: Counter[str] = field(default_factory=Counter)  # pages without text, by reason
    failed: int = 0  # of those, pages the filter could not process (error, process death)
    retried: int = 0  # pages retried after their process was killed from outside
    interrupted: str = ""  # the signal that stopped the run early
    output_error: str = ""  # a sink that could no longer write ended the run

    def count(self, record: Record) -> None:
        if record["text"]:
            self.kept += 1
        else:
            reason = record["reason"] or "no text"
            self.empty[reason] += 1
            self.failed += reason.startswith(FAILED)

    @property
    def unfiltered(self) -> int:
        """Pages read but not filtered: handed to a filter process when the run stopped."""
        return max(0, self.warc.pages - self.kept - sum(self.empty.values()))

    def to_dict(self) -> dict[str, object]:
        d = self.warc.to_dict()
        d.update(kept=self.kept, empty=dict(sorted(self.empty.items())), failed=self.failed,
                 retried=self.retried)
        if self.unfiltered:
            d["unfiltered"] = self.unfiltered
        if self.interrupted:
            d["interrupted"] = self.interrupted
        if self.output_error:
            d["output_error"] = self.output_error
        return d

    def summary(self) -> str:
        empty = ", ".join(f"{n} {r}" for r, n in sorted(self.empty.items())) or "none"
        out = f"{self.warc.summary()}\npages kept with text: {self.kept}; empty: {empty}"
        if self.failed:
            out += f"\npages the filter could not process: {self.failed}"
        if self.retried:
            out += f"\npages retried after their filter process was killed: {self.retried}"
        if self.unfiltered:
            out += f"\npages read but not filtered (the run stopped first): {self.unfiltered}"
        if self.interrupted:
            out += f"\ninterrupted by {self.interrupted}: the input was not read to its end"
        if self.output_error:
            out += f"\nstopped: {self.output_error}"
        return out


class Progress:
    """The run's progress on stderr (a ce_filter.progress.Ticker): the input bytes read against
    the files' sizes, with the page counts. Without a ticker, nothing."""

    def __init__(self, ticker: Ticker | None = None) -> None:
        self.ticker = ticker

    def update(self, stats: RunStats) -> None:
        t = self.ticker
        if t is not None:
            t.tick(stats.warc.bytes_read - t.n)
            t.set_postfix(f"{stats.warc.pages} pages, {stats.kept} kept")


class Stop:
    """Set from a signal handler: the run ends at the next chance, writing what it has."""

    def __init__(self) -> None:
        self.signal = ""

    def __call__(self, signum: int, _frame: FrameType | None = None) -> None:
        self.signal = signal.Signals(signum).name

    def __bool__(self) -> bool:
        return bool(self.signal)


def clean_warcs(
    inputs: Inputs,
    sink: Sink,
    *,
    workers: int = 1,
    options: ExtractOptions | None = None,
    progress: bool = False,
    all_statuses: bool = False,
    revisits: bool = False,
    budget: Budget | None = None,
    stop: Stop | None = None,
    site_memory: bool = False,
) -> RunStats:
    """Filter every page of ``inputs`` (paths, globs, ``-``, streams) into ``sink``
    (``options``: model and cut; the default model when None). ``progress``: show the input
    bytes done against the files' sizes on stderr (ce_filter.progress).
    ``revisits``: resolve revisit records (ce_filter.crawler.warc.RevisitIndex) instead of
    skipping them. ``budget``: per-page CPU time and memory (then pages run in child
    processes even with one worker); ``stop``: a Stop that a signal handler sets.
    ``site_memory``: a first pass counts every host's block fingerprints over all the inputs
    (``count_sites``), and each page is then filtered with its host's other pages
    (ce_filter.score.site.memory.SiteCounts: order-free, so the records do not depend on ``workers``);
    inputs that cannot be read twice (stdin) are filtered without it."""
    stats = RunStats()
    options = options or ExtractOptions()
    stop = Stop() if stop is None else stop
    if site_memory and _rereadable(inputs):
        # the first pass spread over the workers where the inputs split into shards (gzip
        # files on disk; not with revisits, which need one reader that sees every record)
        files = None if revisits or workers <= 1 else _gzip_files(inputs)
        seconds = budget.seconds if budget is not None and budget.enabled else 0.0
        options = options.with_counts(count_sites(inputs, options, all_statuses, revisits,
                                                  workers, files, seconds, stop))
    # the reader stops at its next read once ``stop`` is set (a signal), and gives a body's
    # Content-Encoding the page's CPU seconds
    pages = iter_pages(inputs, stats.warc, all_statuses=all_statuses, revisits=revisits, halt=stop,
                       seconds=budget.seconds if budget is not None else None)
    with Ticker("warc", _input_bytes(inputs), unit="B", unit_scale=True, enabled=progress) as ticker:
        try:
            _run(pages, inputs, sink, stats, workers, options, Progress(ticker), all_statuses,
                 revisits, budget, stop)
        except SinkError as e:  # every later record would be lost too: the run ends here
            stats.output_error = str(e)
        Progress(ticker).update(stats)
    if stop:
        stats.interrupted = stop.signal
    return stats


def _rereadable(inputs: Inputs) -> bool:
    """Whether every input is a file on disk (a first pass can read it again)."""
    try:
        return all(not hasattr(src, "read") and src != "-" for _name, src in expand_sources(inputs))
    except (OSError, TypeError, ValueError):
        return False


def _input_bytes(inputs: Inputs) -> int | None:
    """The size of every input file, or None when one is a stream (stdin)."""
    try:  # (getsize of a stream: TypeError)
        return sum(os.path.getsize(cast(str, src)) for _name, src in expand_sources(inputs))
    except (OSError, TypeError):
        return None


def _run(pages: Iterator[RawPage], inputs: Inputs, sink: Sink, stats: RunStats, workers: int,
         options: ExtractOptions, progress: Progress, all_statuses: bool, revisits: bool,
         budget: Budget | None, stop: Stop) -> None:
    if workers <= 1 and (budget is None or not budget.enabled):
        ex = options.extractor()
        for p in pages:
            if stop:
                break
            _write(make_record(p, guarded(ex, p.body, p.url, p.encoding), ex), sink, stats, progress)
    else:
        # resolving revisits needs one reader that has seen every earlier record, so no shards;
        # with one child the pages are read here, while the child filters the one before
        files = None if revisits or workers <= 1 else _gzip_files(inputs)
        shards = files is not None
        pool = Pool(_Setup(options, all_statuses, budget.seconds if budget else 0.0, shards),
                    max(workers, 1), budget or Budget(0, 0), depth=1 if shards else IN_FLIGHT,
                    retry=True, stop=stop, name="ce-filter-worker")
        try:
            if files is not None:
                _run_shards(pool, [(f, a, b) for f in files for a, b in plan(f, max(workers, 1))],
                            sink, stats, progress)
            else:
                _run_pages(pool, pages, sink, stats, progress)
        finally:
            stats.retried = pool.retried
            pool.close()


def _write(rec: Record, sink: Sink, stats: RunStats, progress: Progress) -> None:
    stats.count(rec)
    sink.write(rec)
    progress.update(stats)


def _gzip_files(inputs: Inputs) -> list[str] | None:
    """The input files if every input is a gzip file on disk (so it can be sharded), else None.
    (A missing input has already raised in ``iter_pages``.)"""
    out = []
    for _name, src in expand_sources(inputs):
        if hasattr(src, "read"):
            return None
        with open(src, "rb") as fh:
            if fh.read(3) != GZIP_MAGIC:
                return None
        out.append(src)
    return out


# ------------------------------------------------------------------ the runner's children


class _Setup:
    """A runner child's handler (picklable: the child is spawned): pages in, records out; with
    ``shards``, a task is a byte range (path, start, stop) whose pages the child reads itself."""

    def __init__(self, options: ExtractOptions, all_statuses: bool, seconds: float,
                 shards: bool) -> None:
        self.options, self.all_statuses, self.seconds, self.shards = options, all_statuses, seconds, shards

    def __call__(self) -> Handler:
        ex = self.options.extractor()
        if self.shards:
            return _ShardHandler(ex, self.all_statuses, self.seconds)
        return _PageHandler(ex)


class _PageHandler(ExtractHandler):
    """A page in, its record out."""

    def run(self, work: object) -> Record:
        page = cast(RawPage, work)  # (this handler's tasks are pages)
        return make_record(page, guarded(self.ex, page.body, page.url, page.encoding, self.memory_cap),
                           self.ex)

    def last(self, result: object) -> bool:
        return bool(cast(Record, result)["reason"] == OVER_MEMORY)  # not trusted with the next page


class _ShardHandler(_PageHandler):
    """A byte range's pages, each announced (without its body) before it is filtered, so that
    a death is that page's; the range's counts go with each record and with its end."""

    multi = True

    def __init__(self, ex: Extractor, all_statuses: bool, seconds: float) -> None:
        super().__init__(ex)
        self.all_statuses, self.seconds = all_statuses, seconds
        self.part = WarcStats()

    def units(self, task: ShardTask) -> Iterator[tuple[tuple[RawPage, int], RawPage]]:
        path, start, end = task
        self.part = WarcStats()
        for page in read_shard(path, start, end, self.part, self.all_statuses, seconds=self.seconds):
            yield (_meta(page), len(page.body)), page

    def note(self) -> WarcStats:
        return self.part

    def finish(self, task: ShardTask) -> WarcStats:
        return self.part


def _meta(page: RawPage) -> RawPage:
    """The page without its body (enough to write its record if the child dies on it)."""
    return RawPage(page.url, b"", page.fetch_time, page.status, {}, page.content_type,
                   page.record_id, page.source, page.source_name, page.revisit_of)


# ------------------------------------------------------------------ the parent


def _failed(pool: Pool, page: RawPage, size: int, reason: str, sink: Sink, stats: RunStats,
            progress: Progress) -> None:
    """The record of a page whose filter process died on it (``page`` may be the body-less
    announcement of a shard's page: ``size`` is its body's)."""
    rec = make_record(page, Extraction("", "", reason=reason), ExtractorRef(*pool.info), bytes_in=size)
    _write(rec, sink, stats, progress)


def _run_pages(pool: Pool, pages: Iterable[RawPage], sink: Sink, stats: RunStats, progress: Progress) -> None:
    """Pages read here, filtered by the children (in any order)."""
    for r in pool.run(pages):
        if r.failed:
            _failed(pool, r.task, len(r.task.body), r.failed, sink, stats, progress)
        else:
            _write(r.value, sink, stats, progress)


def _run_shards(pool: Pool, tasks: list[ShardTask], sink: Sink, stats: RunStats,
                progress: Progress) -> None:
    """Byte ranges read and filtered by the children; a range whose child died is read again
    by the next one from its start, the pages done skipped (counted, not filtered again)."""
    parts: dict[int, WarcStats] = {}  # the counts of the ranges in hand so far
    try:
        for r in pool.run(tasks):
            if r.end:
                parts.pop(r.index, None)
                stats.warc.merge(r.value)
            elif r.failed:
                page, size = r.meta
                _failed(pool, page, size, r.failed, sink, stats, progress)
            else:
                if r.note is not None:
                    parts[r.index] = r.note
                _write(r.value, sink, stats, progress)
    finally:
        for part in parts.values():  # stopped early: what the unfinished ranges had read
            stats.warc.merge(part)
        # ranges finish in any order: errors in input order, as one reader gives them
        files = {path: i for i, path in enumerate(dict.fromkeys(t[0] for t in tasks))}
        stats.warc.errors.sort(key=lambda e: (files.get(e["source"], len(files)), e["offset"] or 0))
