"""Thin pages (Model.min_words, model.thin_page): a page not read as an article whose kept text
is shorter than the model's limit gives no text and says why; articles keep short texts; the
limit is chosen on CV in training, kept by the model file, refused when malformed."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from ce_filter.bench.stages import staged_extract

from ce_filter import Extractor
from ce_filter.api import THIN_REASON
from ce_filter.explain import explain
from ce_filter.score.blockmodel import THIN_ARTICLE_P, THIN_MIN_CHARS, load_default, thin_page

from .model_files import refused, reloaded

# an app shell: a whole page of script whose one line of text is the "enable JavaScript" notice
SHELL = (b"<html><head><script>" + b"window.__state = {};" * 500 + b"</script></head><body>"
         b"<div id=app><p>You need to enable JavaScript to run this app.</p></div></body></html>")
FRAGMENT = b"<p>You need to enable JavaScript to run this app.</p>"
ARTICLE = [0.9, 0.02, 0.02, 0.02, 0.02, 0.01, 0.01]
PRODUCT = [0.05, 0.01, 0.04, 0.0, 0.1, 0.1, 0.7]


def test_the_rule():
    page = THIN_MIN_CHARS
    assert thin_page(9.0, np.array(PRODUCT), 10, page)
    assert not thin_page(10.0, np.array(PRODUCT), 10, page)  # at the limit: kept
    assert not thin_page(3.0, np.array(ARTICLE), 10, page)  # an article keeps a caption
    edge = np.array([THIN_ARTICLE_P] + [0.5 / 6] * 6)
    assert not thin_page(3.0, edge, 10, page)
    edge[0] -= 1e-9
    assert thin_page(3.0, edge, 10, page)
    assert not thin_page(3.0, np.array(PRODUCT), 0, page)  # off
    assert not thin_page(3.0, None, 10, page)  # no kind estimate: no rule
    assert not thin_page(3.0, np.array(PRODUCT), 10, page - 1)  # a fragment keeps its line


def _thin(k: int = 12):
    return replace(load_default(), min_words=k, meta={})


def _with_kind(monkeypatch, kind):
    """Every page read with the kind probabilities ``kind`` (to rounding): the shipped model's
    page-kind model swapped for one whose softmax is that whatever the page (no weights, the
    intercepts the probabilities' logarithms), so that the pass and the steps both read it."""
    from ce_filter.score.pagekind import PageKindModel

    real = load_default().pagekind
    assert real is not None
    nf = len(real.mean)
    with np.errstate(divide="ignore"):
        fixed = PageKindModel(real.kinds, np.zeros(nf), np.ones(nf), np.zeros((len(real.kinds), nf)),
                              np.log(np.array(kind, dtype=np.float64)))
    monkeypatch.setattr(load_default(), "pagekind", fixed)  # (_thin copies the shipped model)


def test_a_thin_page_gives_no_text_and_says_why(monkeypatch):
    _with_kind(monkeypatch, PRODUCT)
    out = Extractor(_thin()).extract(SHELL)
    assert out.text == "" and out.reason == "too little main content"
    assert len(out.blocks) and out.blocks.kept() == 0 and not any(b.is_content for b in out.blocks)
    assert out.page_type == ""  # the estimate sets the rule; a page this short states none (kinds.gate)
    assert staged_extract(Extractor(_thin()), SHELL)[0] == ""
    # the same page with the rule off, or a lower limit, keeps its line
    assert Extractor(_thin(0)).extract(SHELL).text
    assert Extractor(_thin(3)).extract(SHELL).text
    assert len(SHELL) >= THIN_MIN_CHARS > len(FRAGMENT)
    assert Extractor(_thin()).extract(FRAGMENT).text == out.blocks[0].text  # a fragment: kept
    why = explain(SHELL, extractor=Extractor(_thin()))  # explain shows the page as extract made it
    assert why["reason"] == THIN_REASON and why["blocks"] and not any(b["kept"] for b in why["blocks"])


def test_an_article_keeps_a_short_text(monkeypatch):
    _with_kind(monkeypatch, ARTICLE)
    out = Extractor(_thin()).extract(SHELL)
    assert out.text and out.reason == ""
    assert staged_extract(Extractor(_thin()), SHELL)[0] == out.text


def test_the_shipped_model_drops_thin_pages():
    m = load_default()
    assert m.min_words > 0 and m.to_json()["min_words"] == m.min_words
    assert m.meta["config"]["min_words"] and m.meta["cv"]["min_words"]


def test_roundtrip(tmp_path):
    back = reloaded(_thin(8), tmp_path)
    assert back.min_words == 8 and back.to_json()["min_words"] == 8


@pytest.mark.parametrize("bad", [-1, 2.5, "8", True, None])
def test_a_malformed_limit_is_refused(bad):
    refused(_thin(), lambda d: d.update(min_words=bad), match="min_words")


def test_a_limit_needs_the_page_kind_model():
    refused(_thin(), lambda d: d.pop("pagekind"), match="page-kind model")


def test_training_chooses_the_limit_on_cv(tmp_path):
    """choose_min_words scores each limit as the extractor would apply it: dropped pages score
    1 where the gold is empty too, 0 elsewhere; the best limit wins, the smaller on a tie."""
    pytest.importorskip("sklearn")
    from ce_filter.learn.configs import corpus_pages
    from ce_filter.learn.fit import choose_min_words, page_prf

    from .typed_corpus import make_typed_corpus

    pages = corpus_pages([str(make_typed_corpus(tmp_path / "w", n=12))], False)[0][:6]
    per = [np.where(p.y, 0.9, 0.1) for p in pages]
    words = [float(p.blocks.token_counts()[s >= 0.5].sum()) for p, s in zip(pages, per)]
    for p in pages:
        p.kind = np.array(PRODUCT)
        assert p.html_chars > 0
        p.html_chars = THIN_MIN_CHARS
    pages[0].kind = np.array(ARTICLE)
    pages[1].gold_words = 0  # a page whose gold is empty: dropping it is right
    f1 = page_prf(pages, per, 0.5)[:, 2]
    w1 = words[1]
    best, by = choose_min_words(pages, per, 0.5, (int(w1) + 1, 10**6))
    assert set(by) == {"0", str(int(w1) + 1), "1000000"}
    assert by["0"] == pytest.approx(f1.mean(), abs=1e-4)
    want = [1.0 if i == 1 else (f if i == 0 or w >= w1 + 1 else 0.0)
            for i, (f, w) in enumerate(zip(f1, words))]
    assert by[str(int(w1) + 1)] == pytest.approx(np.mean(want), abs=1e-4)
    assert by["1000000"] == pytest.approx(np.mean([f1[0], 1.0, 0, 0, 0, 0]), abs=1e-4)
    assert best == max((0, int(w1) + 1, 10**6), key=lambda k: (by[str(k)], -k))


def test_text_without_spaces_is_counted_per_character(monkeypatch):
    """A Chinese news paragraph is dozens of words, not one: a page the kind model does not read
    as an article keeps it (counted by spaces, it was 'too little main content')."""
    _with_kind(monkeypatch, PRODUCT)
    zh = "新华社北京电，中国人民银行今日宣布下调金融机构存款准备金率零点五个百分点。"
    page = SHELL.replace(b"You need to enable JavaScript to run this app.", zh.encode())
    out = Extractor(_thin()).extract(page)
    assert out.reason == "" and zh in out.text
    short = SHELL.replace(b"You need to enable JavaScript to run this app.", "请启用脚本".encode())
    assert Extractor(_thin()).extract(short).reason == THIN_REASON  # five characters: still thin
