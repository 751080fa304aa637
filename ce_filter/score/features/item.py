"""Repeated items (group ``item``): a listing's cards, a shop's product tiles, a forum's posts
are sibling elements of one box, each holding several blocks (title, author, price, snippet);
a menu's entries are siblings too, but of one block each. Per ancestor level, how many items
the block's box holds and how many blocks an item holds on average tell the two apart without
the site's class names; the box's share of the page's words says whether it is the page."""

from __future__ import annotations

import numpy as np

from ..pagekind import KINDS

ITEM_LEVELS = (0, 1, 2, 3)  # the element taken as the block's item: its opener (0), an ancestor
RICH_BLOCKS = 1.5  # an item of at least this many blocks on average is a card, not a menu entry
MIN_ITEMS = 3  # and a box of at least this many items is a repeated structure
NAMES = ([f"items{lvl}" for lvl in ITEM_LEVELS] + [f"item_blocks{lvl}" for lvl in ITEM_LEVELS]
         + ["rich_items", "rich_share"])
# group ``itemg``: the same columns times (1 - the page's product probability): a product page's
# repeated items are mostly related products and reviews, not its content
GATED_NAMES = [f"{n}*not_product" for n in NAMES]
_PRODUCT = KINDS.index("product")


def gated_item_columns(cont: np.ndarray, n_tok: np.ndarray, kind: np.ndarray | None
                       ) -> tuple[list[str], list[np.ndarray]]:
    """item_columns times 1 - P(product) (no kind probabilities: times 1)."""
    x = item_columns(cont, n_tok)[1][0]
    if kind is not None:
        x *= 1.0 - float(kind[_PRODUCT])
    return GATED_NAMES, [x]


def item_columns(cont: np.ndarray, n_tok: np.ndarray) -> tuple[list[str], list[np.ndarray]]:
    """Per level: log of the number of items in the block's box, log of the mean blocks per
    item there; then the most items (log) of any level whose box holds MIN_ITEMS items or more
    averaging RICH_BLOCKS blocks, and that box's share of the page's words."""
    n = len(n_tok)
    k = len(ITEM_LEVELS)
    out = np.zeros((n, len(NAMES)))
    if n == 0:
        return NAMES, [out]
    # every level at once: element serials offset by level, so one bincount counts them all
    size = int(cont.max()) + 1
    lv = np.asarray(ITEM_LEVELS)
    off = np.arange(k) * size
    item, box = cont[:, lv], cont[:, lv + 1]
    ok = (item > 0) & (box > 0)
    box_k = np.where(ok, box + off, k * size)  # k * size: no box (a slot of its own)
    item_k = (item + off)[ok]
    parent = np.zeros(k * size + 1, dtype=np.int64)
    parent[item_k] = box_k[ok]  # an element has one parent: the same value however often
    has = np.zeros(k * size + 1, dtype=bool)
    has[item_k] = True
    n_items = np.bincount(parent[has], minlength=k * size + 1)[box_k]
    n_blocks = np.bincount(box_k.ravel(), minlength=k * size + 1)[box_k]
    per = np.where(ok, n_blocks / np.maximum(n_items, 1), 0.0)
    many = np.where(ok, np.log1p(n_items), 0.0)
    out[:, :k] = many
    out[:, k:2 * k] = np.log1p(per)
    rich = np.where((per >= RICH_BLOCKS) & (n_items >= MIN_ITEMS), many, 0.0)
    best = rich.argmax(axis=1)  # the first level of the most items, as a strict > over levels
    rows = np.arange(n)
    out[:, 2 * k] = rich[rows, best]
    if out[:, 2 * k].any():
        words = np.bincount(box_k.ravel(), weights=np.repeat(n_tok, k), minlength=k * size + 1)
        share = words[box_k[rows, best]] / max(float(n_tok.sum()), 1.0)
        out[:, 2 * k + 1] = np.where(out[:, 2 * k] > 0, share, 0.0)
    return NAMES, [out]
