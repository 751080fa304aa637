"""The page kind as block-model input (group ``kind``): the page-kind model's probabilities
(ce_filter.score.pagekind), the same on every block of the page, and their products with a few of
the block's own figures, so one weight vector can weigh a short link-heavy block one way on an
article and another on a listing."""

from __future__ import annotations

import numpy as np

from ..pagekind import KINDS

# Per-kind weights for more block columns ("frustratingly easy" feature augmentation): a
# FeatureSpec with ``kind_mix`` also gets p_k * x_j for every kind k and each named dense column
# j, so each kind's weight for x_j is the shared weight plus a kind offset that the L2 penalty
# keeps small unless the kind's pages need it. The two sets measured (docs/research/ABLATION.md): the
# compact one reads the block's place on the page and its tag, the wide one adds containers,
# prose mass and the class/id patterns. Columns the ``kind`` group already multiplies
# (dense.KIND_X) are left out.
MIX_COMPACT = ("ld_prev", "ld_next", "td_rel", "log_tok_vs_max", "main_box", "below_main_box",
               "depth_vs_main", "pos", "char_pos", "in_nav", "in_footer", "in_aside", "tag_p",
               "tag_div", "tag_li", "tag_head")
MIX_WIDE = MIX_COMPACT + ("in_li", "in_list", "in_table", "in_header", "in_form", "in_main",
                          "in_article", "in_p", "tag_cell", "prose4", "page_ld", "mass0",
                          "rx_anc_unlikely", "rx_anc_negative", "head_lex", "gov_head_lex")


def kind_mix_names(mix: tuple[str, ...]) -> list[str]:
    """The names of the mixed columns, in the order ``kind_mix_columns`` gives them."""
    return [f"kmix_{k}*{xn}" for xn in mix for k in KINDS]


def prob_products(x: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Every column of ``x`` (blocks x m) times every probability of ``p`` (k): blocks x
    (m * k), column by column, probabilities inner. The one layout of the kind and style
    products (kind_mix, features.style, stage 2's context.kind_context)."""
    return (x[:, :, None] * p).reshape(len(x), -1)


def kind_mix_columns(x: np.ndarray, kind: np.ndarray | None) -> np.ndarray:
    """``x``: the blocks' values of the mixed columns (blocks x len(mix)); ``kind`` as in
    the kind group. Returns blocks x (len(mix) * len(KINDS)), each column x_j * p_k."""
    return prob_products(x, np.zeros(len(KINDS)) if kind is None else np.asarray(kind, dtype=np.float64))
