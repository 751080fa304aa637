"""Weights rounded to nine significant digits before they are written, so that a model file
rebuilds to the byte on any machine (learn/blas.py pins what rounding cannot hide)."""

from __future__ import annotations

import numpy as np


def significant(a: np.ndarray | float, digits: int = 9) -> np.ndarray:
    """Round to ``digits`` significant digits. Another CPU (its SIMD exp/log, its BLAS kernels)
    moves the last bits of a fit; the rounded weights are the same everywhere, and 9 digits are
    far below what moves a score."""
    a = np.asarray(a, dtype=np.float64)
    return np.array([float(f"{v:.{digits}g}") for v in a.ravel()]).reshape(a.shape)
