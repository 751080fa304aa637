"""Stage 2's farther ancestors (Model.stage2_deep): the same columns in training and serving,
kept by the model file, refused when malformed; a model without them has no such key."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from ce_filter.explain import explain_blocks
from ce_filter.read.segment import parse, segment
from ce_filter.score.blockmodel import Linear, Model, load_default, sigmoid
from ce_filter.score.features import context_features, page_features, stage2_inputs
from ce_filter.score.features.context import deep_columns
from ce_filter.score.features.dom import group_sum

from .model_files import refused, reloaded
from .stage_training import assert_stage2_design, recording_training, stage2_beats_stage1
from .test_pagekind import LISTING

KIND = np.array([0.4, 0.05, 0.1, 0.15, 0.1, 0.12, 0.08])
DEEP = (4, 6, 8)
# two columns, each of cards nested deeply enough that ancestors 4, 6 and 8 levels up differ
_CARD = "<div class=card><div><div><h3>Card {i}</h3><p>Text of card {i} here.</p></div></div></div>"
DEEP_PAGE = ("<html><body><div><div><div>"
             + "".join(f"<section><div><div><div>{_CARD.format(i=i)}</div></div></div></section>"
                       for i in range(3))
             + "</div></div><aside><div><div><div><div><div><div><ul><li>x</li><li>y</li></ul>"
             + "</div></div></div></div></div></div></aside></div></body></html>")


def _with_deep() -> Model:
    """The shipped model's stage 1 with a stage 2 over its columns and three deep ones."""
    m = load_default()
    assert m.stage2 is not None and m.stage2_kind is None
    n = len(m.stage2.coef) + len(DEEP)
    rng = np.random.default_rng(3)
    s2 = Linear(np.full(n, 0.3), np.full(n, 0.25), rng.normal(size=n), -0.1)
    return replace(m, stage2=s2, stage2_deep=DEEP, meta={})


def test_deep_columns_are_weighted_means_under_the_ancestor():
    b = segment(parse(DEEP_PAGE))
    cont, w = stage2_inputs(b)
    s = np.linspace(0.0, 1.0, len(b))
    got = deep_columns(s, cont, w, DEEP)
    for j, lvl in enumerate(DEEP):
        ids = cont[:, lvl]
        for i in range(len(b)):
            same = ids == ids[i]
            assert got[i, j] == pytest.approx(float((s * w)[same].sum() / w[same].sum()))
    np.testing.assert_array_equal(got[:, 0], group_sum(cont[:, 4], s * w) / group_sum(cont[:, 4], w))
    for j in range(len(DEEP)):  # each level groups the blocks differently from the page
        assert len(set(got[:, j])) > 1


def test_roundtrip_and_scores_use_the_deep_columns(tmp_path, c_part):
    m = _with_deep()
    back = reloaded(m, tmp_path)
    assert back.stage2_deep == DEEP
    b = segment(parse(LISTING))
    x = page_features(b, back.spec, KIND)
    p1 = sigmoid(back.stage1.decision(x))
    cont, w = stage2_inputs(b)
    c2 = np.hstack((context_features(p1, cont, w, page_rel=back.stage2_page_rel),
                    deep_columns(p1, cont, w, DEEP)))
    want = sigmoid(back.stage2.decision(c2))
    got = back.block_scores(b, KIND)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    _, scores = explain_blocks(back, b, back.threshold, top=5, kind=KIND)
    np.testing.assert_allclose(scores, got, rtol=0, atol=1e-12)


def test_the_shipped_model_has_no_such_key():
    m = load_default()
    assert m.stage2_deep == () and "stage2_deep" not in m.to_json()
    assert "stage2_deep" not in m.meta.get("config", {})


@pytest.mark.parametrize("bad", [[3], [4, 4], [10], ["5"], [True], 5])
def test_malformed_levels_are_refused(bad):
    refused(_with_deep(), lambda d: d.update(stage2_deep=bad), match="stage2_deep")


def test_a_stage_2_of_the_wrong_width_is_refused():
    refused(_with_deep(), lambda d: d.update(stage2_deep=[5]), match="stage2")


def test_training_gives_stage_2_the_deep_columns(tmp_path, monkeypatch):
    """Stage 2's design is context_features and deep_columns over stage 1's out-of-fold scores;
    the trained model records the levels and serves with them."""
    pages, cfg, seen, oofs = recording_training(tmp_path, monkeypatch,
                                                "best+kind+pn.5+w1+shop05+ic30+deep", stage2_beats_stage1)
    from ce_filter.learn import fit

    m = fit.train(pages, cfg, name="content", data_desc={})
    assert m.stage2 is not None and m.stage2_deep == DEEP
    assert m.meta["config"]["stage2_deep"] == list(DEEP)
    (ctx2,) = seen
    assert_stage2_design(pages, ctx2, oofs[0], lambda s, b, cont, w: deep_columns(s, cont, w, DEEP))
    back = Model.from_json(json.loads(m.dumps()))
    assert back.stage2_deep == DEEP and len(back.stage2.coef) == ctx2.shape[1]
