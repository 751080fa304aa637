"""The dense block features and stage 2's input in C (ce_filter/score/features/_dense.c) are the numpy
reference's, bit for bit: the shipped models were fitted on the reference's values (and must
rebuild byte for byte), so the C part must not move them by an ulp. The block probabilities
of the one C scoring call (ce_filter/score/_blockmodel.c: stage 1's dot products, stage 2, the
sigmoids) add in another order than numpy's einsum: equal to 1e-12, and the same blocks on
either side of every cut. Edge pages, random pages, and every corpus page."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from selectolax.lexbor import LexborHTMLParser

from ce_filter.read.segment import Blocks, parse, segment, segment_tree
from ce_filter.score import blockmodel
from ce_filter.score import features as F
from ce_filter.score.blockmodel import Model, load_default
from ce_filter.score.features import dense
from ce_filter.score.features.context import context_features

from .corpus_pages import every_page

needs_c = pytest.mark.skipif(dense._c_part() is None or blockmodel._c is None,
                             reason="ce_filter.score.features._dense or ce_filter.score._blockmodel not "
                             "built (no C compiler?) or CE_FILTER_PURE_PYTHON set: only numpy runs")
KIND = np.array([0.4, 0.05, 0.1, 0.15, 0.1, 0.12, 0.08])


@contextmanager
def _reference() -> Iterator[None]:
    """The numpy references in place of the C parts (the features', the scores'), for the duration."""
    part, c = dense._c_part, blockmodel._c
    dense._c_part, blockmodel._c = lambda: None, None
    try:
        yield
    finally:
        dense._c_part, blockmodel._c = part, c


def _models() -> list[Model]:
    return [load_default("content"), load_default("comments")]


def _same(b: Blocks) -> None:
    """page_inputs, page_features, block_scores and stage 2's input: C == reference."""
    if len(b) == 0:  # the reference's business (the extractor never scores a page of no blocks)
        assert dense.context_inputs(np.zeros(0)).shape == (0, 13)
        return
    for m in _models():
        for kind in (KIND, None):
            x, tok = F.page_inputs(b, m.spec, kind)
            full = F.page_features(b, m.spec, kind)
            sc = m.block_scores(b, kind)
            with _reference():
                rx, rtok = F.page_inputs(b, m.spec, kind)
                rfull = F.page_features(b, m.spec, kind)
                rsc = m.block_scores(b, kind)
            assert x.shape == rx.shape and x.dtype == rx.dtype
            bad = sorted({F.feature_names(m.spec)[j] for j in np.argwhere(x != rx)[:, 1]})
            assert np.array_equal(x, rx), (m.name, bad)
            assert [(p, list(r), v) for p, r, v in tok] == [(p, list(r), v) for p, r, v in rtok]
            assert np.array_equal(full, rfull), m.name
            assert _close_scores(sc, rsc), m.name
    s = np.random.default_rng(len(b)).random(len(b))
    for args in ((b.container_ids(), b.token_counts(), True), (b.container_ids(), None, False),
                 (None, b.token_counts(), True), (None, None, False)):
        assert np.array_equal(dense.context_inputs(s, *args), context_features(s, *args))


def _close_scores(a: np.ndarray, b: np.ndarray) -> bool:
    """Block probabilities equal to 1e-12, and on the same side of every cut the model has."""
    if a.shape != b.shape or not np.allclose(a, b, rtol=0, atol=1e-12):
        return False
    cuts = [0.5]
    for m in _models():
        cuts += [m.threshold, m.precise_threshold or 0.5, m.recall_threshold or 0.5,
                 *(m.kind_thresholds or {}).values(), *(m.kind_precise_thresholds or {}).values()]
    return all(np.array_equal(a >= t, b >= t) for t in cuts)


def _page(html: str) -> None:
    _same(segment(parse(html)))
    _same(segment_tree(LexborHTMLParser(html)))  # the Python walk: lists, not arrays


PROSE = "<p>" + " ".join(f"word{i}" for i in range(40)) + " <a href=#>a link</a>.</p>"
EDGE_PAGES = {
    "empty": "",
    "one block": "<p>x</p>",
    "one prose block": PROSE,
    "two blocks": "<h1>Comments</h1><p>one two three</p>",
    "no prose": "<ul>" + "".join(f"<li><a href=/{i}>item {i}</a></li>" for i in range(30)) + "</ul>",
    "all links": "<div>" + "".join(f"<p><a href=#>{'w ' * 12}</a></p>" for i in range(9)) + "</div>",
    "ties": "<div>" + "<p>same size words here now</p>" * 20 + "</div>",
    "long blocks": "<p>" + "x" * 81 + "</p><p>" + "y " * 200 + "</p><td>" + "z" * 160 + "</td>",
    "deep": "<div>" * 3000 + PROSE + "</div>" * 3000 + "<p>after</p>",
    "deep each": "".join("<div>" * k + f"<p>block {k} {'w ' * k}</p>" + "</div>" * k for k in range(40)),
    "probe": dense._PROBE,
}


@needs_c
@pytest.mark.parametrize("name", sorted(EDGE_PAGES))
def test_edge_pages_equal_reference(name):
    _page(EDGE_PAGES[name])


@needs_c
@pytest.mark.parametrize("groups", [("st",), ("cetr",), ("dom",), ("rx",), ("head",), ("kind",),
                                    ("ic",), ("st", "head", "kind"), ("cetr", "ic", "rx")])
def test_other_group_sets_equal_reference(groups):
    """Specs of a few of the groups the C part fills (models of an ablation): the columns it
    leaves out and the offsets of those it fills."""
    spec = F.FeatureSpec(groups, ["post", "body"], ["comment"])
    assert dense.handles(spec)
    for html in (EDGE_PAGES["probe"], EDGE_PAGES["deep each"], PROSE):
        b = segment(parse(html))
        x, tok = F.page_inputs(b, spec, KIND)
        with _reference():
            rx, rtok = F.page_inputs(b, spec, KIND)
        assert np.array_equal(x, rx) and len(tok) == len(rtok)
    assert not dense.handles(F.FeatureSpec(("st", "text")))  # left to the reference


@needs_c
def test_huge_page_equals_reference():
    """Thousands of blocks: numpy's pairwise sums recurse past 128 items, the element serials
    (container ids) run high."""
    rnd = random.Random(7)
    parts = []
    for _ in range(6000):
        w = " ".join(f"w{rnd.randrange(50)}" for _k in range(rnd.choice((1, 3, 9, 30))))
        parts.append(rnd.choice(("<p>{}</p>", "<li><a href=#>{}</a></li>", "<div class=post><p>{}</p></div>",
                                 "<h2>{}</h2>", "<td>{}</td>")).format(w))
    _same(segment(parse("<main>" + "".join(parts) + "</main>")))


@needs_c
def test_random_pages_equal_reference():
    rnd = random.Random(3)
    tags = ["p", "div", "li", "td", "h2", "h3", "section", "article", "nav", "footer", "pre", "span"]
    for _ in range(60):
        html, depth = [], 0
        for _ in range(rnd.randrange(1, 120)):
            r = rnd.random()
            if r < 0.3 and depth < 30:
                html.append(f"<{rnd.choice(tags)} class={rnd.choice(['content', 'sidebar', 'x'])}>")
                depth += 1
            elif r < 0.45 and depth:
                html.append("</div>")
                depth -= 1
            words = " ".join("abc" * rnd.randrange(1, 4) for _ in range(rnd.randrange(0, 40)))
            html.append(rnd.choice(["{}", "<a href=#>{}</a>", "<p>{}</p>"]).format(words))
        _page("".join(html))


@needs_c
def test_a_broken_c_part_is_caught(monkeypatch):
    """The comparison can fail: a C part that gets one column wrong differs from the reference."""
    c = dense._c_part()
    real = c.dense_b

    def off_by_an_ulp(*a):
        real(*a)
        out = a[11]
        out[:, 0] = np.nextafter(out[:, 0], np.inf)

    class Broken:
        dense_a, context = c.dense_a, c.context
        dense_b = staticmethod(off_by_an_ulp)

    monkeypatch.setattr(dense, "_c_part", lambda: Broken)
    with pytest.raises(AssertionError):
        _same(segment(parse(PROSE * 3)))


@pytest.mark.corpus
@needs_c
def test_c_features_equal_reference_on_every_corpus_page(data_dir):
    """Every page of every corpus, both shipped models: page_inputs of the C part are the
    reference's, bit for bit, and its block_scores to 1e-12 on the same side of every cut
    (page_features is the reference in both)."""
    from ce_filter.api import Extractor

    ex = Extractor()
    pages, differ = 0, []
    for corpus, doc, html, b in every_page(data_dir):
        pages += 1
        if not len(b):  # nothing to score (the extractor stops before the model)
            continue
        kind = ex.page_context(b, html, doc.url or None)[0]
        for m in _models():
            got = (F.page_inputs(b, m.spec, kind)[0], m.block_scores(b, kind))
            with _reference():
                ref = (F.page_inputs(b, m.spec, kind)[0], m.block_scores(b, kind))
            if not (np.array_equal(got[0], ref[0]) and _close_scores(got[1], ref[1])):
                differ.append(f"{corpus}/{doc.id} {m.name}")
    assert pages > 3000 and not differ, (pages, differ[:10])


def test_heading_lexicon_trie_matches_the_flat_alternation():
    """headings.py's lexicon regex is a prefix tree of the words for speed: it must find a
    boilerplate title exactly where "\\b(?:word|word|...)\\b" does (prefixes of one another,
    words inside words, spaces, digits, non-ASCII letters around them)."""
    import re

    from ce_filter.score.features import headings as H

    flat = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in H.BOILER_WORDS) + r")\b")
    rnd = random.Random(5)
    pieces = [w for w in H.BOILER_WORDS] + [w[:k] for w in H.BOILER_WORDS for k in (1, 3, len(w) - 1)]
    pieces += [" ", "  ", "-", "_", "s", "ing", "é", "1", "x", "ly", "'", "\u00a0", "ü"]
    texts = [""] + list(H.BOILER_WORDS)
    for _ in range(30000):
        texts.append("".join(rnd.choice(pieces) for _ in range(rnd.randrange(1, 6))))
    differ = [t for t in texts if (flat.search(t) is None) != (H.BOILER_HEADING.search(t) is None)]
    assert not differ, differ[:10]
    assert sum(flat.search(t) is not None for t in texts) > 1000  # both outcomes are exercised
