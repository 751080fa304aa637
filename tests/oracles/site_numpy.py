"""The site memory's block hashes and the site stage in numpy: the test oracles of their C
parts (ce_filter/score/site/_memory.c, _stage.c). The stage's probabilities agree to 1e-12
(the C part adds the terms in its own order). A polynomial hash of each block's normalised UTF-8 bytes
modulo 2**64 by prefix sums, mixed with its length by splitmix64's finaliser; the C part must
give the same 64-bit values (``memory.fingerprints(texts, hashes)`` takes either)."""

from __future__ import annotations

import numpy as np

from ce_filter.score.site.memory import mix
from ce_filter.score.site.stage import SiteStage, sigmoid, site_columns

# byte classes for the normalising pass over a page's UTF-8: digits -> "0", ASCII whitespace -> " "
BYTES = np.arange(256, dtype=np.uint8)
BYTES[ord("0"):ord("9") + 1] = ord("0")
BYTES[[9, 10, 11, 12, 13]] = ord(" ")
_ZERO, _SP = np.uint8(ord("0")), np.uint8(ord(" "))

# the polynomial hash's odd multiplier (invertible modulo 2**64) and the finaliser's constants
_P = 0x9E3779B97F4A7C15
_P_INV = pow(_P, -1, 2**64)
_LEN = np.uint64(0xD6E8FEB86659FD93)

_POWERS: dict[int, np.ndarray] = {}
_CACHED = 1 << 20  # powers kept for pages of up to this many bytes of block text (8 MB each)


def powers(p: int, n: int) -> np.ndarray:
    """p**0 .. p**n modulo 2**64 (uint64 products wrap); the first _CACHED + 1 computed once."""
    have = _POWERS.get(p)
    if have is not None and len(have) > n:
        return have[:n + 1]
    size = max(n, min(_CACHED, 1 << 14)) if n > _CACHED else min(_CACHED, max(2 * n, 1 << 14))
    out = np.empty(size + 1, dtype=np.uint64)
    out[0] = 1
    with np.errstate(over="ignore"):
        out[1:] = np.cumprod(np.full(size, p, dtype=np.uint64))
    if size <= _CACHED:
        _POWERS[p] = out
    return out[:n + 1]


def hashes(utf8: bytes, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Each of the n NUL-joined blocks' mixed hash and kept bytes, in numpy
    (``memory.c_hashes``)."""
    raw = BYTES[np.frombuffer(utf8, dtype=np.uint8)]
    # what normalise does, on the bytes: a digit after a digit goes, a space after a space or
    # at a block's start goes, then a space at a block's end
    if not len(raw):  # one empty block
        return np.zeros(n, dtype=np.uint64), np.zeros(n, dtype=np.int64)
    prev = np.empty_like(raw)
    prev[0], prev[1:] = 0, raw[:-1]
    data = raw[~(((raw == _ZERO) & (prev == _ZERO)) | ((raw == _SP) & ((prev == _SP) | (prev == 0))))]
    if len(data):
        nxt = np.empty_like(data)
        nxt[-1], nxt[:-1] = 0, data[1:]
        data = data[~((data == _SP) & (nxt == 0))]
    cuts = np.flatnonzero(data == 0)
    starts = np.concatenate(([0], cuts + 1))
    ends = np.concatenate((cuts, [len(data)]))
    m = len(data)
    with np.errstate(over="ignore"):
        prefix = np.zeros(m + 1, dtype=np.uint64)
        np.cumsum((data.astype(np.uint64) + np.uint64(1)) * powers(_P, m)[:m], out=prefix[1:])
        h = (prefix[ends] - prefix[starts]) * powers(_P_INV, m)[starts]
        return mix(h ^ ((ends - starts).astype(np.uint64) * _LEN)), (ends - starts).astype(np.int64)


def stage_apply(st: SiteStage, scores: np.ndarray, fps: np.ndarray, k: np.ndarray, n: int) -> np.ndarray:
    """``SiteStage.apply`` (n > 0): the stage's columns through its weights."""
    return sigmoid(st.decision(site_columns(scores, fps, k, n)))
