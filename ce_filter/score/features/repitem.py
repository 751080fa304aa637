"""Repeated items (group ``ritem``): groups of same-shaped siblings — a listing's cards, a
catalogue's entries, a thread's posts. An item is the element one to three levels above a
block, its box the element one level further up; the items of one box whose first block has
the same tag are one group, a repeated structure at 3 items or more. A card's title is short
and link-heavy like a menu entry; what tells them apart is how many items there are, how much
of the page they hold, how much of each item is link text, and whether each item has a heading
or a price of its own (docs/research/REPEATED_ITEMS.md).

Computed in C (``_dense.c``'s ``ritem``, the definition); tests/oracles/ritem_numpy.py is its
numpy reference."""

from __future__ import annotations

import numpy as np

from ...read.segment import Blocks
from ..pagekind import KINDS
from . import dense

NAMES = dense.RITEM_NAMES
# group ``ritemg``: the same columns times the page's probability of being neither an article
# nor a product page: an article's related-story cards and a product page's related products
# are repeated items too, but not the content
GATED_NAMES = tuple(f"{n}*other" for n in NAMES)
_ARTICLE, _PRODUCT = KINDS.index("article"), KINDS.index("product")
# group ``ritemlc``: the same columns times the page's probability of being a listing or a
# collection, and zeros where that is under FeatureSpec.ritem_min_p (as the shop cues are gated
# on product pages): an article's, a product page's or a forum's blocks keep exactly the inputs
# they have without the group
LC_NAMES = tuple(f"{n}*lc" for n in NAMES)
_LISTING, _COLLECTION = KINDS.index("listing"), KINDS.index("collection")


def ritem_columns(b: Blocks) -> tuple[list[str], list[np.ndarray]]:
    """Per block, the figures of its group at the level of the most items (zeros outside
    any): items (log1p), the group's share of the page's words, its link words / words, words
    per item (log1p), the share of its items with a heading, with a price; and 1 where the
    block is a heading in such a group."""
    return list(NAMES), [dense.ritem(b)]


def gated_ritem_columns(b: Blocks, kind: np.ndarray | None) -> tuple[list[str], list[np.ndarray]]:
    """ritem_columns times 1 - P(article) - P(product) (no kind probabilities: times 1)."""
    x = dense.ritem(b)
    if kind is not None:
        x *= max(0.0, 1.0 - float(kind[_ARTICLE]) - float(kind[_PRODUCT]))
    return list(GATED_NAMES), [x]


def lc_weight(kind: np.ndarray | None, min_p: float) -> float:
    """The page's probability of being a listing or a collection, the ``ritemlc`` columns'
    multiplier; 0.0 with no estimate or under ``min_p``."""
    p = 0.0 if kind is None else float(kind[_LISTING]) + float(kind[_COLLECTION])
    return 0.0 if p < min_p else p


def lc_ritem_matrix(b: Blocks, kind: np.ndarray | None, min_p: float = 0.0) -> np.ndarray:
    """ritem_columns times ``lc_weight`` as one blocks x 7 array (not computed at weight 0)."""
    w = lc_weight(kind, min_p)
    if w == 0.0 or len(b) == 0:
        return np.zeros((len(b), len(LC_NAMES)))
    x = dense.ritem(b)
    x *= w
    return x


def lc_ritem_columns(b: Blocks, kind: np.ndarray | None, min_p: float = 0.0
                     ) -> tuple[list[str], list[np.ndarray]]:
    """``lc_ritem_matrix`` as the reference path's names and columns."""
    return list(LC_NAMES), [lc_ritem_matrix(b, kind, min_p)]
