"""The cut and the plain two-stage scores in numpy: the test oracle of the block model's C part
(ce_filter/score/_blockmodel.c: ``blockmodel.select_c`` and ``blockmodel.scores_c``). The cut
must keep the same blocks; the scores agree to SCORE_ATOL (the C dot products add in column
order, numpy's einsum in its own)."""

from __future__ import annotations

import numpy as np

from ce_filter.score.blockmodel import FALLBACK_REL, sigmoid
from ce_filter.score.features import context_features

SCORE_ATOL = 1e-12


def select(scores: np.ndarray, threshold: float, in_code: np.ndarray | None = None) -> np.ndarray:
    """``blockmodel.select``: the blocks at or above ``threshold``, else those within
    FALLBACK_REL of the best; then the code blocks (``in_code``) inside the kept span."""
    keep = scores >= threshold
    if not keep.any() and len(scores):
        keep = scores >= scores.max() * FALLBACK_REL
    if in_code is not None and keep.any():
        kept = np.flatnonzero(keep)
        span = np.zeros(len(keep), dtype=bool)
        span[kept[0] + 1: kept[-1]] = True
        keep |= in_code & span
    return keep


def scores(x: np.ndarray, w: np.ndarray, b: float, tok: np.ndarray | None, w2: np.ndarray | None,
           b2: float, page_rel: bool, cont: np.ndarray | None, weight: np.ndarray | None
           ) -> np.ndarray:
    """``blockmodel.scores_c``: stage 1 over the dense columns and token sums, then stage 2
    over the context of stage 1's probabilities (w2 None: no stage 2)."""
    s1 = sigmoid(np.einsum("ij,j->i", x, w) + b + (0.0 if tok is None else tok))
    if w2 is None:
        return s1
    return sigmoid(np.einsum("ij,j->i", context_features(s1, cont, weight, page_rel), w2) + b2)
