"""The pre-parse scan in Python: the test oracle of its C part (ce_filter/read/_precheck.c,
``precheck.scan``), the same simplified model of the HTML tree builder (element stack, active
formatting elements, raw text, attributes) giving the same counts."""

from __future__ import annotations

import re
from typing import Any

from ce_filter.read.precheck import (
    MAX_SELECT_OPTIONS,
    OVER_ATTRIBUTES,
    OVER_ELEMENTS,
    OVER_FORMATTING,
    OVER_NESTING,
    OVER_NONE,
    ScanCounts,
)

# Tag-name classes of the model (the C scan's lists).
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


def scan(data: bytes, max_tags: int, max_attr_work: int, max_depth_work: int,
             max_clones: int, max_options: int = MAX_SELECT_OPTIONS) -> ScanCounts:
    """The scan in Python: ``precheck.scan``'s counts (same rules, same numbers)."""
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
