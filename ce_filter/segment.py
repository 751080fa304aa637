"""One parse, one walk: cut a page into Dragnet-style blocks and record what the features need.

A block is the text between two layout tags. The walk is iterative (an explicit
stack, no recursion) so absurdly deep documents cost memory, not a crash, and it
touches each node once: everything the features use is gathered on the way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
from selectolax.lexbor import LexborHTMLParser

_PROBE = LexborHTMLParser("")


def _ids(names: str) -> frozenset[int]:
    return frozenset(_PROBE.create_node(n).tag_id for n in names.split())


def _id(name: str) -> int:
    return _PROBE.create_node(name).tag_id


# Tags that change the on-screen layout: each opens and closes a block.
BLOCK_TAGS = _ids(
    "html body div p h1 h2 h3 h4 h5 h6 li td th tr table tbody thead tfoot caption ul ol dl dt dd "
    "blockquote pre section article header footer nav aside form figure figcaption main address "
    "center fieldset legend hr details summary menu dir hgroup option textarea"
)
# Tags whose content never becomes text.
SKIP_TAGS = _ids(
    "script style noscript template svg iframe object embed canvas math select button "
    "textarea input head audio video map frameset frame applet"
)
# Inline tags whose class/id carry nothing worth the attribute lookup.
_NO_ATTR_TAGS = _ids("b i em strong br wbr u s small sup sub font code tt abbr")

TAG_A = _id("a")
TAG_BR = _id("br")
TAG_TITLE = _id("title")
TAG_HEAD = _id("head")
HEADINGS = _ids("h1 h2 h3 h4 h5 h6")

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
    for _t in _ids(_names):
        _FLAG_TAGS[_t] = _FLAG_TAGS.get(_t, 0) | (1 << _bit)
FLAG_A = 1
PATH_LEN = 10  # ancestors remembered per block (bounded: deep pages cost no more)

_NAME_SPLIT = re.compile(r"[^a-z0-9]+|(?<=[a-z])(?=[0-9])")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_token_cache: dict[str, tuple[str, ...]] = {}


def name_tokens(value: str) -> tuple[str, ...]:
    """Tokens of a class/id value: 'postBody main-col2' -> ('post', 'body', 'main', 'col')."""
    hit = _token_cache.get(value)
    if hit is not None:
        return hit
    parts = _NAME_SPLIT.split(_CAMEL.sub(" ", value).lower())
    toks = tuple(dict.fromkeys(p for p in parts if 1 < len(p) < 30 and not p.isdigit()))
    if len(_token_cache) < 200_000:
        _token_cache[value] = toks
    return toks


@dataclass
class Blocks:
    """The page as blocks, columnar: lists for text, numpy arrays for numbers."""

    texts: list[str] = field(default_factory=list)
    anchor_texts: list[str] = field(default_factory=list)
    n_tags: list[int] = field(default_factory=list)
    tag: list[int] = field(default_factory=list)
    depth: list[int] = field(default_factory=list)
    flags: list[int] = field(default_factory=list)
    # serials of the opener and its nearest ancestors, nearest first, PATH_LEN long (0-padded)
    container: list[tuple[int, ...]] = field(default_factory=list)
    own_tokens: list[tuple[str, ...]] = field(default_factory=list)
    anc_tokens: list[tuple[str, ...]] = field(default_factory=list)
    title: str = ""
    n_nodes: int = 0

    def __len__(self) -> int:
        return len(self.texts)

    def container_ids(self) -> np.ndarray:
        """``container`` as a (blocks x PATH_LEN) array, built once per page: the features and
        stage 2 both read it (cached; blocks are not changed after ``segment``)."""
        a = self.__dict__.get("_container_ids")
        if a is None:
            a = np.asarray(self.container, dtype=np.int64).reshape(len(self.texts), PATH_LEN)
            self.__dict__["_container_ids"] = a
        return a

    def token_counts(self) -> np.ndarray:
        """Whitespace tokens per block (texts are space-normalised: spaces + 1), counted once
        per page for the features and stage 2's weights."""
        a = self.__dict__.get("_token_counts")
        if a is None:
            a = np.fromiter((t.count(" ") + 1 for t in self.texts), dtype=np.float64,
                            count=len(self.texts))
            self.__dict__["_token_counts"] = a
        return a

    def arrays(self) -> dict[str, np.ndarray]:
        return {
            "n_tags": np.asarray(self.n_tags, dtype=np.float64),
            "tag": np.asarray(self.tag, dtype=np.int64),
            "depth": np.asarray(self.depth, dtype=np.float64),
            "flags": np.asarray(self.flags, dtype=np.int64),
        }


def parse(html: str) -> LexborHTMLParser:
    return LexborHTMLParser(html)


def segment(tree: LexborHTMLParser) -> Blocks:
    """Walk the DOM once, cutting blocks at layout tags (and at runs of <br>)."""
    out = Blocks()
    root = tree.root
    if root is None:
        return out
    texts, anchors, ntags = out.texts, out.anchor_texts, out.n_tags
    tags, depths, flags_l, owns, ancs = out.tag, out.depth, out.flags, out.own_tokens, out.anc_tokens
    conts = out.container

    # Stack entry: (tag_id, own tokens, ancestors' tokens (excl. own), tokens incl. own, flags,
    #               (serial of this element, of its parent, of its grandparent))
    empty: tuple[str, ...] = ()
    stack: list[tuple[int, tuple[str, ...], tuple[str, ...], tuple[str, ...], int, tuple[int, int, int]]] = []
    serial = 0
    cur: list[str] = []
    cur_a: list[str] = []
    cur_tags = 0
    no_path = (0,) * PATH_LEN
    opener = (0, empty, empty, empty, 0, no_path)
    br_run = 0
    n_nodes = 0
    has_text = False  # cur holds more than whitespace

    def flush() -> None:
        nonlocal cur, cur_a, cur_tags, has_text
        if has_text:
            text = " ".join("".join(cur).split())
            if text:
                texts.append(text)
                anchors.append(" ".join(cur_a))
                ntags.append(cur_tags)
                tags.append(opener[0])
                depths.append(len(stack))
                flags_l.append(opener[4])
                owns.append(opener[1])
                conts.append(opener[5])
                ancs.append(opener[2])
        cur = []
        cur_a = []
        has_text = False
        cur_tags = 0

    node = root
    while node is not None:
        n_nodes += 1
        tid = node.tag_id
        descend = False
        if tid == 2:  # text
            s = node.text_content
            if s:
                cur.append(s)
                if not s.isspace():
                    has_text = True
                    br_run = 0
                    if stack and stack[-1][4] & FLAG_A:
                        cur_a.append(s)
        elif tid == TAG_BR:
            br_run += 1
            cur_tags += 1
            if br_run >= 2:
                flush()
                opener = stack[-1] if stack else opener
                br_run = 0
            else:
                cur.append(" ")
        elif tid in SKIP_TAGS:
            if tid == TAG_HEAD and not out.title:  # <head>: only its <title> matters
                t = node.css_first("title")
                if t is not None:
                    out.title = " ".join(t.text().split())
        elif tid > 5:  # 0-5: undef, EOF, text, document, comment, doctype
            if tid == TAG_TITLE:
                if not out.title:
                    out.title = " ".join(node.text().split())
            else:
                cls = idv = None
                if tid not in _NO_ATTR_TAGS:
                    attrs = node.attributes
                    cls = attrs.get("class")
                    idv = attrs.get("id")
                own = empty
                if cls:
                    own = name_tokens(cls)
                if idv:
                    own = own + name_tokens(idv) if own else name_tokens(idv)
                serial += 1
                if stack:
                    _, _, _, p_all, p_flags, p_ser = stack[-1]
                else:
                    p_all, p_flags, p_ser = empty, 0, no_path
                entry = (tid, own, p_all, p_all + own if own else p_all,
                         p_flags | _FLAG_TAGS.get(tid, 0), (serial,) + p_ser[:-1])
                if tid in BLOCK_TAGS:
                    if cur:
                        flush()
                    cur_tags = 0
                    opener = entry
                    br_run = 0
                stack.append(entry)
                cur_tags += 1
                descend = True
        if descend:
            child = node.first_child
            if child is not None:
                node = child
                continue
            # an empty block tag still separates blocks
            if tid in BLOCK_TAGS:
                if cur:
                    flush()
                cur_tags = 0
            stack.pop()
            if tid in BLOCK_TAGS and stack:
                opener = stack[-1]
        while True:
            nxt = node.next
            if nxt is not None:
                node = nxt
                break
            if not stack:
                node = None
                break
            node = node.parent
            if stack[-1][0] in BLOCK_TAGS:
                if cur:
                    flush()
                cur_tags = 0
                stack.pop()
                if stack:
                    opener = stack[-1]
            else:
                stack.pop()
    flush()
    out.n_nodes = n_nodes
    return out
