"""Context: the block's neighbours. Stage 1's optional "ctx" group (windowed means of its own
figures) and stage 2's input (the stage-1 scores of the neighbours and of the blocks sharing
its ancestors), both from reading order and the DOM."""

from __future__ import annotations

from typing import Protocol, cast

import numpy as np

from ... import native
from ...read.segment import PATH_LEN, Blocks
from .dense import smooth
from .dom import group_sum
from .kind import prob_products
from .shallow import shifted

CONTEXT = 3  # stage 2 looks at this many blocks on each side
CONTAINER_LEVELS = (1, 2, 3)
# the stage-2 columns multiplied by the page-kind probabilities in best+kind+s2k ("one": the
# probabilities themselves; the block's own score, the three ancestors' mean scores, the page
# mean, score / page max): how far a block follows its container and its page may differ by kind
# (a card in a listing's grid)
STAGE2_KIND_COLUMNS = ("one", "s", "anc1", "anc2", "anc3", "page_mean", "page_rel")
# the stage-2 columns multiplied by the page-style probabilities in ...+s2sty: a style's own
# intercept, the block's own score and score / page max (how high a page of that corpus's
# rules cuts, absolutely and relative to its best block)
STAGE2_STYLE_COLUMNS = ("one", "s", "page_rel")
# best+kind+s2ka: the ancestors' mean scores only (no kind intercepts, no own or page scores)
STAGE2_KIND_ANCESTORS = ("anc1", "anc2", "anc3")


def _window_mean(x: np.ndarray, r: int) -> np.ndarray:
    c = np.concatenate(([0.0], np.cumsum(x)))
    n = len(x)
    idx = np.arange(n)
    lo = np.maximum(idx - r, 0)
    hi = np.minimum(idx + r + 1, n)
    return (c[hi] - c[lo]) / (hi - lo)


def ctx_columns(log_tok: np.ndarray, ld: np.ndarray, td: np.ndarray) -> tuple[list[str], list[np.ndarray]]:
    return (["log_tok_w2", "log_tok_w5", "ld_w2", "ld_w5", "td_smooth", "td_prev2", "td_next2"],
            [_window_mean(log_tok, 2), _window_mean(log_tok, 5), _window_mean(ld, 2),
             _window_mean(ld, 5), smooth(td), shifted(td, -2), shifted(td, 2)])


def stage2_inputs(blocks: Blocks) -> tuple[np.ndarray, np.ndarray]:
    """Ancestor ids and token counts of the blocks, for stage 2's container means."""
    return blocks.container_ids(), blocks.token_counts()


def context_features(s: np.ndarray, cont: np.ndarray | None = None,
                     weight: np.ndarray | None = None, page_rel: bool = False) -> np.ndarray:
    """Stage-2 input: the block's own score, its neighbours' (0.5 past the page ends), the
    windowed means, the page mean, and the weighted mean score of the blocks sharing each of
    the block's nearest ancestors (context in the DOM, not only in reading order).

    ``page_rel`` adds the score over the page's best score: a page whose article scores low
    everywhere (a caption, a short summary) still keeps its best blocks, and a page of many
    confident blocks drops the doubtful ones (docs/RESULTS.md, stage 2 with the page max)."""
    n = len(s)
    out = np.empty((n, 2 * CONTEXT + 4 + len(CONTAINER_LEVELS) + int(page_rel)))
    if n == 0:
        return out
    pad = np.full(n + 2 * CONTEXT, 0.5)
    pad[CONTEXT:CONTEXT + n] = s
    # the block and its neighbours, 0.5 past the page ends
    for k in range(2 * CONTEXT + 1):
        out[:, k] = pad[k:k + n]
    c = np.zeros(n + 1)
    np.cumsum(s, out=c[1:])
    idx = np.arange(n)
    for j, r in enumerate((5, 15), start=2 * CONTEXT + 1):
        lo, hi = np.maximum(idx - r, 0), np.minimum(idx + r + 1, n)
        out[:, j] = (c[hi] - c[lo]) / np.maximum(hi - lo, 1)
    out[:, 2 * CONTEXT + 3] = s.sum() / n  # what s.mean() computes, without its overhead
    at = 2 * CONTEXT + 4
    _ancestor_means(s, cont, weight, CONTAINER_LEVELS, out[:, at:at + len(CONTAINER_LEVELS)])
    if page_rel:
        out[:, -1] = s / max(float(s.max()), 1e-6)
    return out


class ContextC(Protocol):
    """The function of the C part (score/features/_dense.c) that fills stage 2's input."""

    def context(self, n: int, s: np.ndarray, cont: np.ndarray | None, weight: np.ndarray | None,
                page_rel: bool, s_sum: float, path_len: int, out: np.ndarray, /) -> None: ...


_C = cast(ContextC, native.required("_pass"))


def context_inputs(s: np.ndarray, cont: np.ndarray | None = None,
                   weight: np.ndarray | None = None, page_rel: bool = False) -> np.ndarray:
    """``context_features`` through the C part (the same bits: its sums are numpy's order)."""
    n = len(s)
    out = np.empty((n, 2 * CONTEXT + 4 + len(CONTAINER_LEVELS) + int(page_rel)))
    if n == 0:
        return out
    s = np.ascontiguousarray(s, dtype=np.float64)
    _C.context(n, s, None if cont is None else np.ascontiguousarray(cont, dtype=np.int64),
               None if weight is None else np.ascontiguousarray(weight, dtype=np.float64),
               page_rel, float(s.sum()), PATH_LEN if cont is None else cont.shape[1], out)
    return out


def deep_columns(s: np.ndarray, cont: np.ndarray | None, weight: np.ndarray | None,
                 levels: tuple[int, ...]) -> np.ndarray:
    """Stage 2's optional farther ancestors (Model.stage2_deep): per level, the weighted mean
    score of the blocks sharing the block's ancestor that many steps up. CONTAINER_LEVELS reach
    a card or a post; a grid of cards or a page's main column sits farther up."""
    out = np.empty((len(s), len(levels)))
    _ancestor_means(s, cont, weight, levels, out)
    return out


def _ancestor_means(s: np.ndarray, cont: np.ndarray | None, weight: np.ndarray | None,
                    levels: tuple[int, ...], out: np.ndarray) -> None:
    """Into ``out``'s columns, per level: the ``weight``-weighted mean score of the blocks
    sharing the block's ancestor at that level (no ancestor ids: the block's own score)."""
    if cont is None:
        out[:] = s[:, None]
        return
    w = weight if weight is not None else np.ones(len(s))
    sw = s * w
    for j, lvl in enumerate(levels):
        ids = cont[:, lvl]
        out[:, j] = group_sum(ids, sw) / np.maximum(group_sum(ids, w), 1e-9)


def with_deep(x: np.ndarray, s: np.ndarray, cont: np.ndarray | None, weight: np.ndarray | None,
              levels: tuple[int, ...]) -> np.ndarray:
    """Stage 2's columns ``x`` with deep_columns appended (none: ``x`` itself)."""
    return np.hstack((x, deep_columns(s, cont, weight, levels))) if levels else x


# stage 2's optional signature-group columns (Model.stage2_sig), after its other columns
SIGNATURE_COLUMNS = ("sig_mean", "sig_log_n", "sig_rep_mean")


def signature_groups(blocks: Blocks) -> np.ndarray:
    """Each block's group of structurally alike blocks on its page (ids 0, 1, ... by first
    appearance): the same opening tag at the same depth under the same chain of class/id
    tokens, its own and its ancestors'. The cards of a grid, the posts of a thread and the
    entries of a menu each fall into one group, wherever they sit in reading order."""
    keys: dict[tuple, int] = {}
    rows = zip(np.asarray(blocks.tag).tolist(), np.asarray(blocks.depth).tolist(),
               blocks.own_tokens, blocks.anc_tokens)
    return np.fromiter((keys.setdefault(k, len(keys)) for k in rows), dtype=np.int64,
                       count=len(blocks))


def signature_columns(s: np.ndarray, groups: np.ndarray, weight: np.ndarray | None) -> np.ndarray:
    """Stage 2's signature-group columns: the mean stage-1 score of the block's group (blocks
    weighed by the square root of their size), the log of its size, and the mean again where
    the group repeats (0 for a block alone). One card title that reads as content lifts the
    titles of the other cards of its grid; one menu entry that does not pulls its menu down."""
    w = np.sqrt(np.maximum(weight, 1.0)) if weight is not None else np.ones(len(s))
    mean = (np.bincount(groups, s * w) / np.bincount(groups, w))[groups]
    n = np.bincount(groups)[groups].astype(np.float64)
    return np.column_stack([mean, np.log(np.maximum(n, 1.0)), np.where(n > 1, mean, 0.0)])


def stage2_columns(page_rel: bool = False) -> list[str]:
    """Short names of context_features' columns, in its order (what a model's
    ``stage2_kind`` names, with "one" for the kind probabilities themselves)."""
    return ([f"s{k:+d}" if k else "s" for k in range(-CONTEXT, CONTEXT + 1)]
            + ["w5", "w15", "page_mean"] + [f"anc{lvl}" for lvl in CONTAINER_LEVELS]
            + ["page_rel"] * page_rel)


def kind_context(base: np.ndarray, kind: np.ndarray, cols: list[int]) -> np.ndarray:
    """Stage 2's input with the page kind: ``base`` (context_features' columns), then each of
    ``base``'s columns ``cols`` (-1: a column of ones) times each kind probability (column by
    column, kinds inner). How much a block should follow its neighbours and containers differs
    by kind, which one weight per column cannot say."""
    n, w = base.shape
    k = len(kind)
    ext = np.concatenate([base, np.ones((n, 1))], axis=1)  # index -1: the ones
    out = np.empty((n, w + k * len(cols)))
    out[:, :w] = base
    out[:, w:] = prob_products(ext[:, cols], kind)
    return out
