"""Training on a toy typed corpus with the context stages' designs and out-of-fold scores
recorded, shared by the tests of the stage-2 and stage-3 options."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

# (call number of fit._best_threshold, its cut, its CV F1) -> the (cut, CV F1) training sees
Forced = Callable[[int, float, float], tuple[float, float]]


def stage2_beats_stage1(n: int, t: float, f: float) -> tuple[float, float]:
    """A toy corpus lets stage 1 score perfectly; these CV figures make stage 2 kept."""
    return t, {1: 0.5, 2: 0.6}.get(n, f)


def recording_training(tmp_path: Path, monkeypatch: Any, config: str, forced: Forced
                       ) -> tuple[list, Any, list[np.ndarray], list[np.ndarray]]:
    """(pages, cfg, designs, oofs): 24 typed pages, ``config`` shrunk for them, and the lists
    that every dense design (stage 2's, then 3's) and every out-of-fold score vector (stage 1's,
    2's, 3's) of the next ``fit.train`` land in; ``forced`` sets the cuts and CV F1 it sees."""
    pytest.importorskip("sklearn")
    from ce_filter.learn import fit, logreg
    from ce_filter.learn.configs import CONFIGS, corpus_pages

    from .typed_corpus import make_typed_corpus

    root = make_typed_corpus(tmp_path / "w", n=24)
    pages = corpus_pages([str(root)], False)[0]
    cfg = replace(CONFIGS[config], ic_min_pages=0, ic_odds=1.0, log=False, folds=3)
    designs: list[np.ndarray] = []
    oofs: list[np.ndarray] = []
    real_design, real_oof, real_best = logreg.dense_design, fit._oof, fit._best_threshold
    monkeypatch.setattr(logreg, "dense_design", lambda x: designs.append(x) or real_design(x))
    monkeypatch.setattr(fit, "_oof", lambda *a: oofs.append(real_oof(*a)) or oofs[-1])
    calls: list[float] = []

    def best(pages_, sizes, s, thresholds, beta=1.0):  # type: ignore[no-untyped-def]
        t, f = real_best(pages_, sizes, s, thresholds, beta)
        calls.append(t)
        return forced(len(calls), t, f)

    monkeypatch.setattr(fit, "_best_threshold", best)
    return pages, cfg, designs, oofs


def assert_stage2_design(pages: list, design: np.ndarray, s1: np.ndarray,
                         extra: Callable[[np.ndarray, Any, np.ndarray, np.ndarray], np.ndarray]) -> None:
    """``design`` holds, page by page, context_features of the stage-1 out-of-fold scores
    ``s1`` and then ``extra(scores, blocks, ancestor ids, block sizes)``'s columns."""
    from ce_filter.score.features import context_features, stage2_inputs

    at = 0
    for p in pages:
        n = len(p.y)
        s = s1[at:at + n]
        cont, w = stage2_inputs(p.blocks)
        want = np.hstack((context_features(s, cont, w, page_rel=True), extra(s, p.blocks, cont, w)))
        np.testing.assert_array_equal(design[at:at + n], want)
        at += n
