"""The paper's IC features (Peters & Lecocq 2013, section 3 and Table 1), beside the shipped
reading of them (features/tokens.py).

The shipped ``ic`` group reads one merged list of class and id tokens from the element that
opens the block (``ic_own``) and one from its ancestors (``ic_anc``), each token kept when it is
on more than 1 % of all training blocks with content:boilerplate odds of at least 2.5 either way
(``select_tokens``). The paper's features differ in three ways, all kept here:

- **id and class apart**: a token of an ``id`` and the same token of a ``class`` are two
  features (the paper's Table 1 has 8 id and 24 class tokens);
- **accumulated over the block**: the tokens are those of every element opened inside the block,
  its own opening tag included, not of the opener and its ancestors (Dragnet's blockifier
  gathers ``id`` and ``class`` values from the block's tags, and starts afresh at each block);
- **the frequency floor per class**: a token qualifies when it is on more than 1 % of the
  content blocks *or* more than 1 % of the boilerplate blocks (a token on 2 % of the content
  blocks, a tenth of all blocks, is kept; the shipped rule's 1 % of all blocks drops it), then
  the same odds test.

Tokens: the attribute value lower-cased and split on runs of non-letters/digits and ``_``
(Dragnet's tokenizer, ``[\\W_]+``), prefixed ``id:`` or ``class:``; a block's feature is 1 when
one of its tokens equals the listed token. ``paper_pages`` segments pages with the Python walk
(tests/oracles/walk_python.py, the oracle of the C walk: the same blocks) and puts these tokens
in ``Blocks.own_tokens`` (``anc_tokens`` empty), so the ``ic`` group of a model trained on such
pages reads them; ``paper_rule`` replaces ``select_tokens`` while such a model is trained.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, cast

import numpy as np
from selectolax.lexbor import LexborHTMLParser

from ce_filter.read.segment import (
    _FLAG_TAGS,
    _NO_ATTR_TAGS,
    _TAG_LIMIT,
    BLOCK_TAGS,
    FLAG_A,
    FLAG_PRE,
    LIST_TAGS,
    PATH_LEN,
    SKIP_TAGS,
    TAG_A,
    TAG_BR,
    TAG_HEAD,
    TAG_HTML,
    TAG_IMG,
    TAG_LI,
    TAG_OL,
    TAG_TITLE,
    UNKNOWN_TAG,
    Blocks,
    element_tokens,
)
from tests.oracles.walk_python import _head_walk, _render_items, head_items

_SPLIT = re.compile(r"[\W_]+")
MIN_FRAC = 0.01  # of the content blocks, or of the boilerplate blocks
ODDS = 2.5


def paper_tokens(cls: str | None, idv: str | None) -> list[str]:
    """An element's paper tokens: its id's and its class's, prefixed."""
    out: list[str] = []
    for prefix, v in (("id:", idv), ("class:", cls)):
        if v:
            out.extend(prefix + t for t in _SPLIT.split(v.lower()) if t)
    return out


def paper_rule(rows: Sequence[Iterable[str]], labels: np.ndarray, **_: Any) -> list[str]:
    """The paper's selection: tokens on more than MIN_FRAC of the content blocks or of the
    boilerplate blocks, with content:boilerplate odds >= ODDS or <= 1/ODDS (the odds: share of
    content blocks with the token over the share of boilerplate blocks with it, each count
    + 0.5 as in ``select_tokens``)."""
    pos: Counter[str] = Counter()
    neg: Counter[str] = Counter()
    for toks, y in zip(rows, labels):
        (pos if y else neg).update(set(toks))
    n_pos = max(int(np.sum(labels)), 1)
    n_neg = max(len(labels) - n_pos, 1)
    out = []
    for t in sorted(set(pos) | set(neg)):
        p, q = pos[t], neg[t]
        if p <= MIN_FRAC * n_pos and q <= MIN_FRAC * n_neg:
            continue
        r = ((p + 0.5) / n_pos) / ((q + 0.5) / n_neg)
        if r >= ODDS or r <= 1.0 / ODDS:
            out.append(t)
    return out


@contextmanager
def paper_selection() -> Iterator[None]:
    """While inside, training picks IC tokens by ``paper_rule``."""
    from ce_filter.learn import fit

    saved = fit.select_tokens
    fit.select_tokens = paper_rule
    try:
        yield
    finally:
        fit.select_tokens = saved


def segment_paper(html: str, runs_on: bool = False) -> Blocks:
    """The page's blocks with the paper's IC tokens (see the module's docstring); ``runs_on``:
    cut as Dragnet's blockifier cuts (``paper_segment``)."""
    return paper_segment(LexborHTMLParser(html), runs_on)


# The Python walk of tests/oracles/walk_python.py (segment_tree), with the paper's tokens gathered per
# block: ``acc`` collects the tokens of the elements opened since the block began (the block
# tag's own first), and is emptied when a block is written or a block tag opens.
def paper_segment(tree: LexborHTMLParser, runs_on: bool = False) -> Blocks:
    """walk_python.segment_tree (the Python walk, the oracle of the C walk: the same blocks),
    with ``own_tokens`` the paper's IC tokens of each block: "id:" and "class:" tokens of
    every element opened in the block, its opening tag included (``anc_tokens`` empty).
    ``runs_on``: blocks as Dragnet's blockifier cuts them, only where a block tag opens (the
    text after a block tag closes runs on in the same block, which keeps its opener): other
    blocks than the shipped segmenter's."""
    extras = False
    out = Blocks()
    pre: dict[int, str] = {}
    ordered: set[int] = set()
    links: list[tuple[int, str, str]] = []
    images: list[tuple[int, str, str]] = []
    if extras:
        out.extras = (pre, ordered, links, images)
    root = tree.root
    if root is None:
        return out
    texts, anchors = cast("list[str]", out.texts), cast("list[str]", out.anchor_texts)
    ntags = cast("list[int]", out.n_tags)
    tags, depths = cast("list[int]", out.tag), cast("list[int]", out.depth)
    flags_l = cast("list[int]", out.flags)
    owns, ancs = cast("list[tuple[str, ...]]", out.own_tokens), cast("list[tuple[str, ...]]", out.anc_tokens)
    conts = out.container
    head = out.head
    if root.tag_id == TAG_HTML:
        lang = root.attributes.get("lang")
        if lang:
            head.append(("lang", lang))
    elem_tokens: dict[int, tuple[str, ...]] = {}
    acc: list[str] = []  # the current block's paper tokens
    paper: list[tuple[str, ...]] = []

    # Stack entry: (tag_id, own tokens, ancestors' tokens (excl. own), tokens incl. own, flags,
    #               (serial of this element, of its parent, of its grandparent))
    empty: tuple[str, ...] = ()
    stack: list[tuple[int, tuple[str, ...], tuple[str, ...], tuple[str, ...], int, tuple[int, ...]]] = []
    serial = 0
    cur: list[str] = []
    cur_a: list[str] = []
    cur_tags = 0
    no_path: tuple[int, ...] = (0,) * PATH_LEN
    opener = (0, empty, empty, empty, 0, no_path)
    br_run = 0
    n_nodes = 0
    has_text = False  # cur holds more than whitespace

    def flush() -> None:
        nonlocal cur, cur_a, cur_tags, has_text
        if has_text:
            text = " ".join("".join(cur).split())
            if text:
                if extras:
                    i = len(texts)
                    if opener[4] & FLAG_PRE:
                        pre[i] = "".join(cur)
                    if opener[0] == TAG_LI:
                        for e in reversed(stack):
                            if e[0] in LIST_TAGS:
                                if e[0] == TAG_OL:
                                    ordered.add(i)
                                break
                texts.append(text)
                anchors.append(" ".join(cur_a))
                ntags.append(cur_tags)
                tags.append(opener[0])
                depths.append(len(stack))
                flags_l.append(opener[4])
                owns.append(opener[1])
                paper.append(tuple(dict.fromkeys(acc)))
                conts.append(opener[5])
                ancs.append(opener[2])
        cur = []
        cur_a = []
        has_text = False
        cur_tags = 0
        acc.clear()

    node: Any = root
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
            if tid == TAG_HEAD:  # <head>: its <title> and what the metadata reads
                t = _head_walk(node, head)
                if not out.title:
                    out.title = t
            elif tid > 5:
                head_items(node, tid, node.attributes, head, True)
        elif tid > 5:  # 0-5: undef, EOF, text, document, comment, doctype
            if tid == TAG_TITLE:
                if not out.title:
                    out.title = " ".join(node.text().split())
            else:
                attrs = node.attributes
                head_items(node, tid, attrs, head, True)
                if extras and (tid == TAG_A or tid == TAG_IMG):
                    _render_items(node, tid, attrs, len(texts), has_text, links, images)
                cls = idv = None
                if tid not in _NO_ATTR_TAGS:
                    cls = attrs.get("class")
                    idv = attrs.get("id")
                own = element_tokens(cls, idv)
                serial += 1
                if own:
                    elem_tokens[serial] = own
                if stack:
                    _, _, _, p_all, p_flags, p_ser = stack[-1]
                else:
                    p_all, p_flags, p_ser = empty, 0, no_path
                entry = (tid if tid < _TAG_LIMIT else UNKNOWN_TAG, own, p_all,
                         p_all + own if own else p_all,
                         p_flags | _FLAG_TAGS.get(tid, 0), (serial,) + p_ser[:-1])
                if tid in BLOCK_TAGS:
                    if cur:
                        flush()
                    cur_tags = 0
                    opener = entry
                    br_run = 0
                    acc.clear()
                # every tag's id and class, the inline ones too (Dragnet reads them all)
                acc.extend(paper_tokens(attrs.get("class"), attrs.get("id")))
                stack.append(entry)
                cur_tags += 1
                descend = True
        if descend:
            child = node.first_child
            if child is not None:
                node = child
                continue
            # an empty block tag still separates blocks
            if tid in BLOCK_TAGS and not runs_on:
                if cur:
                    flush()
                cur_tags = 0
            stack.pop()
            if tid in BLOCK_TAGS and stack and not runs_on:
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
                if not runs_on:
                    if cur:
                        flush()
                    cur_tags = 0
                elif cur:
                    cur.append(" ")  # the closed block's text and what runs on are two words
                stack.pop()
                if stack and not runs_on:
                    opener = stack[-1]
            else:
                stack.pop()
    flush()
    out.n_nodes = n_nodes
    out.__dict__["_elem_tokens"] = elem_tokens  # by serial, for Blocks.pattern_flags
    out.own_tokens = paper
    out.anc_tokens = [()] * len(paper)
    return out
