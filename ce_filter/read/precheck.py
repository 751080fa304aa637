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

The scan runs in C (``ce_filter/read/_precheck.c``); ``_scan_py`` here is the reference with the
same rules and the same numbers (tests compare them), used where the C part is not built.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Protocol

from .. import native

# Tag-name classes of the model (the C scan carries the same lists).
_NAMES = {
    "void": "area base br col embed hr img input keygen link meta param source track wbr basefont "
            "bgsound frame image",
    "raw": "script style textarea title xmp iframe noembed noframes noscript",
    "sibling": "p li dd dt option optgroup tr td th tbody thead tfoot rb rt rp rtc caption colgroup",
    "boundary": "html table template applet object marquee caption td th button ul ol",
    "fmt": "a b big code em font i nobr s small strike strong tt u",
    "unique": "a nobr",
    "marker": "td th caption applet object marquee template",
    "blockish": "address article aside blockquote center details dialog dir div dl fieldset "
                "figcaption figure footer header hgroup main menu nav ol p search section summary "
                "ul h1 h2 h3 h4 h5 h6 pre listing form li dd dt plaintext table hr xmp html body "
                "head frameset caption col colgroup tbody thead tfoot tr td th template title meta "
                "link style script base noscript",
    "plaintext": "plaintext",
    "select": "select",
    "option": "option",
    "selclose": "input keygen textarea caption table tbody tfoot thead tr td th template",
}
(F_VOID, F_RAW, F_SIBLING, F_BOUNDARY, F_FMT, F_UNIQUE, F_MARKER, F_BLOCKISH, F_PLAINTEXT, F_SELECT,
 F_OPTION, F_SELCLOSE) = (1 << i for i in range(12))
_FLAGS: dict[bytes, int] = {}
for _bit, _kind in enumerate(_NAMES):
    for _n in _NAMES[_kind].split():
        _FLAGS[_n.encode()] = _FLAGS.get(_n.encode(), 0) | (1 << _bit)

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
    page, or a tag at most ``CHECK_EVERY`` tags after the one that took the count named by
    ``over`` past its cap)."""

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
    """The function of the C part (read/_precheck.c) that Python calls: ``_scan_py`` in C."""

    def scan(self, data: bytes, max_tags: int, max_attr_work: int, max_depth_work: int, max_clones: int,
             max_options: int, /) -> ScanCounts: ...


def scan(data: bytes, limits: Limits = DEFAULT_LIMITS) -> Scan:
    data = bytes(data)
    args = (limits.max_elements, limits.max_attr_work, limits.max_nesting_work, limits.max_reconstructed,
            limits.max_select_options)
    fn = _c.scan if _c is not None else _scan_py
    return Scan(*fn(data, *args))


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


# ------------------------------------------------------------------ the reference scan

CHECK_EVERY = 16  # tags between two checks of the caps (as in the C scan)
# A formatting end tag with a block element opened after its element runs the adoption
# agency algorithm: up to 8 rounds of node moves and clones, each with stack searches; measured
# at ~100x a scope-check step per open element (3,000 such end tags over 3,000 open elements:
# 4 s), so it counts this many steps per open element.
AAA_WEIGHT = 128
_TAG = re.compile(rb"<(/?)([A-Za-z][^\t\n\f\r />]*)")
_SEP = re.compile(rb"[\t\n\f\r /]*")
_ATTR = re.compile(rb"""[^\t\n\f\r />][^\t\n\f\r />=]*(?:[\t\n\f\r ]*=[\t\n\f\r ]*"""
                   rb"""(?:"[^"]*"?|'[^']*'?|[^\t\n\f\r >]*))?""")
_RAW_END = {n: re.compile(rb"</" + n + rb"(?=[\t\n\f\r />]|\Z)", re.I)
            for n, f in _FLAGS.items() if f & F_RAW}


def _match(rx: re.Pattern[bytes], data: bytes, j: int) -> int:
    """The end of ``rx`` at ``j`` (the scan's patterns always match there)."""
    m = rx.match(data, j)
    assert m is not None
    return m.end()


def _scan_py(data: bytes, max_tags: int, max_attr_work: int, max_depth_work: int,
             max_clones: int, max_options: int = MAX_SELECT_OPTIONS) -> ScanCounts:
    """The scan in Python: the reference of ``_precheck.scan`` (same rules, same numbers)."""
    n = len(data)
    sel_open = False
    sel_opts = opts_max = calmed = 0
    calm: bytearray | None = None
    st = _State()
    i = 0
    find = data.find
    over = OVER_NONE
    last = n  # the last tag read
    tick = 0
    caps = (max_tags, max_attr_work, max_depth_work, max_clones)
    while True:
        lt = find(b"<", i)
        if lt < 0:
            break
        if lt > i:
            st.reconstruct()
        m = _TAG.match(data, lt)
        if m is None:
            c = data[lt + 1: lt + 2]
            if c == b"!" and data.startswith(b"--", lt + 2):
                e = find(b"-->", lt + 2)
                i = n if e < 0 else e + 3
            elif c in (b"!", b"?", b"/"):
                e = find(b">", lt + 2)
                i = n if e < 0 else e + 1
            else:
                i = lt + 1
                st.reconstruct()
            continue
        name = m.group(2).lower()
        flags = _FLAGS.get(name, 0)
        ne = j = m.end()
        na = 0
        while True:
            j = _match(_SEP, data, j)
            if j >= n:
                break
            if data[j] == 62:  # '>'
                j += 1
                break
            j = _match(_ATTR, data, j)
            na += 1
        i = j
        if flags & (F_SELECT | F_OPTION | F_SELCLOSE):  # a flooded select (MAX_SELECT_OPTIONS)
            if m.group(1) or not flags & F_OPTION:
                if flags & F_SELCLOSE or (flags & F_SELECT and (m.group(1) or sel_open)):
                    sel_open = False
                elif flags & F_SELECT:
                    sel_open, sel_opts = True, 0
            elif sel_open:
                sel_opts += 1
                opts_max = max(opts_max, sel_opts)
                if sel_opts > max_options:
                    if calm is None:
                        calm = bytearray(data)
                    calm[m.start(2): m.start(2) + 6] = b"source"
                    calmed += 1
        if m.group(1):
            st.end_tag(name, flags)
        else:
            st.depth_work += len(st.stack)  # the scope checks of a start tag
            st.tags += 1
            st.attr_work += na * na
            st.attrs_max = max(st.attrs_max, na)
            st.start_tag(name, flags, name + b" " + data[ne:j])
            if flags & F_RAW:
                mm = _RAW_END[name].search(data, i)
                i = n if mm is None else mm.start()
            elif flags & F_PLAINTEXT:
                i = n
        last = lt
        tick += 1
        if tick % CHECK_EVERY == 0:
            over = st.over_cap(caps)
            if over:
                break
    if not over:
        over = st.over_cap(caps)
        if not over:
            last = n
    return (st.tags, st.attrs_max, st.attr_work, st.depth_max, st.depth_work, st.clones, last, over,
            opts_max, calmed, None if calm is None else bytes(calm))


class _State:
    """The model's element stack and list of active formatting elements (entries
    ``[name, key, stack position or -1 when not on the stack]``; a marker has name None)."""

    def __init__(self) -> None:
        self.stack: list[tuple[bytes, int]] = []
        self.fl: list[list[Any]] = []  # Any: entries [name, key, stack position, flags], changed in place
        self.att = 0  # fl[:att] are on the stack (or markers), fl[att:] are not
        self.tags = self.attrs_max = self.attr_work = self.depth_max = self.depth_work = 0
        self.clones = 0

    def over_cap(self, caps: tuple[int, int, int, int]) -> int:
        max_tags, max_attr_work, max_depth_work, max_clones = caps
        if self.attr_work > max_attr_work:
            return OVER_ATTRIBUTES
        if self.depth_work > max_depth_work:
            return OVER_NESTING
        if self.clones > max_clones:
            return OVER_FORMATTING
        if self.tags > max_tags:
            return OVER_ELEMENTS
        return OVER_NONE

    def push(self, name: bytes, flags: int) -> None:
        self.stack.append((name, flags))
        self.depth_max = max(self.depth_max, len(self.stack))

    def reconstruct(self) -> None:
        fl, k = self.fl, len(self.fl)
        if self.att < k:
            for e in fl[self.att:]:
                e[2] = len(self.stack)
                self.push(e[0], e[3])
            self.clones += k - self.att
            self.att = k

    def truncate(self, k: int) -> None:
        fl = self.fl
        j = self.att - 1
        while j >= 0 and fl[j][2] >= k:
            self.depth_work += 1
            if fl[j][0] is None:
                del fl[j:]
            else:
                fl[j][2] = -1
            j -= 1
        self.att = j + 1
        del self.stack[k:]

    def last_in_list(self, name: bytes) -> int:
        fl = self.fl
        for j in range(len(fl) - 1, -1, -1):
            self.depth_work += 1
            if fl[j][0] is None:
                return -1
            if fl[j][0] == name:
                return j
        return -1

    def del_entry(self, j: int) -> None:
        del self.fl[j]
        if self.att > j:
            self.att -= 1

    def drop_entry(self, j: int) -> None:
        if self.fl[j][2] >= 0:
            self.truncate(self.fl[j][2])
        self.del_entry(j)
        self.att = min(self.att, len(self.fl))

    def end_tag(self, name: bytes, flags: int) -> None:
        if flags & F_FMT:
            k = self.last_in_list(name)
            if k >= 0:
                pos = self.fl[k][2]
                for p in range(pos + 1, len(self.stack) if pos >= 0 else 0):  # a block above it:
                    self.depth_work += 1  # the adoption agency's loops
                    if self.stack[p][1] & F_BLOCKISH:
                        self.depth_work += AAA_WEIGHT * len(self.stack)
                        break
                self.drop_entry(k)
                return
        if flags & F_VOID:
            return
        stack = self.stack
        for p in range(len(stack) - 1, -1, -1):  # a stray end tag walks them all
            self.depth_work += 1
            if stack[p][0] == name:
                self.truncate(p)
                return

    def start_tag(self, name: bytes, flags: int, key: bytes) -> None:
        if not flags & F_BLOCKISH:
            self.reconstruct()
        if flags & F_VOID:
            return
        if flags & F_SIBLING:
            stack = self.stack
            for p in range(len(stack) - 1, -1, -1):
                self.depth_work += 1
                if stack[p][0] == name:
                    self.truncate(p)
                    break
                if stack[p][1] & F_BOUNDARY:
                    break
        fl = self.fl
        if flags & F_FMT:
            if flags & F_UNIQUE:
                k = self.last_in_list(name)
                if k >= 0:
                    self.drop_entry(k)
            self.reconstruct()
            same = 0
            earliest = -1
            for k in range(len(fl) - 1, -1, -1):
                if fl[k][0] is None:
                    break
                self.depth_work += 1
                if fl[k][1] == key:
                    same += 1
                    earliest = k
            if same >= 3:
                self.del_entry(earliest)
                self.att = len(fl)
            fl.append([name, key, len(self.stack), flags])
            self.att = len(fl)
        elif flags & F_MARKER:
            fl.append([None, None, len(self.stack), 0])
            self.att = len(fl)
        self.push(name, flags)


# a page with what the scan counts: attributes, nesting, formatting tags left open across
# blocks, raw text, a comment, a table, a select's options
_PROBE = (b"<!DOCTYPE html><html><head><title>a <b> t</title><script>if (a<b) f('</div>')</script>"
          b"</head><body><div class=a id=b data-x='1' data-y=\"2\" hidden><p><b><i>open</p>"
          b"<p>again</p><div>x</div><div>y</div><!-- <div> --><table><tr><td><a href=/>l</a>"
          b"<td>m</table><select><option>1<option>2<option>3<option>4</select><ul><li>a<li>b</ul>"
          b"<font><b>c</b><div>z</div></p></div><plaintext><b>raw</body></html>")


def _agrees(mod: ModuleType) -> bool:
    """Whether the C scan gives the Python scan's counts on the probe page, within the default
    caps and past each of them."""
    d = DEFAULT_LIMITS
    caps = (d.max_elements, d.max_attr_work, d.max_nesting_work, d.max_reconstructed, d.max_select_options)
    tight = [caps] + [caps[:i] + (v,) + caps[i + 1:] for i, v in enumerate((3, 5, 20, 1, 2))]
    return all(mod.scan(_PROBE, *c) == _scan_py(_PROBE, *c) for c in tight)


_c: PrecheckC | None = native.probed("read._precheck", "the Python scan", _agrees)
