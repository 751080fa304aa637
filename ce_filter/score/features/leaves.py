"""Tree leaves as block inputs (He et al. 2014, "Practical lessons from predicting clicks on ads
at Facebook"): a small boosted-tree ensemble, fitted in training over the stage-1 dense columns,
sends each block to one leaf per tree; each leaf is a 0/1 input of the stage-1 logistic
regression, which stays the one decision. A leaf is a region of the inputs (thresholds on a few
columns at once), what a linear model over the columns themselves cannot weigh.

The trees are plain arrays in the model file (no pickle). They run in C where
ce_filter/score/features/_leaves.c is built (each block walks each tree in one loop), else in numpy,
all blocks and all trees at once: every (block, tree) pair advances one level per step by fancy
indexing; a leaf points at itself, so pairs that reached their leaf stay there. The numpy walk
is the reference: the C part is used only once it gives the same leaves on a probe.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, cast

import numpy as np

from ... import native

if TYPE_CHECKING:
    from ...jsontypes import JSONObject

# a leaf column's name in the model file: leaf LEAF_PREFIX<tree>:<leaf>
LEAF_PREFIX = "leaf:t"
_KEYS = ("feature", "threshold", "left", "right", "missing_left", "leaf")


class TreesError(ValueError):
    """A malformed trees section of a model file."""


@dataclass
class Trees:
    """The ensemble, one entry per tree of node arrays (node 0 the root; a leaf has left = right
    = -1 and its leaf number, an inner node leaf -1): block goes left where
    ``x[feature] <= threshold`` (a NaN where ``missing_left``). ``inputs``: the names of the
    dense columns ``feature`` indexes (the spec's dense columns, in order)."""

    inputs: tuple[str, ...]
    trees: list[dict[str, np.ndarray]]
    # flattened over all trees for inference (built in __post_init__)
    _flat: tuple[np.ndarray, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        feat, thr, left, right, miss, leaf, roots = [], [], [], [], [], [], []
        at = n_leaves = 0
        depth = 0
        for t in self.trees:
            n = len(t["feature"])
            idx = np.arange(n) + at
            is_leaf = t["left"] < 0
            roots.append(at)
            feat.append(np.where(is_leaf, 0, t["feature"]))
            thr.append(np.where(is_leaf, 0.0, t["threshold"]))
            # a leaf points at itself: the walk may take more steps than its own depth
            left.append(np.where(is_leaf, idx, t["left"] + at))
            right.append(np.where(is_leaf, idx, t["right"] + at))
            miss.append(t["missing_left"])
            leaf.append(np.where(is_leaf, t["leaf"] + n_leaves, -1))
            n_leaves += int(is_leaf.sum())
            depth = max(depth, _depth(t["left"], t["right"]))
            at += n
        cat = np.concatenate
        child = np.stack([cat(right), cat(left)], axis=1).ravel().astype(np.intp)
        self._flat = (cat(feat).astype(np.intp), cat(thr).astype(np.float64), child,
                      cat(miss).astype(bool), cat(leaf).astype(np.intp),
                      np.asarray(roots, dtype=np.intp), np.asarray([depth, n_leaves]))

    @property
    def flat(self) -> tuple[np.ndarray, ...]:
        """The trees as the flat arrays the C walk reads: (feature, threshold, child, missing
        left, leaf, roots, [depth, leaves])."""
        return self._flat

    @property
    def n_leaves(self) -> int:
        return int(self._flat[6][1])

    @property
    def depth(self) -> int:
        """The deepest tree's depth: the walk's steps."""
        return int(self._flat[6][0])

    @property
    def names(self) -> list[str]:
        """The leaf columns' names, in column order (tree by tree, leaf by leaf)."""
        return [f"{LEAF_PREFIX}{i}:{k}" for i, t in enumerate(self.trees)
                for k in range(int((t["left"] < 0).sum()))]

    def leaves(self, x: np.ndarray) -> np.ndarray:
        """Per block (row of the dense columns ``x``) and tree, the block's leaf column."""
        feat, thr, child, miss, leaf, roots, (depth, _) = self._flat
        xf = np.ascontiguousarray(x, dtype=np.float64)
        out = np.empty((len(xf), len(roots)), dtype=np.intp)
        _c.leaves(xf, len(xf), xf.shape[1], feat, thr, child, miss, leaf, roots, len(feat),
                  int(depth), out)
        return out

    def onehot(self, x: np.ndarray) -> np.ndarray:
        """The leaf columns as a dense 0/1 matrix (blocks x leaves): for explain and the
        reference path; serving adds the leaves' weights directly (Model.scores)."""
        out = np.zeros((len(x), self.n_leaves))
        if len(x):
            out[np.arange(len(x))[:, None], self.leaves(x)] = 1.0
        return out

    def paths(self) -> list[str]:
        """Each leaf column as its path, the conditions on each input merged into one bound per
        side (``leaf t3: link_density<=0.21 & words>14``), for explain."""
        out = []
        for i, t in enumerate(self.trees):
            parent: dict[int, tuple[int, bool]] = {}
            for j in range(len(t["feature"])):
                if t["left"][j] >= 0:
                    parent[int(t["left"][j])] = (j, True)
                    parent[int(t["right"][j])] = (j, False)
            leaf_nodes = sorted(np.flatnonzero(t["left"] < 0).tolist(), key=lambda j: int(t["leaf"][j]))
            for node in leaf_nodes:
                lo: dict[int, float] = {}
                hi: dict[int, float] = {}
                order: list[int] = []
                k = int(node)
                while k in parent:
                    p, is_left = parent[k]
                    f, v = int(t["feature"][p]), float(t["threshold"][p])
                    if f not in order:
                        order.append(f)
                    if is_left:
                        hi[f] = min(hi.get(f, np.inf), v)
                    else:
                        lo[f] = max(lo.get(f, -np.inf), v)
                    k = p
                conds = []
                for f in reversed(order):  # root first
                    name = self.inputs[f]
                    if f in lo:
                        conds.append(f"{name}>{lo[f]:.3g}")
                    if f in hi:
                        conds.append(f"{name}<={hi[f]:.3g}")
                out.append(f"leaf t{i}: " + (" & ".join(conds) or "every block"))
        return out

    def to_json(self) -> JSONObject:
        return {"inputs": list(self.inputs),
                "trees": [{k: t[k].tolist() for k in _KEYS} for t in self.trees]}

    @classmethod
    def from_json(cls, d: object, inputs: list[str]) -> Trees:
        """The trees of a model file's ``trees`` section, checked: ``inputs`` must be the
        running code's dense columns, every node's children later nodes reached once (no
        cycles, one root), every index in range, leaf numbers 0..L-1, thresholds finite."""
        if not isinstance(d, dict) or not isinstance(d.get("trees"), list) or not d["trees"]:
            raise TreesError("trees must be an object with a non-empty list of trees")
        if d.get("inputs") != inputs:
            raise TreesError("trees.inputs do not match this ce-filter's dense feature columns")
        trees = []
        for i, t in enumerate(d["trees"]):
            if not isinstance(t, dict) or not all(isinstance(t.get(k), list) for k in _KEYS):
                raise TreesError(f"trees[{i}] needs the arrays {', '.join(_KEYS)}")
            n = len(t["feature"])
            if n == 0 or any(len(t[k]) != n for k in _KEYS):
                raise TreesError(f"trees[{i}]: arrays of different or zero length")
            if not all(type(v) is int for k in ("feature", "left", "right", "leaf") for v in t[k]) \
                    or not all(type(v) is bool for v in t["missing_left"]) \
                    or not all(type(v) in (int, float) for v in t["threshold"]):
                raise TreesError(f"trees[{i}]: wrong value types")
            a = {k: np.asarray(t[k], dtype=np.float64 if k == "threshold" else
                               bool if k == "missing_left" else np.int64) for k in _KEYS}
            _check_tree(a, len(inputs), f"trees[{i}]")
            trees.append(a)
        return cls(tuple(inputs), trees)


class LeavesC(Protocol):
    """The function of the C part (score/features/_leaves.c) that Python calls: each row's leaf
    in each tree into ``out`` (the flat trees of ``Trees.flat``)."""

    def leaves(self, x: np.ndarray, n: int, width: int, feature: np.ndarray, threshold: np.ndarray,
               child: np.ndarray, missing_left: np.ndarray, leaf: np.ndarray, roots: np.ndarray,
               n_nodes: int, depth: int, out: np.ndarray, /) -> None: ...


_c = cast(LeavesC, native.required("score.features._leaves"))


def _check_tree(t: dict[str, np.ndarray], n_inputs: int, what: str) -> None:
    n = len(t["feature"])
    is_leaf = t["left"] < 0
    inner = ~is_leaf
    idx = np.arange(n)
    if np.any(is_leaf & (t["right"] >= 0)) or np.any(inner & (t["right"] < 0)):
        raise TreesError(f"{what}: a node with one child")
    kids = np.concatenate([t["left"][inner], t["right"][inner]])
    if np.any(t["left"][inner] <= idx[inner]) or np.any(t["right"][inner] <= idx[inner]) \
            or np.any(kids >= n) or sorted(kids.tolist()) != list(range(1, n)):
        raise TreesError(f"{what}: children must be later nodes, each node but the root once")
    if np.any(inner & ((t["feature"] < 0) | (t["feature"] >= n_inputs))):
        raise TreesError(f"{what}: feature index out of range")
    if not np.all(np.isfinite(t["threshold"])):
        raise TreesError(f"{what}: non-finite threshold")
    if np.any(inner & (t["leaf"] != -1)) or sorted(t["leaf"][is_leaf].tolist()) != list(
            range(int(is_leaf.sum()))):
        raise TreesError(f"{what}: leaf numbers must be 0..leaves-1 on the leaves, -1 elsewhere")


def _depth(left: np.ndarray, right: np.ndarray) -> int:
    """The tree's depth (levels below the root); children come after their parent."""
    d = np.zeros(len(left), dtype=np.int64)
    for j in range(len(left)):
        if left[j] >= 0:
            d[left[j]] = d[right[j]] = d[j] + 1
    return int(d.max())
