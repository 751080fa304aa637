"""Positional word precision / recall / F1: the CETR evaluation (Weninger, Hsu & Han, "CETR:
Content Extraction via Tag Ratios", WWW 2010), which Peters & Lecocq (WWW 2013) use for their
Table 2.

CETR scores an extraction by the words it shares with the gold standard, where "each word in
the document is distinct even if two words are lexically the same": a word is a position in
the page, not a vocabulary item. With the output and the gold as two texts, the words they
share position by position are the longest common subsequence (LCS) of their word sequences:
the largest one-to-one, order-keeping matching of output words to gold words. So

    P = LCS / |output words|,  R = LCS / |gold words|,  F1 = 2PR / (P + R).

The bag-of-words score (``evaluate.token_prf``, the project's default metric) counts the
multiset intersection instead, which matches a repeated word wherever it is: a boilerplate
"the" pays for a missing content "the". The multiset intersection is never smaller than the
LCS, so this score is never higher than the bag score on the same texts.

Words are the metric's tokens (``labels.words``). The LCS is the bit-parallel one the training
labels use (``labels.lcs_align``), exact.
"""

from __future__ import annotations

from .labels import lcs_align, words


def lcs_length(pred: list[str], gold: list[str]) -> int:
    """Length of the longest common subsequence of two token lists."""
    if not pred or not gold:
        return 0
    # lcs_align keeps one big-int row per token of its second argument: the shorter one there
    if len(gold) <= len(pred):
        return int((lcs_align(pred, gold) >= 0).sum())
    return int((lcs_align(gold, pred) >= 0).sum())


def positional_prf(pred: str, gold: str) -> tuple[float, float, float]:
    """Precision, recall, F1 of the output's words matched to the gold's by position (LCS).
    Empty vs empty counts as perfect, as in ``evaluate.token_prf``."""
    p_tok, g_tok = words(pred), words(gold)
    if not p_tok and not g_tok:
        return 1.0, 1.0, 1.0
    if not p_tok or not g_tok:
        return 0.0, 0.0, 0.0
    inter = lcs_length(p_tok, g_tok)
    if not inter:
        return 0.0, 0.0, 0.0
    p, r = inter / len(p_tok), inter / len(g_tok)
    return p, r, 2 * p * r / (p + r)
