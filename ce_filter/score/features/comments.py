"""Comment sections as block-model input (group ``cmt``): whether the block sits in an element
whose class/id names a comment thread (comment, disqus, respond, replies), near it or anywhere
above it. Readers' comments are boilerplate under an article and the content of a forum, so
the group is meant to be weighed per page kind (``kind_mix`` over its two columns)."""

from __future__ import annotations

import numpy as np

from ...read.segment import KIND_CONTAINS, Blocks, Patterns, token_matcher

CMT_NAMES = ("cmt_near", "cmt_anc")
_CMT: Patterns = tuple((0, KIND_CONTAINS, w) for w in ("comment", "disqus", "respond", "replies"))
_CMT_MATCHER = token_matcher(_CMT)
_NEAR = 4  # the block's element and its nearest ancestors


def cmt_columns(b: Blocks) -> tuple[list[str], list[np.ndarray]]:
    """``cmt_near``: the block's element or one of its _NEAR nearest ancestors matches;
    ``cmt_anc``: any ancestor does."""
    f = b.pattern_columns(_CMT, _CMT_MATCHER, _NEAR, 1)  # levels 0.._NEAR, then any ancestor
    return list(CMT_NAMES), [np.stack((f[:, :_NEAR + 1].max(axis=1), f[:, _NEAR + 1]), axis=1)]
