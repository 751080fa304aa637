"""Training the tree-leaf inputs (features/leaves.py): scikit-learn's histogram gradient boosting
over the stage-1 dense columns, deterministic (fixed seed, no early stopping, single-threaded
under fit.train), read out of the fitted estimator into plain arrays, and the design with the
leaves' 0/1 columns appended to its sparse part (standardised implicitly like the token columns).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from ..score.features.leaves import Trees
from .logreg import Design

SEED = 0


def fit_trees(x: np.ndarray, y: np.ndarray, w: np.ndarray, inputs: tuple[str, ...],
              shape: tuple[int, int, int]) -> Trees:
    """Boosted trees on blocks ``x`` (dense columns named ``inputs``), labels ``y``, weights
    ``w``; ``shape``: (trees, leaves per tree at most, depth at most). The fit is a function of
    the data alone (binning's subsample and every tie follow SEED)."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    n_trees, max_leaves, max_depth = shape
    hgb = HistGradientBoostingClassifier(max_iter=n_trees, max_leaf_nodes=max_leaves,
                                         max_depth=max_depth, learning_rate=0.1,
                                         early_stopping=False, random_state=SEED)
    hgb.fit(x, y, sample_weight=w)
    trees = []
    for (pred,) in hgb._predictors:
        nodes = pred.nodes
        is_leaf = nodes["is_leaf"].astype(bool)
        leaf = np.full(len(nodes), -1, dtype=np.int64)
        leaf[is_leaf] = np.arange(int(is_leaf.sum()))
        trees.append({
            "feature": np.where(is_leaf, -1, nodes["feature_idx"].astype(np.int64)),
            "threshold": np.where(is_leaf, 0.0, nodes["num_threshold"]).astype(np.float64),
            "left": np.where(is_leaf, -1, nodes["left"].astype(np.int64)),
            "right": np.where(is_leaf, -1, nodes["right"].astype(np.int64)),
            "missing_left": nodes["missing_go_to_left"].astype(bool) & ~is_leaf,
            "leaf": leaf,
        })
    return Trees(tuple(inputs), trees)


def with_leaves(design: Design, trees: Trees) -> Design:
    """``design`` with the leaf columns of ``trees`` after every other column (model order)."""
    n = len(design)
    ids = trees.leaves(design.dense)
    onehot = sp.csr_array((np.ones(ids.size), (np.repeat(np.arange(n), ids.shape[1]), ids.ravel())),
                          shape=(n, trees.n_leaves))
    first = design.n_features
    mult = design.scale_mult
    return replace(design, tokens=sp.hstack([design.tokens, onehot], format="csr"),
                   token_pos=np.concatenate([design.token_pos,
                                             np.arange(first, first + trees.n_leaves)]),
                   scale_mult=None if mult is None else np.concatenate(
                       [mult, np.ones(trees.n_leaves)]))
