"""Progress of the long commands (warc, extract over many inputs, train, evaluate, bench).

On a terminal: a tqdm bar with the total, the rate and the time left. Elsewhere (a log file, a
CI job, a pipe): one plain line every ``LOG_EVERY`` seconds and one at the end, so a log shows
that the job moves without filling up with carriage returns; a job done within ``LOG_EVERY``
writes no line at all.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import IO, Protocol, TypeVar

T = TypeVar("T")
LOG_EVERY = 15.0  # seconds between two plain progress lines


def _fmt(seconds: float) -> str:
    m, s = divmod(int(seconds + 0.5), 60)
    return f"{m // 60}:{m % 60:02d}:{s:02d}" if m >= 60 else f"{m}:{s:02d}"


def _amount(n: float, unit: str, scale: bool) -> str:
    """'1200 pages', or with ``scale`` '12.3 MB' (what tqdm's unit_scale shows)."""
    if not scale:
        return f"{n:.0f} {unit}s"
    prefixes = ("", "k", "M", "G", "T")
    i = 0
    while abs(n) >= 1000 and i < len(prefixes) - 1:
        n, i = n / 1000, i + 1
    return f"{n:.0f} {unit}" if i == 0 else f"{n:.1f} {prefixes[i]}{unit}"


def line(desc: str, n: int, total: int | None, elapsed: float, unit: str, scale: bool = False,
         postfix: str = "") -> str:
    """One plain progress line: 'features: 1200/2494 pages (48%), 0:35 elapsed, ~0:38 left'."""
    tail = f"; {postfix}" if postfix else ""
    if total:
        eta = f", ~{_fmt(elapsed / n * (total - n))} left" if 0 < n < total else ""
        done = (f"{_amount(n, unit, scale)} of {_amount(total, unit, scale)}" if scale
                else f"{n}/{total} {unit}s")
        return f"{desc}: {done} ({100 * n / total:.0f}%), {_fmt(elapsed)} elapsed{eta}{tail}"
    return f"{desc}: {_amount(n, unit, scale)}, {_fmt(elapsed)} elapsed{tail}"


class _Bar(Protocol):
    """What the Ticker calls on tqdm's bar (tqdm ships no types)."""

    def update(self, n: int, /) -> object: ...

    def set_postfix_str(self, s: str, /, refresh: bool) -> None: ...

    def write(self, s: str, /, file: IO[str] | None) -> None: ...

    def close(self) -> None: ...


class Ticker:
    """A counter that shows itself: ``tick()`` after each unit of work, ``close()`` at the end.

    ``unit_scale``: the unit is bytes or alike (shown as k/M/G). ``enabled=False``: silent.
    """

    def __init__(self, desc: str, total: int | None = None, unit: str = "page",
                 enabled: bool = True, file: IO[str] | None = None, *, unit_scale: bool = False) -> None:
        self.desc, self.total, self.unit, self.enabled = desc, total, unit, enabled
        self.unit_scale = unit_scale
        self.out = file if file is not None else sys.stderr
        self.n = 0
        self.postfix = ""
        self.lines = 0  # plain lines written
        self.start = self.last = time.monotonic()
        self.bar: _Bar | None = None
        if enabled and _is_terminal(self.out):
            from tqdm import tqdm

            self.bar = tqdm(desc=desc, total=total, unit=unit, file=self.out, leave=True,
                            dynamic_ncols=True, unit_scale=unit_scale)

    def tick(self, k: int = 1) -> None:
        """``k`` more units done."""
        self.n += k
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.update(k)
            return
        now = time.monotonic()
        if now - self.last >= LOG_EVERY:
            self.last = now
            self.lines += 1
            print(self._line(now), file=self.out, flush=True)

    def set_postfix(self, text: str) -> None:
        """Counts shown after the bar (or the plain line): 'pages 120, kept 97'."""
        self.postfix = text
        if self.bar is not None:
            self.bar.set_postfix_str(text, refresh=False)

    def write(self, message: str, file: IO[str] | None = None) -> None:
        """A message line (to ``file``, stderr by default) that does not break the bar."""
        file = file if file is not None else self.out
        if self.bar is not None:
            self.bar.write(message, file=file)
        else:
            print(message, file=file, flush=True)

    def close(self) -> None:
        """The bar left at its end, or the final plain line after periodic ones; idempotent."""
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        elif self.lines or time.monotonic() - self.start >= LOG_EVERY:
            print(self._line(time.monotonic()), file=self.out, flush=True)
        self.enabled = False

    def _line(self, now: float) -> str:
        return line(self.desc, self.n, self.total, now - self.start, self.unit, self.unit_scale,
                    self.postfix)

    def __enter__(self) -> Ticker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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
