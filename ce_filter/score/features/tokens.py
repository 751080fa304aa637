"""IC: binary features for class/id tokens (and heading words) learned from the training data."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ...read.segment import ElementTokens

if TYPE_CHECKING:
    from ...read.segment import VocabTable


def token_matrix(rows: Sequence[Iterable[str]], vocab: dict[str, int]) -> np.ndarray:
    """Block x vocab 0/1 matrix: row i has a 1 for each of its tokens in the vocab."""
    x = np.zeros((len(rows), len(vocab)))
    if vocab:
        r: list[int] = []
        c: list[int] = []
        memo: dict[Iterable[str], list[int]] = {}  # blocks of one parent share their tuple
        get = vocab.get
        for i, toks in enumerate(rows):
            cols = memo.get(toks)
            if cols is None:
                cols = memo[toks] = [j for j in map(get, toks) if j is not None]
            if cols:
                r.extend([i] * len(cols))
                c.extend(cols)
        x[r, c] = 1.0
    return x


def token_weight_sums(rows: Sequence[tuple[str, ...]], vocab: dict[str, int],
                      weights: list[float], table: VocabTable | None = None) -> np.ndarray:
    """Per block, the sum of ``weights`` over its tokens in ``vocab``: token_matrix(rows, vocab)
    @ weights without the matrix. With ``table`` (segment.vocab_table of the same vocab and
    weights) and rows from the C walk, summed in C; else here, where blocks under one element
    share one tuple object, so each tuple is summed once (memo by identity: the tuples live as
    long as the page's blocks). Both add a block's weights in column order, so they agree to
    the last bit."""
    if table is not None and isinstance(rows, ElementTokens):
        return rows.weight_sums(table)
    memo: dict[int, float] = {}
    get = vocab.get
    out = []
    for toks in rows:
        v = memo.get(id(toks))
        if v is None:  # a token counts once, however often the ancestors repeat it (0/1 features)
            cols = {j for j in map(get, toks) if j is not None}
            v = 0.0
            for j in sorted(cols):
                v += weights[j]
            memo[id(toks)] = v
        out.append(v)
    return np.array(out, dtype=np.float64)


def select_tokens(
    rows: Sequence[Iterable[str]],
    labels: np.ndarray,
    *,
    odds: float = 2.5,
    min_frac: float = 0.01,
    page_of_row: np.ndarray | None = None,
    min_pages: int = 0,
    max_tokens: int | None = None,
) -> list[str]:
    """The paper's rule: tokens in > ``min_frac`` of blocks whose content:boilerplate odds are
    >= ``odds`` or <= 1/``odds`` (odds = share of content blocks with the token over the share
    of boilerplate blocks with it). ``min_pages`` also asks for the token on that many pages,
    so one big site cannot fill the list with its own names; ``odds=1`` keeps every frequent
    token and leaves the weighting to the regression; ``max_tokens`` keeps the most frequent."""
    pos: Counter[str] = Counter()
    neg: Counter[str] = Counter()
    for toks, y in zip(rows, labels):
        (pos if y else neg).update(set(toks))
    pages: Counter[str] = Counter()
    if min_pages and page_of_row is not None:
        seen: dict[int, set[str]] = {}
        for toks, pg in zip(rows, page_of_row.tolist()):
            seen.setdefault(pg, set()).update(toks)
        for toks in seen.values():
            pages.update(toks)
    n_pos = max(int(labels.sum()), 1)
    n_neg = max(len(labels) - n_pos, 1)
    out = []
    for t in sorted(set(pos) | set(neg)):
        p, q = pos[t], neg[t]
        if p + q <= min_frac * len(labels) or (min_pages and pages[t] < min_pages):
            continue
        r = ((p + 0.5) / n_pos) / ((q + 0.5) / n_neg)
        if r >= odds or r <= 1.0 / odds:
            out.append(t)
    if max_tokens is not None and len(out) > max_tokens:
        out = sorted(sorted(out, key=lambda t: -(pos[t] + neg[t]))[:max_tokens])
    return out
