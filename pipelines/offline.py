"""Offline cleaning: WARC files -> filter -> sinks, in child processes under a per-page budget.

With a budget (``ce-filter warc`` always sets one) or ``workers`` > 1, pages are filtered in N
child processes, each with its own Extractor, a CPU-time timer per page and an address-space
cap (ce_filter.budget). Gzip WARC files on disk are cut into byte ranges at record boundaries
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

import collections
import multiprocessing as mp
import os
import signal
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from multiprocessing.connection import wait
from typing import Any

from ce_filter.crawler.warc import WarcStats, expand_sources, iter_pages
from ce_filter.crawler.warc_shards import GZIP_MAGIC, plan, read_shard

from ce_filter.budget import (
    FILTER_ERROR,
    OVER_MEMORY,
    OVER_TIME,
    PROCESS_DIED,
    Budget,
    ModelRef,
    died_reason,
    guarded,
    limit_memory,
    page_timer,
    warm_up,
)
from ce_filter.options import ExtractOptions
from ce_filter.progress import Ticker
from ce_filter.rawpage import RawPage
from ce_filter.record import make_record

from .sinks import Sink, SinkError
from .sitecount import count_sites

FAILED = (FILTER_ERROR, PROCESS_DIED)  # reasons of pages the filter could not process
IN_FLIGHT = 2  # pages handed to one child at a time (stream mode)
# pages between the counts a child sends: every page, so that a run stopped early (a signal, a
# sink that broke) reports exactly the records and pages behind the records it wrote
SNAPSHOT_EVERY = 1


@dataclass
class RunStats:
    warc: WarcStats = field(default_factory=WarcStats)
    kept: int = 0  # pages with text
    empty: Counter = field(default_factory=Counter)  # pages without text, by reason
    failed: int = 0  # of those, pages the filter could not process (error, process death)
    retried: int = 0  # pages retried after their process was killed from outside
    interrupted: str = ""  # the signal that stopped the run early
    output_error: str = ""  # a sink that could no longer write ended the run

    def count(self, record: dict[str, Any]) -> None:
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

    def to_dict(self) -> dict[str, Any]:
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

    def __call__(self, signum: int, _frame: Any = None) -> None:
        self.signal = signal.Signals(signum).name

    def __bool__(self) -> bool:
        return bool(self.signal)


def clean_warcs(
    inputs: Any,
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
    (ce_filter.site.memory.SiteCounts: order-free, so the records do not depend on ``workers``);
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


def _rereadable(inputs: Any) -> bool:
    """Whether every input is a file on disk (a first pass can read it again)."""
    try:
        return all(not hasattr(src, "read") and src != "-" for _name, src in expand_sources(inputs))
    except (OSError, TypeError, ValueError):
        return False


def _input_bytes(inputs: Any) -> int | None:
    """The size of every input file, or None when one is a stream (stdin)."""
    try:
        return sum(os.path.getsize(src) for _name, src in expand_sources(inputs))
    except (OSError, TypeError):
        return None


def _run(pages: Any, inputs: Any, sink: Sink, stats: RunStats, workers: int,
         options: ExtractOptions, progress: Progress, all_statuses: bool, revisits: bool,
         budget: Budget | None, stop: Stop) -> None:
    if workers <= 1 and (budget is None or not budget.enabled):
        ex = options.extractor()
        for p in pages:
            if stop:
                break
            _write(make_record(p, guarded(ex, p.body, p.url, p.encoding), ex), sink, stats, progress)
    else:
        # resolving revisits needs one reader that has seen every earlier record, so no shards
        files = None if revisits else _gzip_files(inputs)
        pool = _Pool(max(workers, 1), options, budget or Budget(0, 0), all_statuses, stats,
                     sink, progress, stop)
        try:
            if files is not None:
                pool.run_shards([(f, a, b) for f in files for a, b in plan(f, max(workers, 1))])
            else:
                pool.run_pages(pages)
        finally:
            pool.close()


def _write(rec: dict[str, Any], sink: Sink, stats: RunStats, progress: Progress) -> None:
    stats.count(rec)
    sink.write(rec)
    progress.update(stats)


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


# ------------------------------------------------------------------ child side


def _child_main(conn: Any, options: ExtractOptions, budget: Budget, all_statuses: bool) -> None:
    """A pool child: tasks in, records out. ('shard', path, start, stop, skip): read that byte
    range, filter its pages after the first ``skip``, send ('page', meta, body size) before
    each page and ('rec', record, the counts so far or None) after it, then ('done', counts).
    ('pages', [(id, page)]): filter each, send ('rec', id, record). None ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    ex = options.extractor()
    warm_up(ex)
    cap = limit_memory(budget)
    conn.send(("ready", ex.version, ex.model.name, ex.model.digest))

    def run(page: RawPage) -> dict[str, Any]:
        with page_timer(budget):
            out = guarded(ex, page.body, page.url, page.encoding, cap)
        return make_record(page, out, ex)

    while True:
        task = conn.recv()
        if task is None:
            return
        if task[0] == "shard":
            _, path, start, end, skip = task
            part = WarcStats()
            for k, page in enumerate(read_shard(path, start, end, part, all_statuses,
                                                seconds=budget.seconds)):
                if k < skip:  # done before, by a child that died: counted, not filtered again
                    continue
                conn.send(("page", _meta(page), len(page.body)))
                rec = run(page)
                conn.send(("rec", rec, part if k % SNAPSHOT_EVERY == 0 else None))
                if rec["reason"] == OVER_MEMORY:
                    return  # not trusted with the next page: the parent replaces this child
            conn.send(("done", part))
        else:
            for pid, page in task[1]:
                rec = run(page)
                conn.send(("rec", pid, rec))
                if rec["reason"] == OVER_MEMORY:
                    return


def _meta(page: RawPage) -> RawPage:
    """The page without its body (enough to write its record if the child dies on it)."""
    return RawPage(page.url, b"", page.fetch_time, page.status, {}, page.content_type,
                   page.record_id, page.source, page.source_name, page.revisit_of)


# ------------------------------------------------------------------ parent side


@dataclass
class _Info:
    """What make_record needs of an extractor, as a child reported it."""

    version: str = ""
    model: Any = None


@dataclass
class _Child:
    proc: Any
    conn: Any
    ready: bool = False
    task: Any = None  # the shard task in hand: [path, start, stop, pages done]
    part: WarcStats | None = None  # the counts of that task so far
    current: tuple[RawPage, int] | None = None  # the shard page being filtered, its size
    inflight: collections.deque = field(default_factory=collections.deque)  # (id, page) in stream mode
    since: float = 0.0  # when the current page was handed over / started


class _Pool:
    def __init__(self, n: int, options: ExtractOptions, budget: Budget, all_statuses: bool,
                 stats: RunStats, sink: Sink, progress: Progress, stop: Stop) -> None:
        self.ctx = mp.get_context("spawn")  # spawn, not fork: the parent may run a Kafka thread
        self.args = (options, budget, all_statuses)
        self.budget = budget
        self.wall_s = max(3 * budget.seconds, budget.seconds + 30) if budget.seconds > 0 else None
        self.stats, self.sink, self.progress, self.stop = stats, sink, progress, stop
        self.info = _Info()
        self.retried: set[Any] = set()  # pages (by shard position or id) already retried once
        self.children = [self._spawn() for _ in range(n)]

    def _spawn(self) -> _Child:
        parent, child = self.ctx.Pipe()
        proc = self.ctx.Process(target=_child_main, args=(child, *self.args), daemon=True,
                                name="ce-filter-worker")
        proc.start()
        child.close()
        return _Child(proc, parent)

    def close(self) -> None:
        for c in self.children:
            try:
                c.conn.send(None)
            except OSError:
                pass
        deadline = time.monotonic() + 5
        for c in self.children:
            c.proc.join(max(deadline - time.monotonic(), 0.1) if not self.stop else 0)
            if c.proc.is_alive():
                c.proc.kill()
                c.proc.join(5)
            c.conn.close()

    def _record(self, rec: dict[str, Any]) -> None:
        _write(rec, self.sink, self.stats, self.progress)

    def _failed(self, page: RawPage, size: int, reason: str) -> None:
        from ce_filter.api import Extraction

        rec = make_record(page, Extraction("", "", reason=reason), self.info)
        rec["stats"]["bytes_in"] = size
        self._record(rec)

    def _events(self) -> list[_Child]:
        """Children with something to say (a message, or their end), waiting at most 0.5 s;
        children past the wall-clock deadline of their page are killed first."""
        now = time.monotonic()
        for c in self.children:
            if self.wall_s and (c.current is not None or c.inflight) and now - c.since > self.wall_s:
                c.proc.kill()
        ready = wait([c.conn for c in self.children], timeout=0.5)
        return [c for c in self.children if c.conn in ready]

    def _recv(self, c: _Child) -> Any:
        """The child's next message; None when it died (it is then replaced)."""
        try:
            msg = c.conn.recv()
        except (EOFError, OSError):
            return None
        if msg[0] == "ready":
            c.ready = True
            self.info = _Info(msg[1], ModelRef(msg[2], msg[3]))
        return msg

    def _replace(self, c: _Child) -> tuple[str, bool]:
        """Reap a dead child, start another in its place; (why it died, whether a retry of its
        page makes sense: not when the budget ended it)."""
        c.proc.join(10)
        code = c.proc.exitcode
        if not c.ready:  # it never served a page: the setup is wrong, not a page
            raise RuntimeError(f"a filter process failed to start (exit {code})")
        reason = died_reason(code, self.budget)
        if code is not None and code < 0 and -code == signal.SIGKILL and self.wall_s \
                and time.monotonic() - c.since > self.wall_s:
            reason = f"{OVER_TIME} ({self.wall_s:g} s wall clock)"
        c.conn.close()
        self.children[self.children.index(c)] = self._spawn()
        retry = not reason.startswith(OVER_TIME) and code not in (0,)
        return reason, retry

    # ---- byte-range shards, read by the children

    def run_shards(self, tasks: list[tuple[str, int, int | None]]) -> None:
        try:
            self._shards(collections.deque([path, a, b, 0] for path, a, b in tasks))
        finally:
            for c in self.children:  # stopped early: what the unfinished ranges had read
                if c.part is not None:
                    self.stats.warc.merge(c.part)
            # ranges finish in any order: errors in input order, as one reader gives them
            files = {path: i for i, path in enumerate(dict.fromkeys(t[0] for t in tasks))}
            self.stats.warc.errors.sort(key=lambda e: (files.get(e["source"], len(files)), e["offset"] or 0))

    def _shards(self, todo: collections.deque) -> None:
        while (todo or any(c.task for c in self.children)) and not self.stop:
            for c in self.children:
                if c.ready and c.task is None and todo:
                    c.task = todo.popleft()
                    c.conn.send(("shard", *c.task))
                    c.since = time.monotonic()
            for c in self._events():
                msg = self._recv(c)
                if msg is None:
                    self._shard_child_died(c, todo)
                elif msg[0] == "page":
                    c.current, c.since = (msg[1], msg[2]), time.monotonic()
                elif msg[0] == "rec":
                    c.current = None
                    c.task[3] += 1
                    c.part = msg[2] or c.part
                    self._record(msg[1])
                elif msg[0] == "done":
                    self.stats.warc.merge(msg[1])
                    c.task = c.part = None

    def _shard_child_died(self, c: _Child, todo: collections.deque) -> None:
        reason, retry = self._replace(c)
        task, page = c.task, c.current  # (its counts are read again by the next child)
        if task is None:
            return
        if page is not None:
            key = (task[0], task[1], task[3])
            if retry and key not in self.retried:
                self.retried.add(key)
                self.stats.retried += 1
            else:
                self._failed(*page, reason)
                task[3] += 1
        todo.appendleft(task)  # read again from its start; the pages done are skipped

    # ---- pages read here, filtered by the children

    def run_pages(self, pages: Any) -> None:
        source = iter(enumerate(pages))
        queue: collections.deque = collections.deque()  # (id, page) to hand out (retries first)
        exhausted = False
        while not self.stop:
            for c in self.children:
                while c.ready and len(c.inflight) < IN_FLIGHT:
                    if not queue and not exhausted:
                        nxt = next(source, None)
                        if nxt is None:
                            exhausted = True
                        else:
                            queue.append(nxt)
                    if not queue:
                        break
                    item = queue.popleft()
                    if not c.inflight:
                        c.since = time.monotonic()
                    c.inflight.append(item)
                    c.conn.send(("pages", [item]))
            if exhausted and not queue and not any(c.inflight for c in self.children):
                return
            for c in self._events():
                msg = self._recv(c)
                if msg is None:
                    self._page_child_died(c, queue)
                elif msg[0] == "rec":
                    c.inflight.popleft()
                    c.since = time.monotonic()
                    self._record(msg[2])

    def _page_child_died(self, c: _Child, queue: collections.deque) -> None:
        reason, retry = self._replace(c)
        if not c.inflight:
            return
        pid, page = c.inflight.popleft()
        rest = list(c.inflight)
        if retry and pid not in self.retried:
            self.retried.add(pid)
            self.stats.retried += 1
            rest.insert(0, (pid, page))
        else:
            self._failed(page, len(page.body), reason)
        queue.extendleft(reversed(rest))
