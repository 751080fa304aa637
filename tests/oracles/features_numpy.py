"""numpy versions of the dense block features (the groups st, cetr, dom, rx, head, kind): the
test oracle of the C part that defines them (ce_filter/score/features/_dense.c).

The C code is the definition; these compute the same formulas with numpy's own functions
(its SIMD log1p, its pairwise sums, np.convolve), so they agree with the C part to rounding:
within ORACLE_RTOL relative (ORACLE_ATOL absolute near zero), and the k-means verdicts agree
where fed the same inputs (their clusters hinge on ties that an ulp can move).
"""

from __future__ import annotations

import numpy as np

from ce_filter.read.segment import Blocks
from ce_filter.score.features.dense import KIND_X, NAMES
from ce_filter.score.features.dom import TAG_GROUP_LUT, TAG_GROUPS, group_sum
from ce_filter.score.features.headings import (
    HEADING_MAX_WORDS,
    NEGATIVE,
    UNLIKELY,
    last_heading,
)
from ce_filter.score.features.rx import RX, RX_LEVELS, RX_MATCHER, RX_NAMES
from ce_filter.score.features.shallow import shifted  # the ctx group's, shared
from ce_filter.score.pagekind import KINDS
from tests.oracles.headings_regex import BOILER_HEADING

ORACLE_RTOL = 1e-12
ORACLE_ATOL = 1e-12

WRAP = 80  # characters per wrapped line
SIGMA = 1.0  # CETR's Gaussian smoothing, in blocks
ALPHA = 3  # CETR's derivative look-ahead, in blocks
MAIN_SHARE = 0.5  # the main container holds at least this share of the page's prose


def text_density(n_tok: np.ndarray, n_chr: np.ndarray) -> np.ndarray:
    """Tokens per 80-char line over the full lines (all tokens when the block fits on one line)."""
    lines = np.floor(n_chr / WRAP)
    full = np.where(lines > 0, n_tok * (lines * WRAP) / np.maximum(n_chr, 1.0), n_tok)
    return full / np.maximum(lines, 1.0)


def link_density(n_tok: np.ndarray, n_a: np.ndarray) -> np.ndarray:
    """Words inside links over words."""
    return np.minimum(n_a / np.maximum(n_tok, 1.0), 1.0)


def st_columns(td: np.ndarray, ld: np.ndarray) -> np.ndarray:
    return np.column_stack([td, ld, shifted(td, -1), shifted(ld, -1), shifted(td, 1), shifted(ld, 1)])


def _kernel(sigma: float) -> np.ndarray:
    r = int(np.ceil(3 * sigma))
    x = np.arange(-r, r + 1, dtype=np.float64)
    k = np.exp(-0.5 * (x / sigma) ** 2)
    return k / k.sum()


_K = _kernel(SIGMA)


def smooth(x: np.ndarray) -> np.ndarray:
    """Gaussian smoothing, the ends repeated."""
    r = len(_K) // 2
    if len(x) == 0:
        return np.zeros(0)
    return np.convolve(np.concatenate((np.full(r, x[0]), x, np.full(r, x[-1]))), _K, mode="valid")


def derivative(g: np.ndarray) -> np.ndarray:
    """|mean of the next ALPHA smoothed ratios - this one| (CETR's G')."""
    n = len(g)
    c = np.concatenate(([0.0], np.cumsum(g)))
    hi = np.minimum(np.arange(n) + ALPHA + 1, n)
    lo = np.arange(n) + 1
    cnt = np.maximum(hi - lo, 1)
    ahead = np.where(hi > lo, (c[hi] - c[lo]) / cnt, g)
    return np.abs(ahead - g)


def kmeans_verdict(a: np.ndarray, b: np.ndarray, iters: int = 4) -> np.ndarray:
    """1.0 for blocks outside the cluster nearest the origin (k=3, within the page); seeds
    the lowest, median and highest point of x + y."""
    n = len(a)
    if n < 3:
        return np.ones(n)
    x = a / (a.max() or 1.0)
    y = b / (b.max() or 1.0)
    order = np.argsort(x + y, kind="stable")
    seeds = order[[0, n // 2, n - 1]]
    cx, cy = x[seeds], y[seeds]
    for _ in range(iters + 1):
        d = (x[:, None] - cx) ** 2 + (y[:, None] - cy) ** 2
        lab = d.argmin(axis=1)
        cnt = np.bincount(lab, minlength=3)
        nz = cnt > 0
        cx = np.where(nz, np.bincount(lab, weights=x, minlength=3) / np.maximum(cnt, 1), cx)
        cy = np.where(nz, np.bincount(lab, weights=y, minlength=3) / np.maximum(cnt, 1), cy)
    boiler = int(np.argmin(cx**2 + cy**2))
    return (lab != boiler).astype(np.float64)


def cetr_columns(n_chr: np.ndarray, n_tags: np.ndarray) -> np.ndarray:
    ttr = np.log1p(n_chr / np.maximum(n_tags, 1.0))
    g = smooth(ttr)
    dg = derivative(g)
    return np.column_stack([ttr, g, dg, kmeans_verdict(g, dg)])


def _ranks(x: np.ndarray) -> np.ndarray:
    r = np.empty(len(x), dtype=np.int64)
    r[np.argsort(x, kind="stable")] = np.arange(len(x))
    return r


def _main_container(cont: np.ndarray, n_tok: np.ndarray, ld: np.ndarray) -> list[np.ndarray]:
    n = len(n_tok)
    prose = np.where(n_tok >= 8, (n_tok * (1.0 - ld)) ** 1.5, 0.0)
    total = prose.sum()
    if n == 0 or total <= 0:
        return [np.zeros(n)] * 5
    mass = np.bincount(cont.ravel(), weights=np.repeat(prose, cont.shape[1]))
    mass[0] = 0.0
    cand = np.flatnonzero(mass >= MAIN_SHARE * total)
    if len(cand):
        best = cand[np.argmin(mass[cand])]
        hit = cont == best
        in_main = hit.any(axis=1).astype(np.float64)
        below = np.where(in_main > 0, hit.argmax(axis=1), -1).astype(np.float64)
    else:
        in_main, below = np.zeros(n), np.full(n, -1.0)
    share = mass[cont] / total
    return [in_main, below, share[:, 1], share[:, 2], share[:, min(4, cont.shape[1] - 1)]]


def dom_columns(b: Blocks, n_chr: np.ndarray, n_tok: np.ndarray, ld: np.ndarray,
                td: np.ndarray, log_tok: np.ndarray) -> np.ndarray:
    n = len(b)
    n_tags = np.asarray(b.n_tags, dtype=np.float64)
    tag = np.asarray(b.tag, dtype=np.int64)
    flags = np.asarray(b.flags, dtype=np.int64)
    total = max(n_tok.sum(), 1.0)
    bits = np.unpackbits(flags.astype("<u4").view(np.uint8).reshape(n, 4), axis=1, bitorder="little")
    grp = TAG_GROUP_LUT[np.minimum(tag, len(TAG_GROUP_LUT) - 1)]
    depth = np.asarray(b.depth, dtype=np.float64)
    main = int(np.argmax(n_tok))
    cont = b.container_ids()
    mass = [group_sum(cont[:, lvl], n_tok) / total for lvl in range(3)]
    ones = np.ones(n)
    cols = [bits[:, :20].astype(np.float64),
            (grp[:, None] == np.arange(len(TAG_GROUPS))).astype(np.float64),
            *_main_container(cont, n_tok, ld),
            (ld * n_tok).sum() / total * ones, np.log1p(total) * ones, n_tok.max() / total * ones,
            td / max(td.max(), 1.0), _ranks(-n_tok) / max(n - 1, 1),
            log_tok, np.log1p(n_tags), np.log1p(depth), np.abs(depth - depth[main]),
            (cont[:, 1] == cont[main, 1]).astype(np.float64),
            np.arange(n, dtype=np.float64) / max(n - 1, 1),
            (np.cumsum(n_chr) - n_chr) / max(n_chr.sum(), 1.0), *mass,
            log_tok - log_tok.max(), np.log1p(n) * ones]
    return np.column_stack(cols)


def head_columns(texts: list[str], tag: np.ndarray, n_tok: np.ndarray, rx_own: np.ndarray) -> np.ndarray:
    n = len(texts)
    is_h, last = last_heading(tag)
    hs = np.flatnonzero(is_h)
    own, gov = np.zeros((n, 2)), np.zeros((n, 2))
    if len(hs):
        own[hs, 0] = [k <= HEADING_MAX_WORDS and BOILER_HEADING.search(texts[i].lower()) is not None
                      for i, k in zip(hs.tolist(), n_tok[hs].tolist())]
        own[hs, 1] = np.maximum(rx_own[hs, UNLIKELY], rx_own[hs, NEGATIVE])
        under = np.flatnonzero((last >= 0) & ~is_h)
        gov[under] = own[last[under]]
    return np.hstack([own, gov])


def kind_columns(kind: np.ndarray | None, log_tok: np.ndarray, ld: np.ndarray, td: np.ndarray) -> np.ndarray:
    n = len(log_tok)
    p = np.zeros(len(KINDS)) if kind is None else np.asarray(kind, dtype=np.float64)
    x = np.stack((log_tok, ld, td), axis=1)
    assert KIND_X == ("log_tok", "ld", "td")
    return np.hstack([np.tile(p, (n, 1)), (x[:, :, None] * p).reshape(n, -1)])


def oracle_columns(b: Blocks, kind: np.ndarray | None) -> dict[str, np.ndarray]:
    """Every C group's columns by numpy (blocks x width each, NAMES' widths), for a page of
    at least one block."""
    cnt = b.counts()
    n_chr, n_tok = cnt[:, 0], cnt[:, 1]
    ld = link_density(n_tok, cnt[:, 2])
    td = text_density(n_tok, n_chr)
    log_tok = np.log1p(n_tok)
    tag = np.asarray(b.tag, dtype=np.int64)
    rx = b.pattern_columns(RX, RX_MATCHER, RX_LEVELS, len(RX_NAMES))
    out = {"st": st_columns(td, ld),
           "cetr": cetr_columns(n_chr, np.asarray(b.n_tags, dtype=np.float64)),
           "dom": dom_columns(b, n_chr, n_tok, ld, td, log_tok),
           "rx": rx,
           "head": head_columns(b.texts, tag, n_tok, rx[:, :len(RX_NAMES)]),
           "kind": kind_columns(kind, log_tok, ld, td)}
    assert {g: m.shape[1] for g, m in out.items()} == {g: len(v) for g, v in NAMES.items()}
    return out
