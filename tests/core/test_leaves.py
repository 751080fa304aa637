"""Tree-leaf inputs (features/leaves.py, learn/leaves.py, Model.trees): the numpy walk finds the
leaf scikit-learn's trees do, trees are fitted on each CV fold's training rows only, a model
with trees serves as its reference matrix does, keeps its trees in the file, rebuilds to the
byte, refuses malformed trees, and explain names a leaf by its path; a model without trees
has no such key."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ce_filter.score.blockmodel import load_default
from ce_filter.score.features.leaves import Trees, TreesError
from tests.oracles import leaves_numpy as oracle

from .model_files import refused, reloaded

SHAPE = (6, 5, 3)


def _toy(n: int = 3000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """An interaction a linear model cannot draw (the sign of x0 * x1), with missing values."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4))
    y = (x[:, 0] * x[:, 1] > 0).astype(int)
    x[rng.random(n) < 0.05, 2] = np.nan
    return x, y


def _walk(trees: Trees, row: np.ndarray) -> list[int]:
    """A block's leaves, one node at a time (the reference of the vectorised walk)."""
    out, first = [], 0
    for t in trees.trees:
        j = 0
        while t["left"][j] >= 0:
            v = row[t["feature"][j]]
            go = bool(t["missing_left"][j]) if np.isnan(v) else v <= t["threshold"][j]
            j = int(t["left"][j] if go else t["right"][j])
        out.append(first + int(t["leaf"][j]))
        first += int((t["left"] < 0).sum())
    return out


def test_the_numpy_walk_finds_scikit_learns_leaves() -> None:
    pytest.importorskip("sklearn")
    from sklearn.ensemble import HistGradientBoostingClassifier

    from ce_filter.learn import leaves as learn_leaves

    x, y = _toy()
    w = np.ones(len(y))
    trees = learn_leaves.fit_trees(x, y, w, ("a", "b", "c", "d"), SHAPE)
    ids = trees.leaves(x)
    assert ids.shape == (len(x), SHAPE[0])
    assert [_walk(trees, x[i]) for i in range(0, len(x), 37)] == ids[::37].tolist()
    # the same fit in scikit-learn: the leaves' values summed are its raw prediction
    hgb = HistGradientBoostingClassifier(max_iter=SHAPE[0], max_leaf_nodes=SHAPE[1], max_depth=SHAPE[2],
                                         learning_rate=0.1, early_stopping=False,
                                         random_state=learn_leaves.SEED).fit(x, y, sample_weight=w)
    values = np.concatenate([p.nodes["value"][p.nodes["is_leaf"].astype(bool)] for (p,) in hgb._predictors])
    raw = hgb._raw_predict(x).ravel()
    assert np.allclose(values[ids].sum(axis=1) + float(np.ravel(hgb._baseline_prediction)[0]), raw)
    assert np.any(np.isnan(x)) and trees.n_leaves == len(values) and trees.n_leaves <= SHAPE[0] * SHAPE[1]
    assert trees.onehot(x).sum(axis=1).tolist() == [SHAPE[0]] * len(x)
    # the leaf columns carry the interaction: a logistic regression over them learns it
    from sklearn.linear_model import LogisticRegression

    acc_lin = LogisticRegression().fit(np.nan_to_num(x), y).score(np.nan_to_num(x), y)
    acc_leaf = LogisticRegression().fit(trees.onehot(x), y).score(trees.onehot(x), y)
    assert acc_leaf > 0.8 > 0.6 > acc_lin


def test_the_c_walk_finds_the_numpy_walks_leaves() -> None:
    pytest.importorskip("sklearn")
    from ce_filter.learn import leaves as learn_leaves
    from ce_filter.score.features import leaves as features_leaves

    c = features_leaves._c
    x, y = _toy()
    x[::50, 0] = np.nan  # NaN on the first split's column too
    trees = learn_leaves.fit_trees(x, y, np.ones(len(y)), ("a", "b", "c", "d"), SHAPE)
    on_thresholds = np.array([[float(t["threshold"][0])] * 4 for t in trees.trees])  # ties go left
    for rows in (x, on_thresholds, x[:0], x[:1]):
        ids = trees.leaves(rows)
        assert ids.shape == (len(rows), SHAPE[0]) and np.array_equal(ids, oracle.leaves(trees, rows))
    feat, thr, child, miss, leaf, roots, (depth, _) = trees.flat
    out = np.empty((2, len(roots)), dtype=np.intp)
    with pytest.raises(ValueError):  # a wrong call is an error, not a read out of bounds
        c.leaves(x[:2], 2, 4, feat, thr, child, miss, leaf, roots, len(feat) + 5, int(depth), out)
    with pytest.raises(ValueError):
        c.leaves(x[:2], 2, 2, feat, thr, child, miss, leaf, roots, len(feat), int(depth), out)
    with pytest.raises(ValueError):  # too few steps to reach the leaves
        c.leaves(x[:2], 2, 4, feat, thr, child, miss, leaf, roots, len(feat), 1, out)


def test_a_leaf_is_named_by_its_path() -> None:
    t = {"feature": np.array([0, -1, 1, -1, -1]), "threshold": np.array([0.5, 0, 2.0, 0, 0]),
         "left": np.array([1, -1, 3, -1, -1]), "right": np.array([2, -1, 4, -1, -1]),
         "missing_left": np.array([True, False, False, False, False]),
         "leaf": np.array([-1, 0, -1, 1, 2])}
    trees = Trees(("link_density", "words"), [t])
    assert trees.paths() == ["leaf t0: link_density<=0.5", "leaf t0: link_density>0.5 & words<=2",
                             "leaf t0: link_density>0.5 & words>2"]
    x = np.array([[0.1, 9.0], [0.9, 1.0], [0.9, 3.0], [np.nan, 3.0]])
    assert trees.leaves(x)[:, 0].tolist() == [0, 1, 2, 0]
    assert trees.names == ["leaf:t0:0", "leaf:t0:1", "leaf:t0:2"]


def _train(tmp_path: Path, monkeypatch: Any | None = None, record: list | None = None) -> Any:
    pytest.importorskip("sklearn")
    from ce_filter.learn import leaves as learn_leaves
    from ce_filter.learn.configs import CONFIGS, corpus_pages
    from ce_filter.learn.fit import train

    from .typed_corpus import make_typed_corpus

    if monkeypatch is not None and record is not None:
        real = learn_leaves.fit_trees

        def fit_trees(x: np.ndarray, *a: Any) -> Trees:
            record.append(len(x))
            return real(x, *a)

        monkeypatch.setattr(learn_leaves, "fit_trees", fit_trees)
    root = make_typed_corpus(tmp_path / "w", n=24)
    pages, desc = corpus_pages([str(root)], False)
    cfg = replace(CONFIGS["best+kind+pn.5+w1+shop05+ic30+thin+leaves"], ic_min_pages=0, ic_odds=1.0,
                  log=False, folds=3, trees=SHAPE)
    return train(pages, cfg, "content", desc), pages


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return _train(tmp_path_factory.mktemp("leaves"))


def test_trees_fit_on_the_training_folds_then_on_all(tmp_path: Path, monkeypatch: Any) -> None:
    rows: list[int] = []
    model, pages = _train(tmp_path, monkeypatch, rows)
    total = sum(len(p.y) for p in pages)
    assert len(rows) == 3 + 1 and all(r < total for r in rows[:3]) and rows[3] == total
    assert sum(total - r for r in rows[:3]) == total  # each block held out by exactly one fold
    assert model.trees is not None and model.meta["config"]["trees"] == list(SHAPE)


def test_serving_scores_match_the_reference_matrix(trained: Any) -> None:
    from ce_filter.score.features import page_features, stage2_inputs

    model, pages = trained
    for p in pages[:6]:
        x = page_features(p.blocks, model.spec, p.kind)
        ref = model.predict_proba(x, *stage2_inputs(p.blocks), p.kind)
        assert np.allclose(model.block_scores(p.blocks, p.kind), ref, atol=1e-12)
    names = model.feature_names()
    assert len(names) == len(model.stage1.coef) and names[-1].startswith("leaf:t")
    assert model.stage1_matrix(x).shape[1] == len(names)


def test_the_model_file_keeps_the_trees_and_rebuilds_to_the_byte(trained: Any, tmp_path: Path) -> None:
    model, _ = trained
    back = reloaded(model, tmp_path)
    assert back.trees is not None and back.trees.paths() == model.trees.paths()
    d = json.loads(model.dumps())
    assert set(d["trees"]["trees"][0]) == {"feature", "threshold", "left", "right", "missing_left", "leaf"}
    again, _ = _train(tmp_path / "again")
    assert again.dumps() == model.dumps()


def test_malformed_trees_are_refused(trained: Any) -> None:
    model, _ = trained

    def tree(d: dict) -> dict:
        return d["trees"]["trees"][0]

    def cycle(d: dict) -> None:  # an inner node's child pointing back at the root
        t = tree(d)
        j = next(i for i, v in enumerate(t["left"]) if v >= 0 and i > 0)
        t["left"][j] = 0

    refused(model, cycle, "children")
    refused(model, lambda d: tree(d)["feature"].__setitem__(0, 10**6), "out of range")
    refused(model, lambda d: tree(d)["leaf"].__setitem__(tree(d)["leaf"].index(0), 7), "leaf numbers")
    refused(model, lambda d: tree(d)["threshold"].__setitem__(0, float("inf")), "non-finite")
    refused(model, lambda d: tree(d)["threshold"].__setitem__(0, "1"), "types")
    refused(model, lambda d: d["trees"]["inputs"].pop(), "inputs")
    refused(model, lambda d: d["trees"].update(trees=[]), "non-empty")
    refused(model, lambda d: tree(d).pop("right"), "arrays")
    refused(model, lambda d: d.pop("trees"), "names")  # its leaf weights without their trees


def test_explain_names_a_leaf_by_its_path(trained: Any) -> None:
    from ce_filter.explain import explain_blocks

    model, pages = trained
    p = pages[0]
    whys, score = explain_blocks(model, p.blocks, model.threshold, top=400, kind=p.kind)
    assert np.allclose(score, model.block_scores(p.blocks, p.kind), atol=1e-12)
    names = [t.name for w in whys for t in w.stage1_terms]
    assert any(n.startswith("leaf t") and ("<=" in n or ">" in n) for n in names)
    assert not any(n.startswith("leaf:t") for n in names)
    assert TreesError is not None


def test_a_model_without_trees_has_no_trees_key() -> None:
    m = load_default("comments")  # trained without TrainConfig.trees
    assert m.trees is None and "trees" not in m.to_json()
    assert m.feature_names() == m.to_json()["features"]["names"]
