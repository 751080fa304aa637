"""TrainConfig.page_norm: each page's block weights scaled toward one total per page, before
the corpus multipliers; off, the weights are the per-block ones."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ce_filter.learn.fit import TrainConfig, _weights


def _page(words: list[float], corpus: str) -> SimpleNamespace:
    return SimpleNamespace(n_words=np.array(words), y=np.zeros(len(words)), id=f"{corpus}/x")


PAGES = [_page([4, 9, 400], "a"), _page([1, 1], "cleaneval-dev"), _page([16], "a")]


def _totals(w: np.ndarray) -> list[float]:
    return [float(w[:3].sum()), float(w[3:5].sum()), float(w[5:].sum())]


def test_off_keeps_the_block_weights():
    assert np.array_equal(_weights(PAGES, TrainConfig()), [2, 3, 10, 4, 4, 4])  # sqrt, capped, x4


def test_full_norm_gives_every_page_one_total_before_the_corpus_weight():
    t = _totals(_weights(PAGES, TrainConfig(page_norm=1.0)))
    assert np.isclose(t[0], t[2]) and np.isclose(t[1], 4 * t[0])


def test_half_norm_moves_the_totals_halfway_in_log():
    raw = _totals(_weights(PAGES, TrainConfig(corpus_weight={})))
    half = _totals(_weights(PAGES, TrainConfig(page_norm=0.5, corpus_weight={})))
    assert np.allclose(np.array(half) / np.sqrt(raw), half[0] / np.sqrt(raw[0]))
