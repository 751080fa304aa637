"""CETR (Weninger et al. 2010) per block: smoothed text-to-tag ratio, its derivative, k-means verdict."""

from __future__ import annotations

from types import ModuleType
from typing import Protocol

import numpy as np

from ... import native

SIGMA = 1.0  # Gaussian smoothing, in blocks
ALPHA = 3  # derivative look-ahead, in blocks


def _kernel(sigma: float) -> np.ndarray:
    r = int(np.ceil(3 * sigma))
    x = np.arange(-r, r + 1, dtype=np.float64)
    k = np.exp(-0.5 * (x / sigma) ** 2)
    return k / k.sum()


_K = _kernel(SIGMA)


def smooth(x: np.ndarray) -> np.ndarray:
    """Gaussian smoothing, the ends repeated (np.pad's "edge" mode, without its overhead)."""
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
    """1.0 for blocks outside the cluster nearest the origin (k=3, within the page).

    Seeds are deterministic (lowest, median, highest point) so the verdict is reproducible.
    The C version (_kmeans.c) is used where it is built; it computes the same verdicts."""
    if _c is not None and len(a) >= 3:
        raw = _c.verdict(np.ascontiguousarray(a, dtype=np.float64),
                         np.ascontiguousarray(b, dtype=np.float64), iters)
        return np.frombuffer(raw, dtype=np.float64)
    return kmeans_verdict_numpy(a, b, iters)


def kmeans_verdict_numpy(a: np.ndarray, b: np.ndarray, iters: int = 4) -> np.ndarray:
    """The reference: numpy, ~15 array calls per iteration."""
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


def cetr_features(n_chr: np.ndarray, n_tags: np.ndarray) -> tuple[list[str], list[np.ndarray]]:
    ttr = np.log1p(n_chr / np.maximum(n_tags, 1.0))
    g = smooth(ttr)
    dg = derivative(g)
    return ["cetr_ttr", "cetr_smooth", "cetr_deriv", "cetr_cluster"], [ttr, g, dg, kmeans_verdict(g, dg)]


def _agrees(mod: ModuleType) -> bool:
    """Whether the C k-means gives the numpy verdicts on probe pages (ties in the seeds and the
    distances, a flat page, random values)."""
    rng = np.random.default_rng(0)
    pages = [(np.zeros(4), np.zeros(4)),
             (rng.integers(0, 4, 40).astype(float), rng.integers(0, 3, 40).astype(float)),
             (rng.random(200), rng.random(200))]
    return all(np.array_equal(np.frombuffer(mod.verdict(a, b, 4), dtype=np.float64),
                              kmeans_verdict_numpy(a, b)) for a, b in pages)


class KmeansC(Protocol):
    """The function of the C part (score/features/_kmeans.c) that Python calls: the k-means
    verdicts of ``kmeans_verdict_numpy`` (float64 bytes)."""

    def verdict(self, a: np.ndarray, b: np.ndarray, iters: int, /) -> bytes: ...


_c: KmeansC | None = native.probed("score.features._kmeans", "the numpy k-means", _agrees)
