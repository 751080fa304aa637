"""A third stage (Model.stage3): stage 2's form over stage 2's scores, the same in training and
serving; it survives the model file; a file without it is the model it was; a malformed one is
refused."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from ce_filter.explain import explain_blocks
from ce_filter.read.segment import parse, segment
from ce_filter.score.blockmodel import Linear, Model, ModelError, load_default, sigmoid
from ce_filter.score.features import context_features, page_features, stage2_inputs

from .model_files import reloaded
from .stage_training import recording_training
from .test_pagekind import LISTING

KIND = np.array([0.4, 0.05, 0.1, 0.15, 0.1, 0.12, 0.08])


def _with_stage3() -> Model:
    """The shipped model with a stage 3 (random weights of stage 2's width)."""
    m = load_default()
    assert m.stage2 is not None
    n = len(m.stage2.coef) if m.stage2_kind is None else context_features(
        np.zeros(1), page_rel=m.stage2_page_rel).shape[1]
    rng = np.random.default_rng(7)
    s3 = Linear(np.full(n, 0.3), np.full(n, 0.25), rng.normal(size=n), -0.2)
    return replace(m, stage3=s3, meta={})


def test_roundtrip_and_scores_go_through_stage_3(tmp_path, c_part):
    m = _with_stage3()
    back = reloaded(m, tmp_path)
    assert back.stage3 is not None
    assert "stage3" in json.loads(back.dumps())
    b = segment(parse(LISTING))
    x = page_features(b, back.spec, KIND)
    base = replace(back, stage3=None)
    p2 = base.predict_proba(x, *stage2_inputs(b), KIND)
    c3 = context_features(p2, *stage2_inputs(b), page_rel=back.stage2_page_rel)
    want = sigmoid(back.stage3.decision(c3))
    got = back.block_scores(b, KIND)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert not np.allclose(got, p2)  # stage 3 is applied, not skipped
    whys, scores = explain_blocks(back, b, back.threshold, top=5, kind=KIND)
    np.testing.assert_allclose(scores, got, rtol=0, atol=1e-12)


def test_a_model_without_stage_3_has_no_such_key():
    m = load_default()
    assert m.stage3 is None and "stage3" not in m.to_json()
    assert "stage3" not in m.meta.get("config", {})


def test_malformed_stage_3_is_refused():
    d = _with_stage3().to_json()
    short = json.loads(json.dumps(d))
    short["stage3"]["coef"] = short["stage3"]["coef"][:-1]
    with pytest.raises(ModelError, match="stage3"):
        Model.from_json(short)
    alone = json.loads(json.dumps(d))
    alone["stage2"] = None
    with pytest.raises(ModelError, match="stage3 needs a stage 2"):
        Model.from_json(alone)
    bad = json.loads(json.dumps(d))
    bad["stage3"] = [1, 2]
    with pytest.raises(ModelError):
        Model.from_json(bad)


@pytest.mark.parametrize("beats", [True, False])
def test_training_fits_stage_3_on_stage_2s_scores(tmp_path, monkeypatch, beats):
    """Stage 3's design is context_features over stage 2's out-of-fold scores; it is kept only
    when its CV beats stage 2's, and then the model's cut is its cut."""
    def forced(n: int, t: float, f: float) -> tuple[float, float]:  # stage 1 < 2, 3 per `beats`
        return (0.3 if n == 3 else t), ({1: 0.5, 2: 0.6, 3: 0.7 if beats else 0.55}.get(n, f))

    pages, cfg, seen, oofs = recording_training(tmp_path, monkeypatch, "best+kind+pn.5+s3", forced)
    from ce_filter.learn import fit

    m = fit.train(pages, cfg, name="content", data_desc={})
    assert m.meta["config"]["stage3"] is True and set(m.meta["cv"]) >= {"stage2", "stage3"}
    ctx2, ctx3 = seen
    assert ctx3.shape == (ctx2.shape[0], context_features(np.zeros(1), page_rel=True).shape[1])
    s2 = oofs[1]  # stage 1's, stage 2's, stage 3's out-of-fold scores, in that order
    at = 0
    for p in pages:
        n = len(p.y)
        want = context_features(s2[at:at + n], *stage2_inputs(p.blocks), page_rel=True)
        np.testing.assert_array_equal(ctx3[at:at + n], want)
        at += n
    assert m.stage2 is not None
    if beats:
        assert m.stage3 is not None and m.threshold == 0.3
    else:
        assert m.stage3 is None and "stage3" not in m.to_json()
