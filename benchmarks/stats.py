"""Small statistics: per-page time over repeats, percentiles, size buckets, the linear fit."""

from __future__ import annotations

import math
import statistics

# Page-size bucket edges in bytes (the last bucket is open).
BUCKETS = (0, 16_000, 32_000, 64_000, 128_000, 256_000)


def per_page(runs: list[list[float]], stat: str = "best") -> list[float]:
    """One time per page from ``runs[repeat][page]``: the fastest ('best') or the median run."""
    if not runs:
        return []
    pick = min if stat == "best" else statistics.median
    return [pick(col) for col in zip(*runs)]


def percentile(xs: list[float], q: float) -> float:
    """Linear-interpolation percentile (q in 0..100); nan for no data."""
    if not xs:
        return math.nan
    s = sorted(xs)
    k = (len(s) - 1) * q / 100
    lo = math.floor(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def bucket_label(i: int) -> str:
    lo = BUCKETS[i] // 1000
    return f"≥{lo} KB" if i == len(BUCKETS) - 1 else f"{lo}–{BUCKETS[i + 1] // 1000} KB"


def buckets(sizes: list[int], secs: list[float]) -> list[tuple[str, int, float, float]]:
    """Per size bucket: (label, pages, mean KB, median ms); empty buckets left out."""
    out = []
    for i, lo in enumerate(BUCKETS):
        hi = BUCKETS[i + 1] if i + 1 < len(BUCKETS) else math.inf
        sel = [(b, t) for b, t in zip(sizes, secs) if lo <= b < hi]
        if sel:
            out.append((bucket_label(i), len(sel), sum(b for b, _ in sel) / len(sel) / 1000,
                        1000 * statistics.median(t for _, t in sel)))
    return out


def linear_fit(sizes: list[int], secs: list[float]) -> tuple[float, float, float]:
    """Least squares ms = a + b * (bytes / 100 KB) over the pages: (b ms/100KB, a ms, R²)."""
    n = len(sizes)
    if n < 2:
        return math.nan, math.nan, math.nan
    x = [b / 100_000 for b in sizes]
    y = [1000 * t for t in secs]
    mx, my = sum(x) / n, sum(y) / n
    sxx = sum((v - mx) ** 2 for v in x)
    syy = sum((v - my) ** 2 for v in y)
    sxy = sum((u - mx) * (v - my) for u, v in zip(x, y))
    if sxx == 0:
        return math.nan, my, math.nan
    slope = sxy / sxx
    r2 = sxy * sxy / (sxx * syy) if syy else 1.0
    return slope, my - slope * mx, r2
