"""The training fit over dense + sparse token columns gives scikit-learn's dense fit (the path
the shipped models were first trained on), so it changes memory and time, not models."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.linear_model import LogisticRegression  # noqa: E402

from ce_filter.learn import fit as F  # noqa: E402
from ce_filter.learn import logreg  # noqa: E402
from ce_filter.learn.configs import CONFIGS, corpus_pages  # noqa: E402
from ce_filter.score.blockmodel import Linear  # noqa: E402
from ce_filter.score.features import page_features  # noqa: E402

from .typed_corpus import make_typed_corpus  # noqa: E402

# token lists from a handful of pages: no odds or site minimum
CFG = replace(CONFIGS["best"], ic_min_pages=0, ic_odds=1.0, ic_min_frac=0.0, log=False)


def _dense(d: logreg.Design) -> np.ndarray:
    x = np.empty((len(d), d.n_features))
    x[:, d.dense_pos] = d.dense
    x[:, d.token_pos] = d.tokens.toarray()
    return x


def _sklearn_fit(d, y, w, c, rows=None) -> Linear:
    """The dense fit the models were trained with before: standardise, LogisticRegression."""
    x = _dense(d) if rows is None else _dense(d)[rows]
    yy, ww = (y, w) if rows is None else (y[rows], w[rows])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    lr = LogisticRegression(C=c, solver="newton-cholesky", max_iter=200, tol=1e-7)
    lr.fit((x - mean) / scale, yy, sample_weight=ww)
    r = F.significant
    return Linear(r(mean), r(scale), r(lr.coef_[0]), float(r(lr.intercept_[0])))


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    root = make_typed_corpus(tmp_path_factory.mktemp("c") / "w", n=24)
    return corpus_pages([str(root)], False)[0]


def test_design_is_the_feature_matrix(pages):
    spec = F.learn_spec(pages, CFG)
    assert spec.ic_own and spec.ic_anc  # token columns are there to be tested
    d = F.build_design(pages, spec)
    assert np.array_equal(_dense(d), np.vstack([page_features(p.blocks, spec) for p in pages]))


@pytest.mark.parametrize("c", [0.001, 0.01, 1.0])
def test_fit_gives_scikit_learns_weights(pages, c):
    spec = F.learn_spec(pages, CFG)
    d = F.build_design(pages, spec)
    y = np.concatenate([p.y for p in pages]).astype(int)
    w = F._weights(pages, CFG)
    rows = np.arange(0, len(y), 3)  # a fold's rows, as in cross-validation
    for r in (None, rows):
        ours = F._fit(d, y, w, c, r)
        ref = _sklearn_fit(d, y, w, c, r)
        assert np.array_equal(ours.mean, ref.mean) and np.array_equal(ours.scale, ref.scale)
        np.testing.assert_allclose(ours.coef, ref.coef, rtol=1e-7, atol=1e-10)
        assert ours.intercept == pytest.approx(ref.intercept, rel=1e-7, abs=1e-10)
        x = _dense(d)[rows if r is not None else slice(None)]
        np.testing.assert_allclose(d.decision(ours, r), ours.decision(x), rtol=1e-12, atol=1e-12)


def test_training_equals_the_dense_path(pages, monkeypatch, tmp_path: Path):
    """The whole training (token lists, CV over C, stage 2, thresholds) with the sparse fit and
    with scikit-learn's dense fit: the same model."""
    new = F.train(pages, CFG, "content", {}).to_json()
    monkeypatch.setattr(F, "_fit", _sklearn_fit)
    old = F.train(pages, CFG, "content", {}).to_json()
    for stage in ("stage1", "stage2"):
        assert (new[stage] is None) == (old[stage] is None)
        for k in ("mean", "scale", "coef") if new[stage] else ():
            np.testing.assert_allclose(new[stage][k], old[stage][k], rtol=1e-7, atol=1e-10)
    for d in (new, old):
        for stage in ("stage1", "stage2"):
            d[stage] = None
    assert json.dumps(new, sort_keys=True) == json.dumps(old, sort_keys=True)


def test_solver_on_random_sparse_data():
    """Far from the corpus: wide 0/1 columns, some constant, a separable-ish target."""
    import scipy.sparse as sp

    rng = np.random.default_rng(3)
    n = 3000
    dense = rng.normal(size=(n, 5)) * [1, 10, 0.1, 3, 1] + [0, 5, 0, -2, 100]
    tok = (rng.random((n, 40)) < rng.random(40) * 0.3).astype(float)
    tok[:, 7] = 0.0  # never present
    tok[:, 8] = 1.0  # always present
    z = dense[:, 0] - 0.2 * dense[:, 3] + 2 * tok[:, 1] - tok[:, 2]
    y = (z + rng.logistic(size=n) > 0).astype(int)
    w = rng.random(n) + 0.5
    pos = rng.permutation(45)
    d = logreg.Design(dense, sp.csr_array(tok), np.sort(pos[:5]), np.sort(pos[5:]))
    for c in (0.01, 1.0):
        ours = F._fit(d, y, w, c)
        ref = _sklearn_fit(d, y, w, c)
        np.testing.assert_allclose(ours.coef, ref.coef, rtol=1e-7, atol=1e-10)
        np.testing.assert_allclose(ours.scale, ref.scale, rtol=0, atol=0)


def test_scale_mult_is_a_stronger_penalty_on_its_columns():
    rng = np.random.default_rng(11)
    x = rng.normal(size=(400, 3))
    y = (x[:, 0] + x[:, 1] + 0.5 * rng.normal(size=400) > 0).astype(float)
    w = np.ones(400)
    plain = logreg.dense_design(x)
    mean, scale, coef, b = logreg.fit(plain, y, w, 0.01)
    shrunk = logreg.dense_design(x)
    shrunk.scale_mult = np.array([1.0, 3.0, 1.0])
    mean2, scale2, coef2, b2 = logreg.fit(shrunk, y, w, 0.01)
    np.testing.assert_array_equal(mean2, mean)
    np.testing.assert_allclose(scale2, scale * shrunk.scale_mult)
    # column 1's weight on the raw scale shrinks, column 0's far less
    assert abs(coef2[1] / scale2[1]) < 0.5 * abs(coef[1] / scale[1])
    assert abs(coef2[0] / scale2[0]) > 0.9 * abs(coef[0] / scale[0])
