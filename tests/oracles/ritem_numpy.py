"""numpy version of the repeated-items group ``ritem`` (features.repitem): the test oracle of
the C part that defines it (``_dense.c``'s ``ritem``). The same formulas with numpy's own
functions (np.unique, bincount, its SIMD log1p), so they agree with the C part to rounding:
within ORACLE_RTOL relative (ORACLE_ATOL absolute near zero)."""

from __future__ import annotations

import re

import numpy as np

from ce_filter.read.segment import HEADINGS, Blocks
from ce_filter.score.features.repitem import NAMES

ORACLE_RTOL = 1e-12
ORACLE_ATOL = 1e-12

LEVELS = (1, 2, 3)  # the item: the ancestor this many levels up; its box one level further
MIN_ITEMS = 3
_SIGN = "[$\u00a3\u00a5\u20ac\u20b9\u20bd]"  # $ £ ¥ € ₹ ₽
PRICE = re.compile(f"{_SIGN}[ \u00a0]?[0-9]|[0-9][ \u00a0]?{_SIGN}")
_HEAD = np.array(sorted(HEADINGS), dtype=np.int64)


def _group_figures(gid: np.ndarray, item: np.ndarray, tok: np.ndarray, link: np.ndarray,
                   is_head: np.ndarray, price: np.ndarray, ng: int) -> tuple[np.ndarray, ...]:
    """Per group: items, words, link words, items with a heading block, items with a price."""
    span = int(item.max()) + 1
    uk, inv = np.unique(gid * span + item, return_inverse=True)
    hh = np.zeros(len(uk))
    pp = np.zeros(len(uk))
    np.maximum.at(hh, inv.reshape(-1), is_head.astype(np.float64))
    np.maximum.at(pp, inv.reshape(-1), price.astype(np.float64))
    g_of = uk // span
    return (np.bincount(g_of, minlength=ng).astype(np.float64),
            np.bincount(gid, weights=tok, minlength=ng), np.bincount(gid, weights=link, minlength=ng),
            np.bincount(g_of, weights=hh, minlength=ng), np.bincount(g_of, weights=pp, minlength=ng))


def ritem_oracle(b: Blocks) -> np.ndarray:
    """The ritem columns (blocks x len(NAMES))."""
    n = len(b)
    out = np.zeros((n, len(NAMES)))
    if n == 0:
        return out
    cont = b.container_ids()
    cnt = b.counts()
    tok, link = cnt[:, 1], cnt[:, 2]
    total = max(float(tok.sum()), 1.0)
    tag = np.asarray(b.tag, dtype=np.int64)
    is_head = np.isin(tag, _HEAD)
    price = np.fromiter((bool(PRICE.search(t)) for t in b.texts), dtype=bool, count=n)
    best = np.zeros(n)
    for lvl in LEVELS:
        item, box = cont[:, lvl], cont[:, lvl + 1]
        ok = (item > 0) & (box > 0)
        if not ok.any():
            continue
        _, first = np.unique(item, return_index=True)  # an item's shape: its first block's tag
        lookup = np.zeros(int(item.max()) + 1, dtype=np.int64)
        lookup[item[first]] = tag[first]
        key = box[ok] * 4096 + lookup[item[ok]]
        ukeys, gid = np.unique(key, return_inverse=True)
        gid = gid.reshape(-1)
        items, words, lw, heads, prices = _group_figures(
            gid, item[ok], tok[ok], link[ok], is_head[ok], price[ok], len(ukeys))
        it = items[gid]
        rows = np.flatnonzero(ok)
        sel = (it >= MIN_ITEMS) & (it > best[rows])  # strictly more items: the nearest level wins ties
        r, g = rows[sel], gid[sel]
        best[r] = items[g]
        out[r, 0] = np.log1p(items[g])
        out[r, 1] = words[g] / total
        out[r, 2] = lw[g] / np.maximum(words[g], 1.0)
        out[r, 3] = np.log1p(words[g] / items[g])
        out[r, 4] = heads[g] / items[g]
        out[r, 5] = prices[g] / items[g]
        out[r, 6] = is_head[r]
    return out
