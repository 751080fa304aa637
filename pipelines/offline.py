"""Offline cleaning: WARC files -> filter -> sinks, in one process or N (``--workers N``).

With N > 1 and gzip WARC files, the files are cut into byte ranges at record boundaries
(crawler/warc_shards.py) and each of N worker processes (each with its own Extractor) reads
and filters its ranges; the main process only writes the sinks. Streams and plain ``.warc``
files are read by the main process, which hands the pages to the workers. Output order may
differ from input order; the counts always add up: ``records = pages + skipped`` and
``pages = kept + empty =`` records written to each sink.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ce_filter.crawler.page import RawPage
from ce_filter.crawler.warc import WarcStats, expand_sources, iter_pages
from ce_filter.crawler.warc_shards import GZIP_MAGIC, plan, read_shard

from ce_filter.options import ExtractOptions
from ce_filter.progress import Ticker

from .record import filter_page
from .sinks import Sink


@dataclass
class RunStats:
    warc: WarcStats = field(default_factory=WarcStats)
    kept: int = 0  # pages with text
    empty: Counter = field(default_factory=Counter)  # pages without text, by reason

    def count(self, record: dict[str, Any]) -> None:
        if record["text"]:
            self.kept += 1
        else:
            self.empty[record["reason"] or "no text"] += 1

    def to_dict(self) -> dict[str, Any]:
        d = self.warc.to_dict()
        d.update(kept=self.kept, empty=dict(sorted(self.empty.items())))
        return d

    def summary(self) -> str:
        empty = ", ".join(f"{n} {r}" for r, n in sorted(self.empty.items())) or "none"
        return f"{self.warc.summary()}\npages kept with text: {self.kept}; empty: {empty}"


_worker_extractor: Any = None


def _init_worker(options: ExtractOptions) -> None:
    global _worker_extractor
    _worker_extractor = options.extractor()


def _filter_in_worker(page: RawPage) -> dict[str, Any]:
    return filter_page(_worker_extractor, page)


def clean_warcs(
    inputs: Any,
    sink: Sink,
    *,
    workers: int = 1,
    options: ExtractOptions | None = None,
    progress: bool = False,
    all_statuses: bool = False,
    revisits: bool = False,
) -> RunStats:
    """Filter every page of ``inputs`` (paths, globs, ``-``, streams) into ``sink``
    (``options``: model and cut; the default model when None). ``progress``: show the input
    bytes done against the files' sizes on stderr (ce_filter.progress).
    ``revisits``: resolve revisit records (ce_filter.crawler.warc.RevisitIndex) instead of skipping them."""
    stats = RunStats()
    options = options or ExtractOptions()
    pages = iter_pages(inputs, stats.warc, all_statuses=all_statuses, revisits=revisits)
    with Ticker("warc", _input_bytes(inputs), unit="B", unit_scale=True, enabled=progress) as ticker:
        if workers <= 1:
            ex = options.extractor()
            _drain((filter_page(ex, p) for p in pages), sink, stats, ticker)
            return stats
        # spawn, not fork: the parent may already run a Kafka producer thread.
        ctx = mp.get_context("spawn")
        # resolving revisits needs one reader that has seen every earlier record, so no shards
        files = None if revisits else _gzip_files(inputs)
        with ctx.Pool(workers, initializer=_init_worker, initargs=(options,)) as pool:
            if files is not None:
                # each worker reads its own byte ranges: the parent only writes the sinks
                tasks = [(f, a, b, all_statuses) for f in files for a, b in plan(f, workers)]
                for recs, part, size in pool.imap_unordered(_shard_in_worker, tasks):
                    stats.warc.merge(part)
                    _drain(recs, sink, stats)
                    ticker.tick(size)
                    _show_counts(ticker, stats)
            else:  # streams, plain .warc: one reader here, the filter in the workers
                _drain(pool.imap_unordered(_filter_in_worker, pages, chunksize=64), sink, stats, ticker)
    return stats


def _input_bytes(inputs: Any) -> int | None:
    """The size of every input file, or None when one is a stream (stdin)."""
    try:
        return sum(os.path.getsize(src) for _name, src in expand_sources(inputs))
    except (OSError, TypeError):
        return None


def _gzip_files(inputs: Any) -> list[str] | None:
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


def _shard_in_worker(task: tuple[str, int, int | None, bool]) -> tuple[list[dict[str, Any]], WarcStats, int]:
    """The records of one byte range, its counts, and its size (for progress)."""
    path, start, stop, all_statuses = task
    part = WarcStats()
    recs = [filter_page(_worker_extractor, p) for p in read_shard(path, start, stop, part, all_statuses)]
    return recs, part, (os.path.getsize(path) if stop is None else stop) - start


def _drain(results: Any, sink: Sink, stats: RunStats, ticker: Ticker | None = None) -> None:
    """Count and write each record; with ``ticker``, move it to the input bytes read so far."""
    for rec in results:
        stats.count(rec)
        sink.write(rec)
        if ticker is not None:
            ticker.tick(stats.warc.bytes_read - ticker.n)
            _show_counts(ticker, stats)


def _show_counts(ticker: Ticker, stats: RunStats) -> None:
    ticker.set_postfix(f"{stats.warc.pages} pages, {stats.kept} kept")
