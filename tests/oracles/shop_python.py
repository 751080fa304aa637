"""The shop group's cues in Python: the test oracle of their C part (ce_filter/_pass.c shop_fill,
through dense.shop_cues and the pass). The same values: each cue is 0 or 1 times the product
probability, so equality is exact."""

from __future__ import annotations

import numpy as np

from ce_filter.read.segment import Blocks
from ce_filter.score.features.headings import last_heading
from ce_filter.score.features.shop import SHOP_HEADING_MAX_WORDS
from tests.oracles.headings_regex import SHOP_HEADING


def shop_cues(b: Blocks, ic: np.ndarray, p: float) -> np.ndarray:
    """(a text an earlier block has, a block governed by a short heading that reads as a shop
    section's title, the class/id column ``ic``) times ``p``, blocks x 3."""
    texts = list(b.texts)
    seen: set[str] = set()
    dup = np.zeros(len(texts))
    for i, t in enumerate(texts):
        dup[i] = t in seen
        seen.add(t)
    is_h, last = last_heading(np.asarray(b.tag, dtype=np.int64))
    n_tok = b.counts()[:, 1]
    hit = np.zeros(len(texts), dtype=bool)
    for h in np.flatnonzero(is_h).tolist():
        hit[h] = n_tok[h] <= SHOP_HEADING_MAX_WORDS and SHOP_HEADING.search(texts[h].lower()) is not None
    head = np.where(last >= 0, hit[np.maximum(last, 0)], False).astype(np.float64)
    return np.stack((dup, head, np.asarray(ic, dtype=np.float64)), axis=1) * p
