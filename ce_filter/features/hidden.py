"""Hidden content (group ``hid``): whether the block sits inside an element the page marks as
not shown (the ``hidden`` attribute, ``aria-hidden="true"``, an inline ``display: none`` or
``visibility: hidden``, a closed ``<dialog>`` or an ARIA dialog). Annotators cut the main
content from the rendered page, where a privacy modal, a mobile menu or the second copy of a
price is not seen; collapsed tabs and accordions are hidden the same way and are content, so
the marks are features the model weighs, not a filter."""

from __future__ import annotations

import numpy as np

from ..segment import HIDE_NAMES, HIDE_SHIFT, Blocks

NAMES = [f"in_{n}" for n in HIDE_NAMES]


def hide_columns(b: Blocks) -> tuple[list[str], list[np.ndarray]]:
    """One 0/1 column per hidden-content flag of the block's element or its ancestors."""
    f = np.asarray(b.flags, dtype=np.int64) >> HIDE_SHIFT
    bits = (f[:, None] >> np.arange(len(HIDE_NAMES))) & 1
    return NAMES, [bits.astype(np.float64)]
