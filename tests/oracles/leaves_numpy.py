"""The tree-leaf walk in numpy: the test oracle of its C part (ce_filter/score/features/_leaves.c,
``Trees.leaves``), which must find the same leaves (NaN and ties on thresholds included)."""

from __future__ import annotations

import numpy as np

from ce_filter.score.features.leaves import Trees


def leaves(trees: Trees, x: np.ndarray) -> np.ndarray:
    """``Trees.leaves`` in numpy: per block (row of ``x``) and tree, the block's leaf column."""
    feat, thr, child, miss, leaf, roots, (depth, _) = trees.flat
    n, width = x.shape
    xf = np.ascontiguousarray(x, dtype=np.float64).ravel()
    at = (np.arange(n) * width)[:, None]  # each block's row in the flat matrix
    node = np.broadcast_to(roots, (n, len(roots))).copy()
    nan = bool(np.isnan(xf).any())  # a NaN compares false: right, unless its node says left
    for _ in range(int(depth)):
        v = xf[at + feat[node]]
        go = v <= thr[node]
        if nan:
            go |= np.isnan(v) & miss[node]
        node = child[2 * node + go]  # child[2k]: k's right, child[2k + 1]: its left
    return leaf[node]
