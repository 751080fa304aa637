"""The dom group's tag groups (its columns are computed by the C part, _dense.c) and the sum
of a block figure over the blocks sharing an ancestor."""

from __future__ import annotations

import numpy as np

from ...read.segment import HEADINGS, tag_ids

TAG_GROUPS = [
    ("p", tag_ids("p")), ("div", tag_ids("div")), ("li", tag_ids("li")), ("cell", tag_ids("td th")),
    ("head", HEADINGS), ("dd", tag_ids("dd dt")), ("pre", tag_ids("pre blockquote")),
    ("sect", tag_ids("article section main")), ("body", tag_ids("body html")),
    ("fig", tag_ids("figure figcaption caption")), ("form", tag_ids("form fieldset legend label")),
    ("hdrftr", tag_ids("header footer nav aside")),
]
# tag id -> its group's index (-1: none), as a lookup array (tag ids are < 0x10000)
TAG_GROUP_LUT = np.full(max(t for _, ids in TAG_GROUPS for t in ids) + 2, -1, dtype=np.int64)
for _k, (_, _ids_k) in enumerate(TAG_GROUPS):
    TAG_GROUP_LUT[sorted(_ids_k)] = _k


def group_sum(ids: np.ndarray, w: np.ndarray) -> np.ndarray:
    """For each block, the sum of ``w`` over the blocks with the same id (an element serial:
    small non-negative ints, so a bincount over them needs no np.unique). Summed in block
    order, as a unique + bincount would, so the floats are the same."""
    return np.bincount(ids, weights=w)[ids]
