"""The ``shop`` feature group: shop-page boilerplate cues times the page's product probability,
the same on the serving path (C part + appended columns) as in the numpy reference, and a
switchable config that leaves ``best+kind`` as it was."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from ce_filter.read.segment import Blocks, parse, segment
from ce_filter.score.features import (
    TOKEN_PREFIXES,
    FeatureSpec,
    dense,
    feature_names,
    page_features,
    page_inputs,
)
from ce_filter.score.features.dense import repeated
from ce_filter.score.features.shop import SHOP_NAMES
from ce_filter.score.pagekind import KINDS

SHOP = """<html><head><title>Blue kettle</title></head><body>
<nav><a href="/">Home</a> <a href="/kettles">Kettles</a></nav>
<main><h1>Blue kettle</h1>
<div class="carousel"><p>Boils a litre in three minutes flat.</p></div>
<div class="carousel"><p>Boils a litre in three minutes flat.</p></div>
<h2>Description</h2>
<p>A stainless steel kettle with a blue enamel finish and a whistle that sings when it boils.</p>
<h2>Customer reviews</h2>
<p>Great kettle, it boils fast and looks lovely on the stove.</p>
<div class="yotpo-widget"><div class="inner"><span>Verified buyer, two weeks ago</span></div></div>
</main></body></html>"""
PRODUCT_P = 0.8
KIND = np.full(len(KINDS), (1 - PRODUCT_P) / (len(KINDS) - 1))
KIND[KINDS.index("product")] = PRODUCT_P
SPEC = FeatureSpec(groups=("st", "cetr", "ic", "dom", "rx", "head", "kind", "shop"),
                   ic_own=["carousel", "inner"], ic_anc=["main", "widget"])


def _rows(kind: np.ndarray | None) -> dict[str, dict[str, float]]:
    b = segment(parse(SHOP))
    names = feature_names(SPEC)
    return {t: dict(zip(names, r)) for t, r in zip(b.texts, page_features(b, SPEC, kind))}


def test_cues_mark_copies_review_sections_and_review_widgets():
    rows = _rows(KIND)
    desc = rows["A stainless steel kettle with a blue enamel finish and a whistle that sings when it boils."]
    review = rows["Great kettle, it boils fast and looks lovely on the stove."]
    widget = rows["Verified buyer, two weeks ago"]
    # a block's later copy is marked, its first occurrence is not
    assert repeated(Blocks(texts=["a", "b", "a", "a", "c"])).tolist() == [0, 0, 1, 1, 0]
    assert repeated(Blocks(texts=["\u00e9t\u00e9", "ete", "\u00e9t\u00e9", "\U0001f600", "\U0001f600 "])
                    ).tolist() == [0, 0, 1, 0, 0]
    b = segment(parse(SHOP))
    first = b.texts.index("Boils a litre in three minutes flat.")
    x = page_features(b, SPEC, KIND)[:, -len(SHOP_NAMES):]
    assert x[first, 0] == 0.0 and x[first + 1, 0] == pytest.approx(PRODUCT_P)
    # the reviews' heading governs the blocks below it, the description's does not
    assert review["shop_head*product"] == pytest.approx(PRODUCT_P)
    assert widget["shop_head*product"] == pytest.approx(PRODUCT_P)
    assert rows["Customer reviews"]["shop_head*product"] == pytest.approx(PRODUCT_P)
    assert desc["shop_head*product"] == 0.0 and rows["Blue kettle"]["shop_head*product"] == 0.0
    # the review widget's class (two levels up) is a shop section's, the description's is not
    assert widget["shop_ic*product"] == pytest.approx(PRODUCT_P)
    assert desc["shop_ic*product"] == 0.0 and review["shop_ic*product"] == 0.0
    assert all(desc[n] == 0.0 for n in SHOP_NAMES)


@pytest.mark.parametrize("kind", [None, np.eye(len(KINDS))[0]])
def test_cues_are_silent_off_product_pages(kind):
    assert all(r[n] == 0.0 for r in _rows(kind).values() for n in SHOP_NAMES)


@pytest.fixture(params=[True, False], ids=["one-call", "general"])
def shop_blocks(request, monkeypatch):
    """The shop page's blocks and the spec's non-token columns, through the one call of the C
    part or the general path (features.group_columns)."""
    if not request.param:
        monkeypatch.setattr(dense, "handles", lambda spec: False)
    names = feature_names(SPEC)
    return segment(parse(SHOP)), names, np.array([n.startswith(TOKEN_PREFIXES) for n in names])


def test_serving_columns_are_the_reference_ones(shop_blocks):
    b, names, tok = shop_blocks
    assert names[-len(SHOP_NAMES):] == list(SHOP_NAMES)
    x, _ = page_inputs(b, SPEC, KIND)
    assert np.array_equal(x, page_features(b, SPEC, KIND)[:, ~tok])
    assert x[:, -len(SHOP_NAMES):].any()
    # without the group: the same columns minus the shop ones
    plain = replace(SPEC, groups=SPEC.groups[:-1])
    assert np.array_equal(page_inputs(b, plain, KIND)[0], x[:, : -len(SHOP_NAMES)])


def test_config_is_switchable_and_trains(tmp_path):
    pytest.importorskip("sklearn")
    from ce_filter.learn.configs import CONFIGS

    from .test_kind_mix import train_and_serve

    assert "shop" not in CONFIGS["best+kind"].groups
    assert CONFIGS["best+kind+shop"] == replace(CONFIGS["best+kind"],
                                                groups=CONFIGS["best+kind"].groups + ("shop",))
    m = train_and_serve(tmp_path, "best+kind+shop")
    assert "shop" in m.spec.groups and feature_names(m.spec)[-len(SHOP_NAMES):] == list(SHOP_NAMES)


def test_cues_need_the_spec_product_probability(shop_blocks):
    """FeatureSpec.shop_min_p: under it the cues are zeros (not computed), at or over it they
    are the cues without the floor; the serving path and the reference agree either way."""
    b, names, tok = shop_blocks
    floor = replace(SPEC, shop_min_p=0.5)
    for p, kept in ((PRODUCT_P, True), (0.3, False)):
        kind = np.full(len(KINDS), (1 - p) / (len(KINDS) - 1))
        kind[KINDS.index("product")] = p
        x = page_inputs(b, floor, kind)[0]
        assert np.array_equal(x, page_features(b, floor, kind)[:, ~tok])
        want = page_inputs(b, SPEC, kind)[0]
        assert want[:, -len(SHOP_NAMES):].any()
        if kept:
            assert np.array_equal(x, want)
        else:
            assert not x[:, -len(SHOP_NAMES):].any()
            assert np.array_equal(x[:, : -len(SHOP_NAMES)], want[:, : -len(SHOP_NAMES)])


def test_shop_floor_survives_the_spec_file_and_a_bad_one_is_refused():
    from ce_filter.score.blockmodel import Model, ModelError, load_default

    assert "shop_min_p" not in SPEC.to_json()  # unset: spec files keep their bytes
    d = replace(SPEC, shop_min_p=0.05).to_json()
    assert d["shop_min_p"] == 0.05 and FeatureSpec.from_json(d).shop_min_p == 0.05
    m = load_default().to_json()
    for bad in (-0.1, 2, "0.1", True):
        m["features"]["spec"]["shop_min_p"] = bad
        with pytest.raises(ModelError, match="shop_min_p"):
            Model.from_json(m)


def test_shop_cues_in_c_are_the_oracle_s():
    """The cues' C part (dense.shop_cues, which the pass runs too) against the Python oracle,
    on pages made of shop sections, repeats and headings at random."""
    import random

    from ce_filter.read.segment import parse, segment
    from ce_filter.score.features.dense import shop_cues
    from ce_filter.score.features.shop import SHOP_TITLE_PHRASES, shop_ic
    from tests.oracles.shop_python import shop_cues as oracle

    rnd = random.Random(11)
    parts = ["<h2>Customer Reviews</h2>", "<h3>Q & A</h3>", "<h2>The shoe</h2>",
             "<h2>Shipping and returns for every order placed this year on the site today ok</h2>",
             "<p>A blue shoe.</p>", "<p>Same text</p>", "<div class='review'><p>Nice</p></div>",
             "<div class=related><p>Other shoe</p></div>", "<h1>İtem Rating</h1>"]
    for _ in range(200):
        b = segment(parse("".join(rnd.choice(parts) for _ in range(rnd.randrange(1, 20)))))
        if not len(b):
            continue
        ic = shop_ic(b)
        p = rnd.choice([0.05, 0.5, 1.0])
        assert np.array_equal(shop_cues(b, SHOP_TITLE_PHRASES, ic, p), oracle(b, ic, p))
