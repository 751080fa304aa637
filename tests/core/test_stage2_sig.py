"""Stage 2's signature groups (Model.stage2_sig): which blocks fall into one group, the columns
over them, the same columns in training and serving, kept by the model file, refused when
malformed; a model without them has no such key and never computes the groups."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from ce_filter.explain import explain_blocks
from ce_filter.read.segment import parse, segment
from ce_filter.score.blockmodel import Linear, Model, load_default, sigmoid
from ce_filter.score.features import context as context_mod
from ce_filter.score.features import context_features, page_features, stage2_inputs
from ce_filter.score.features.context import SIGNATURE_COLUMNS, signature_columns, signature_groups

from .model_files import refused, reloaded
from .stage_training import assert_stage2_design, recording_training, stage2_beats_stage1
from .test_pagekind import LISTING

KIND = np.array([0.4, 0.05, 0.1, 0.15, 0.1, 0.12, 0.08])
# a grid of three cards (title, blurb), a menu of three entries, and one lone paragraph
GRID_PAGE = ("<html><body><nav class=menu><ul><li><a href=/a>Home</a></li><li><a href=/b>Shop</a>"
             "</li><li><a href=/c>About</a></li></ul></nav><main><div class=grid>"
             + "".join(f"<div class=card><h3 class=title>Card {i}</h3><p class=blurb>Text of card {i} "
                       "here, a sentence or two.</p></div>" for i in range(3))
             + "</div><p>One paragraph alone.</p></main></body></html>")


def _texts_by_group(b) -> list[set[str]]:
    g = signature_groups(b)
    return sorted(({b.texts[i] for i in np.flatnonzero(g == k)} for k in set(g.tolist())),
                  key=lambda s: sorted(s))


def test_alike_blocks_share_a_group_and_others_do_not():
    b = segment(parse(GRID_PAGE))
    groups = _texts_by_group(b)
    assert {f"Card {i}" for i in range(3)} in groups
    assert {f"Text of card {i} here, a sentence or two." for i in range(3)} in groups
    assert {"Home", "Shop", "About"} in groups
    assert {"One paragraph alone."} in groups
    assert sum(map(len, groups)) == len(b)
    g = signature_groups(b)
    assert g[0] == 0 and set(g.tolist()) == set(range(g.max() + 1))  # ids by first appearance


def test_a_class_or_depth_apart_is_another_group():
    other_class = GRID_PAGE.replace("<div class=card><h3 class=title>Card 1",
                                    "<div class=promo><h3 class=title>Card 1")
    groups = _texts_by_group(segment(parse(other_class)))
    assert {"Card 0", "Card 2"} in groups and {"Card 1"} in groups
    deeper = GRID_PAGE.replace("<h3 class=title>Card 2</h3>", "<div><h3 class=title>Card 2</h3></div>")
    groups = _texts_by_group(segment(parse(deeper)))
    assert {"Card 0", "Card 1"} in groups and {"Card 2"} in groups


def test_the_oracle_walk_groups_as_the_c_walk_does():
    """The C walk packs the class/id chain; its oracle (the Python walk) keeps the token tuples:
    one grouping."""
    from tests.oracles import walk_python

    for page in (GRID_PAGE, LISTING):
        np.testing.assert_array_equal(signature_groups(segment(parse(page))),
                                      signature_groups(walk_python.walk(page)))


def test_signature_columns_are_the_group_means():
    b = segment(parse(GRID_PAGE))
    g = signature_groups(b)
    _, w = stage2_inputs(b)
    s = np.linspace(0.05, 0.95, len(b))
    got = signature_columns(s, g, w)
    assert got.shape == (len(b), len(SIGNATURE_COLUMNS))
    sw = np.sqrt(np.maximum(w, 1.0))
    for i in range(len(b)):
        same = g == g[i]
        mean = float((s * sw)[same].sum() / sw[same].sum())
        assert got[i, 0] == pytest.approx(mean)
        assert got[i, 1] == pytest.approx(np.log(same.sum()))
        assert got[i, 2] == (pytest.approx(mean) if same.sum() > 1 else 0.0)
    assert signature_columns(np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros(0)).shape == (0, 3)


def _with_sig() -> Model:
    """The shipped model's stage 1 with a stage 2 over its columns and the signature columns."""
    m = load_default()
    assert m.stage2 is not None and not m.stage2_sig
    n = len(m.stage2.coef) + len(SIGNATURE_COLUMNS)
    rng = np.random.default_rng(5)
    s2 = Linear(np.full(n, 0.3), np.full(n, 0.25), rng.normal(size=n), -0.1)
    return replace(m, stage2=s2, stage2_sig=True, meta={})


def test_roundtrip_and_scores_use_the_signature_columns(tmp_path, c_part):
    back = reloaded(_with_sig(), tmp_path)
    assert back.stage2_sig and back.to_json()["stage2_sig"] is True
    for page in (LISTING, GRID_PAGE):
        b = segment(parse(page))
        x = page_features(b, back.spec, KIND)
        p1 = sigmoid(back.stage1.decision(x))
        cont, w = stage2_inputs(b)
        c2 = np.hstack((context_features(p1, cont, w, page_rel=back.stage2_page_rel),
                        signature_columns(p1, signature_groups(b), w)))
        want = sigmoid(back.stage2.decision(c2))
        got = back.block_scores(b, KIND)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
        np.testing.assert_allclose(back.predict_proba(x, cont, w, KIND, groups=signature_groups(b)),
                                   want, rtol=0, atol=1e-12)
        _, scores = explain_blocks(back, b, back.threshold, top=5, kind=KIND)
        np.testing.assert_allclose(scores, got, rtol=0, atol=1e-12)
        # the group columns move the scores: all blocks alone give others
        alone = np.arange(len(b))
        c_alone = np.hstack((c2[:, :-3], signature_columns(p1, alone, w)))
        assert not np.allclose(sigmoid(back.stage2.decision(c_alone)), got)


def test_a_model_reading_the_groups_needs_them():
    m = _with_sig()
    b = segment(parse(GRID_PAGE))
    x = page_features(b, m.spec, KIND)
    cont, w = stage2_inputs(b)
    with pytest.raises(ValueError, match="signature groups"):
        m.predict_proba(x, cont, w, KIND)


def test_the_shipped_model_has_no_such_key_and_never_groups(monkeypatch):
    m = load_default()
    assert not m.stage2_sig and "stage2_sig" not in m.to_json()
    assert "stage2_sig" not in m.meta.get("config", {})

    def boom(_b):
        raise AssertionError("grouped without stage2_sig")

    monkeypatch.setattr(context_mod, "signature_groups", boom)
    monkeypatch.setattr("ce_filter.score.blockmodel.signature_groups", boom)
    assert len(m.block_scores(segment(parse(GRID_PAGE)), KIND)) > 0


@pytest.mark.parametrize("bad", [1, "true", None, [True]])
def test_a_malformed_flag_is_refused(bad):
    refused(_with_sig(), lambda d: d.update(stage2_sig=bad), match="stage2_sig")


def test_a_stage_2_of_the_wrong_width_or_none_is_refused():
    refused(_with_sig(), lambda d: d.pop("stage2_sig"), match="stage2")
    refused(_with_sig(), lambda d: d.update(stage2=None), match="stage2_sig needs a stage 2")


def test_training_gives_stage_2_the_signature_columns(tmp_path, monkeypatch):
    """Stage 2's design is context_features and signature_columns over stage 1's out-of-fold
    scores; the trained model records the option and serves with it."""
    pages, cfg, seen, oofs = recording_training(tmp_path, monkeypatch,
                                                "best+kind+pn.5+w1+shop05+ic30+sig", stage2_beats_stage1)
    from ce_filter.learn import fit

    m = fit.train(pages, cfg, name="content", data_desc={})
    assert m.stage2 is not None and m.stage2_sig and m.meta["config"]["stage2_sig"] is True
    (ctx2,) = seen
    assert_stage2_design(pages, ctx2, oofs[0],
                         lambda s, b, cont, w: signature_columns(s, signature_groups(b), w))
    back = Model.from_json(json.loads(m.dumps()))
    assert back.stage2_sig and len(back.stage2.coef) == ctx2.shape[1]
    no2 = fit.train(pages, replace(cfg, stage2=False), name="content", data_desc={})
    assert no2.stage2 is None and not no2.stage2_sig and "stage2_sig" not in no2.to_json()
