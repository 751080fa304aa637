"""The section-title matches of the features as regular expressions: the test oracle of the C
phrase matcher (ce_filter/_phrases.h, called through ce_filter.score.features.dense.phrases)
that the product runs for the heading lexicon (head_lex) and the shop section titles. The C
matcher agrees with ``re.search(..., text.lower())`` on every text but one whose lower case
needs str.lower()'s final-sigma rule (a phrase holding "ς"; none does): the tests check every
heading of every corpus page and random texts.

The research studies of the lexicon build their variants' regular expressions here too.
"""

from __future__ import annotations

import re

from ce_filter.score.features.headings import BOILER_WORDS


def trie(words: list[str]) -> str:
    """An alternation of ``words`` as a prefix tree ("c(?:o(?:mment(?:s)?|nnect))..."): it
    matches the same strings as the flat "comment|comments|connect|..." (inside \\b...\\b the
    regex engine backtracks through every alternative either way), with one branch per first
    letter instead of one per word."""
    tree: dict[str, dict] = {}
    for w in words:
        node = tree
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict[str, dict]) -> str:
        parts = [re.escape(ch) + emit(node[ch]) for ch in sorted(node) if ch]
        if not parts:
            return ""
        body = parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(tree)


def boiler_heading(words: tuple[str, ...]) -> re.Pattern[str]:
    """The head_lex regular expression of ``words``: any of them between word boundaries (in the
    lower-cased heading)."""
    return re.compile(r"\b(?:" + trie(list(words)) + r")\b")


BOILER_HEADING = boiler_heading(BOILER_WORDS)

# the shop section titles (shop.SHOP_TITLES) as the regular expression they were written as
SHOP_HEADING = re.compile(
    r"\b(?:reviews?|ratings?|testimonials?|customers? (?:say|love|are saying)|what (?:our )?customers"
    r"|q ?& ?a|questions? (?:and|&) answers?|shipping|delivery|returns?|warranty|guarantee[sd]?"
    r"|you (?:may|might) also|also (?:like|bought|viewed)|(?:frequently )?bought together"
    r"|related products?|similar (?:products|items)|recently viewed|complete the look"
    r"|pairs? (?:well )?with|why (?:choose|shop|buy)|customers also|recommended)\b")
