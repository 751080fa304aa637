"""Progress of the long learning commands (train, evaluate over many pages, the out-of-fold run).

On a terminal: a tqdm bar with the total, the rate and the time left. Elsewhere (a log file, a
CI job, a pipe): one plain line every ``LOG_EVERY`` seconds and one at the end, so a log shows
that the job moves without filling up with carriage returns. tqdm comes with the ``train``
extra; without it, the plain lines are written on a terminal too.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import IO, Any, TypeVar

T = TypeVar("T")
LOG_EVERY = 15.0  # seconds between two plain progress lines


def _fmt(seconds: float) -> str:
    m, s = divmod(int(seconds + 0.5), 60)
    return f"{m // 60}:{m % 60:02d}:{s:02d}" if m >= 60 else f"{m}:{s:02d}"


def line(desc: str, n: int, total: int | None, elapsed: float, unit: str) -> str:
    """One plain progress line: 'features: 1200/2494 pages (48%), 0:35 elapsed, ~0:38 left'."""
    if total:
        eta = f", ~{_fmt(elapsed / n * (total - n))} left" if 0 < n < total else ""
        return f"{desc}: {n}/{total} {unit}s ({100 * n / total:.0f}%), {_fmt(elapsed)} elapsed{eta}"
    return f"{desc}: {n} {unit}s, {_fmt(elapsed)} elapsed"


class Ticker:
    """A counter that shows itself: ``tick()`` after each unit of work, ``close()`` at the end."""

    def __init__(self, desc: str, total: int | None = None, unit: str = "page",
                 enabled: bool = True, file: IO[str] | None = None) -> None:
        self.desc, self.total, self.unit, self.enabled = desc, total, unit, enabled
        self.out = file if file is not None else sys.stderr
        self.n = 0
        self.start = self.last = time.monotonic()
        self.bar: Any = None
        if enabled and _is_terminal(self.out):
            try:
                from tqdm import tqdm
            except ImportError:
                pass
            else:
                self.bar = tqdm(desc=desc, total=total, unit=unit, file=self.out, leave=True,
                                dynamic_ncols=True)

    def tick(self, k: int = 1) -> None:
        self.n += k
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.update(k)
            return
        now = time.monotonic()
        if now - self.last >= LOG_EVERY:
            self.last = now
            print(line(self.desc, self.n, self.total, now - self.start, self.unit), file=self.out,
                  flush=True)

    def write(self, message: str) -> None:
        """A message line that does not break the bar."""
        if self.bar is not None:
            self.bar.write(message, file=self.out)
        else:
            print(message, file=self.out, flush=True)

    def close(self) -> None:
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        else:
            print(line(self.desc, self.n, self.total, time.monotonic() - self.start, self.unit),
                  file=self.out, flush=True)
        self.enabled = False


def progress(items: Iterable[T], desc: str, total: int | None = None, unit: str = "page",
             enabled: bool = True, file: IO[str] | None = None) -> Iterator[T]:
    """``items``, with a Ticker on stderr (see the module docstring)."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    t = Ticker(desc, total, unit, enabled, file)
    try:
        for item in items:
            yield item
            t.tick()
    finally:
        t.close()


def _is_terminal(f: IO[str]) -> bool:
    try:
        return f.isatty()
    except (AttributeError, ValueError):
        return False
