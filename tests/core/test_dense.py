"""The dense block features (ce_filter/score/features/_dense.c, their definition) against
their numpy oracle (tests/oracles/features_numpy.py) at ORACLE_RTOL / ORACLE_ATOL, the k-means
verdicts exactly where fed the same inputs; the one-call path against the general one
(features.group_columns, where a spec has other groups) bit for bit; stage 2's input in C
against context_features bit for bit; the block probabilities of the one C scoring call
(ce_filter/score/_blockmodel.c) against the numpy scoring to 1e-12, the same blocks on either
side of every cut. Edge pages, random pages, and every corpus page."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest

from ce_filter.read.segment import Blocks, parse, segment
from ce_filter.score import features as F
from ce_filter.score.blockmodel import Model, load_default
from ce_filter.score.features import dense
from ce_filter.score.features.context import context_features, context_inputs
from tests.oracles import walk_python
from tests.oracles.features_numpy import ORACLE_ATOL, ORACLE_RTOL, kmeans_verdict, oracle_columns

from .corpus_pages import every_page

KIND = np.array([0.4, 0.05, 0.1, 0.15, 0.1, 0.12, 0.08])


@contextmanager
def _general() -> Iterator[None]:
    """The general path of the features (group_columns) and the numpy scoring, for the duration."""
    handles, plain = dense.handles, Model._plain
    dense.handles, Model._plain = lambda spec: False, lambda self: False  # type: ignore[method-assign]
    try:
        yield
    finally:
        dense.handles, Model._plain = handles, plain  # type: ignore[method-assign]


def _models() -> list[Model]:
    return [load_default("content"), load_default("comments")]


def oracle_differences(b: Blocks, kind: np.ndarray | None) -> list[str]:
    """The C part's columns that are not the oracle's (to its tolerance): 'group:column'."""
    c, o = dense.all_columns(b, kind), oracle_columns(b, kind)
    bad = []
    for g, names in dense.NAMES.items():
        got, ref = c[g], o[g].copy()
        if g == "cetr":  # the verdict on the C part's own smoothed values and derivative
            ref[:, 3] = kmeans_verdict(got[:, 1].copy(), got[:, 2].copy())
        close = np.isclose(got, ref, rtol=ORACLE_RTOL, atol=ORACLE_ATOL)
        if g == "cetr":
            close[:, 3] = got[:, 3] == ref[:, 3]
        bad += [f"{g}:{names[j]}" for j in np.flatnonzero(~close.all(axis=0))]
    return bad


def _same(b: Blocks) -> None:
    """C == oracle; page_inputs and page_features of the one call == the general path's;
    block_scores of the C scoring == numpy's; stage 2's input C == numpy."""
    if len(b) == 0:  # the extractor never scores a page of no blocks
        assert context_inputs(np.zeros(0)).shape == (0, 13)
        return
    for kind in (KIND, None):
        assert not oracle_differences(b, kind), oracle_differences(b, kind)
    for m in _models():
        for kind in (KIND, None):
            x, tok = F.page_inputs(b, m.spec, kind)
            full = F.page_features(b, m.spec, kind)
            sc = m.block_scores(b, kind)
            with _general():
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
        assert np.array_equal(context_inputs(s, *args), context_features(s, *args))


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
    _same(walk_python.walk(html))  # the oracle walk: lists, not arrays


# a page with what the columns branch on: prose and link lists, headings, nesting, repeated
# values (rank ties), a block under 80 and over 80 characters
PROBE = """<html><head><title>Probe</title></head><body><header class="masthead"><nav><ul>
<li><a href="/">Home</a></li><li><a href="/a">About us</a></li><li>Plain item</li></ul></nav>
</header><main><article class="post-body"><h1>A title of the probe</h1>
<p>The first paragraph has enough words to count as prose for the main container, and a
<a href="/x">link</a> inside it, so that its link density is neither zero nor one.</p>
<div><p>Second paragraph, shorter.</p><blockquote>Quoted words here and there again.</blockquote>
<pre>code = 1</pre></div><h2>Comments</h2><div class="comment"><p>A reply with words.</p></div>
<table><tr><td>cell one</td><td>cell two</td></tr></table></article></main>
<footer><p>Footer text &copy; 2024</p></footer></body></html>"""
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
    "probe": PROBE,
}


@pytest.mark.parametrize("name", sorted(EDGE_PAGES))
def test_edge_pages_equal_oracle_and_general_path(name):
    _page(EDGE_PAGES[name])


@pytest.mark.parametrize("groups", [("st",), ("cetr",), ("dom",), ("rx",), ("head",), ("kind",),
                                    ("ic",), ("st", "head", "kind"), ("cetr", "ic", "rx")])
def test_other_group_sets_equal_the_general_path(groups):
    """Specs of a few of the groups the C part fills (models of an ablation): the columns it
    leaves out and the offsets of those it fills."""
    spec = F.FeatureSpec(groups, ["post", "body"], ["comment"])
    assert dense.handles(spec)
    for html in (EDGE_PAGES["probe"], EDGE_PAGES["deep each"], PROSE):
        b = segment(parse(html))
        x, tok = F.page_inputs(b, spec, KIND)
        with _general():
            rx, rtok = F.page_inputs(b, spec, KIND)
        assert np.array_equal(x, rx) and len(tok) == len(rtok)
    assert not dense.handles(F.FeatureSpec(("st", "text")))  # the general path


def test_huge_page_equals_oracle():
    """Thousands of blocks: numpy's pairwise sums recurse past 128 items, the element serials
    (container ids) run high."""
    rnd = random.Random(7)
    parts = []
    for _ in range(6000):
        w = " ".join(f"w{rnd.randrange(50)}" for _k in range(rnd.choice((1, 3, 9, 30))))
        parts.append(rnd.choice(("<p>{}</p>", "<li><a href=#>{}</a></li>", "<div class=post><p>{}</p></div>",
                                 "<h2>{}</h2>", "<td>{}</td>")).format(w))
    _same(segment(parse("<main>" + "".join(parts) + "</main>")))


def test_random_pages_equal_oracle():
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


def test_a_broken_c_part_is_caught(monkeypatch):
    """The comparison can fail: a C part that moves one column by 1e-9 differs from the oracle."""
    real = dense._C

    class Broken:
        smooth = real.smooth

        @staticmethod
        def features(*a):
            real.features(*a)
            out = a[16]  # (the out argument)
            out[:, 0] *= 1 + 1e-9

    monkeypatch.setattr(dense, "_C", Broken)
    b = segment(parse(PROSE * 3))
    assert oracle_differences(b, KIND) == ["st:td"]


@pytest.mark.corpus
def test_c_features_equal_oracle_on_every_corpus_page(data_dir):
    """Every page of every corpus: the C part's columns are the oracle's to its tolerance, and
    the C scoring's block probabilities numpy's to 1e-12 on the same side of every cut."""
    from ce_filter.api import Extractor

    ex = Extractor()
    pages, differ = 0, []
    for corpus, doc, html, b in every_page(data_dir):
        pages += 1
        if not len(b):  # nothing to score (the extractor stops before the model)
            continue
        kind = ex.page_context(b, html, doc.url or None)[0]
        bad = oracle_differences(b, kind)
        if bad:
            differ.append(f"{corpus}/{doc.id} {bad[:3]}")
        for m in _models():
            got = m.block_scores(b, kind)
            with _general():
                ref = m.block_scores(b, kind)
            if not _close_scores(got, ref):
                differ.append(f"{corpus}/{doc.id} {m.name}")
    assert pages > 3000 and not differ, (pages, differ[:10])


def test_heading_lexicon_trie_matches_the_flat_alternation():
    """headings.py's lexicon regex is a prefix tree of the words for speed: it must find a
    boilerplate title exactly where "\\b(?:word|word|...)\\b" does (prefixes of one another,
    words inside words, spaces, digits, non-ASCII letters around them)."""
    import re

    from ce_filter.score.features import headings as H
    from tests.oracles.headings_regex import BOILER_HEADING

    flat = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in H.BOILER_WORDS) + r")\b")
    rnd = random.Random(5)
    pieces = [w for w in H.BOILER_WORDS] + [w[:k] for w in H.BOILER_WORDS for k in (1, 3, len(w) - 1)]
    pieces += [" ", "  ", "-", "_", "s", "ing", "é", "1", "x", "ly", "'", "\u00a0", "ü"]
    texts = [""] + list(H.BOILER_WORDS)
    for _ in range(30000):
        texts.append("".join(rnd.choice(pieces) for _ in range(rnd.randrange(1, 6))))
    differ = [t for t in texts if (flat.search(t) is None) != (BOILER_HEADING.search(t) is None)]
    assert not differ, differ[:10]
    assert sum(flat.search(t) is not None for t in texts) > 1000  # both outcomes are exercised


def test_columns_of_one_and_of_many_stack_side_by_side() -> None:
    """stack_columns places a (blocks,) column, a float, a (blocks, k) block of columns and a
    (blocks, 1) one (a token list of one token) in order."""
    from ce_filter.score.features import stack_columns

    one = np.array([1.0, 2.0, 3.0])
    got = stack_columns(3, [one, 0.5, np.arange(6.0).reshape(3, 2), np.array([[7.0], [8.0], [9.0]])])
    assert got.tolist() == [[1, 0.5, 0, 1, 7], [2, 0.5, 2, 3, 8], [3, 0.5, 4, 5, 9]]
