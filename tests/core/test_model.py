"""Model files are JSON, validated on load, and served with numpy."""

import json

import numpy as np
import pytest

from ce_filter.score.blockmodel import Linear, Model, ModelError, load_default
from ce_filter.score.features import FeatureSpec, feature_names


def tiny_model() -> Model:
    spec = FeatureSpec(groups=("st",))
    n = len(feature_names(spec))
    return Model("t", spec, Linear(np.zeros(n), np.ones(n), np.arange(n) / 10.0, -0.5))


def test_roundtrip_and_digest(tmp_path):
    m = tiny_model()
    p = tmp_path / "m.json"
    m.save(p)
    m2 = Model.load(p)
    assert m2.dumps() == m.dumps() and m2.digest == m.digest
    x = np.random.default_rng(0).normal(size=(5, len(m.stage1.coef)))
    assert np.allclose(m.predict_proba(x), m2.predict_proba(x))


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.update(format="pickle"),
        lambda d: d.update(format_version=99),
        lambda d: d["stage1"].update(coef=[1.0]),
        lambda d: d["stage1"].update(scale=[0.0] * len(d["stage1"]["scale"])),
        lambda d: d["features"].update(names=["x"]),
        lambda d: d.pop("stage1"),
        lambda d: d.update(precise_threshold=1.5),
        lambda d: d.update(precise_threshold="high"),
    ],
)
def test_malformed_models_are_rejected(tmp_path, mutate):
    d = tiny_model().to_json()
    mutate(d)
    assert_refused(tmp_path, d)


def assert_refused(tmp_path, d: dict) -> None:
    """The model file of ``d`` does not load: ModelError, never another exception."""
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(d))
    with pytest.raises(ModelError):
        Model.load(p)


def test_shipped_models_load():
    for target in ("content", "comments"):
        m = load_default(target)
        assert m.meta["data"]["target"] == target
        assert 0.0 < m.threshold < 1.0
        # the precise cut was chosen on CV and recorded with its CV precision / recall
        assert m.threshold <= m.precise_threshold < 1.0
        cv = m.meta["cv"]
        assert cv["precise"]["threshold"] == m.precise_threshold
        assert cv["default"]["threshold"] == m.threshold
        # and the recall cut, never above the default one
        assert 0.0 < m.recall_threshold <= m.threshold
        assert cv["recall"]["threshold"] == m.recall_threshold
