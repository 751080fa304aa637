"""A hard per-page budget of CPU time and memory, for the stages that run many pages.

The pre-parse scan (precheck.py) makes the known expensive shapes cheap; this is the guarantee
behind it. Lexbor's parse is one C call that a Python-level timeout cannot interrupt, so the
budget is enforced by the operating system on a process that is expendable:

- ``page_timer``: a CPU-time timer (``ITIMER_PROF``) armed for one page; past it the kernel
  ends the process with SIGPROF, whatever it is doing;
- ``limit_memory``: an address-space limit (``RLIMIT_AS``) of the process's size when it is
  ready plus the budget; past it allocations fail (MemoryError, or Lexbor's own failure).

The children of ce_filter.run.pool run pages this way (their parent replaces a child that died
and records its page). ``BoundedExtractor``, a runner pool of one (or of a few, each host's
pages to one of them), gives single-process stages (the Kafka worker, the crawler, the Spark job)
the same: an Extractor in a child process, killed and replaced when a page overruns, the page
answered with an empty result and a reason.
``guarded`` turns any exception of one page into such a result, so one page never stops a run.
"""

from __future__ import annotations

import argparse
import resource
import signal
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..api import Extraction
from ..options import ExtractOptions

# Reasons of the empty results this module makes (the ``reason`` field of records).
OVER_TIME = "over budget: time"
OVER_MEMORY = "over budget: memory"
FILTER_ERROR = "filter error"  # + ": <exception type>"
PROCESS_DIED = "filter process died"  # + " (<signal>)"


@dataclass(frozen=True)
class Budget:
    """Per page: CPU seconds, and memory above the process's size once it is ready."""

    seconds: float = 10.0
    memory_mb: int = 1024

    @property
    def enabled(self) -> bool:
        return self.seconds > 0 or self.memory_mb > 0


DEFAULT_BUDGET = Budget()


def _vm(field: str) -> int:
    """A size from /proc/self/status in bytes (0 where there is no /proc)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def limit_memory(budget: Budget) -> int:
    """Cap this process's address space at its current size plus the budget; returns the cap
    (0: none). Call once the process is ready (model loaded), before its first page."""
    if budget.memory_mb <= 0:
        return 0
    size = _vm("VmSize")
    if not size:
        return 0
    cap = size + (budget.memory_mb << 20)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    return cap


def memory_exhausted(cap: int) -> bool:
    """Whether this process has reached its address-space cap (so a failure was memory)."""
    return bool(cap) and _vm("VmPeak") >= cap * 0.95


@contextmanager
def page_timer(budget: Budget) -> Iterator[None]:
    """Arm a CPU-time timer for one page: past ``budget.seconds`` the kernel ends the process
    (SIGPROF, default action). Only for processes whose parent handles their death."""
    if budget.seconds <= 0:
        yield
        return
    signal.signal(signal.SIGPROF, signal.SIG_DFL)
    signal.setitimer(signal.ITIMER_PROF, budget.seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)


class OverBudget(BaseException):
    """Raised in the page's own Python code when its CPU time is up (``cpu_deadline``); a
    BaseException so that no ``except Exception`` on the way swallows it."""


@contextmanager
def cpu_deadline(seconds: float) -> Iterator[None]:
    """Raise OverBudget in this thread once the process has used ``seconds`` more CPU time.
    Python runs the signal handler between bytecodes: a C call (Lexbor's parse, which the
    pre-parse caps keep to a fraction of a second) finishes first. For processes that must
    answer for the page themselves; the main thread only (elsewhere it does nothing)."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise OverBudget

    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


class InProcessBudget:
    """An Extractor whose ``extract`` answers every page within a CPU budget, in this process:
    a page past ``budget.seconds`` of CPU time gets an empty result with reason ``over budget:
    time (N s)``, one that runs into the memory cap (``cap_memory``, once the process is ready)
    ``over budget: memory``, any other exception ``filter error: <type>``. For processes
    that answer for their pages themselves (``ce-filter serve``'s workers, ``ce-filter
    extract``); where the process itself may be replaced, BoundedExtractor is the stronger
    guarantee (a C call that never returns is stopped too). Every other attribute is the
    wrapped Extractor's."""

    def __init__(self, extractor: Any, budget: Budget = DEFAULT_BUDGET) -> None:
        self.extractor = extractor
        self.budget = budget
        self.memory_cap = 0

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "extractor":  # (copy/pickle probing a bare instance)
            raise AttributeError(name)
        return getattr(self.extractor, name)

    def cap_memory(self) -> None:
        """Cap this process's address space at its size plus the budget (once), after one page
        so that lazy imports and caches are part of that size."""
        if not self.memory_cap and self.budget.memory_mb > 0:
            warm_up(self.extractor)
            self.memory_cap = limit_memory(self.budget)

    def extract(self, html: Any, url: str | None = None, *, encoding: str | None = None) -> Extraction:
        try:
            with cpu_deadline(self.budget.seconds):
                return guarded(self.extractor, html, url, encoding, self.memory_cap)
        except OverBudget:
            return Extraction("", "", reason=f"{OVER_TIME} ({self.budget.seconds:g} s)",
                              model=str(getattr(self.extractor, "version", "")))


# The page a process filters before its memory is capped, so that the lazy imports, tables and
# caches a page fills (the metadata rules, the language tables) count in the size the cap is
# added to: a short article whose text the filter keeps (a line of two words would be dropped
# as a thin page, and its empty text would leave the language tables unread).
WARM_UP = (b"<html><head><title>Warm-up</title></head><body><article><h1>Warming up the filter</h1>"
           b"<p>This short page is filtered once when a process starts, so that the lazy imports, "
           b"the language tables and the caches it fills are counted in the size its memory cap "
           b"is added to.</p></article></body></html>")


def warm_up(extractor: Any) -> None:
    """Filter WARM_UP once, its metadata rules included (they run on first reading)."""
    extractor.extract(WARM_UP).settle()


def guarded(extractor: Any, html: Any, url: str | None = None, encoding: str | None = None,
            memory_cap: int = 0) -> Extraction:
    """``extractor.extract`` that never raises: an exception becomes an empty result whose
    reason names it (memory, when the process ran into its address-space cap). The metadata
    rules run here too, inside the page's budget."""
    try:
        return extractor.extract(html, url, encoding=encoding).settle()
    except Exception as e:  # noqa: BLE001 - one page's failure is that page's result
        reason = OVER_MEMORY if isinstance(e, MemoryError) or memory_exhausted(memory_cap) \
            else f"{FILTER_ERROR}: {type(e).__name__}"
        return Extraction("", "", reason=reason, model=str(getattr(extractor, "version", "")))


def died_reason(exitcode: int | None, budget: Budget) -> str:
    """Why a page-running process that ended without an answer ended."""
    if exitcode is not None and exitcode < 0:
        sig = -exitcode
        if sig == signal.SIGPROF:
            return f"{OVER_TIME} ({budget.seconds:g} s)"
        try:
            return f"{PROCESS_DIED} ({signal.Signals(sig).name})"
        except ValueError:
            return f"{PROCESS_DIED} (signal {sig})"
    return f"{PROCESS_DIED} (exit {exitcode})"


@dataclass
class ModelRef:
    """A model's name and digest, as a child process reported them (for the records)."""

    name: str
    digest: str


def page_slot(page: tuple[Any, ...]) -> int:
    """The slot of a page (html, url, ...) among a BoundedExtractor's children: a stable hash
    (crc32, the same in every process and run) of the host its site memory files it under, so
    that every page of a host meets the same memory, in its input order; no host: slot 0."""
    from ..score.site.memory import host_of

    return zlib.crc32(host_of(page[1]).encode("utf-8", "surrogatepass"))


class BoundedExtractor:
    """``Extractor.extract`` in a child process under a per-page budget: a pool of one of
    ce_filter.run.pool (or of ``workers``, each page routed to the child of its host,
    ``page_slot``, so that each child's site memory sees its hosts' pages as one child would).

    A page that runs past ``budget.seconds`` of CPU (or ``wall_s`` of wall time, for a child
    stuck without using CPU) has its child killed and replaced; the page gets an empty result
    with reason ``over budget: time (N s)``; one that runs out of memory ``over budget:
    memory``; a child that dies otherwise ``filter process died (SIGNAL)``. ``extract`` never
    raises for a page; ``extract_many`` keeps a few pages in flight for a caller that has its
    own work to do between pages (the Kafka worker). Not thread-safe: one caller at a time (a
    lock serialises calls). The child's Extractor is ``options.extractor()``, or what
    ``factory()`` (picklable) makes."""

    def __init__(self, budget: Budget = DEFAULT_BUDGET, *, wall_s: float | None = None,
                 options: ExtractOptions | None = None, factory: Callable[[], Any] | None = None,
                 workers: int = 1) -> None:
        from .pool import wall_limit

        self.budget = budget
        self.workers = max(workers, 1)
        self.wall_s = wall_s if wall_s is not None else (wall_limit(budget) or 30.0)
        # what makes the child's Extractor: picklable (the child is spawned)
        self.factory = factory or (options or ExtractOptions()).extractor
        self._lock = threading.Lock()
        self._pool: Any = None
        self._restarted = 0  # children started again, besides those of the pool in use
        self._start()

    def _start(self) -> None:
        from .pool import ExtractorSetup, Pool

        old, self._pool = self._pool, None
        self._pool = Pool(ExtractorSetup(self.factory), self.workers, self.budget,
                          wall_s=self.wall_s, wait_ready=True)
        if old is not None:
            self._restarted += self.workers + old.restarts
        self.version, name, digest = self._pool.info
        self.model: ModelRef | None = ModelRef(name, digest)

    @property
    def restarts(self) -> int:
        """Children started in place of one that ended (a page over its budget, ...), summed
        over the children."""
        return self._restarted + (self._pool.restarts if self._pool is not None else 0)

    def extract(self, html: Any, url: str | None = None, *, encoding: str | None = None
                ) -> Extraction:
        with self._lock:
            if not self._pool.children:  # closed: started again
                self._start()
            for r in list(self._pool.run([(html, url, encoding)], key=page_slot)):
                if r.failed:
                    return Extraction("", "", reason=r.failed, model=self.version)
                return r.value
            raise RuntimeError("the filter process gave no result")  # (never: a run ends with it)

    def extract_many(self, pages: Iterable[tuple[Any, ...]], in_flight: int = 2
                     ) -> Iterator[Extraction | None]:
        """The Extraction of each of ``pages`` ((html, url, encoding), or (html, url, encoding,
        until)), in their order, with up to ``in_flight`` pages handed to the child at a time:
        while the child filters one page, the next is already in its pipe and the caller works
        on the results before it (reads the next input, sends the last output). ``pages`` is
        read lazily, one page as the child has room for it (with several children, each page to
        its host's child, a few pages ahead of them). A page given with ``until`` (a
        ``time.monotonic()`` deadline) whose turn in the child comes after it is not run: its
        result is None (and so, the clock moving on, is every later page's of that deadline in
        that child; with several children a later page's turn in another child may have come
        before it).
        Each page is under the budget as in ``extract``; a child that dies is replaced, the page
        it was on gets its reason, the pages queued behind it go to the new child in order.
        A run the caller leaves early (an exception, ``close()``) ends the child (pages it held
        are not filtered) and the next call starts another."""
        with self._lock:
            if not self._pool.children:
                self._start()
            pool, finished = self._pool, False
            pool.depth = max(in_flight, 1)
            try:
                for r in pool.run(pages, ordered=True, key=page_slot):
                    if r.failed:
                        yield Extraction("", "", reason=r.failed, model=self.version)
                    else:
                        yield r.value
                finished = True
            finally:
                pool.depth = 1
                if not finished:  # results still in the child's pipe: not for the next run
                    pool.stop = True  # (close kills at once)
                    pool.close()

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.close()

    def __enter__(self) -> BoundedExtractor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:  # a forgotten close must not leave a child behind
        try:
            for c in self._pool.children:
                c.proc.kill()
        except Exception:  # noqa: BLE001 - interpreter shutdown, a pool never made
            pass


def budget_from_args(a: argparse.Namespace) -> Budget:
    """The ``Budget`` of ``options.add_budget_options``' flags."""
    return Budget(a.page_budget, a.page_memory)
