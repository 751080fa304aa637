"""The block model's C scores (blockmodel.scores_c: stage 1, then stage 2 over the context of
stage 1's probabilities, in one call) against the numpy oracle (tests/oracles/blockmodel_numpy.py)
to SCORE_ATOL, on random pages of every size the context columns treat apart."""

from __future__ import annotations

import numpy as np
import pytest

from ce_filter.read.segment import PATH_LEN
from ce_filter.score.blockmodel import scores_c
from ce_filter.score.features import context_features
from tests.oracles.blockmodel_numpy import SCORE_ATOL, scores


@pytest.mark.parametrize("n", [1, 2, 5, 70, 400])
@pytest.mark.parametrize("page_rel", [False, True])
def test_c_scores_equal_the_oracle(n: int, page_rel: bool) -> None:
    rng = np.random.default_rng(n * 2 + page_rel)
    for _ in range(5):
        x = rng.normal(size=(n, 23))
        w, b, tok = rng.normal(size=23) * 0.3, float(rng.normal()), rng.normal(size=n)
        cont = np.ascontiguousarray(rng.integers(0, 6, size=(n, PATH_LEN)), dtype=np.int64)
        weight = rng.random(n) + 0.5
        w2 = rng.normal(size=context_features(np.zeros(1), page_rel=page_rel).shape[1])
        for c, wt in ((cont, weight), (None, None)):
            for t, w2_, b2 in ((None, None, 0.0), (tok, None, 0.0), (tok, w2, -0.1)):
                got = scores_c(x, w, b, t, w2_, b2, page_rel, c, wt)
                want = scores(x, w, b, t, w2_, b2, page_rel, c, wt)
                assert got.shape == (n,)
                np.testing.assert_allclose(got, want, rtol=0, atol=SCORE_ATOL)
