"""Repeated structures (group ``struct``): cards in a grid, items of a listing, posts of a
thread, rows of a spec table are blocks of one tag under one ancestor, many times over. A
listing's card titles are short and link-heavy like a menu's items; what tells them apart is
how many there are, how much of the page they hold and how link-heavy the whole group is."""

from __future__ import annotations

import numpy as np

REP_LEVELS = (1, 2, 3)  # the ancestor (nearest first) whose blocks of one tag form a group


def _groups(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(group index of each block, group sizes)."""
    _, inv, cnt = np.unique(key, return_inverse=True, return_counts=True)
    return inv.reshape(-1), cnt


def struct_columns(cont: np.ndarray, tag: np.ndarray, n_tok: np.ndarray, n_link: np.ndarray
                   ) -> tuple[list[str], list[np.ndarray]]:
    """Per level: the size of the block's group (log), and for level 2 also the group's share
    of the page's words, its link density and its mean block size (log)."""
    n = len(tag)
    names: list[str] = []
    cols: list[np.ndarray] = []
    total = max(float(n_tok.sum()), 1.0)
    for lvl in REP_LEVELS:
        anc = cont[:, lvl] if n else np.zeros(0, dtype=np.int64)
        # no ancestor recorded at this level (the block is near the root): a group of its own
        key = np.where(anc > 0, anc * 65536 + tag, -1 - np.arange(n))
        inv, cnt = _groups(key) if n else (np.zeros(0, dtype=np.int64), np.zeros(0))
        names.append(f"rep{lvl}")
        cols.append(np.log1p(cnt[inv] - 1.0) if n else np.zeros(0))
        if lvl == 2:
            tok = np.bincount(inv, weights=n_tok) if n else np.zeros(0)
            link = np.bincount(inv, weights=n_link) if n else np.zeros(0)
            names += ["rep2_share", "rep2_ld", "rep2_size"]
            cols += [tok[inv] / total if n else np.zeros(0),
                     link[inv] / np.maximum(tok[inv], 1.0) if n else np.zeros(0),
                     np.log1p(tok[inv] / cnt[inv]) if n else np.zeros(0)]
    return names, cols
