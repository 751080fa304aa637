"""Training labels: align the gold text to the page's tokens by longest common subsequence.

Bit-parallel LCS (Allison-Dix / Hyyrö) on Python big ints keeps one row per gold token;
the traceback then costs one masked popcount per row, so a whole page aligns in
milliseconds and exactly (no diff heuristics).
"""

from __future__ import annotations

import re

import numpy as np

_WORD = re.compile(r"\w+")
MATCH_FRAC = 0.10  # a block is content when more than this share of its tokens is matched


def words(text: str) -> list[str]:
    """The word tokens used for labels and for the evaluation metric."""
    return _WORD.findall(text.lower())


def lcs_align(page: list[str], gold: list[str]) -> np.ndarray:
    """For each page token, the index of the gold token it is aligned to in an LCS (-1: none)."""
    n = len(page)
    matched = np.full(n, -1, dtype=np.int64)
    if n == 0 or not gold:
        return matched
    masks: dict[str, int] = {}
    for j, t in enumerate(page):
        masks[t] = masks.get(t, 0) | (1 << j)
    full = (1 << n) - 1
    v = full
    rows = [v]  # rows[i]: bit j clear <=> LCS row i steps up at column j+1
    for t in gold:
        m = masks.get(t, 0)
        if m:
            u = v & m
            v = ((v + u) | (v - u)) & full
        rows.append(v)
    # Traceback from (i=len(gold), j=n): a row that steps up before j matched its gold token
    # at the last step below j.
    j = n
    for i in range(len(gold), 0, -1):
        if j == 0:
            break
        below = (1 << j) - 1
        cur = (~rows[i]) & below
        if cur.bit_count() == ((~rows[i - 1]) & below).bit_count():
            continue
        j = cur.bit_length() - 1  # column of the last step: page[j] matched gold[i-1]
        matched[j] = i - 1
    return matched


def lcs_match(page: list[str], gold: list[str]) -> np.ndarray:
    """Boolean mask over ``page``: True where the token is in an LCS with ``gold``."""
    return lcs_align(page, gold) >= 0


def in_runs(align: np.ndarray) -> np.ndarray:
    """Matched tokens that continue or start a run (the neighbour on the page is matched to
    the neighbouring gold token). A lone match is mostly a common word the LCS borrowed from
    boilerplate; one-word headings aligned in place still sit next to matched text."""
    m = align >= 0
    prev_ok = np.zeros_like(m)
    prev_ok[1:] = m[1:] & m[:-1] & (align[1:] == align[:-1] + 1)
    next_ok = np.zeros_like(m)
    next_ok[:-1] = prev_ok[1:]
    return prev_ok | next_ok


def block_labels(
    block_texts: list[str], gold_text: str, frac: float = MATCH_FRAC, runs: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """(label, matched fraction) per block. ``runs=False`` is the paper's plain LCS rule;
    ``runs=True`` counts only matches inside runs (see ``in_runs``)."""
    toks = [words(t) for t in block_texts]
    lens = np.array([len(t) for t in toks], dtype=np.int64)
    page = [w for t in toks for w in t]
    align = lcs_align(page, words(gold_text))
    m = in_runs(align) if runs else align >= 0
    if len(page) == 0:
        return np.zeros(len(block_texts), dtype=bool), np.zeros(len(block_texts))
    starts = np.concatenate(([0], np.cumsum(lens)[:-1]))
    # one padding zero so empty blocks at the end still have a valid start index
    hit = np.add.reduceat(np.append(m, False).astype(np.int64), starts)
    hit = np.where(lens > 0, hit, 0)
    share = hit / np.maximum(lens, 1)
    return share > frac, share
