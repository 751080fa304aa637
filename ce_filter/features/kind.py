"""The page kind as block-model input (group ``kind``): the page-kind model's probabilities
(ce_filter.pagekind), the same on every block of the page, and their products with a few of
the block's own figures, so one weight vector can weigh a short link-heavy block one way on an
article and another on a listing."""

from __future__ import annotations

import numpy as np

from ..pagekind import KINDS

# the block figures the kind probabilities multiply
KIND_X = ("log_tok", "ld", "td")


def kind_columns(kind: np.ndarray | None, n: int, log_tok: np.ndarray, ld: np.ndarray,
                 td: np.ndarray) -> tuple[list[str], list[np.ndarray]]:
    """``kind``: the page's probabilities in KINDS order (None: no estimate, all zero)."""
    p = np.zeros(len(KINDS)) if kind is None else np.asarray(kind, dtype=np.float64)
    names = [f"kind_{k}" for k in KINDS]
    cols = [np.full(n, v) for v in p]
    for xn, x in zip(KIND_X, (log_tok, ld, td)):
        names += [f"kind_{k}*{xn}" for k in KINDS]
        cols.append(np.outer(x, p))
    return names, cols
