"""Stage 2 with the page kind (Model.stage2_kind): its columns are the kind probabilities and
their products with the named stage-2 columns, in training and serving alike; the option
survives the model file; a model without it is the model it was."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from ce_filter.explain import explain_blocks
from ce_filter.read.segment import parse, segment
from ce_filter.score.blockmodel import Linear, Model, load_default, sigmoid
from ce_filter.score.features import context_features, page_features, stage2_inputs
from ce_filter.score.features.context import (
    STAGE2_KIND_ANCESTORS,
    STAGE2_KIND_COLUMNS,
    kind_context,
    stage2_columns,
)
from ce_filter.score.pagekind import KINDS

from .model_files import refused, reloaded
from .test_pagekind import LISTING

KIND = np.array([0.4, 0.05, 0.1, 0.15, 0.1, 0.12, 0.08])
LIST = np.eye(len(KINDS))[KINDS.index("listing")]


def test_stage2_columns_name_context_features_columns():
    for rel in (False, True):
        names = stage2_columns(rel)
        assert len(names) == context_features(np.zeros(1), page_rel=rel).shape[1]
        assert names[3] == "s" and (names[-1] == "page_rel") == rel
    assert set(STAGE2_KIND_COLUMNS) <= {"one", *stage2_columns(True)}


def _cols(names: tuple[str, ...], page_rel: bool = True) -> list[int]:
    """kind_context's column indices of stage-2 column names (-1: "one")."""
    own = stage2_columns(page_rel)
    return [-1 if c == "one" else own.index(c) for c in names]


def test_kind_columns_are_probabilities_and_their_products():
    b = segment(parse(LISTING))
    s = np.linspace(0.05, 0.95, len(b))
    base = context_features(s, *stage2_inputs(b), page_rel=True)
    cols = _cols(STAGE2_KIND_COLUMNS)
    x = kind_context(base, KIND, cols)
    k, w = len(KINDS), base.shape[1]
    assert x.shape == (len(b), w + k * len(cols))
    assert np.array_equal(x[:, :w], base)
    assert np.array_equal(x[:, w:w + k], np.tile(KIND, (len(b), 1)))  # "one" first
    for i, j in enumerate(cols):
        for q in range(k):
            want = KIND[q] if j < 0 else base[:, j] * KIND[q]
            assert np.array_equal(x[:, w + i * k + q], np.broadcast_to(want, len(b))), (i, q)


def _with_kind(cols: tuple[str, ...] = STAGE2_KIND_COLUMNS) -> Model:
    """The shipped model with a stage 2 over the kind columns too (random kind weights)."""
    m = load_default()
    assert m.stage2 is not None and m.pagekind is not None
    extra = len(m.pagekind.kinds) * len(cols)
    coef = np.concatenate([m.stage2.coef, np.random.default_rng(3).normal(size=extra)])
    mean = np.concatenate([m.stage2.mean, np.full(extra, 0.1)])
    scale = np.concatenate([m.stage2.scale, np.full(extra, 0.2)])
    return replace(m, stage2=Linear(mean, scale, coef, m.stage2.intercept), stage2_kind=cols,
                   meta={})


@pytest.mark.parametrize("cols", [STAGE2_KIND_COLUMNS, STAGE2_KIND_ANCESTORS])
def test_roundtrip_and_scores_follow_the_kind_in_stage_2(tmp_path, c_part, cols):
    m = _with_kind(cols)
    back = reloaded(m, tmp_path)
    assert back.stage2_kind == cols
    assert json.loads(back.dumps())["stage2_kind"] == list(cols)
    b = segment(parse(LISTING))
    for kind in (KIND, LIST, None):  # None: no estimate, the kind columns are 0
        got = back.block_scores(b, kind)
        # the serving path is the reference: stage 1, context_features, the kind columns
        x = page_features(b, back.spec, kind)
        p1 = sigmoid(back.stage1.decision(x))
        p = np.zeros(len(KINDS)) if kind is None else kind
        c = kind_context(context_features(p1, *stage2_inputs(b), page_rel=back.stage2_page_rel),
                         p, _cols(cols, back.stage2_page_rel))
        np.testing.assert_allclose(got, sigmoid(back.stage2.decision(c)), rtol=0, atol=1e-12)
        np.testing.assert_allclose(got, back.predict_proba(x, *stage2_inputs(b), kind),
                                   rtol=0, atol=1e-12)
    # the same stage-1 scores, another kind in stage 2 only: the stage-2 scores move
    x = page_features(b, back.spec, KIND)
    assert not np.allclose(back.predict_proba(x, *stage2_inputs(b), KIND),
                           back.predict_proba(x, *stage2_inputs(b), LIST))


def test_explain_shows_the_kind_terms():
    m = _with_kind(("one", "s", "anc2"))
    b = segment(parse(LISTING))
    whys, scores = explain_blocks(m, b, m.threshold, top=200, kind=LIST)
    np.testing.assert_allclose(scores, m.block_scores(b, LIST), rtol=0, atol=1e-12)
    names = {t.name for w in whys for t in w.stage2_terms}
    assert "P(listing)" in names and "P(listing) x stage-1 score of this block" in names


def test_a_model_without_the_option_is_unchanged():
    m = load_default()
    assert m.stage2_kind is None and "stage2_kind" not in m.to_json()
    assert "stage2_kind" not in m.meta.get("config", {})
    b = segment(parse(LISTING))
    x = page_features(b, m.spec, KIND)
    p1 = sigmoid(m.stage1.decision(x))
    c = context_features(p1, *stage2_inputs(b), page_rel=m.stage2_page_rel)
    assert m.stage2 is not None and c.shape[1] == len(m.stage2.coef)
    np.testing.assert_allclose(m.block_scores(b, KIND), sigmoid(m.stage2.decision(c)),
                               rtol=0, atol=1e-12)


@pytest.mark.parametrize("mutate", [
    lambda d: d.update(stage2_kind=["no_such_column"]),
    lambda d: d.update(stage2_kind="s"),
    lambda d: d.update(stage2_kind=["s", "s"]),
    lambda d: d.update(stage2_kind=["s"]),  # the weights are for seven columns
    lambda d: d.pop("stage2_kind"),  # likewise: without the option stage 2 has fewer inputs
    lambda d: d.update(stage2_page_rel=False),  # "page_rel" is no longer a column
])
def test_bad_stage2_kind_is_refused(mutate):
    refused(_with_kind(), mutate)


def test_training_gives_stage_2_the_kind_columns(tmp_path, monkeypatch):
    """Stage 2's design in training is serving's input (kind columns from each page's kind
    estimate), and the option is recorded in the config."""
    pytest.importorskip("sklearn")
    from ce_filter.learn import fit, logreg
    from ce_filter.learn.configs import CONFIGS, corpus_pages

    from .typed_corpus import make_typed_corpus

    root = make_typed_corpus(tmp_path / "w", n=24)
    pages = corpus_pages([str(root)], False)[0]
    cfg = replace(CONFIGS["best+kind+s2k"], ic_min_pages=0, ic_odds=1.0, log=False, folds=3)
    seen = []
    real = logreg.dense_design
    monkeypatch.setattr(logreg, "dense_design", lambda x: seen.append(x) or real(x))
    m = fit.train(pages, cfg, name="content", data_desc={})
    assert m.meta["config"]["stage2_kind"] == list(STAGE2_KIND_COLUMNS)
    (ctx,) = seen
    base = stage2_columns(True)
    k = len(KINDS)
    assert ctx.shape[1] == len(base) + k * len(STAGE2_KIND_COLUMNS)
    at = 0
    for p in pages:
        n = len(p.y)
        assert np.array_equal(ctx[at:at + n, len(base):len(base) + k], np.tile(p.kind, (n, 1)))
        own = ctx[at:at + n, base.index("s")]
        np.testing.assert_array_equal(ctx[at:at + n, len(base) + k:len(base) + 2 * k],
                                      own[:, None] * p.kind)
        at += n
    # stage 2 keeps the option only where it was fitted (this toy corpus: stage 1 is perfect)
    assert m.stage2_kind == (STAGE2_KIND_COLUMNS if m.stage2 is not None else None)
