"""ST: shallow text features (Kohlschütter et al. 2010): text and link density, and the neighbours'."""

from __future__ import annotations

import numpy as np

WRAP = 80  # characters per wrapped line


def text_density(n_tok: np.ndarray, n_chr: np.ndarray) -> np.ndarray:
    """Tokens per 80-char line over the full lines (all tokens when the block fits on one line)."""
    lines = np.floor(n_chr / WRAP)
    full = np.where(lines > 0, n_tok * (lines * WRAP) / np.maximum(n_chr, 1.0), n_tok)
    return full / np.maximum(lines, 1.0)


def link_density(n_tok: np.ndarray, n_a: np.ndarray) -> np.ndarray:
    """Words inside links over words."""
    return np.minimum(n_a / np.maximum(n_tok, 1.0), 1.0)


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


def st_features(td: np.ndarray, ld: np.ndarray) -> tuple[list[str], list[np.ndarray]]:
    names = ["td", "ld", "td_prev", "ld_prev", "td_next", "ld_next"]
    return names, [td, ld, shifted(td, -1), shifted(ld, -1), shifted(td, 1), shifted(ld, 1)]
