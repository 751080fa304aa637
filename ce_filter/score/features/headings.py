"""Headings: the heading that governs each block (the last one before it), its words (a learned
token list) and whether it reads as the title of a boilerplate section."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from ...read.segment import HEADINGS
from .rx import RX_NAMES

_WORD = re.compile(r"\w+")
_IS_HEADING = np.zeros(max(HEADINGS) + 2, dtype=bool)  # by tag id (clipped: the last is False)
_IS_HEADING[sorted(HEADINGS)] = True


def last_heading(tag: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which blocks are headings (h1-h6), and for each block the index of the last heading at
    or before it (-1: none yet)."""
    is_h = _IS_HEADING[np.minimum(tag, len(_IS_HEADING) - 1)]
    return is_h, np.maximum.accumulate(np.where(is_h, np.arange(len(tag)), -1))


def heading_words(texts: Sequence[str], tag: np.ndarray) -> list[tuple[str, ...]]:
    """Words of the heading that governs each block (a heading is governed by the one before)."""
    is_h, hi = last_heading(np.asarray(tag, dtype=np.int64))
    prev = np.where(is_h, np.concatenate(([-1], hi[:-1])), hi) if len(hi) else hi
    cache: dict[int, tuple[str, ...]] = {-1: ()}
    out = []
    for j in prev.tolist():
        w = cache.get(j)
        if w is None:
            w = cache[j] = tuple(dict.fromkeys(_WORD.findall(texts[j].lower())))[:8]
        out.append(w)
    return out


# Headings over what is not the article: a block whose governing heading (the last heading
# before it, of any level) reads "Comments", "Related stories", "More from ..." is boilerplate
# whatever its own markup (comment threads are often bare <div><p>; docs/RESULTS.md, "head").
# A heading reads so where one of these stands between word boundaries in its lower-cased
# title (matched in C: dense.phrases; tests/oracles/headings_regex.py is the regular expression).
BOILER_WORDS = (
    "comment", "comments", "responses", "response", "replies", "reply", "related", "see also",
    "more from", "more on", "more stories", "more news", "popular", "most read", "most viewed",
    "most emailed", "most shared", "trending", "sponsored", "advertisement", "recommended",
    "you may also like", "you might also like", "also read", "read more", "read next", "share",
    "follow", "newsletter", "subscribe", "sign up", "tags", "categories", "archives",
    "recent posts", "latest", "top stories", "elsewhere", "around the web", "from the web",
    "discussion", "leave a", "trackback", "trackbacks", "about the author", "links", "blogroll",
    "sponsors", "partners", "connect", "search", "navigation", "menu",
    # from the boilerplate section titles of the MSc thesis's Appendix A and the like, each
    # kept only where the pages it heads did not lose out of fold (docs/research/ABLATION.md,
    # "The boilerplate headings"; research/headingstudy.py)
    "editor's picks", "you might like", "more like this", "don't miss", "don’t miss",
    "in case you missed", "more articles", "footnotes", "topics", "previous post", "next post",
    "contact us", "featured")


HEADING_MAX_WORDS = 10  # a longer "heading" is prose set in a heading tag, not a section title
UNLIKELY, NEGATIVE = RX_NAMES.index("unlikely"), RX_NAMES.index("negative")
