"""A bounded cost for every page, before it is parsed.

Lexbor's tree construction is super-linear on a few shapes a hostile (or broken) page can
have, and the parse is one C call that nothing can interrupt:

- deep nesting: every start tag checks the open elements for a ``<p>`` in scope and a stray
  end tag searches them all, so ``<div>`` × 100,000 costs 10^10 steps (22 s);
- many attributes on one element: each new attribute is checked against the ones before it
  (one element with 100,000 attributes: 39 s);
- formatting tags (``<b>``, ``<font>``, ...) left open across blocks are re-created at every
  later block: 3,000 distinct open ``<b>`` and 3,000 ``<div>x</div>`` make 9 million
  elements (80 KB of HTML, 3.4 GB of memory);
- and plain size: 100,000 ``<p>`` blocks make a feature matrix of 100,000 rows.

:func:`scan` reads the raw bytes once with a simplified model of the HTML tree builder (an
element stack, the list of active formatting elements with its markers and "Noah's ark" rule,
raw-text elements, comments, attributes with quoted values) and counts what those costs grow
with. It stops at the first tag that takes a count past its cap, so it is bounded itself.
:func:`check` turns the counts into a verdict: past the element cap the page is cut before
that tag (like the byte cap, ``truncated=True``); past any other cap it gets an empty result
with a reason. The caps sit far above every page of the labelled corpora (docs/RELIABILITY.md
gives the margins) and far below the shapes above.

The scan runs in C (``ce_filter/read/_precheck.c``, the one implementation); its test oracle
(tests/oracles/precheck_scan.py) is the same model in Python and must give the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, cast

from .. import native

OVER_NONE, OVER_ELEMENTS, OVER_ATTRIBUTES, OVER_NESTING, OVER_FORMATTING = range(5)
REASONS = {
    OVER_ATTRIBUTES: "too costly to parse: too many attributes on one element",
    OVER_NESTING: "too costly to parse: nesting too deep",
    OVER_FORMATTING: "too costly to parse: unclosed formatting tags re-created at every block",
}


# Lexbor inserts each <option> of a <select> at a cost that grows with the options before it
# (one select of 10,000 options: 0.5 s; 50,000: 3 to 50 s). Past this many in one select, an
# option start tag is renamed ``<source`` (same length, so offsets hold): inside a select Lexbor
# ignores it and its text goes to the select, which never becomes text (segment.SKIP_TAGS), so
# the result is unchanged; anywhere else (a wrong guess of the model) it is a void element,
# which nests nothing. The C scan carries the same number.
MAX_SELECT_OPTIONS = 1000


@dataclass(frozen=True)
class Limits:
    """Caps of the pre-parse scan, in the units the parse costs grow with."""

    max_elements: int = 100_000  # start tags; the page is cut before the one past this
    max_attr_work: int = 50_000_000  # sum over elements of attributes squared
    max_nesting_work: int = 100_000_000  # open elements walked by scope checks and end tags
    max_reconstructed: int = 100_000  # formatting elements re-created
    max_select_options: int = MAX_SELECT_OPTIONS  # options of one <select> parsed as options


DEFAULT_LIMITS = Limits()


@dataclass
class Scan:
    """What :func:`scan` counted (up to ``stop``, the offset where it stopped: the end of the
    page, or a tag at most 16 tags after the one that took the count named by ``over`` past
    its cap: the scan checks its caps every 16 tags)."""

    elements: int
    attrs_max: int
    attr_work: int
    depth_max: int
    nesting_work: int
    reconstructed: int
    stop: int
    over: int
    options_max: int = 0  # most options seen in one select
    calmed: int = 0  # option start tags renamed past ``max_select_options``
    page: bytes | None = field(default=None, repr=False)  # the page with them renamed, or None


# the scan's counts, in Scan's order
ScanCounts = tuple[int, int, int, int, int, int, int, int, int, int, "bytes | None"]


class PrecheckC(Protocol):
    """The function of the C part (read/_precheck.c) that Python calls: the scan's counts
    (``Scan``'s fields in order) within the caps."""

    def scan(self, data: bytes, max_tags: int, max_attr_work: int, max_depth_work: int, max_clones: int,
             max_options: int, /) -> ScanCounts: ...


def scan(data: bytes, limits: Limits = DEFAULT_LIMITS) -> Scan:
    data = bytes(data)
    args = (limits.max_elements, limits.max_attr_work, limits.max_nesting_work, limits.max_reconstructed,
            limits.max_select_options)
    return Scan(*_c.scan(data, *args))


def check(data: bytes, limits: Limits = DEFAULT_LIMITS) -> tuple[int, str]:
    """(where to cut the page, why it must not be parsed). The cut is ``len(data)`` for a
    page within every cap; the reason is '' unless the page must get an empty result."""
    s = scan(data, limits)
    if s.over == OVER_NONE:
        return len(data), ""
    if s.over == OVER_ELEMENTS:
        return s.stop, ""
    return s.stop, REASONS[s.over]


def prepare(data: bytes, limits: Limits = DEFAULT_LIMITS) -> tuple[bytes, int, str]:
    """:func:`check`, and the page to parse: ``data`` itself, or a copy with the options of a
    flooded select renamed (see MAX_SELECT_OPTIONS) where it has one."""
    s = scan(data, limits)
    page = data if s.page is None else s.page
    if s.over == OVER_NONE:
        return page, len(data), ""
    return page, s.stop, "" if s.over == OVER_ELEMENTS else REASONS[s.over]


_c = cast(PrecheckC, native.required("read._precheck"))
