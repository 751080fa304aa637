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
                 td: np.ndarray) -> tuple[list[str], list[np.ndarray | float]]:
    """``kind``: the page's probabilities in KINDS order (None: no estimate, all zero). The
    probabilities are page-level figures (floats); their products come as one blocks x
    (len(KIND_X) * len(KINDS)) array."""
    p = np.zeros(len(KINDS)) if kind is None else np.asarray(kind, dtype=np.float64)
    names = [f"kind_{k}" for k in KINDS]
    names += [f"kind_{k}*{xn}" for xn in KIND_X for k in KINDS]
    x = np.stack((log_tok, ld, td), axis=1)  # in KIND_X order
    cols: list[np.ndarray | float] = [float(v) for v in p.tolist()]
    cols.append((x[:, :, None] * p).reshape(n, -1))
    return names, cols
