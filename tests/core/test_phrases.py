"""The C phrase matcher (ce_filter/_phrases.h, through dense.phrases / phrase_hits) against its
oracle, the regular expressions of tests/oracles/headings_regex.py searched in ``text.lower()``.
Tolerance: none; the one known difference (str.lower()'s final-sigma rule) is refused at
compile time. The head lexicon's matches on every corpus heading are checked with the whole
feature matrix (test_dense.py, every corpus page); the shop titles' here."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ce_filter.read.texts import TextColumn
from ce_filter.score.features import dense
from ce_filter.score.features import headings as H
from ce_filter.score.features.shop import SHOP_HEADING_MAX_WORDS, SHOP_TITLES
from tests.oracles.headings_regex import BOILER_HEADING, SHOP_HEADING

from .corpus_pages import every_page

# what stands around a phrase: word characters of every kind (letters that lower-case into two
# characters or into ASCII, combining marks, digits of other scripts, "_"), separators, spaces
AROUND = [" ", "  ", "-", "_", "s", "ing", "é", "1", "x", "ly", "'", "\u00a0", "ü", "İ", "\u212a",
          "K", "SHIP", "Ü", "ß", "中", "\u0301", "²", "٣", "&", "\t", "Σ"]


def _hits(texts: list[str], ph: dense.Phrases) -> np.ndarray:
    return dense.phrase_hits(TextColumn.of(texts), ph, np.arange(len(texts)))


def _random_texts(words: tuple[str, ...], seed: int, n: int = 20000) -> list[str]:
    rnd = random.Random(seed)
    pieces = list(words) + [w[:k] for w in words for k in (1, 3, len(w) - 1)] + AROUND
    texts = ["", *words, *(w.upper() for w in words), *(w.title() for w in words)]
    texts += ["".join(rnd.choice(pieces) for _ in range(rnd.randrange(1, 6))) for _ in range(n)]
    return texts


@pytest.mark.parametrize("words,rx,seed", [(H.BOILER_WORDS, BOILER_HEADING, 5),
                                            (SHOP_TITLES, SHOP_HEADING, 6)])
def test_phrases_find_what_the_regular_expression_finds(words, rx, seed):
    texts = _random_texts(words, seed)
    got = _hits(texts, dense.phrases(words))
    ref = np.array([rx.search(t.lower()) is not None for t in texts])
    differ = [t for t, a, b in zip(texts, got, ref) if a != b]
    assert not differ, differ[:10]
    assert 1000 < ref.sum() < len(texts) - 1000  # both outcomes are exercised


def test_lower_case_and_word_boundaries_as_python_reads_them():
    ph = dense.phrases(("sign up", "k", "q&a", "comment"))
    texts = ["SIGN UP", "Sİgn up", "\u212a", "xk", "k_", "k\u0301", "Q & A", "Q&A!", "comments",
             "comment²", "no comment", "commentaire", "کامنت comment", "commentó"]
    assert _hits(texts, ph).tolist() == [
        re_hit("(?:sign up|k|q&a|comment)", t) for t in texts]


def re_hit(alt: str, text: str) -> bool:
    import re
    return re.search(rf"\b{alt}\b", text.lower()) is not None


def test_unspaced_phrases_allow_their_slack_around_them():
    ph = dense.phrases((), ("相关文章",), 2)
    texts = ["相关文章", "  相关文章\u3000", "热门相关文章", "最热门相关文章", "相关文章推荐",
             "相关文章推荐给", " 相关 文章", "x相关文章y ", "\t相关文章1234"]
    assert _hits(texts, ph).tolist() == [True, True, True, False, True, False, False, True, False]


def test_a_phrase_the_matcher_cannot_read_is_refused():
    with pytest.raises(ValueError, match="sigma"):
        dense.phrases(("λόγος",))
    with pytest.raises(ValueError):
        dense.phrases(("",))
    with pytest.raises(IndexError):
        dense.phrase_hits(TextColumn.of(["a"]), dense.phrases(("a",)), np.array([1]))


@pytest.mark.corpus
def test_shop_titles_on_every_corpus_heading(data_dir):
    """Every short heading of every corpus page: the C matches are the regular expression's."""
    from ce_filter.score.features.headings import last_heading

    checked, differ = 0, []
    for corpus, doc, _html, b in every_page(data_dir):
        if not len(b):
            continue
        n_tok = b.counts()[:, 1]
        hs = np.flatnonzero(last_heading(np.asarray(b.tag, dtype=np.int64))[0])
        hs = hs[n_tok[hs] <= SHOP_HEADING_MAX_WORDS]
        got = dense.phrase_hits(b.text_column(), dense.phrases(SHOP_TITLES), hs)
        for i, g in zip(hs.tolist(), got.tolist()):
            checked += 1
            if g != (SHOP_HEADING.search(b.texts[i].lower()) is not None):
                differ.append(f"{corpus}/{doc.id}: {b.texts[i]!r}")
    assert checked > 10000 and not differ, (checked, differ[:10])
