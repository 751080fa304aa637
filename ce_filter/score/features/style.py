"""Which training corpus's annotation conventions a page resembles, as block-model input.

The training corpora were labelled to different rules: the 2012 news corpus keeps the article
body alone and leaves captions, bylines and teasers out, the modern corpus keeps a page's whole
main content on every kind of page. One weight vector fitted on both compromises between them.
Feature augmentation with an estimated domain (Daumé III, "Frustratingly easy domain
adaptation", 2007): every block gets, per training corpus c, the page's probability p_c of
resembling c's pages (Model.pagestyle, a softmax over the page signals) and p_c times a set of
dense columns, so each corpus's rule is the shared weights plus an offset the L2 penalty keeps
small unless that corpus's labels need it. A new page is weighed by the rule of the pages it
resembles."""

from __future__ import annotations

import numpy as np

from .kind import MIX_WIDE, prob_products

# the dense columns the style probabilities multiply: the block's size, link and text density,
# and the wide per-kind set (its place on the page, its tag and containers, prose mass, the
# class/id patterns)
STYLE_MIX = ("log_tok", "ld", "td") + MIX_WIDE


def style_names(style: tuple[str, ...], mix: tuple[str, ...]) -> list[str]:
    """The style columns' names, in the order ``style_columns`` gives them."""
    return [f"sty_{c}" for c in style] + [f"smix_{c}*{xn}" for xn in mix for c in style]


def style_columns(x: np.ndarray, p: np.ndarray | None, k: int) -> np.ndarray:
    """``x``: the blocks' values of the mixed columns (blocks x len(mix)); ``p``: the page's
    probabilities over the ``k`` corpora (None: no estimate, all zero). Returns blocks x
    (k + len(mix) * k): the probabilities, then x_j * p_c for every column j and corpus c."""
    n = len(x)
    pv = np.zeros(k) if p is None else np.asarray(p, dtype=np.float64)
    out = np.empty((n, k * (1 + x.shape[1])))
    out[:, :k] = pv
    out[:, k:] = prob_products(x, pv)
    return out
