"""The page kind: its signals, its model file, and where it shows up (Extraction, record)."""

import json

import numpy as np
import pytest

from ce_filter import Extractor
from ce_filter.read.segment import parse, segment
from ce_filter.score.blockmodel import Linear, Model, ModelError
from ce_filter.score.features import FeatureSpec, feature_names, page_features
from ce_filter.score.pagekind import (
    KINDS,
    N_FEATURES,
    PageKindError,
    PageKindModel,
    page_signals,
)
from ce_filter.score.pagekind import (
    feature_names as signal_names,
)

PRODUCT = """<html><head><title>Blue kettle</title>
<meta property="og:type" content="product">
<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product",
 "name": "Blue kettle", "offers": {"@type": "Offer", "price": "19.99"}}</script></head>
<body><h1>Blue kettle</h1><p>Price: $19.99. In stock. Add to cart for free shipping.</p>
<table><tr><td>Weight</td><td>1 kg</td></tr><tr><td>Volume</td><td>1.7 l</td></tr></table>
</body></html>"""

LISTING = "<html><body><h1>Results</h1><ul>" + "".join(
    f"<li><a href='/item/{i}'>Item number {i}</a><span>short blurb {i}</span></li>" for i in range(12)
) + "</ul></body></html>"


def _signals(html: str, url: str | None = None) -> dict[str, float]:
    return dict(zip(signal_names(), page_signals(segment(parse(html)), html, url)))


def test_signals_read_declared_types_url_and_structure():
    s = _signals(PRODUCT, "https://shop.example.com/products/blue-kettle-1-7l")
    assert s["ld_product"] == 1.0 and s["og_product"] == 1.0 and s["ld_article"] == 0.0
    assert s["url_product"] == 1.0 and s["url_known"] == 1.0 and s["url_blog"] == 0.0
    assert s["table"] > 0 and s["price"] > 0 and s["w_product"] > 0
    listing = _signals(LISTING)
    assert listing["url_known"] == 0.0 and listing["ld_any"] == 0.0
    assert listing["rep_max"] > np.log1p(10) - 1e-9 and listing["rep_blocks"] > 0.8
    assert listing["link_share"] > 0.3


def test_signals_of_an_empty_page_are_finite():
    x = page_signals(segment(parse("<html></html>")), "", None)
    assert x.shape == (N_FEATURES,) and np.all(np.isfinite(x))


def _toy_model() -> PageKindModel:
    rng = np.random.default_rng(0)
    return PageKindModel(KINDS, rng.normal(size=N_FEATURES), np.ones(N_FEATURES),
                         rng.normal(size=(len(KINDS), N_FEATURES)), rng.normal(size=len(KINDS)))


def test_model_roundtrip_and_probabilities(tmp_path):
    m = _toy_model()
    m.save(tmp_path / "k.json")
    m2 = PageKindModel.load(tmp_path / "k.json")
    assert m2.dumps() == m.dumps()
    kind, prob, p = m2.predict(segment(parse(PRODUCT)), PRODUCT)
    assert kind in KINDS and p.shape == (len(KINDS),) and abs(p.sum() - 1) < 1e-12
    assert prob == p.max()


@pytest.mark.parametrize("mutate", [
    lambda d: d.update(format="pickle"),
    lambda d: d.update(format_version=9),
    lambda d: d.update(features=["x"]),
    lambda d: d.update(coef=[[1.0]]),
    lambda d: d.update(scale=[0.0] * N_FEATURES),
    lambda d: d.update(intercept=[float("nan")] * len(KINDS)),
])
def test_bad_model_files_are_refused(tmp_path, mutate):
    d = _toy_model().to_json()
    mutate(d)
    (tmp_path / "k.json").write_text(json.dumps(d))
    with pytest.raises(PageKindError):
        PageKindModel.load(tmp_path / "k.json")


def test_block_model_with_the_kind_group_needs_a_kind_model():
    spec = FeatureSpec(groups=("st", "kind"))
    n = len(feature_names(spec))
    m = Model("t", spec, Linear(np.zeros(n), np.ones(n), np.arange(n) / 10.0, 0.0), pagekind=_toy_model())
    d = json.loads(m.dumps())
    assert Model.from_json(d).pagekind.dumps() == m.pagekind.dumps()
    for bad in ([1, 2], {**d["pagekind"], "format_version": 2}):
        with pytest.raises(ModelError):
            Model.from_json({**d, "pagekind": bad})
    d.pop("pagekind")
    with pytest.raises(ModelError):
        Model.from_json(d)
    # the kind probabilities reach the block features: another kind, other scores
    b = segment(parse(LISTING))
    a1 = m.block_scores(b, np.eye(len(KINDS))[0])
    a2 = m.block_scores(b, np.eye(len(KINDS))[5])
    assert not np.allclose(a1, a2)
    np.testing.assert_allclose(
        a1, m.predict_proba(page_features(b, spec, np.eye(len(KINDS))[0])), rtol=0, atol=1e-12)


def test_extraction_and_record_carry_the_page_kind():
    ex = Extractor()
    if ex.kind_model is None:
        pytest.skip("the shipped content model has no page-kind model")
    about = "<p>" + "A kettle of brushed steel that boils a litre in three minutes and keeps it warm. " * 8
    r = ex.extract(PRODUCT.replace("</body>", about + "</p></body>"), "https://shop.example.com/products/blue-kettle")
    assert r.page_type in KINDS and 0 < r.page_type_prob <= 1
    # too few words to tell (kinds.gate.MIN_WORDS): no kind stated
    assert ex.extract(PRODUCT).page_type == "" and ex.extract(PRODUCT).page_type_prob is None
    assert r.to_dict()["page_type"] == r.page_type
    empty = ex.extract("<html><body></body></html>")
    assert empty.page_type == "" and empty.page_type_prob is None


def test_struct_columns_count_repeated_siblings():
    """The ``struct`` group: a listing's twelve items form one group, the heading its own."""
    spec = FeatureSpec(groups=("struct",))
    b = segment(parse(LISTING))
    rows = [dict(zip(feature_names(spec), r)) for r in page_features(b, spec)]
    items = [r for t, r in zip(b.texts, rows) if t.startswith("Item number")]
    head = next(r for t, r in zip(b.texts, rows) if t == "Results")
    assert len(items) == 12 and all(r["rep1"] == pytest.approx(np.log(12)) for r in items)
    assert head["rep1"] == 0.0 and items[0]["rep2_share"] > 0.8 > head["rep2_share"]
