"""The L2 logistic regression fit over a block x feature design that is mostly 0/1 token columns.

A dense float64 matrix of every training block and feature (586,243 blocks x 1,277 features on
dragnet train + cleaneval-dev + wcxb-dev: 6 GB, twice that inside a dense solver) does not fit
beside its cross-validation copies. Here the design keeps the dense columns as one float64 matrix
and the token columns as a sparse 0/1 matrix, and the fit standardises the token columns
implicitly (X_std = (X - mean) / scale is never formed): products with X_std are products with
X plus rank-one corrections. The solver is scikit-learn's Newton-Cholesky, step for step (same
objective scaling, start, backtracking line search and stopping rule), so on data that fits in
memory either way it returns scikit-learn's weights to the rounding of the model file
(tests/core/test_logreg.py; the shipped models rebuild to the byte).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from ..score.blockmodel import Linear

TOL = 1e-7  # scikit-learn's LogisticRegression(tol=1e-7, max_iter=200), as the models were fitted
MAX_ITER = 200


@dataclass
class Design:
    """Rows = blocks. ``dense`` holds the dense columns, ``tokens`` the 0/1 token columns (CSR);
    ``dense_pos`` / ``token_pos`` are their positions in the model's feature order."""

    dense: np.ndarray
    tokens: sp.csr_array
    dense_pos: np.ndarray
    token_pos: np.ndarray
    # per feature (model order), a factor on its standardising scale: k > 1 shrinks the
    # standardised column, so its weight pays k^2 times the L2 penalty (None: all 1)
    scale_mult: np.ndarray | None = None

    @property
    def n_features(self) -> int:
        return len(self.dense_pos) + len(self.token_pos)

    def __len__(self) -> int:
        return len(self.dense)

    def decision(self, lin: Linear, rows: np.ndarray | None = None) -> np.ndarray:
        """``lin.decision`` of the design's rows (all, or ``rows``) without the dense matrix."""
        d = self.dense if rows is None else self.dense[rows]
        t = self.tokens if rows is None else self.tokens[rows]
        w = lin._w
        return d @ w[self.dense_pos] + t @ w[self.token_pos] + lin._b


def dense_design(x: np.ndarray) -> Design:
    """A design with only dense columns (stage 2's inputs)."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    return Design(x, sp.csr_array((len(x), 0)), np.arange(x.shape[1]), np.zeros(0, dtype=np.int64))


def column_stats(design: Design, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard deviation of every column over ``rows`` (``x.mean(0)``, ``x.std(0)``),
    with scale 1 for constant columns."""
    d = design.dense if rows is None else design.dense[rows]
    t = design.tokens if rows is None else design.tokens[rows]
    mean = np.empty(design.n_features)
    std = np.empty(design.n_features)
    mean[design.dense_pos] = d.mean(axis=0)
    std[design.dense_pos] = d.std(axis=0)
    # Token columns a few at a time as dense C-ordered blocks: numpy then sums each column in the
    # same order as over the whole matrix, so the statistics are x.mean(0) / x.std(0) to the bit
    # (the model file keeps them to 9 digits, and a sum in another order can move the 9th).
    t = t.tocsc()
    for a in range(0, t.shape[1], _COLUMN_CHUNK):
        b = min(a + _COLUMN_CHUNK, t.shape[1])
        block = np.ascontiguousarray(t[:, a:b].toarray())
        mean[design.token_pos[a:b]] = block.mean(axis=0)
        std[design.token_pos[a:b]] = block.std(axis=0)
    std[std < 1e-9] = 1.0
    return mean, std


_COLUMN_CHUNK = 64


class _Standardised:
    """X_std = (X - mean) / scale over some rows of a design, implicitly for the token columns."""

    def __init__(self, design: Design, rows: np.ndarray | None, mean: np.ndarray,
                 scale: np.ndarray) -> None:
        dp, tp = design.dense_pos, design.token_pos
        z = design.dense[rows] if rows is not None else design.dense.copy()
        z -= mean[dp]
        z /= scale[dp]
        self.z = z
        self.t = (design.tokens[rows] if rows is not None else design.tokens).tocsr()
        self.tt = self.t.T.tocsr()  # token columns as rows, for X^T products
        self.mu, self.s = mean[tp], scale[tp]
        self.dp, self.tp = dp, tp
        self.n, self.p = len(z), design.n_features

    def matvec(self, coef: np.ndarray) -> np.ndarray:
        v = coef[self.tp] / self.s
        return self.z @ coef[self.dp] + (self.t @ v - self.mu @ v)

    def rmatvec(self, r: np.ndarray) -> np.ndarray:
        out = np.empty(self.p)
        out[self.dp] = self.z.T @ r
        out[self.tp] = (self.tt @ r - self.mu * r.sum()) / self.s
        return out

    def sandwich(self, h: np.ndarray) -> np.ndarray:
        """X_std^T diag(h) X_std."""
        out = np.empty((self.p, self.p))
        dp, tp, mu, s = self.dp, self.tp, self.mu, self.s
        hz = h[:, None] * self.z
        out[np.ix_(dp, dp)] = self.z.T @ hz
        if len(tp):
            th = self.tt @ h  # T^T h
            zh = self.z.T @ h  # Z^T h
            td = (self.tt @ hz - np.outer(mu, zh)) / s[:, None]  # token x dense
            out[np.ix_(tp, dp)] = td
            out[np.ix_(dp, tp)] = td.T
            tht = (self.tt @ (self.t.multiply(h[:, None]).tocsc())).toarray()
            tht -= np.outer(mu, th)
            tht -= np.outer(th, mu)
            tht += h.sum() * np.outer(mu, mu)
            out[np.ix_(tp, tp)] = tht / np.outer(s, s)
        return out


def _loss_grad_pointwise(y: np.ndarray, raw: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Half binomial loss and its gradient per sample, times the sample weight (scikit-learn's
    closs_grad_half_binomial: the same case split keeps exp from overflowing)."""
    loss = np.empty_like(raw)
    grad = np.empty_like(raw)
    a = raw <= -37
    b = (raw > -37) & (raw <= -2)
    c = (raw > -2) & (raw <= 18)
    d = raw > 18
    e = np.exp(raw[a])
    loss[a] = e - y[a] * raw[a]
    grad[a] = e - y[a]
    e = np.exp(raw[b])
    loss[b] = np.log1p(e) - y[b] * raw[b]
    grad[b] = ((1 - y[b]) * e - y[b]) / (1 + e)
    for m, head in ((c, np.log1p), (d, None)):
        e = np.exp(-raw[m])
        loss[m] = (head(e) if head else e) + (1 - y[m]) * raw[m]
        grad[m] = ((1 - y[m]) - y[m] * e) / (1 + e)
    return loss * w, grad * w


def _grad_hess_pointwise(y: np.ndarray, raw: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and Hessian of the half binomial loss per sample, times the sample weight
    (scikit-learn's cgrad_hess_half_binomial)."""
    grad = np.empty_like(raw)
    hess = np.empty_like(raw)
    hi = raw > -37
    e = np.exp(-raw[hi])
    grad[hi] = ((1 - y[hi]) - y[hi] * e) / (1 + e)
    hess[hi] = e / (1 + e) ** 2
    e = np.exp(raw[~hi])
    grad[~hi] = e - y[~hi]
    hess[~hi] = e
    return grad * w, hess * w


def fit(design: Design, y: np.ndarray, w: np.ndarray, c: float,
        rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """L2 logistic regression (penalty 1/(2C) on the standardised weights, intercept free) on
    ``rows`` of ``design``: (mean, scale, coef, intercept), coef for the standardised columns.
    The same iterations as scikit-learn's ``LogisticRegression(C=c, solver="newton-cholesky",
    tol=1e-7, max_iter=200)`` on the standardised dense matrix."""
    mean, scale = column_stats(design, rows)
    if design.scale_mult is not None:
        scale = scale * design.scale_mult
    xs = _Standardised(design, rows, mean, scale)
    yy = np.asarray(y if rows is None else y[rows], dtype=np.float64)
    ww = np.asarray(w if rows is None else w[rows], dtype=np.float64)
    coef, intercept = _newton_cholesky(xs, yy, ww, c)
    return mean, scale, coef, intercept


def _newton_cholesky(xs: _Standardised, y: np.ndarray, w: np.ndarray, c: float
                     ) -> tuple[np.ndarray, float]:
    p = xs.p
    sw_sum = float(np.sum(w))
    l2 = 1.0 / (c * sw_sum)
    coef = np.zeros(p + 1)  # weights then intercept, as scikit-learn keeps them

    def raw_of(cf: np.ndarray) -> np.ndarray:
        return xs.matvec(cf[:p]) + cf[p]

    def loss_grad(cf: np.ndarray, raw: np.ndarray) -> tuple[float, np.ndarray]:
        loss, gp = _loss_grad_pointwise(y, raw, w)
        value = float(np.sum(loss) / sw_sum) + float(0.5 * l2 * (cf[:p] @ cf[:p]))
        gp /= sw_sum
        g = np.empty(p + 1)
        g[:p] = xs.rmatvec(gp) + l2 * cf[:p]
        g[p] = gp.sum()
        return value, g

    raw = raw_of(coef)
    loss_value = float(np.sum(_loss_grad_pointwise(y, raw, w)[0]) / sw_sum)  # coef = 0: no penalty
    gradient = np.zeros(p + 1)
    eps = 16 * np.finfo(np.float64).eps
    for _ in range(MAX_ITER):
        gp, hp = _grad_hess_pointwise(y, raw, w)
        gp /= sw_sum
        hp /= sw_sum
        hp = np.abs(hp)
        gradient[:p] = xs.rmatvec(gp) + l2 * coef[:p]
        gradient[p] = gp.sum()
        hessian = np.empty((p + 1, p + 1))
        hessian[:p, :p] = xs.sandwich(hp)
        hessian.reshape(-1)[: p * (p + 1): p + 2] += l2
        xh = xs.rmatvec(hp)
        hessian[:p, p] = xh
        hessian[p, :p] = xh
        hessian[p, p] = hp.sum()
        step = scipy.linalg.solve(hessian, -gradient, check_finite=False, assume_a="sym")
        armijo = 0.00048828125 * (gradient @ step)  # sigma = 1/2**11
        raw_step = xs.matvec(step[:p]) + step[p]
        old_coef, old_loss, old_grad = coef, loss_value, gradient
        t = 1.0
        abs_old = -1.0
        for _ls in range(21):
            coef = old_coef + t * step
            new_raw = raw + t * raw_step
            loss_value, gradient = loss_grad(coef, new_raw)
            improvement = loss_value - old_loss
            if improvement <= t * armijo:
                break
            if abs(improvement) <= abs(old_loss * eps):
                if abs_old < 0:
                    abs_old = float(np.abs(old_grad).sum())
                if float(np.abs(gradient).sum()) < abs_old:
                    break
            t *= 0.5
        else:
            warnings.warn("logistic regression: the line search did not converge; keeping the "
                          "last step", RuntimeWarning, stacklevel=2)
            return old_coef[:p], float(old_coef[p])
        raw = new_raw
        if np.max(np.abs(gradient)) <= TOL and 0.5 * (step @ hessian @ step) <= TOL:
            break
    else:
        warnings.warn(f"logistic regression did not converge in {MAX_ITER} iterations",
                      RuntimeWarning, stacklevel=2)
    return coef[:p], float(coef[p])
