"""One parse, one walk: cut a page into Dragnet-style blocks and record what the features need.

A block is the text between two layout tags. The parse and the walk are C
(ce_filter/read/_segment.c, over Lexbor: see its header for the two builds); this module
sets its tables, calls it and wraps its columns as Blocks. The walk is iterative (an explicit
stack, no recursion) so absurdly deep documents cost memory, not a crash, and it
touches each node once: everything the features use is gathered on the way. Its test oracle,
the same walk in Python over selectolax's nodes, is tests/oracles/walk_python.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NewType, Protocol, Union, cast, overload

import numpy as np

from .. import native
from .texts import TextColumn
from .words import count_words

if TYPE_CHECKING:
    from numpy.typing import NDArray

# the walk (configured below, once its tables are made)
_c = cast("SegmentC", native.required("read._segment"))


def tag_ids(names: str) -> frozenset[int]:
    """The ids of these tag names (space-separated) in the walk's Lexbor."""
    return frozenset(_c.tag_id(n) for n in names.split())


def tag_id(name: str) -> int:
    """The id of a tag name in the walk's Lexbor (the one that parses: ``_segment.tag_id``)."""
    return _c.tag_id(name)


# Tags that change the on-screen layout: each opens and closes a block.
# <noscript> is walked (Lexbor parses its content as markup, as a browser without scripts
# does): forum engines (Discourse) serve the whole thread there for clients without
# JavaScript, 18 % of wcxb-dev's forum gold; elsewhere it holds short "enable JavaScript"
# notices, which the model learns to drop like any other boilerplate.
BLOCK_TAGS = tag_ids(
    "html body div p h1 h2 h3 h4 h5 h6 li td th tr table tbody thead tfoot caption ul ol dl dt dd "
    "blockquote pre section article header footer nav aside form figure figcaption main address "
    "center fieldset legend hr details summary menu dir hgroup option textarea noscript"
)
# Tags whose content never becomes text.
SKIP_TAGS = tag_ids(
    "script style template svg iframe object embed canvas math select button "
    "textarea input head audio video map frameset frame applet"
)
# Inline tags whose class/id carry nothing worth the attribute lookup.
_NO_ATTR_TAGS = tag_ids("b i em strong br wbr u s small sup sub font code tt abbr")

# Lexbor gives a tag it does not know an id that is an address (another one in each process):
# blocks record one fixed id for all of them, so features and runs are reproducible.
_TAG_LIMIT = 0x10000
UNKNOWN_TAG = 0xFFFF
TAG_A = tag_id("a")
TAG_BR = tag_id("br")
TAG_TITLE = tag_id("title")
TAG_HEAD = tag_id("head")
TAG_HTML, TAG_META, TAG_LINK, TAG_SCRIPT, TAG_TIME = (tag_id(n) for n in "html meta link script time".split())
TAG_LI, TAG_OL, TAG_IMG, TAG_H1 = tag_id("li"), tag_id("ol"), tag_id("img"), tag_id("h1")
LIST_TAGS = tag_ids("ul ol menu dir")
HEADINGS = tag_ids("h1 h2 h3 h4 h5 h6")

# Ancestor flags: bit i set when the block sits inside a tag of kind i.
FLAG_NAMES = (
    "a", "li", "list", "table", "nav", "header", "footer", "aside", "form",
    "article", "main", "heading", "p", "blockquote", "pre", "figure", "section", "dl",
    "address", "label",
)
_FLAG_TAGS: dict[int, int] = {}
for _bit, _names in enumerate(
    ("a", "li", "ul ol menu dir", "table td th tr", "nav", "header", "footer", "aside", "form",
     "article", "main", "h1 h2 h3 h4 h5 h6", "p", "blockquote", "pre", "figure figcaption",
     "section", "dl dt dd", "address", "label")
):
    for _t in tag_ids(_names):
        _FLAG_TAGS[_t] = _FLAG_TAGS.get(_t, 0) | (1 << _bit)
FLAG_A = 1
FLAG_PRE = 1 << FLAG_NAMES.index("pre")
# Beyond the ancestor kinds (which the features read as columns, FLAG_NAMES only): the block
# sits in a layout element (BLOCK_TAGS) hidden from the reader by its own attributes
# (the C walk's is_hidden: ``hidden``, ``aria-hidden="true"``, or a ``style`` with ``display: none``
# or ``visibility: hidden``), or inside one. The rules after the cut read it (ce_filter/keep/articles.py);
# no feature does.
FLAG_HIDDEN = 1 << 20
PATH_LEN = 10  # ancestors remembered per block (bounded: deep pages cost no more)

_NAME_SPLIT = re.compile(r"[^a-z0-9]+|(?<=[a-z])(?=[0-9])")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_token_cache: dict[str, tuple[str, ...]] = {}
# The cache is bounded by the characters it holds, not by entries: pages with unique long
# class values (generated CSS names) would otherwise keep ~100 KB each. Past the cap it starts
# over, so it keeps what recent pages use; values longer than _CACHE_VALUE_MAX are not kept.
TOKEN_CACHE_CHARS = 8 << 20
_CACHE_VALUE_MAX = 256
_token_cache_chars = 0


def name_tokens(value: str) -> tuple[str, ...]:
    """Tokens of a class/id value: 'postBody main-col2' -> ('post', 'body', 'main', 'col')."""
    global _token_cache_chars
    hit = _token_cache.get(value)
    if hit is not None:
        return hit
    parts = _NAME_SPLIT.split(_CAMEL.sub(" ", value).lower())
    toks = tuple(dict.fromkeys(p for p in parts if 1 < len(p) < 30 and not p.isdigit()))
    if len(value) <= _CACHE_VALUE_MAX:
        if _token_cache_chars > TOKEN_CACHE_CHARS:
            _token_cache.clear()
            _token_cache_chars = 0
        _token_cache[value] = toks
        _token_cache_chars += 2 * len(value) + 64  # key + tokens (at most as long) + overhead
    return toks


# Literal patterns over class/id tokens: (flag bit, kind, text); a token sets the bit when it
# contains (KIND_CONTAINS), equals (KIND_EQUALS) or ends with (KIND_ENDS) the text.
KIND_CONTAINS, KIND_EQUALS, KIND_ENDS = 0, 1, 2
Patterns = tuple[tuple[int, int, str], ...]


def token_pattern_flags(toks: tuple[str, ...], patterns: Patterns) -> int:
    """The OR of the bits of ``patterns`` that one of ``toks`` matches (the reference of the
    C walk's flag_columns)."""
    out = 0
    for bit, kind, text in patterns:
        m = 1 << bit
        if out & m:
            continue
        for t in toks:
            if (text in t if kind == KIND_CONTAINS else t == text if kind == KIND_EQUALS
                    else t.endswith(text)):
                out |= m
                break
    return out


def element_tokens(cls: str | None, idv: str | None) -> tuple[str, ...]:
    """An element's own class/id tokens: its class's, then its id's."""
    own: tuple[str, ...] = name_tokens(cls) if cls else ()
    if idv:
        own = own + name_tokens(idv) if own else name_tokens(idv)
    return own


# What the metadata rules read beside the blocks (metadata.page_head turns it into a PageHead),
# gathered on the same walk so the page is walked once: raw attribute values and texts of
# the <html> root, <meta>, <link>/<a> whose rel may say canonical or author, JSON-LD
# <script>s, <time>s and byline candidates (class/id saying author or byline, rel/itemprop
# author), as tuples led by their kind. The checks are loose and ASCII-only; metadata.py
# applies the exact rules.
MAX_BYLINE_ITEMS = 64  # byline candidates gathered per page, the first in document order
MAX_TIME_CHARS = 300  # a <time>'s text is kept up to this many characters
# A byline candidate with more text than this (UTF-8 bytes, before whitespace is collapsed)
# is a whole section, not a byline: its text is not gathered (it would be refused anyway).
MAX_ITEM_TEXT = 2000
HeadItem = tuple[str, ...]
RenderExtras = tuple[dict[int, str], set[int], list[tuple[int, str, str]], list[tuple[int, str, str]]]
# an int column of Blocks: an int64 array from the walk, a list where Blocks are made by hand
IntColumn = Union[list[int], "NDArray[np.int64]"]

# What the C walk hands back and takes again without Python looking inside (capsules).
LexborDoc = NewType("LexborDoc", object)  # a page parsed by the C walk's Lexbor (``parse``)
PageTokens = NewType("PageTokens", object)  # a page's packed elements tokenised once
TokenMatcher = NewType("TokenMatcher", object)  # class/id token patterns (``token_matcher``)
VocabTable = NewType("VocabTable", object)  # a token list and its weights (``vocab_table``)
# segment()'s raw columns: texts, anchor texts, n_tags/tag/depth/flags (int64 bytes), openers,
# container paths (int64 bytes), counts (float64 bytes), packed elements, title, node count,
# head items, with extras ({block: code text}, [numbered list items], links, images), and the
# code blocks' raw text
RawExtras = tuple[dict[int, str], list[int], list[tuple[int, str, str]], list[tuple[int, str, str]]]
RawColumn = tuple[str, bytes, bytes, bytes]  # texts.TextColumn's parts (segment._column)
# the code blocks' raw text: (UTF-8, block starts: n + 1 int64 bytes), None on a page without
RawCode = tuple[bytes, bytes]
RawBlocks = tuple[RawColumn, RawColumn, bytes, bytes, bytes, bytes, bytes, str, int, list[HeadItem],
                  "RawExtras | None", "RawCode | None"]
# a parsed page (``parse``)
Tree = LexborDoc


class SegmentC(Protocol):
    """The functions of the C walk (ce_filter/read/_segment.c) that Python calls."""

    def tag_id(self, name: str, /) -> int: ...

    def configure(self, kinds: bytes, flags: bytes, tag_br: int, tag_title: int, tag_head: int,
                  flag_a: int, path_len: int, /) -> None: ...

    def configure_head(self, tag_html: int, tag_meta: int, tag_link: int, tag_script: int,
                       tag_time: int, tag_a: int, max_byline_items: int, max_time_chars: int,
                       max_item_text: int, /) -> None: ...

    def configure_extras(self, tag_li: int, tag_ol: int, tag_img: int, flag_pre: int,
                         flag_hidden: int, /) -> None: ...

    def parse(self, html: str, utf8: bytes | None = None, /) -> LexborDoc: ...

    def segment(self, doc: LexborDoc, extras: bool, /) -> RawBlocks: ...

    def elem_list(self, packed: bytes, /) -> list[tuple[int, int, str | None, str | None]]: ...

    def page_tokens(self, packed: bytes, tokenise: Callable[[str], tuple[str, ...]], /) -> PageTokens: ...

    def ic_sums(self, tokens: PageTokens, openers: bytes, table: VocabTable, ancestors: bool, /
                ) -> bytes: ...

    def flag_columns(self, tokens: PageTokens, openers: bytes, matcher: TokenMatcher, levels: int,
                     n_bits: int, /) -> bytes: ...

    def token_matcher(self, patterns: list[tuple[int, int, str]], /) -> TokenMatcher: ...

    def vocab_table(self, tokens: list[str], weights: list[float], /) -> VocabTable: ...


@dataclass
class Blocks:
    """The page as blocks, columnar: lists for text, numpy arrays for numbers."""

    # one TextColumn from the walk, a list where made by hand (and by the test oracle)
    texts: Sequence[str] = field(default_factory=list)
    anchor_texts: Sequence[str] = field(default_factory=list)
    # int64 arrays from the walk, lists where made by hand
    n_tags: IntColumn = field(default_factory=list)
    tag: IntColumn = field(default_factory=list)
    depth: IntColumn = field(default_factory=list)
    flags: IntColumn = field(default_factory=list)
    # serials of the opener and its nearest ancestors, nearest first, PATH_LEN long (0-padded);
    # the C walk leaves it empty and fills container_ids() directly
    container: list[tuple[int, ...]] = field(default_factory=list)
    # class/id tokens of the opener and of its ancestors (the C walk gives lazy ElementTokens)
    own_tokens: Sequence[tuple[str, ...]] = field(default_factory=list)  # a list or ElementTokens
    anc_tokens: Sequence[tuple[str, ...]] = field(default_factory=list)
    title: str = ""
    n_nodes: int = 0
    head: list[HeadItem] = field(default_factory=list)  # see head_items
    # segment(..., extras=True) only: (code blocks' raw text by block, indices of list items
    # whose nearest list is an <ol>, (block, anchor text, href) of each <a href>, (block, alt,
    # src) of each <img>): what render.Extras holds
    extras: RenderExtras | None = None

    def __len__(self) -> int:
        return len(self.texts)

    def text_column(self) -> TextColumn:
        """The texts as one TextColumn (the C walk's own; made once from a list): the form the
        C parts read them in (``TextColumn.c_args``)."""
        t = self.texts
        if isinstance(t, TextColumn):
            return t
        col = self.__dict__.get("_text_column")
        if col is None:
            col = self.__dict__["_text_column"] = TextColumn.of(t)
        return col

    def container_ids(self) -> np.ndarray:
        """``container`` as a (blocks x PATH_LEN) array, built once per page: the features and
        stage 2 both read it (cached; blocks are not changed after ``segment``)."""
        a = self.__dict__.get("_container_ids")
        if a is None:
            a = np.asarray(self.container, dtype=np.int64).reshape(len(self.texts), PATH_LEN)
            self.__dict__["_container_ids"] = a
        return a

    def counts(self) -> np.ndarray:
        """(blocks x 3): characters, words, words inside links. The C walk counts them while it
        normalises the text; otherwise they are counted here the same way (``words.count_words``:
        one word per character of the scripts written without spaces). Cached: blocks are not
        changed after ``segment``."""
        a = self.__dict__.get("_counts")
        if a is None:
            n = len(self.texts)
            a = np.empty((n, 3))
            a[:, 0] = np.fromiter(map(len, self.texts), dtype=np.float64, count=n)
            a[:, 1] = np.fromiter(map(count_words, self.texts), dtype=np.float64, count=n)
            a[:, 2] = np.fromiter(map(count_words, self.anchor_texts), dtype=np.float64, count=n)
            self.__dict__["_counts"] = a
        return a

    def token_counts(self) -> np.ndarray:
        """Whitespace tokens per block, for the features and stage 2's weights."""
        return self.counts()[:, 1]

    def pattern_columns(self, patterns: Patterns, matcher: TokenMatcher | None, levels: int, n_bits: int
                        ) -> np.ndarray:
        """0/1 columns of ``patterns`` (bits 0..n_bits-1; ``matcher``: the same patterns as a
        token_matcher, or None): for the block's opener and each of its ``levels`` nearest
        ancestors, the bits its own class/id tokens match, then the bits of all its ancestors'
        tokens together. C-walked blocks get them from the packed elements in one C call."""
        if isinstance(self.own_tokens, ElementTokens) and matcher is not None:
            return self.own_tokens._src.flag_columns(matcher, levels, n_bits)
        own, anc = self.pattern_flags(patterns)
        bits = np.arange(n_bits)
        lv = own[self.container_ids()[:, : levels + 1]]  # blocks x levels, bit masks
        return np.hstack([((lv[:, :, None] >> bits) & 1).reshape(len(self), -1),
                          (anc[:, None] >> bits) & 1]).astype(np.float64)

    def code_column(self) -> tuple[bytes, np.ndarray] | None:
        """The code blocks' text as written (line breaks and all), for the kept text: (their
        UTF-8 one after the other; n + 1 starts, int64: block i's is [starts[i], starts[i + 1]),
        empty for a block that is not code; no text at all on a page without code blocks). None
        for blocks of the Python walk (the text then takes the code from ``extras``)."""
        got: tuple[bytes, np.ndarray] | None = self.__dict__.get("_code")
        if got is _NO_CODE:
            got = self.__dict__["_code"] = (b"", np.zeros(len(self) + 1, dtype=np.int64))
        return got

    def class_tokens(self) -> tuple[PageTokens, np.ndarray] | None:
        """(the page's class/id tokens, the C walk's capsule; each block's opener serial, int64)
        for a C part that makes pattern columns itself (the pass's rules after the cut); None
        for blocks that carry no packed values (the Python walk's)."""
        if not isinstance(self.own_tokens, ElementTokens):
            return None
        src = self.own_tokens._src
        return src.page_tokens(), np.frombuffer(src.openers, dtype=np.int64)

    def class_values(self) -> bytes | None:
        """The page's class and id values as the C walk packed them (``may_name`` looks in
        them, and the pass after the walk does the same in C); None for blocks that carry none
        (made by hand)."""
        if not isinstance(self.own_tokens, ElementTokens):
            return None
        return self.own_tokens._src.packed

    def may_name(self, pieces: tuple[bytes, ...]) -> bool:
        """False where the page's class/id values hold none of ``pieces`` (so no pattern made of
        them can match: the rules skip their columns); True where one does, or where the blocks
        carry no packed values to look in (made by hand)."""
        packed = self.class_values()
        return packed is None or any(k in packed for k in pieces)

    def pattern_flags(self, patterns: Patterns) -> tuple[np.ndarray, np.ndarray]:
        """The reference of pattern_columns: (by element serial, the bits its own class/id
        tokens match; by block, the bits its opener's ancestors' tokens match). Serials index
        ``container_ids``; 0 = no element."""
        cont = self.container_ids()
        named: dict[int, tuple[str, ...]] = self.__dict__.get("_elem_tokens") or {}
        if not named and isinstance(self.own_tokens, ElementTokens):
            named = self.own_tokens._src.elem_tokens()
        own = np.zeros(int(cont.max(initial=0)) + 1, dtype=np.int64)
        for s, toks in named.items():
            if s < len(own):
                own[s] = token_pattern_flags(toks, patterns)
        memo: dict[int, int] = {}
        anc = np.zeros(len(self), dtype=np.int64)
        for i, toks in enumerate(self.anc_tokens):
            v = memo.get(id(toks))
            if v is None:
                v = memo[id(toks)] = token_pattern_flags(toks, patterns)
            anc[i] = v
        return own, anc

    def same_as(self, other: Blocks) -> bool:
        """Equal block for block (``container`` compared through ``container_ids``, which the
        C walk fills without building the tuples)."""
        ints = {"n_tags", "tag", "depth", "flags"}
        return (all(np.array_equal(getattr(self, f), getattr(other, f)) if f in ints
                    else getattr(self, f) == getattr(other, f)
                    for f in self.__dataclass_fields__ if f != "container")
                and np.array_equal(self.container_ids(), other.container_ids())
                and np.array_equal(self.counts(), other.counts()))


def _configure(c: SegmentC) -> None:
    """The C walk (ce_filter/read/_segment.c) given this module's tables."""
    kinds = bytearray(max(BLOCK_TAGS | SKIP_TAGS | _NO_ATTR_TAGS | set(_FLAG_TAGS)) + 1)
    for bit, ids in ((1, BLOCK_TAGS), (2, SKIP_TAGS), (4, _NO_ATTR_TAGS), (8, LIST_TAGS)):
        for t in ids:
            kinds[t] |= bit
    flags = np.zeros(len(kinds), dtype=np.uint32)
    for t, f in _FLAG_TAGS.items():
        flags[t] = f
    c.configure(bytes(kinds), flags.tobytes(), TAG_BR, TAG_TITLE, TAG_HEAD, FLAG_A, PATH_LEN)
    c.configure_head(TAG_HTML, TAG_META, TAG_LINK, TAG_SCRIPT, TAG_TIME, TAG_A, MAX_BYLINE_ITEMS,
                     MAX_TIME_CHARS, MAX_ITEM_TEXT)
    c.configure_extras(TAG_LI, TAG_OL, TAG_IMG, FLAG_PRE, FLAG_HIDDEN)


def parse(html: str, utf8: bytes | None = None) -> Tree:
    """The parsed page (a Lexbor document). ``utf8``: exactly ``html.encode("utf-8")`` where the
    caller has it (a page that was valid UTF-8), so the parse need not encode the text again."""
    return _c.parse(html, utf8)


def segment(tree: Tree, extras: bool = False) -> Blocks:
    """Walk the DOM once, cutting blocks at layout tags (and at runs of <br>). With ``extras``
    the walk also records what the renderers need (``Blocks.extras``)."""
    return _blocks_from_c(_c.segment(tree, extras), _c)


class _Elements:
    """The class/id of the elements that open a block or are ancestors of one, as the C walk
    packed them, and the blocks' openers. Serving only needs the summed weights of their
    tokens (``weight_sums``) and their pattern flags (``flag_columns``), both in C from one
    tokenisation of the page (``page_tokens``); the token tuples are made only when asked for."""

    __slots__ = ("packed", "openers", "_c", "_tokens", "_rows", "_by_serial")

    def __init__(self, packed: bytes, openers: bytes, c: SegmentC) -> None:
        self.packed, self.openers, self._c = packed, openers, c
        self._tokens: PageTokens | None = None
        self._rows: tuple[list[tuple[str, ...]], list[tuple[str, ...]]] | None = None
        self._by_serial: tuple[dict[int, tuple[str, ...]], dict[int, tuple[str, ...]]] | None = None

    def page_tokens(self) -> PageTokens:
        """The packed elements tokenised once (a capsule the C sums and flags read)."""
        if self._tokens is None:
            self._tokens = self._c.page_tokens(self.packed, name_tokens)
        return self._tokens

    def by_serial(self) -> tuple[dict[int, tuple[str, ...]], dict[int, tuple[str, ...]]]:
        """By element serial (0: none): its own tokens, and its ancestors' (name_tokens stays
        the one tokeniser)."""
        if self._by_serial is None:
            own: dict[int, tuple[str, ...]] = {0: ()}
            anc: dict[int, tuple[str, ...]] = {0: ()}
            full: dict[int, tuple[str, ...]] = {0: ()}
            for s, parent, cls, idv in self._c.elem_list(self.packed):  # parents come first
                o = element_tokens(cls, idv)
                a = full[parent]
                own[s] = o
                anc[s] = a
                full[s] = a + o if o else a
            self._by_serial = own, anc
        return self._by_serial

    def rows(self) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
        """Each block's own and ancestors' tokens."""
        if self._rows is None:
            own, anc = self.by_serial()
            ops = np.frombuffer(self.openers, dtype=np.int64).tolist()
            self._rows = [own[s] for s in ops], [anc[s] for s in ops]
        return self._rows

    def weight_sums(self, ancestors: bool, table: VocabTable) -> np.ndarray:
        return np.frombuffer(self._c.ic_sums(self.page_tokens(), self.openers, table, ancestors),
                             dtype=np.float64)

    def flag_columns(self, matcher: TokenMatcher, levels: int, n_bits: int) -> np.ndarray:
        """Blocks.pattern_columns in C."""
        raw = self._c.flag_columns(self.page_tokens(), self.openers, matcher, levels, n_bits)
        return np.frombuffer(raw, dtype=np.float64).reshape(len(self.openers) // 8, -1)

    def elem_tokens(self) -> dict[int, tuple[str, ...]]:
        """Own class/id tokens by element serial, for the elements that have some."""
        return {s: o for s, o in self.by_serial()[0].items() if o}


class ElementTokens(Sequence[tuple[str, ...]]):
    """``Blocks.own_tokens`` / ``anc_tokens`` of a C-walked page: a list of token tuples when
    read, or (``weight_sums``) each block's summed token weights without making them."""

    __slots__ = ("_src", "_anc")

    def __init__(self, src: _Elements, ancestors: bool) -> None:
        self._src, self._anc = src, ancestors

    def _list(self) -> list[tuple[str, ...]]:
        return self._src.rows()[self._anc]

    def __len__(self) -> int:
        return len(self._src.openers) // 8

    @overload
    def __getitem__(self, i: int) -> tuple[str, ...]: ...

    @overload
    def __getitem__(self, i: slice) -> list[tuple[str, ...]]: ...

    def __getitem__(self, i: int | slice) -> tuple[str, ...] | list[tuple[str, ...]]:
        return self._list()[i]

    def __iter__(self) -> Iterator[tuple[str, ...]]:
        return iter(self._list())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and self._list() == list(other)

    __hash__ = None  # type: ignore[assignment]

    def weight_sums(self, table: VocabTable) -> np.ndarray:
        """features.tokens.token_weight_sums for a ``vocab_table``, in C."""
        return self._src.weight_sums(self._anc, table)


def token_matcher(patterns: Patterns) -> TokenMatcher:
    """``patterns`` in the form Blocks.pattern_columns takes for the C walk's blocks."""
    return _c.token_matcher(list(patterns))


def vocab_table(tokens: list[str], weights: list[float]) -> VocabTable:
    """A token list and its weights in the form ElementTokens.weight_sums takes."""
    return _c.vocab_table(list(tokens), [float(w) for w in weights])


def _blocks_from_c(raw: RawBlocks, c: SegmentC) -> Blocks:
    """The C walk's columns as Blocks (tokens stay packed until read: see _Elements)."""
    t_cols, a_cols, ints, openers, paths, counts, packed, title, n_nodes, head, extras, code = raw
    texts, anchors = _column(t_cols, 1), _column(a_cols, 0)
    src = _Elements(packed, openers, c)
    n_tags, tags, depth, flags = np.frombuffer(ints, dtype=np.int64).reshape(4, len(texts))
    b = Blocks(texts, anchors, n_tags, tags, depth, flags, [], ElementTokens(src, False),
               ElementTokens(src, True), title, n_nodes, head,
               None if extras is None else (extras[0], set(extras[1]), extras[2], extras[3]))
    b.__dict__["_container_ids"] = np.frombuffer(paths, dtype=np.int64).reshape(len(texts), PATH_LEN)
    b.__dict__["_counts"] = np.frombuffer(counts, dtype=np.float64).reshape(len(texts), 3)
    b.__dict__["_code"] = _NO_CODE if code is None else (code[0], np.frombuffer(code[1], dtype=np.int64))
    return b


_NO_CODE = (b"", np.zeros(0, dtype=np.int64))  # a C-walked page without code blocks


def _column(parts: tuple[str, bytes, bytes, bytes], gap: int) -> TextColumn:
    """The C walk's (str, character starts, UTF-8, byte starts) as a TextColumn."""
    joined, chars, utf8, at = parts
    starts = np.frombuffer(chars, dtype=np.int64)
    return TextColumn(joined, starts, gap, utf8, starts if chars == at else np.frombuffer(at, dtype=np.int64))


_configure(_c)
