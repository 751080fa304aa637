"""Training the page-kind model (``ce_filter.score.pagekind``) on the corpora's page types.

    python -m ce_filter.learn.pagekind ../shared/data/wcxb-dev --out ce_filter/models/pagekind.json

Multinomial L2 logistic regression over the page signals, standardised; C from folds grouped
by domain (a site's pages never sit on both sides), and the grouped CV accuracy (overall, per
kind, and the confusion matrix) recorded in the file's ``meta``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable

import numpy as np

from ..progress import progress
from ..read.page import read
from ..score.pagekind import KINDS, PageKindModel, page_signals
from ..version import __version__
from .corpus import Doc, Spec, site_of
from .digits import significant

CS = (0.01, 0.03, 0.1, 0.3, 1.0)
FOLDS = 5
ABSENT = -30.0  # the intercept of a kind without training pages


def signals(docs: Iterable[Doc]) -> tuple[np.ndarray, list[str], list[str], list[str]]:
    """(signals matrix, page types, CV groups, page ids) of the pages with a type."""
    xs, ys, groups, ids = [], [], [], []
    for d in docs:
        if d.page_type not in KINDS:
            continue
        page = read(d.html)  # the page steps every stage takes (page.read)
        if page.blocks is None:  # refused before parsing: nothing to learn from
            continue
        xs.append(page_signals(page.blocks, page.text, d.url or None))
        ys.append(d.page_type)
        groups.append(d.domain or site_of(d.html) or d.id)
        ids.append(d.id)
    return np.vstack(xs), ys, groups, ids


def _fit(x: np.ndarray, y: np.ndarray, c: float, kinds: tuple[str, ...] = KINDS) -> PageKindModel:
    from sklearn.linear_model import LogisticRegression

    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    coef = np.zeros((len(kinds), x.shape[1]))
    # a kind with no training page never wins (a small corpus, or a fold of one)
    icpt = np.full(len(kinds), ABSENT)
    present = np.unique(y)
    if len(present) == 1:
        icpt[present[0]] = 0.0
    else:
        lr = LogisticRegression(C=c, max_iter=5000, tol=1e-8)
        lr.fit((x - mean) / scale, y)
        if len(present) == 2:  # scikit-learn's binary form: one weight vector, for the second
            coef[present[1]], icpt[present] = lr.coef_[0], (0.0, lr.intercept_[0])
        else:
            coef[present], icpt[present] = lr.coef_, lr.intercept_
    return PageKindModel(kinds, significant(mean), significant(scale), significant(coef),
                         significant(icpt))


def _folds(groups: list[str], folds: int) -> list[tuple[np.ndarray, np.ndarray]]:
    from sklearn.model_selection import GroupKFold

    index: dict[str, int] = {}
    gid = np.array([index.setdefault(g, len(index)) for g in groups])
    return list(GroupKFold(n_splits=folds).split(np.zeros(len(gid)), gid, gid))


def oof_proba(x: np.ndarray, y: np.ndarray, groups: list[str], c: float,
              folds: int = FOLDS, kinds: tuple[str, ...] = KINDS) -> np.ndarray:
    """Out-of-fold kind probabilities (folds grouped by ``groups``)."""
    out = np.zeros((len(y), len(kinds)))
    for tr, te in _folds(groups, min(folds, len(set(groups)))):
        out[te] = _fit(x[tr], y[tr], c, kinds).proba(x[te])
    return out


def train(x: np.ndarray, types: list[str], groups: list[str], log: bool = True,
          kinds: tuple[str, ...] = KINDS, what: str = "pagekind") -> tuple[PageKindModel, np.ndarray]:
    """C by grouped CV accuracy (ties: the smaller C), then the fit on every page; with the
    out-of-fold probabilities at that C. ``kinds``: the classes (the page-style model's are
    the training corpora); ``what``: the log lines' name."""
    from threadpoolctl import threadpool_limits

    y = np.array([kinds.index(t) for t in types])
    with threadpool_limits(limits=1):
        res = {}
        for c in CS:
            p = oof_proba(x, y, groups, c, kinds=kinds)
            res[c] = (float((p.argmax(axis=1) == y).mean()), p)
            if log:
                print(f"{what}: C={c:g} grouped CV accuracy {res[c][0]:.4f}", file=sys.stderr)
        c = max(CS, key=lambda k: (res[k][0], -k))
        acc, p = res[c]
        model = _fit(x, y, c, kinds)
    pred = p.argmax(axis=1)
    conf = np.zeros((len(kinds), len(kinds)), dtype=int)
    np.add.at(conf, (y, pred), 1)
    per = {k: round(float((pred[y == i] == i).mean()), 4) for i, k in enumerate(kinds) if (y == i).any()}
    model.meta = {
        "trained_with": f"ce-filter {__version__}",
        "C": c,
        "pages": len(y),
        "cv": {"folds": FOLDS, "groups": "domain", "accuracy": round(acc, 4),
               "by_kind": per, "confusion": conf.tolist(),
               "by_C": {f"{k:g}": round(v[0], 4) for k, v in res.items()}},
    }
    return model, p


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ce_filter.learn.pagekind", description=__doc__)
    ap.add_argument("corpus", nargs="+", help="corpus dir[:split] with page types (pages.tsv)")
    ap.add_argument("--out", required=True, help="model JSON to write")
    a = ap.parse_args(argv)
    xs, ys, gs = [], [], []
    for spec in a.corpus:
        c = Spec.parse(spec)
        x, y, g, _ = signals(progress(c.load(), f"pagekind: {c.name}", total=c.size()))
        xs.append(x)
        ys += y
        gs += g
    if not ys:
        print("no pages with a page type", file=sys.stderr)
        return 2
    model, _ = train(np.vstack(xs), ys, gs)
    model.meta["data"] = [Spec.parse(s).name for s in a.corpus]
    model.save(a.out)
    print(f"wrote {a.out}; grouped CV accuracy {model.meta['cv']['accuracy']}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
