"""Stage 2 with the page style (Model.stage2_style): its columns are the style probabilities
and their products with the named stage-2 columns, after any kind columns, in training and
serving alike; stage 1 keeps its columns; the option survives the model file and is refused
when inconsistent."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from ce_filter import Extractor
from ce_filter.explain import explain_blocks
from ce_filter.read.segment import parse, segment
from ce_filter.score.blockmodel import Linear, Model, load_default, sigmoid
from ce_filter.score.features import context_features, page_features, stage2_inputs
from ce_filter.score.features.context import STAGE2_STYLE_COLUMNS, kind_context, stage2_columns
from ce_filter.score.pagekind import page_signals

from .model_files import refused, reloaded
from .test_pagekind import LISTING
from .test_style import CORPORA, KIND, STYLE, _style_model

KIND_COLS = ("one", "s")


def _cols(names: tuple[str, ...], page_rel: bool) -> list[int]:
    own = stage2_columns(page_rel)
    return [-1 if c == "one" else own.index(c) for c in names]


def _with_s2_style(kind_cols: tuple[str, ...] | None = None) -> Model:
    """The shipped model with a stage 2 over style columns too (and kind columns before them
    when ``kind_cols``), random weights for the new columns; stage 1 as shipped."""
    m = load_default()
    assert m.stage2 is not None and m.pagekind is not None and not m.spec.style
    extra = len(CORPORA) * len(STAGE2_STYLE_COLUMNS)
    if kind_cols is not None:
        extra += len(m.pagekind.kinds) * len(kind_cols)
    rng = np.random.default_rng(11)
    s2 = m.stage2
    stage2 = Linear(np.concatenate([s2.mean, np.full(extra, 0.1)]),
                    np.concatenate([s2.scale, np.full(extra, 0.2)]),
                    np.concatenate([s2.coef, rng.normal(size=extra)]), s2.intercept)
    return replace(m, stage2=stage2, stage2_kind=kind_cols, stage2_style=STAGE2_STYLE_COLUMNS,
                   pagestyle=_style_model(), meta={})


@pytest.mark.parametrize("kind_cols", [None, KIND_COLS])
def test_roundtrip_and_stage_2_follows_the_style(tmp_path, c_part, kind_cols):
    m = _with_s2_style(kind_cols)
    back = reloaded(m, tmp_path)
    assert back.stage2_style == STAGE2_STYLE_COLUMNS
    assert json.loads(back.dumps())["stage2_style"] == list(STAGE2_STYLE_COLUMNS)
    b = segment(parse(LISTING))
    rel = back.stage2_page_rel
    for kind, style in ((KIND, STYLE), (KIND, None), (None, STYLE)):
        got = back.block_scores(b, kind, style)
        # the reference: stage 1 as shipped, context_features, the kind then the style columns
        x = page_features(b, back.spec, kind)
        p1 = sigmoid(back.stage1.decision(x))
        base = context_features(p1, *stage2_inputs(b), page_rel=rel)
        c = base
        if kind_cols is not None:
            k = np.zeros(len(KIND)) if kind is None else kind
            c = kind_context(base, k, _cols(kind_cols, rel))
        q = np.zeros(len(CORPORA)) if style is None else style
        c = np.hstack((c, kind_context(base, q, _cols(STAGE2_STYLE_COLUMNS, rel))[:, base.shape[1]:]))
        np.testing.assert_allclose(got, sigmoid(back.stage2.decision(c)), rtol=0, atol=1e-12)
        np.testing.assert_allclose(got, back.predict_proba(x, *stage2_inputs(b), kind, style),
                                   rtol=0, atol=1e-12)
        np.testing.assert_allclose(back.kind_context(base, kind, style), c, rtol=0, atol=0)
    # the same stage-1 scores, another style in stage 2 only: the scores move
    assert not np.allclose(back.block_scores(b, KIND, STYLE),
                           back.block_scores(b, KIND, np.array([0.0, 0.0, 1.0])))


def test_the_extractor_and_explain_feed_stage_2_the_style():
    m = _with_s2_style()
    ex = Extractor(model=m)
    b = segment(parse(LISTING))
    url = "https://shop.example/list"
    kind, style = ex.page_context(b, LISTING, url)
    np.testing.assert_allclose(style, m.pagestyle.proba(page_signals(b, LISTING, url)), rtol=0, atol=0)
    r = ex.extract(LISTING, url=url)
    np.testing.assert_allclose([blk.score for blk in r.blocks], m.block_scores(b, kind, style),
                               rtol=0, atol=1e-12)
    whys, scores = explain_blocks(m, b, m.threshold, top=300, kind=kind, style=style)
    np.testing.assert_allclose(scores, m.block_scores(b, kind, style), rtol=0, atol=1e-12)
    names = {t.name for w in whys for t in w.stage2_terms}
    assert "P(style dragnet)" in names and "P(style dragnet) x stage-1 score of this block" in names


@pytest.mark.parametrize("mutate", [
    lambda d: d.pop("pagestyle"),  # stage 2's style columns need the style model
    lambda d: d.pop("stage2_style"),  # then stage 2's weights are too many
    lambda d: d.update(stage2_style=["s"]),  # likewise too many
    lambda d: d.update(stage2_style=["no_such_column", "s", "one"]),
    lambda d: d.update(stage2_style="s"),
    lambda d: d.update(stage2_style=["s", "s", "one"]),
    lambda d: d["pagestyle"].update(kinds=["a", "b"]),
])
def test_bad_stage2_style_is_refused(mutate):
    refused(_with_s2_style(), mutate)


def test_a_style_model_without_any_style_columns_is_refused():
    refused(load_default(), lambda d: d.update(pagestyle=_style_model().to_json()))


def test_training_gives_stage_2_the_style_columns(tmp_path, monkeypatch):
    """Stage 2's design in training: its own columns, then the out-of-fold style probabilities
    of each page and their products; stage 1 has no style columns; the option is recorded."""
    pytest.importorskip("sklearn")
    from ce_filter.learn import fit, logreg
    from ce_filter.learn.configs import CONFIGS, corpus_pages

    from .typed_corpus import make_typed_corpus

    roots = [str(make_typed_corpus(tmp_path / name, n=16)) for name in ("olda", "newb")]
    pages = corpus_pages(roots, False)[0]
    cfg = replace(CONFIGS["best+kind+pn.5+w1+shop05+ic30+s2sty"], ic_min_pages=0, ic_odds=1.0,
                  log=False, folds=3)
    seen = []
    real = logreg.dense_design
    monkeypatch.setattr(logreg, "dense_design", lambda x: seen.append(x) or real(x))
    # this toy corpus's stage 1 is perfect: stage 2 is kept only when told it beats it
    stage = fit._context_stage
    monkeypatch.setattr(fit, "_context_stage", lambda key, ctx, prev, *a: stage(key, ctx, -1.0, *a))
    m = fit.train(pages, cfg, name="content", data_desc={})
    assert m.meta["config"]["stage2_style"] == list(STAGE2_STYLE_COLUMNS)
    assert not m.spec.style  # stage 1 unchanged
    (ctx,) = seen
    base = stage2_columns(True)
    assert ctx.shape[1] == len(base) + 2 * len(STAGE2_STYLE_COLUMNS)
    at = 0
    for p in pages:
        n = len(p.y)
        assert p.style is not None and len(p.style) == 2
        np.testing.assert_array_equal(ctx[at:at + n, len(base):len(base) + 2], np.tile(p.style, (n, 1)))
        own = ctx[at:at + n, base.index("s")]
        np.testing.assert_array_equal(ctx[at:at + n, len(base) + 2:len(base) + 4], own[:, None] * p.style)
        at += n
    assert m.stage2 is not None and m.stage2_style == STAGE2_STYLE_COLUMNS
    assert m.pagestyle is not None and m.pagestyle.kinds == ("newb", "olda")
    back = Model.from_json(json.loads(m.dumps()))
    assert back.dumps() == m.dumps()
    b = pages[0].blocks
    np.testing.assert_allclose(back.block_scores(b, pages[0].kind, pages[0].style),
                               m.block_scores(b, pages[0].kind, pages[0].style), rtol=0, atol=0)
    # without a stage 2 the option and the style model go: nothing would read them
    monkeypatch.setattr(fit, "_context_stage", lambda *a: (None, 0.0, 0.0, None))
    m = fit.train(pages, cfg, name="content", data_desc={})
    assert m.stage2 is None and m.stage2_style is None and m.pagestyle is None
    Model.from_json(json.loads(m.dumps()))
