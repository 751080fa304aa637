"""Shifting a block column along the page (the ctx group's neighbours)."""

from __future__ import annotations

import numpy as np


def shifted(x: np.ndarray, k: int) -> np.ndarray:
    """x moved by k blocks (k<0: previous block), zero-padded at the page ends."""
    out = np.zeros_like(x)
    if k > 0:
        out[:-k] = x[k:]
    elif k < 0:
        out[-k:] = x[:k]
    else:
        out[:] = x
    return out
