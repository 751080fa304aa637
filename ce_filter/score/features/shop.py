"""Shop-page boilerplate (group ``shop``): on product pages most of the text a model wrongly
keeps is prose-like but not the product's own: copies of blocks shown twice (carousel clones,
mobile and desktop variants of one section), reviews and ratings, shipping / returns /
guarantee panels, "you may also like" strips (docs/research/ABLATION.md). Three cues point at it, each
multiplied by the page's product probability (the page-kind model's, as the ``kind`` group
reads it), so they weigh on product pages and stay silent elsewhere: a review list on a forum
or a "related" strip on an article is the business of other columns."""

from __future__ import annotations

import numpy as np

from ...read.segment import KIND_CONTAINS, Blocks, Patterns, token_matcher
from ..pagekind import KINDS
from .dense import phrases, shop_cues

SHOP_NAMES = ("shop_dup*product", "shop_head*product", "shop_ic*product")
_PRODUCT = KINDS.index("product")

# Titles of the sections of a shop page that are not the product's own description: found
# between word boundaries of the lower-cased heading (dense.phrases).
SHOP_TITLES = (
    "review", "reviews", "rating", "ratings", "testimonial", "testimonials",
    *(f"{c} {v}" for c in ("customer", "customers") for v in ("say", "love", "are saying")),
    "what our customers", "what customers", "q&a", "q &a", "q& a", "q & a",
    *(f"{q} {a} {s}" for q in ("question", "questions") for a in ("and", "&")
      for s in ("answer", "answers")),
    "shipping", "delivery", "return", "returns", "warranty", "guarantee", "guarantees",
    "guaranteed", "you may also", "you might also", "also like", "also bought", "also viewed",
    "bought together", "frequently bought together", "related product", "related products",
    "similar products", "similar items", "recently viewed", "complete the look", "pair with",
    "pair well with", "pairs with", "pairs well with", "why choose", "why shop", "why buy",
    "customers also", "recommended")
SHOP_TITLE_PHRASES = phrases(SHOP_TITLES)  # (compiled: dense.phrases)
SHOP_HEADING_MAX_WORDS = 10  # a longer heading is prose, not a section title (_pass.c SHOP_HEAD_MAX_WORDS)
# Class/id tokens of the same sections, and the review widgets' vendors (Yotpo, Okendo,
# Stamped, Judge.me, Trustpilot, Bazaarvoice, Feefo).
_SHOP_IC: Patterns = tuple((0, KIND_CONTAINS, w) for w in (
    "review", "rating", "testimon", "yotpo", "okendo", "stamped", "jdgm", "judgeme", "trustpilot",
    "bazaarvoice", "feefo", "upsell", "recommend", "related", "recently", "shipping", "returns",
    "delivery", "guarantee", "trust"))
SHOP_IC_LEVELS = 3  # the block's element and this many of its nearest ancestors
_SHOP_MATCHER = token_matcher(_SHOP_IC)


def shop_ic_source() -> tuple[object, int]:
    """What the pass after the walk (ce_filter/_pass.c) makes ``shop_ic`` with, from the page's
    class/id tokens, on a page it reads as a product's: the matcher and the levels."""
    return _SHOP_MATCHER, SHOP_IC_LEVELS


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


def shop_matrix(b: Blocks, kind: np.ndarray | None, min_p: float = 0.0) -> np.ndarray:
    """The three cues times the page's product probability (``kind`` in KINDS order), as one
    blocks x 3 array (dense.shop_cues, the one implementation the pass runs too), computed only
    on a page that gets cues."""
    p = _weight(kind, min_p)
    if p == 0.0 or len(b) == 0:
        return np.zeros((len(b), len(SHOP_NAMES)))
    return shop_cues(b, SHOP_TITLE_PHRASES, shop_ic(b), p)


def shop_columns(b: Blocks, tag: np.ndarray, n_tok: np.ndarray, kind: np.ndarray | None,
                 min_p: float = 0.0) -> tuple[list[str], list[np.ndarray]]:
    """``shop_matrix`` as the reference path's names and columns (``tag``, ``n_tok``: the
    reference path's arguments of every group, read from the blocks here)."""
    return list(SHOP_NAMES), [shop_matrix(b, kind, min_p)]
