"""RX: readability's class/id patterns as flags over the class/id tokens of the block's element
and its ancestors (folded in C over the packed elements where the C walk runs)."""

from __future__ import annotations

import numpy as np

from ...read.segment import KIND_CONTAINS, KIND_ENDS, KIND_EQUALS, Blocks, Patterns, token_matcher

# Readability's class/id regexes ("unlikely candidates", "negative", "positive"), which it
# matches against the joined class and id: as literal patterns over our class/id tokens, so
# compound names count (entry-content, relatedPosts). Their "-ad-" / "-hid-" are whole tokens
# and "com-" a token ending in "com"; every other alternative is a substring of one token.
_RX_WORDS = (
    ("unlikely", "banner breadcrumbs combx comment community disqus extra foot header legends menu "
                 "related remark replies rss shoutbox sidebar skyscraper social sponsor supplemental "
                 "pagination pager popup share widget promo outbrain tags tool masthead meta cookie "
                 "newsletter subscribe", "ad", ""),
    ("negative", "hidden banner combx comment contact footer gdpr masthead media meta outbrain promo "
                 "related scroll share shoutbox sidebar skyscraper sponsor shopping tags widget",
     "ad hid", "com"),
    ("positive", "article body content entry hentry main page post text blog story", "", ""),
)
RX_NAMES = tuple(name for name, *_ in _RX_WORDS)
RX: Patterns = tuple(
    (bit, kind, w)
    for bit, (_, contains, equals, ends) in enumerate(_RX_WORDS)
    for kind, words in ((KIND_CONTAINS, contains), (KIND_EQUALS, equals), (KIND_ENDS, ends))
    for w in words.split()
)
RX_LEVELS = 4  # the block's element and its nearest ancestors, each level on its own
RX_MATCHER = token_matcher(RX)


def rx_columns(b: Blocks) -> tuple[list[str], list[np.ndarray]]:
    """The RX flags as 0/1 columns: of the block's own element and of each of its RX_LEVELS
    nearest ancestors apart (levels of ``container``), and of any ancestor at all."""
    names = [f"rx{lvl}_{r}" for lvl in range(RX_LEVELS + 1) for r in RX_NAMES]
    names += [f"rx_anc_{r}" for r in RX_NAMES]
    return names, [b.pattern_columns(RX, RX_MATCHER, RX_LEVELS, len(RX_NAMES))]
