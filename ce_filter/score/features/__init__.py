"""Block features, one module per group, assembled here into the page's matrix.

Groups (each switchable, for the ablation): ``st`` shallow text (shallow.py), ``cetr`` tag
ratios (cetr.py), ``ic`` class/id tokens (tokens.py), ``dom`` tree and page position
(dom.py), ``text`` characters and words (text.py), ``ctx`` windowed neighbours (context.py),
``rx`` readability's class/id patterns (rx.py), ``head`` the governing heading (headings.py),
``kind`` the page-kind probabilities and their products with block figures (kind.py),
``struct`` repeated structures (struct.py), ``cmt`` comment sections (comments.py), ``shop``
shop-page boilerplate cues (shop.py), ``item`` repeated multi-block items (item.py; ``itemg``
the same off product pages), ``ritem`` groups of same-shaped sibling items (repitem.py: how
many, their share of the page, link text, heading and price per item; computed in C;
``ritemg`` the same off article and product pages; ``ritemlc`` the same times the page's
listing + collection probability, zero under the spec's ``ritem_min_p``). A spec's
``kind_mix`` appends, after every group, the products of the named dense columns with each
kind's probability (kind.py); its ``style`` the page's probabilities of resembling each
training corpus and their products with the ``style_mix`` columns (style.py), after those.
Stage 2's context input is in context.py too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, overload

import numpy as np

from ...read.segment import PATH_LEN, Blocks
from . import dense
from .comments import CMT_NAMES, cmt_columns
from .context import CONTAINER_LEVELS, CONTEXT, context_features, ctx_columns, stage2_inputs
from .dom import group_sum
from .headings import heading_words
from .item import NAMES as ITEM_NAMES
from .item import gated_item_columns, item_columns
from .kind import kind_mix_columns, kind_mix_names
from .repitem import GATED_NAMES as RITEMG_NAMES
from .repitem import LC_NAMES as RITEMLC_NAMES
from .repitem import NAMES as RITEM_NAMES
from .repitem import gated_ritem_columns, lc_ritem_columns, lc_ritem_matrix, ritem_columns
from .rx import RX, RX_LEVELS, RX_NAMES
from .shop import SHOP_NAMES, shop_columns, shop_matrix
from .spec import AFTER_GROUPS, GROUPS, TOKEN_PREFIXES, FeatureSpec, TokenRows
from .struct import struct_columns
from .style import style_columns, style_names
from .text import text_columns
from .tokens import token_matrix

# a feature column: an array (blocks,) or (blocks, k), or a float, the same on every block
# (a page-level figure, broadcast by stack_columns)
Column = np.ndarray | float

# a research hook: the cetr group's columns from (characters, tags) per block in place of the
# C part's (the paper's own variant of CETR, research/table2.py); None: the C part's
CETR_COLUMNS: Callable[[np.ndarray, np.ndarray], tuple[list[str], list[np.ndarray]]] | None = None

__all__ = [
    "CONTAINER_LEVELS", "CONTEXT", "GROUPS", "RX", "RX_LEVELS", "RX_NAMES", "TOKEN_PREFIXES",
    "FeatureSpec", "TokenRows", "context_features", "feature_names", "group_sum", "heading_words",
    "page_features", "page_inputs", "stage2_inputs",
]


def page_features(b: Blocks, spec: FeatureSpec, kind: np.ndarray | None = None,
                  style: np.ndarray | None = None) -> np.ndarray:
    """The page's feature matrix (blocks x features), columns in ``feature_names`` order.
    ``kind``: the page-kind probabilities (the ``kind`` group's input); ``style``: the
    page-style probabilities (the spec's ``style`` columns)."""
    x = stack_columns(len(b), group_columns(b, spec, kind=kind))
    return _with_mix(x, spec, kind, style, dense=False)


# spec.AFTER_GROUPS (page_inputs fills them after the C part's columns): width, blocks x width
_AFTER: dict[str, tuple[int, Callable[[Blocks, FeatureSpec, np.ndarray | None], np.ndarray]]] = {
    "cmt": (len(CMT_NAMES), lambda b, spec, kind: cmt_columns(b)[1][0]),
    "shop": (len(SHOP_NAMES), lambda b, spec, kind: shop_matrix(b, kind, spec.shop_min_p)),
    "item": (len(ITEM_NAMES),
             lambda b, spec, kind: item_columns(b.container_ids(), b.token_counts())[1][0]),
    "itemg": (len(ITEM_NAMES), lambda b, spec, kind: gated_item_columns(
        b.container_ids(), b.token_counts(), kind)[1][0]),
    "ritem": (len(RITEM_NAMES), lambda b, spec, kind: ritem_columns(b)[1][0]),
    "ritemg": (len(RITEMG_NAMES), lambda b, spec, kind: gated_ritem_columns(b, kind)[1][0]),
    "ritemlc": (len(RITEMLC_NAMES), lambda b, spec, kind: lc_ritem_matrix(b, kind, spec.ritem_min_p)),
}
assert tuple(_AFTER) == AFTER_GROUPS


def page_inputs(b: Blocks, spec: FeatureSpec, kind: np.ndarray | None = None,
                style: np.ndarray | None = None) -> tuple[np.ndarray, list[TokenRows]]:
    """For serving: the dense columns (``feature_names`` minus the token-list columns, in
    order) and, per token list, (name prefix, each block's tokens, vocab). A block has a
    handful of a list's hundreds of tokens, so the model adds their weights (Model.scores)
    instead of filling and multiplying a mostly-zero blocks x vocab matrix. The C part's groups
    in one call where the spec has no other groups before the last (dense.handles), else
    through ``group_columns`` (the same values)."""
    if len(b) and dense.handles(spec) and CETR_COLUMNS is None:
        extra = after_width(spec)
        x, tokens = dense.page_inputs(b, spec, kind, extra)
        if extra:
            x[:, x.shape[1] - extra:] = after_columns(b, spec, kind, extra)
    else:
        tokens = []
        x = stack_columns(len(b), group_columns(b, spec, tokens=tokens, kind=kind))
    return _with_mix(x, spec, kind, style, dense=True), tokens


def after_width(spec: FeatureSpec) -> int:
    """The width of the spec's last groups (AFTER_GROUPS): their columns follow the C part's."""
    return sum(_AFTER[g][0] for g in AFTER_GROUPS if g in spec.groups)


def after_columns(b: Blocks, spec: FeatureSpec, kind: np.ndarray | None, extra: int) -> np.ndarray:
    """The spec's last groups' columns (blocks x ``extra``: ``after_width``), in their order."""
    out = np.empty((len(b), extra))
    j = 0
    for g in AFTER_GROUPS:
        if g in spec.groups:
            w, fill = _AFTER[g]
            out[:, j:j + w] = fill(b, spec, kind)
            j += w
    return out


def pass_layout(spec: FeatureSpec) -> tuple[dict[str, int], int, int] | None:
    """For the pass after the walk (ce_filter/_pass.c, blockmodel.Model.pass_plan): each C
    group's first column in the dense row, the C groups' width and the last groups' of a spec
    whose dense row is those and the shop group's (which the pass computes: its last groups are
    none other; no kind or style mix columns, no research CETR variant); None for another spec,
    which takes the general path."""
    if (not dense.handles(spec) or spec.kind_mix or spec.style or CETR_COLUMNS is not None
            or set(spec.groups) & set(AFTER_GROUPS) - {"shop"}):
        return None
    off, width = dense.layout(spec)
    return off, width, after_width(spec)


def _with_mix(x: np.ndarray, spec: FeatureSpec, kind: np.ndarray | None,
              style: np.ndarray | None, dense: bool) -> np.ndarray:
    """``x`` (the groups' columns: all of them, or the dense ones) with the spec's ``kind_mix``
    and ``style`` columns appended (none: ``x`` itself)."""
    parts = [x]
    if spec.kind_mix:
        parts.append(kind_mix_columns(x[:, _mix_at(spec, "kind_mix")[int(dense)]], kind))
    if spec.style:
        at = _mix_at(spec, "style_mix")[int(dense)]
        parts.append(style_columns(x[:, at], style, len(spec.style)))
    return x if len(parts) == 1 else np.hstack(parts)


def _mix_at(spec: FeatureSpec, key: str) -> tuple[np.ndarray, np.ndarray]:
    """Where the columns named by the spec's ``key`` (kind_mix, style_mix) sit among the
    groups' columns: among all of them, and among the dense ones (cached on the spec).
    ValueError for a name that is no dense column of the spec's groups, or kind_mix in a
    spec without the ``kind`` group."""
    at = spec.__dict__.get("_at_" + key)
    if at is None:
        if key == "kind_mix" and "kind" not in spec.groups:
            raise ValueError("kind_mix needs the kind feature group")
        names = group_columns(_probe(), spec, names_only=True)
        dense_names = [n for n in names if not n.startswith(TOKEN_PREFIXES)]
        mix = getattr(spec, key)
        for n in mix:
            if n not in dense_names:
                raise ValueError(f"{key}: {n!r} is not a dense column of {spec.groups}")
        at = spec.__dict__["_at_" + key] = tuple(np.array([ns.index(n) for n in mix], dtype=np.int64)
                                                 for ns in (names, dense_names))
    return at


def stack_columns(n: int, cols: Sequence[Column]) -> np.ndarray:
    """The columns side by side. A column is an array (n,) or (n, k), or a float: the same
    value on every block (page-level figures), written by broadcasting instead of filled."""
    widths = [c.shape[1] if isinstance(c, np.ndarray) and c.ndim == 2 else 1 for c in cols]
    out = np.empty((n, sum(widths)))
    j = 0
    for c, w in zip(cols, widths):
        if isinstance(c, np.ndarray) and c.ndim == 2:  # (n, k), k = 1 too
            out[:, j:j + w] = c
        else:
            out[:, j] = c
        j += w
    return out


def _probe() -> Blocks:
    """A one-block page: what the names of the columns are read from."""
    return Blocks(texts=["x"], anchor_texts=[""], n_tags=[1], tag=[0], depth=[0], flags=[0],
                  container=[(1,) + (0,) * (PATH_LEN - 1)], own_tokens=[()], anc_tokens=[()])


def feature_names(spec: FeatureSpec) -> list[str]:
    names = group_columns(_probe(), spec, names_only=True)
    if spec.kind_mix:
        _mix_at(spec, "kind_mix")  # checks the names
        names += kind_mix_names(spec.kind_mix)
    if spec.style:
        _mix_at(spec, "style_mix")  # likewise
        names += style_names(spec.style, spec.style_mix)
    return names


@overload
def group_columns(b: Blocks, spec: FeatureSpec, names_only: Literal[True],
             tokens: list[TokenRows] | None = None, kind: np.ndarray | None = None) -> list[str]: ...


@overload
def group_columns(b: Blocks, spec: FeatureSpec, names_only: Literal[False] = False,
             tokens: list[TokenRows] | None = None, kind: np.ndarray | None = None) -> list[Column]: ...


def group_columns(b: Blocks, spec: FeatureSpec, names_only: bool = False,
             tokens: list[TokenRows] | None = None, kind: np.ndarray | None = None
             ) -> list[str] | list[Column]:
    """The groups of ``spec`` in their fixed order. A token list is named (``names_only``),
    handed to the serving path as rows (``tokens``) or filled in as a 0/1 matrix."""
    g = set(spec.groups)
    names: list[str] = []
    cols: list[Column] = []

    def add(ns: list[str], cs: Sequence[Column]) -> None:
        names.extend(ns)
        cols.extend(cs)

    def token_list(prefix: str, vocab_list: list[str], rows: Sequence[tuple[str, ...]],
                   vocab: dict[str, int]) -> None:
        if names_only:
            names.extend(f"{prefix}{t}" for t in vocab_list)
        elif tokens is not None:
            tokens.append((prefix, rows, vocab))
        else:
            cols.append(token_matrix(rows, vocab))

    cnt = b.counts()
    n_chr, n_tok = cnt[:, 0], cnt[:, 1]
    tag = np.asarray(b.tag, dtype=np.int64)
    c = dense.all_columns(b, kind)  # the C part's groups: the block figures the others read too
    td, ld, log_tok = c["st"][:, 0], c["st"][:, 1], c["dom"][:, dense.DOM_NAMES.index("log_tok")]

    def c_group(name: str) -> None:
        add(list(dense.NAMES[name]), [c[name]])

    if "st" in g:
        c_group("st")
    if "cetr" in g:
        if CETR_COLUMNS is not None:
            add(*CETR_COLUMNS(n_chr, np.asarray(b.n_tags, dtype=np.float64)))
        else:
            c_group("cetr")
    if "ic" in g:
        v_own, v_anc, _ = spec.vocabs()
        token_list("ic_own:", spec.ic_own, b.own_tokens, v_own)
        token_list("ic_anc:", spec.ic_anc, b.anc_tokens, v_anc)
    if "dom" in g:
        c_group("dom")
    if "text" in g:
        add(*text_columns(b, n_chr, n_tok))
        if "ic" in g:
            rows = [] if names_only else heading_words(b.texts, tag)
            token_list("head:", spec.heading_words, rows, spec.vocabs()[2])
    if "rx" in g:
        c_group("rx")
    if "head" in g:
        c_group("head")
    if "ctx" in g:
        add(*ctx_columns(log_tok, ld, td))
    if "kind" in g:
        c_group("kind")
    if "struct" in g:
        add(*struct_columns(b.container_ids(), tag, n_tok, cnt[:, 2]))
    # the last groups (spec.AFTER_GROUPS): the serving path appends them to the C part's columns
    if "cmt" in g:
        add(*cmt_columns(b))
    if "shop" in g:
        add(*shop_columns(b, tag, n_tok, kind, spec.shop_min_p))
    if "item" in g:
        add(*item_columns(b.container_ids(), n_tok))
    if "itemg" in g:
        add(*gated_item_columns(b.container_ids(), n_tok, kind))
    if "ritem" in g:
        add(*ritem_columns(b))
    if "ritemg" in g:
        add(*gated_ritem_columns(b, kind))
    if "ritemlc" in g:
        add(*lc_ritem_columns(b, kind, spec.ritem_min_p))
    return names if names_only else cols

