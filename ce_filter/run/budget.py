"""A hard per-page budget of CPU time and memory, for the stages that run many pages.

The pre-parse scan (precheck.py) makes the known expensive shapes cheap; this is the guarantee
behind it. Lexbor's parse is one C call that a Python-level timeout cannot interrupt, so the
budget is enforced by the operating system on a process that is expendable:

- ``page_timer``: a CPU-time timer (``ITIMER_PROF``) armed for one page; past it the kernel
  ends the process with SIGPROF, whatever it is doing;
- ``limit_memory``: an address-space limit (``RLIMIT_AS``) of the process's size when it is
  ready plus the budget; past it allocations fail (MemoryError, or Lexbor's own failure).

The children of ce_filter.run.pool run pages this way (their parent replaces a child that died
and records its page); ``bounded.BoundedExtractor`` gives single-process stages (the Kafka
worker, the crawler, the Spark job) the same.
``guarded`` turns any exception of one page into such a result, so one page never stops a run.
"""

from __future__ import annotations

import argparse
import resource
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any, Protocol

from ..api import Extraction

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


class PageFilter(Protocol):
    """What a budget runs pages through: an ``Extractor``, or a wrapper of one."""

    def extract(self, html: bytes | str, url: str | None = None, *, encoding: str | None = None
                ) -> Extraction: ...


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

    def expire(signum: int, frame: FrameType | None) -> None:
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

    def __init__(self, extractor: PageFilter, budget: Budget = DEFAULT_BUDGET) -> None:
        self.extractor = extractor
        self.budget = budget
        self.memory_cap = 0

    def __getattr__(self, name: str) -> Any:  # Any: whatever the wrapped Extractor has
        if name.startswith("__") or name == "extractor":  # (copy/pickle probing a bare instance)
            raise AttributeError(name)
        return getattr(self.extractor, name)

    def cap_memory(self) -> None:
        """Cap this process's address space at its size plus the budget (once), after one page
        so that lazy imports and caches are part of that size."""
        if not self.memory_cap and self.budget.memory_mb > 0:
            warm_up(self.extractor)
            self.memory_cap = limit_memory(self.budget)

    def extract(self, html: bytes | str, url: str | None = None, *, encoding: str | None = None
                ) -> Extraction:
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


def warm_up(extractor: PageFilter) -> None:
    """Filter WARM_UP once, its metadata rules included (they run on first reading)."""
    extractor.extract(WARM_UP).settle()


def guarded(extractor: PageFilter, html: bytes | str, url: str | None = None, encoding: str | None = None,
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


def budget_from_args(a: argparse.Namespace) -> Budget:
    """The ``Budget`` of ``options.add_budget_options``' flags."""
    return Budget(a.page_budget, a.page_memory)
