"""The pass after the walk (ce_filter/_pass.c, Extractor.page_pass): the page kind, the features,
both stages, the cut and the span rule of a page in one C call give the bits of the steps one by
one (Extractor.page_context, features.page_inputs, Model.scores, Extractor.decide): the same
kind probabilities, block probabilities and mask, on pages made to reach every branch and on
every corpus page. Going on in the same call (Extractor.page_run), the rules after the cut, the
thin-page rule and the text give what Extractor.keep and render.to_text give."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ce_filter.api import Extractor
from ce_filter.extractor import NONE_KEPT, THIN_REASON
from ce_filter.keep.render import to_text
from ce_filter.read.segment import parse, segment
from ce_filter.score import features
from ce_filter.score.blockmodel import Model, load_default

from .corpus_pages import every_page
from .test_span_fill import PAGE


def _stepwise(ex: Extractor, b, kind, seen=None):
    s = ex.model.block_scores(b, kind)
    return s, ex.decide(b, s, kind, seen=seen)[0]


def _same(ex: Extractor, b, kind, seen=None) -> bool:
    """The pass with the kind given against the steps one by one."""
    got = ex.page_pass(b, "", None, kind=kind, seen=seen)
    assert got is not None
    s, k = _stepwise(ex, b, kind, seen)
    return np.array_equal(got[0], kind) and np.array_equal(got[1], s) and np.array_equal(got[2], k)


def _same_estimated(ex: Extractor, b, html: str, url: str | None) -> bool:
    """The pass estimating the kind against page_context and the steps one by one."""
    got = ex.page_pass(b, html, url)
    assert got is not None
    kind = ex.page_context(b, html, url)[0]
    s, k = _stepwise(ex, b, kind)
    return np.array_equal(got[0], kind) and np.array_equal(got[1], s) and np.array_equal(got[2], k)


def _same_run(ex: Extractor, b, html: str, url: str | None = None) -> bool:
    """The pass on to the text against the steps one by one: the kind, the scores, the kept
    blocks, the reason and the text (code blocks as written: the walk's code column)."""
    got = ex.page_run(b, html, url)
    assert got is not None
    kind = ex.page_context(b, html, url)[0]
    s = ex.model.block_scores(b, kind)
    keep, reason = ex.keep(b, s, kind, len(html))
    return (np.array_equal(got[0], kind) and np.array_equal(got[1], s) and np.array_equal(got[2], keep)
            and got[3] == reason and got[4] == to_text(b, keep))


def _pages(seed: int, count: int) -> list[str]:
    """Pages of headings (boilerplate titles and shop sections among them), paragraphs, lists,
    tables, code, navigation and footers at random."""
    rnd = random.Random(seed)
    heads = ["Comments", "Related posts", "Customer reviews", "Shipping & returns", "The story",
             "You may also like", "Installation", "Q & A"]
    parts = ["<h2>{h}</h2>", "<p>{w}</p>", "<ul><li>{w}</li><li><a href=#>{w}</a></li></ul>",
             "<table><tr><td>{w}</td><td>{w}</td></tr></table>", "<pre><code>{w}</code></pre>",
             "<nav><a href=/>{w}</a></nav>", "<footer><p>{w}</p></footer>",
             "<div class='review'><p>{w}</p></div>", "<p class='price'>$ {w}</p>",
             "<div id='comments'><p>{w}</p><p>{w}</p></div>", "<div class='author-bio'><p>{w}</p></div>",
             "<div hidden><p>{w}</p></div>", "<p>By Maria Lopez · Updated Nov 13, 2019</p>",
             "<p>Advertisement</p>", "<p>{w} {w}</p>", "<div style='display:none'><p>{w} {w}</p></div>",
             "<div id='respond' class='livefyre'><p>{w}</p></div>",
             "<div class='AUTHOR-Box'><p>{w}</p></div>"]
    words = "the event loop runs tasks and callbacks while a page keeps its story in prose".split()
    out = []
    for _ in range(count):
        body = "".join(rnd.choice(parts).format(h=rnd.choice(heads),
                                                w=" ".join(rnd.choices(words, k=rnd.randrange(1, 60))))
                       for _ in range(rnd.randrange(1, 40)))
        out.append(f"<html><head><title>t</title></head><body><main>{body}</main></body></html>")
    return out


@pytest.mark.parametrize("opts", [{}, {"precise": True}, {"recall": True}, {"threshold": 0.9},
                                  {"comments": True}])
def test_the_pass_gives_the_steps_bits_on_every_kind(opts):
    ex = Extractor(**opts)
    kinds = ex.kind_model.kinds
    pages = [PAGE] + _pages(3, 40)
    for html in pages:
        b = segment(parse(html))
        for k in range(len(kinds)):  # each kind read for sure, then mixed
            kind = np.eye(len(kinds))[k] * 0.6 + 0.4 / len(kinds)
            assert _same(ex, b, kind), (opts, kinds[k], html[:80])
        assert _same_estimated(ex, b, html, None)
        assert _same_estimated(ex, b, html, "https://shop.example.com/p/blue-shoe-42.html?x=1")


def test_the_span_rule_in_the_pass_skips_the_blocks_seen_on_the_host():
    ex = Extractor()
    kinds = ex.kind_model.kinds
    doc = np.eye(len(kinds))[kinds.index("documentation")]
    for html in [PAGE] + _pages(4, 20):
        b = segment(parse(html))
        seen = np.random.default_rng(len(html)).random(len(b)) < 0.3
        assert _same(ex, b, doc, seen)


def test_the_steps_run_where_the_pass_does_not_cover_the_model(monkeypatch):
    from ce_filter.score.pagekind import KINDS
    from ce_filter.score.site.memory import SiteMemory

    ex = Extractor()
    b = segment(parse(PAGE))
    assert ex.page_pass(b, PAGE) is not None
    assert Extractor(site_memory=SiteMemory()).page_pass(b, PAGE) is None  # the site stage
    monkeypatch.setattr(features, "CETR_COLUMNS", lambda n_chr, n_tags: ([], []))
    assert ex.page_pass(b, PAGE) is None  # a research variant of the features
    monkeypatch.undo()
    plain = load_default()
    assert plain.pass_plan() is not None and plain._plain()
    assert KINDS.index("product") == 6  # _pass.c's KIND_PRODUCT


def test_a_product_page_gets_its_shop_cues_in_the_pass():
    """On a page read as a product's, the shop group's cues (repeated text, shop section titles,
    shop class/id names) enter the pass's scores as they enter the steps'."""
    from ce_filter.score.pagekind import KINDS

    ex = Extractor()
    html = ("<html><body><main><h1>Blue shoe</h1><p>A blue shoe for running, light and strong, "
            "with a sole that lasts.</p><p>$ 49.00 Add to cart</p><h2>Customer reviews</h2>"
            "<div class='review'><p>Great shoe, I run in it every day.</p></div><h2>Shipping</h2>"
            "<p>Free shipping over $ 50.</p><p>A blue shoe for running, light and strong, with a "
            "sole that lasts.</p></main></body></html>")
    b = segment(parse(html))
    product = np.eye(len(KINDS))[KINDS.index("product")]
    assert _same(ex, b, product) and _same(ex, b, product * 0.5 + 0.5 / len(KINDS))
    on = ex.page_pass(b, html, None, kind=product)
    off = ex.page_pass(b, html, None, kind=np.eye(len(KINDS))[0])
    assert on is not None and off is not None and not np.array_equal(on[1], off[1])


def test_the_pass_refuses_arrays_of_another_page():
    ex = Extractor()
    b, b2 = segment(parse(PAGE)), segment(parse(_pages(5, 1)[0]))
    assert len(b) != len(b2)
    kind = ex.page_context(b, PAGE, None)[0]
    with pytest.raises(ValueError):
        ex.page_pass(b, PAGE, kind=kind, seen=np.zeros(len(b2), dtype=bool)
                     if len(b2) < len(b) else np.zeros(1, dtype=bool))


def _on_every_corpus_page(data_dir, same) -> None:
    """``same(ex, blocks, html, url)`` on every corpus page of >= 1 block."""
    ex = Extractor()
    pages, differ = 0, []
    for corpus, doc, html, b in every_page(data_dir):
        if not len(b):
            continue
        pages += 1
        if not same(ex, b, html, doc.url or None):
            differ.append(f"{corpus}/{doc.id}")
    assert pages > 3000 and not differ, (pages, differ[:10])


@pytest.mark.corpus
def test_the_pass_gives_the_steps_bits_on_every_corpus_page(data_dir):
    _on_every_corpus_page(data_dir, _same_estimated)


def test_a_copy_given_another_cut_cuts_there():
    """The service copies its Extractor and sets a request's cut on the copy: the pass reads
    the copy's cut, not the one it was made with."""
    import copy

    ex = Extractor()
    b = segment(parse(PAGE))
    assert ex.page_pass(b, PAGE) is not None  # (the per-kind cuts made once here)
    low = copy.copy(ex)
    low.fixed, low.threshold = True, 0.0
    got = low.page_pass(b, PAGE)
    assert got is not None and got[2].all()
    assert not ex.page_pass(b, PAGE)[2].all()


class _Article(Extractor):
    """Every page read as an article: the article rules run whatever the estimate."""

    def kind_name(self, kind: np.ndarray | None) -> str | None:
        return None if kind is None else "article"


@pytest.mark.parametrize("opts", [{}, {"precise": True}, {"recall": True}, {"threshold": 0.3},
                                  {"comments": True}, {"bylines": True}])
def test_the_pass_on_to_the_text_gives_the_steps_values(opts):
    pages = [PAGE] + _pages(6, 60)
    for ex in (Extractor(**opts), _Article(**opts)):
        for html in pages:
            b = segment(parse(html))
            assert _same_run(ex, b, html), (type(ex).__name__, opts, html[:120])
            assert _same_run(ex, b, html, "https://news.example.com/2019/11/13/a-story.html")


def test_a_thin_page_and_an_empty_text_say_why_in_the_pass():
    ex = Extractor()
    label = "<html><body><main><p>Advertisement</p></main></body></html>"  # the label rule takes it
    b = segment(parse(label))
    got = ex.page_run(b, label)
    assert got is not None and not got[2].any() and got[3] == NONE_KEPT and got[4] == ""
    assert _same_run(ex, b, label)
    menu = "<html><body>" + "<div><a href=/x>menu item</a></div>" * 300 + "</body></html>"
    b = segment(parse(menu))
    model = Model.from_json(load_default().to_json())
    model.min_words = 10 ** 6  # every page under it that is not read as an article is thin
    ex = Extractor(model)
    got = ex.page_run(b, menu)
    assert got is not None and not got[2].any() and got[3] == THIN_REASON and got[4] == ""
    assert _same_run(ex, b, menu)


def test_the_steps_run_where_a_subclass_keeps_its_own_way():
    class Own(Extractor):
        def keep(self, *args, **kwargs):
            return super().keep(*args, **kwargs)

    b = segment(parse(PAGE))
    assert Own().page_run(b, PAGE) is None and Extractor().page_run(b, PAGE) is not None
    assert Own().extract(PAGE).text == Extractor().extract(PAGE).text


@pytest.mark.corpus
def test_the_pass_on_to_the_text_gives_the_steps_values_on_every_corpus_page(data_dir):
    _on_every_corpus_page(data_dir, _same_run)
