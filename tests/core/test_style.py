"""The page-style columns (features.style, Model.pagestyle): the same values in training and
serving, kept by the model file, refused when inconsistent; the style model fitted on the
training corpora gives every training page out-of-fold probabilities."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from ce_filter import Extractor
from ce_filter.explain import explain_blocks
from ce_filter.learn.fit import LabelledPage, page_styles
from ce_filter.read.segment import parse, segment
from ce_filter.score.blockmodel import Linear, Model, load_default
from ce_filter.score.features import feature_names, page_features, page_inputs
from ce_filter.score.features.spec import FeatureSpec
from ce_filter.score.features.style import STYLE_MIX, style_columns
from ce_filter.score.pagekind import N_FEATURES, PageKindModel, page_signals

from .model_files import refused, reloaded, without_trees
from .test_pagekind import LISTING

KIND = np.array([0.4, 0.05, 0.1, 0.15, 0.1, 0.12, 0.08])
CORPORA = ("cleaneval-dev", "dragnet", "wcxb-dev")
STYLE = np.array([0.2, 0.7, 0.1])


def test_style_columns_are_the_probabilities_and_their_products():
    x = np.arange(6.0).reshape(3, 2)
    got = style_columns(x, STYLE, 3)
    assert got.shape == (3, 3 + 2 * 3)
    np.testing.assert_array_equal(got[:, :3], np.tile(STYLE, (3, 1)))
    for j in range(2):  # column j times each corpus, in corpus order
        for c in range(3):
            np.testing.assert_array_equal(got[:, 3 + 3 * j + c], x[:, j] * STYLE[c])
    assert not style_columns(x, None, 3).any()  # no estimate: every column 0


def _style_model() -> PageKindModel:
    rng = np.random.default_rng(5)
    return PageKindModel(CORPORA, np.zeros(N_FEATURES), np.ones(N_FEATURES),
                         rng.normal(scale=0.05, size=(3, N_FEATURES)), np.array([0.1, -0.2, 0.3]))


def _with_style(mix: tuple[str, ...] = STYLE_MIX) -> Model:
    """The shipped model with style columns over ``mix`` and weights for them."""
    m = without_trees(load_default())
    spec = replace(m.spec, style=CORPORA, style_mix=mix)
    n_new = len(feature_names(spec)) - len(feature_names(m.spec))
    rng = np.random.default_rng(7)
    s1 = m.stage1
    stage1 = Linear(np.concatenate([s1.mean, np.zeros(n_new)]), np.concatenate([s1.scale, np.ones(n_new)]),
                    np.concatenate([s1.coef, rng.normal(scale=0.5, size=n_new)]), s1.intercept)
    return replace(m, spec=spec, stage1=stage1, pagestyle=_style_model(), meta={})


def test_roundtrip_and_serving_equals_training(tmp_path, c_part):
    m = _with_style()
    back = reloaded(m, tmp_path)
    assert back.spec.style == CORPORA and back.spec.style_mix == STYLE_MIX
    assert back.pagestyle is not None and back.pagestyle.kinds == CORPORA
    b = segment(parse(LISTING))
    full = page_features(b, back.spec, KIND, STYLE)  # training's matrix
    names = feature_names(back.spec)
    assert full.shape[1] == len(names)
    dense_x, _ = page_inputs(b, back.spec, KIND, STYLE)  # serving's dense part
    is_dense = [not n.startswith(("ic_own:", "ic_anc:", "head:")) for n in names]
    np.testing.assert_allclose(dense_x, full[:, is_dense], rtol=0, atol=1e-12)
    at = names.index("smix_dragnet*ld")
    np.testing.assert_allclose(full[:, at], full[:, names.index("ld")] * STYLE[1], rtol=0, atol=1e-15)
    assert (full[:, names.index("sty_wcxb-dev")] == STYLE[2]).all()
    got = back.block_scores(b, KIND, STYLE)
    _, scores = explain_blocks(back, b, back.threshold, top=5, kind=KIND, style=STYLE)
    np.testing.assert_allclose(scores, got, rtol=0, atol=1e-12)
    # the style moves the scores: the columns are read
    assert not np.allclose(got, back.block_scores(b, KIND, STYLE[::-1].copy()))


def test_the_extractor_feeds_the_model_its_style_model_s_estimate():
    m = _with_style()
    ex = Extractor(model=m)
    b = segment(parse(LISTING))
    kind, style = ex.page_context(b, LISTING, "https://shop.example/list")
    want = m.pagestyle.proba(page_signals(b, LISTING, "https://shop.example/list"))
    np.testing.assert_allclose(style, want, rtol=0, atol=0)
    r = ex.extract(LISTING, url="https://shop.example/list")
    np.testing.assert_allclose([blk.score for blk in r.blocks], m.block_scores(b, kind, style),
                               rtol=0, atol=1e-12)
    assert Extractor().page_context(b, LISTING, None)[1] is None  # the shipped model has none


@pytest.mark.parametrize("mutate", [
    lambda d: d.pop("pagestyle"),
    lambda d: d["pagestyle"].update(kinds=["a", "b", "c"]),
    lambda d: d.update(pagestyle=[1, 2]),
    lambda d: d["pagestyle"].update(coef=[[0.0]]),
    lambda d: d["features"]["spec"].update(style_mix=[3]),
])
def test_inconsistent_style_is_refused(mutate):
    refused(_with_style(), mutate)


def test_style_mix_needs_style():
    with pytest.raises(ValueError):
        FeatureSpec.from_json({"groups": ["st"], "style_mix": ["ld"]})
    with pytest.raises(ValueError):
        feature_names(FeatureSpec(groups=("st",), style=CORPORA, style_mix=("no_such_column",)))


def test_the_shipped_model_has_no_style():
    m = load_default()
    assert m.pagestyle is None and m.spec.style == ()
    assert "pagestyle" not in m.to_json() and "style" not in m.to_json()["features"]["spec"]


def _page(pid: str, html: str, site: str) -> LabelledPage:
    b = segment(parse(html))
    n = len(b)
    return LabelledPage(pid, b, np.zeros(n), np.ones(n), np.zeros(n), 1, site, "",
                        page_signals(b, html, None))


def test_page_styles_are_out_of_fold_over_the_training_corpora():
    old = ("<html><body><table><tr><td><font>{i} news of the day, in a table</font></td></tr>"
           "</table></body></html>")
    new = ("<!doctype html><html><head><script type='application/ld+json'>{{\"@type\": \"Article\"}}"
           "</script></head><body><main><article><p>{i} a modern article.</p></article></main></body></html>")
    pages = [_page(f"old/{i}", old.format(i=i), f"o{i}.example") for i in range(10)]
    pages += [_page(f"new/{i}", new.format(i=i), f"n{i}.example") for i in range(10)]
    model = page_styles(pages)
    assert model is not None and model.kinds == ("new", "old")
    p = np.array([pg.style for pg in pages])
    assert p.shape == (20, 2) and np.allclose(p.sum(axis=1), 1.0)
    assert (p[:10, 1] > 0.5).all() and (p[10:, 0] > 0.5).all()  # each side told apart, held out
    # one corpus: nothing to tell apart
    assert page_styles(pages[:10]) is None


def test_page_style_classes_merge_corpora():
    html = "<html><body><p>{i} words of a page {c}</p></body></html>"
    pages = [_page(f"{c}/{i}", html.format(i=i, c=c), f"{c}{i}.example")
             for c in ("a", "b", "c") for i in range(4)]
    model = page_styles(pages, classes={"b": "rest", "c": "rest"})
    assert model is not None and model.kinds == ("a", "rest")
    assert all(len(p.style) == 2 for p in pages)
