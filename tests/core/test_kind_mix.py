"""A weight per page kind for chosen block columns (FeatureSpec.kind_mix): the columns are
p_k * x_j in training and serving alike, the spec survives the model file, and a model without
it is the model it was."""

from __future__ import annotations

import gzip
import json
from dataclasses import replace

import numpy as np
import pytest

pytest.importorskip("sklearn")

from ce_filter.api import Extractor  # noqa: E402
from ce_filter.learn.configs import CONFIGS, corpus_pages  # noqa: E402
from ce_filter.learn.fit import build_design, train  # noqa: E402
from ce_filter.read.segment import parse, segment  # noqa: E402
from ce_filter.score.blockmodel import Linear, Model, ModelError, load_default  # noqa: E402
from ce_filter.score.features import (  # noqa: E402
    TOKEN_PREFIXES,
    FeatureSpec,
    dense,
    feature_names,
    page_features,
    page_inputs,
)
from ce_filter.score.features.kind import MIX_COMPACT, MIX_WIDE  # noqa: E402
from ce_filter.score.pagekind import KINDS  # noqa: E402

from .test_pagekind import LISTING, PRODUCT  # noqa: E402
from .typed_corpus import make_typed_corpus  # noqa: E402

KIND = np.array([0.4, 0.05, 0.1, 0.15, 0.1, 0.12, 0.08])


def _mixed(mix: tuple[str, ...] = MIX_WIDE) -> FeatureSpec:
    return replace(load_default().spec, kind_mix=mix)


def test_mixed_columns_are_each_kinds_probability_times_the_column(c_part):
    spec = _mixed()
    names = feature_names(spec)
    base = feature_names(load_default().spec)
    assert names[: len(base)] == base and len(names) == len(base) + len(MIX_WIDE) * len(KINDS)
    b = segment(parse(PRODUCT))
    full = page_features(b, spec, KIND)
    col = dict(zip(names, full.T))
    for j in MIX_WIDE:
        for k, p in zip(KINDS, KIND):
            assert np.array_equal(col[f"kmix_{k}*{j}"], col[j] * p), (k, j)
    # the serving path's dense columns are the full matrix's, in order, mixed ones included
    x, _ = page_inputs(b, spec, KIND)
    tok = np.array([n.startswith(TOKEN_PREFIXES) for n in names])
    assert np.array_equal(x, full[:, ~tok])
    # no kind estimate: the mixed columns are 0, the others as without the mix
    x0, _ = page_inputs(b, spec, None)
    assert not x0[:, -len(MIX_WIDE) * len(KINDS):].any()
    assert np.array_equal(x0[:, : x.shape[1] - len(MIX_WIDE) * len(KINDS)],
                          page_inputs(b, load_default().spec, None)[0])


def test_one_call_and_general_path_agree_with_the_mix(monkeypatch):
    spec = _mixed()
    b = segment(parse(LISTING))
    x = page_inputs(b, spec, KIND)[0]
    monkeypatch.setattr(dense, "handles", lambda spec: False)
    assert np.array_equal(x, page_inputs(b, spec, KIND)[0])


def _toy(spec: FeatureSpec) -> Model:
    n = len(feature_names(spec))
    coef = np.random.default_rng(1).normal(size=n) / 10
    return Model("t", spec, Linear(np.zeros(n), np.ones(n), coef, 0.1), pagekind=load_default().pagekind)


def test_spec_roundtrips_and_scores_follow_the_kind(tmp_path):
    m = _toy(_mixed(MIX_COMPACT))
    m.save(tmp_path / "m.json")
    back = Model.load(tmp_path / "m.json")
    assert back.spec.kind_mix == MIX_COMPACT and back.dumps() == m.dumps()
    b = segment(parse(LISTING))
    for kind in (KIND, np.eye(len(KINDS))[5]):
        s = back.block_scores(b, kind)
        # the serving path (dense weights + token sums) is the full matrix's product
        np.testing.assert_allclose(s, back.predict_proba(page_features(b, back.spec, kind)),
                                   rtol=0, atol=1e-12)
    # only the mixed columns' weights differ: the scores still move with the kind
    plain = replace(m, stage1=replace(m.stage1, coef=np.where(
        [n.startswith("kmix_") for n in feature_names(m.spec)], 0.0, m.stage1.coef)))
    listing = np.eye(len(KINDS))[5]
    assert not np.allclose(m.block_scores(b, KIND) - plain.block_scores(b, KIND),
                           m.block_scores(b, listing) - plain.block_scores(b, listing))


def test_a_model_without_the_mix_is_unchanged():
    m = load_default()
    assert m.spec.kind_mix == ()
    d = m.to_json()
    assert "kind_mix" not in d["features"]["spec"]
    assert not any(n.startswith("kmix_") for n in d["features"]["names"])
    assert FeatureSpec.from_json(d["features"]["spec"]) == m.spec
    assert "kind_mix" not in m.meta.get("config", {})


@pytest.mark.parametrize("mutate", [
    lambda d: d["features"]["spec"].update(kind_mix=["no_such_column"]),
    lambda d: d["features"]["spec"].update(kind_mix=["ic_own:post"]),  # a token column
    lambda d: d["features"]["spec"].update(kind_mix=[3]),
    lambda d: d["features"]["spec"].update(kind_mix=list(MIX_WIDE)),  # names no longer match
    lambda d: d["features"]["spec"].update(groups=[g for g in d["features"]["spec"]["groups"]
                                                   if g != "kind"]),
])
def test_bad_mix_specs_are_refused(mutate):
    d = json.loads(_toy(_mixed(MIX_COMPACT)).dumps())
    mutate(d)
    with pytest.raises(ModelError):
        Model.from_json(d)


def train_and_serve(tmp_path, config: str) -> Model:
    """Trains ``config`` on a tiny typed corpus; checks that the design's columns are the
    serving path's and that the saved model extracts a page. Returns the loaded model."""
    root = make_typed_corpus(tmp_path / "w", n=24)
    pages = corpus_pages([str(root)], False)[0]
    cfg = replace(CONFIGS[config], ic_min_pages=0, ic_odds=1.0, log=False, folds=3)
    m = train(pages, cfg, name="content", data_desc={})
    d = build_design(pages, m.spec)
    at = 0
    for p in pages:  # training's features are serving's
        x, _ = page_inputs(p.blocks, m.spec, p.kind)
        assert np.array_equal(d.dense[at:at + len(x)], x)
        at += len(x)
    m.save(tmp_path / "m.json")
    back = Model.load(tmp_path / "m.json")
    r = Extractor(model=back).extract(
        gzip.decompress((root / "html" / "0001.html.gz").read_bytes()), "https://site1.example/p/1")
    assert "valve" in r.text
    return back


def test_training_with_the_mix(tmp_path):
    """The fitted model carries the mix in its spec and config, the design's columns are the
    serving path's, and the extractor runs it."""
    m = train_and_serve(tmp_path, "best+kind+mix")
    assert m.spec.kind_mix == MIX_COMPACT and m.meta["config"]["kind_mix"] == list(MIX_COMPACT)
    assert "kmix_forum*main_box" in feature_names(m.spec)
