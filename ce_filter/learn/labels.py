"""Training labels: align the gold text to the page's tokens by longest common subsequence.

Bit-parallel LCS (Allison-Dix / Hyyrö) on Python big ints keeps one row per gold token;
the traceback then costs one masked popcount per row, so a whole page aligns in
milliseconds and exactly (no diff heuristics).

One LCS over the whole page keeps the gold's order: where the gold lists the page's sections in
another order (a product's description before its specifications, a listing's titles beside
their blurbs, a game page's "About" moved up), only one order survives and the rest of the gold
stays unmatched. ``LabelRule.lines`` adds a second pass: each gold line that the first pass left
mostly unmatched is aligned on its own against the page tokens still free.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..read.words import tokens

MATCH_FRAC = 0.10  # a block is content when more than this share of its tokens is matched


def words(text: str) -> list[str]:
    """The word tokens used for labels and for the evaluation metric: lower-cased ``\\w+`` runs,
    every character of CJK, Thai, Lao, Khmer, Myanmar … a token of its own (``words.tokens``)."""
    return tokens(text)


@dataclass(frozen=True)
class LabelRule:
    """How gold text becomes block labels: ``runs`` counts only matches inside runs
    (``in_runs``); ``lines`` realigns the gold lines the page-wide LCS left unmatched
    (``realign_lines``)."""

    runs: bool = True
    lines: bool = False


DEFAULT_RULE = LabelRule()
LINE_UNMATCHED = 0.5  # a gold line with less than this share matched is aligned again on its own
LINE_FOUND = 0.8  # ... and its new matches count when they cover at least this share of it,
LINE_SPAN = 2.0  # in one stretch of the page at most this many times the line's length


def _page_masks(page: list[str]) -> dict[str, int]:
    """Per word, the bit set of its positions in ``page``."""
    masks: dict[str, int] = {}
    for j, t in enumerate(page):
        masks[t] = masks.get(t, 0) | (1 << j)
    return masks


def lcs_align(page: list[str], gold: list[str]) -> np.ndarray:
    """For each page token, the index of the gold token it is aligned to in an LCS (-1: none)."""
    if not page or not gold:
        return np.full(len(page), -1, dtype=np.int64)
    return _lcs(_page_masks(page), len(page), gold)


def _lcs(masks: dict[str, int], n: int, gold: list[str], free: int | None = None) -> np.ndarray:
    """lcs_align from the page's position masks; with ``free``, only the page positions whose
    bit is set there can match."""
    matched = np.full(n, -1, dtype=np.int64)
    full = (1 << n) - 1
    v = full
    rows = [v]  # rows[i]: bit j clear <=> LCS row i steps up at column j+1
    for t in gold:
        m = masks.get(t, 0)
        if free is not None:
            m &= free
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


def gold_lines(gold_text: str) -> tuple[list[str], list[tuple[int, int]]]:
    """The gold's word tokens and each non-empty line's token range [start, end)."""
    toks: list[str] = []
    spans = []
    for line in gold_text.splitlines():
        w = words(line)
        if w:
            spans.append((len(toks), len(toks) + len(w)))
            toks.extend(w)
    return toks, spans


def realign_lines(page: list[str], gold: list[str], spans: list[tuple[int, int]],
                  align: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The second pass of ``LabelRule.lines``: ``keep`` (the page tokens whose match counts)
    plus, for each gold line with less than LINE_UNMATCHED of its tokens matched, the run
    matches of that line aligned alone against the page tokens not yet matched, where they
    cover LINE_FOUND of the line. Lines are taken in gold order, each one's matches taken away
    from the next."""
    if not page or not spans:
        return keep
    keep = keep.copy()
    hit = np.zeros(len(gold), dtype=bool)
    hit[align[keep]] = True
    masks = _page_masks(page)
    free = _bits(~keep)
    for a, b in spans:
        if b - a < 2 or hit[a:b].mean() >= LINE_UNMATCHED:
            continue
        local = _lcs(masks, len(page), gold[a:b], free)
        got = in_runs(local)
        at = np.flatnonzero(got)
        if len(at) < LINE_FOUND * (b - a) or at[-1] - at[0] + 1 > LINE_SPAN * (b - a):
            continue  # a few words here and there: the line is not on the page
        keep |= got
        hit[local[got] + a] = True
        free &= ~_bits(got)
    return keep


def _bits(mask: np.ndarray) -> int:
    """A boolean array as an int whose bit j is mask[j]."""
    return int.from_bytes(np.packbits(mask, bitorder="little").tobytes(), "little")


def block_labels(
    block_texts: Sequence[str], gold_text: str, frac: float = MATCH_FRAC, runs: bool = True,
    lines: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """(label, matched fraction) per block. ``runs=False`` is the paper's plain LCS rule;
    ``runs=True`` counts only matches inside runs (see ``in_runs``); ``lines=True`` adds the
    per-line second pass (``realign_lines``)."""
    toks = [words(t) for t in block_texts]
    lens = np.array([len(t) for t in toks], dtype=np.int64)
    page = [w for t in toks for w in t]
    gold, spans = gold_lines(gold_text) if lines else (words(gold_text), [])
    align = lcs_align(page, gold)
    m = in_runs(align) if runs else align >= 0
    if lines:
        m = realign_lines(page, gold, spans, align, m)
    if len(page) == 0:
        return np.zeros(len(block_texts), dtype=bool), np.zeros(len(block_texts))
    starts = np.concatenate(([0], np.cumsum(lens)[:-1]))
    # one padding zero so empty blocks at the end still have a valid start index
    hit = np.add.reduceat(np.append(m, False).astype(np.int64), starts)
    hit = np.where(lens > 0, hit, 0)
    share = hit / np.maximum(lens, 1)
    return share > frac, share
