"""Shop-page boilerplate (group ``shop``): on product pages most of the text a model wrongly
keeps is prose-like but not the product's own: copies of blocks shown twice (carousel clones,
mobile and desktop variants of one section), reviews and ratings, shipping / returns /
guarantee panels, "you may also like" strips (docs/research/ABLATION.md). Three cues point at it, each
multiplied by the page's product probability (the page-kind model's, as the ``kind`` group
reads it), so they weigh on product pages and stay silent elsewhere: a review list on a forum
or a "related" strip on an article is the business of other columns."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from ...read.segment import KIND_CONTAINS, Blocks, Patterns, token_matcher
from ...read.texts import pick
from ..pagekind import KINDS
from .dense import repeated
from .headings import last_heading

SHOP_NAMES = ("shop_dup*product", "shop_head*product", "shop_ic*product")
_PRODUCT = KINDS.index("product")

# Titles of the sections of a shop page that are not the product's own description.
_SHOP_HEADING = re.compile(
    r"\b(?:reviews?|ratings?|testimonials?|customers? (?:say|love|are saying)|what (?:our )?customers"
    r"|q ?& ?a|questions? (?:and|&) answers?|shipping|delivery|returns?|warranty|guarantee[sd]?"
    r"|you (?:may|might) also|also (?:like|bought|viewed)|(?:frequently )?bought together"
    r"|related products?|similar (?:products|items)|recently viewed|complete the look"
    r"|pairs? (?:well )?with|why (?:choose|shop|buy)|customers also|recommended)\b")
SHOP_HEADING_MAX_WORDS = 10  # a longer heading is prose, not a section title
# Class/id tokens of the same sections, and the review widgets' vendors (Yotpo, Okendo,
# Stamped, Judge.me, Trustpilot, Bazaarvoice, Feefo).
_SHOP_IC: Patterns = tuple((0, KIND_CONTAINS, w) for w in (
    "review", "rating", "testimon", "yotpo", "okendo", "stamped", "jdgm", "judgeme", "trustpilot",
    "bazaarvoice", "feefo", "upsell", "recommend", "related", "recently", "shipping", "returns",
    "delivery", "guarantee", "trust"))
SHOP_IC_LEVELS = 3  # the block's element and this many of its nearest ancestors
_SHOP_MATCHER = token_matcher(_SHOP_IC)


def shop_heading(texts: Sequence[str], tag: np.ndarray, n_tok: np.ndarray) -> np.ndarray:
    """1.0 for a block governed by (or itself) a heading that reads as a shop section's title:
    the last heading at or before it, of at most SHOP_HEADING_MAX_WORDS words."""
    is_h, last = last_heading(tag)
    hs = np.flatnonzero(is_h)
    out = np.zeros(len(texts))
    if len(hs) == 0:
        return out
    hit = np.zeros(len(texts), dtype=bool)
    search = _SHOP_HEADING.search
    hit[hs] = [k <= SHOP_HEADING_MAX_WORDS and search(t.lower()) is not None
               for t, k in zip(pick(texts, hs.tolist()), n_tok[hs].tolist())]
    under = last >= 0
    out[under] = hit[last[under]]
    return out


def shop_ic(b: Blocks) -> np.ndarray:
    """1.0 where the class/id tokens of the block's element or of one of its SHOP_IC_LEVELS
    nearest ancestors match a shop-section pattern."""
    cols = b.pattern_columns(_SHOP_IC, _SHOP_MATCHER, SHOP_IC_LEVELS, 1)
    return cols[:, : SHOP_IC_LEVELS + 1].max(axis=1)


def _weight(kind: np.ndarray | None, min_p: float) -> float:
    """The page's product probability, the cues' multiplier; 0.0 (no cues) with no estimate or
    under ``min_p`` (FeatureSpec.shop_min_p: the page counts as no product page, and the cues
    are not computed; on most pages that is all of their cost, and training reads the same
    zeros)."""
    p = 0.0 if kind is None else float(kind[_PRODUCT])
    return 0.0 if p < min_p else p


def shop_matrix(b: Blocks, kind: np.ndarray | None, min_p: float = 0.0,
                tag: np.ndarray | None = None, n_tok: np.ndarray | None = None) -> np.ndarray:
    """The three cues times the page's product probability (``kind`` in KINDS order), as one
    blocks x 3 array. The tags and word counts are read from ``b`` where not given, and only
    on a page that gets cues."""
    p = _weight(kind, min_p)
    if p == 0.0 or len(b) == 0:
        return np.zeros((len(b), len(SHOP_NAMES)))
    tag = np.asarray(b.tag, dtype=np.int64) if tag is None else tag
    n_tok = b.counts()[:, 1] if n_tok is None else n_tok
    x = np.stack((repeated(b), shop_heading(b.texts, tag, n_tok), shop_ic(b)), axis=1)
    return x * p


def shop_columns(b: Blocks, tag: np.ndarray, n_tok: np.ndarray, kind: np.ndarray | None,
                 min_p: float = 0.0) -> tuple[list[str], list[np.ndarray]]:
    """``shop_matrix`` as the reference path's names and columns."""
    return list(SHOP_NAMES), [shop_matrix(b, kind, min_p, tag, n_tok)]
