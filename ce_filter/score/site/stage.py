"""The site stage: a small logistic regression stacked on the model's block log-odds and the
site memory's columns (ce_filter.score.site.memory), on pages whose host has other pages remembered.

    z_site = b + a * z + sum_j w_j * column_j,    score = sigmoid(z_site)

where z is the model's final block log-odds. A host's first page (n = 0) never reaches the
stage: its scores are the model's, unchanged. The stage is one linear sum before a sigmoid,
so ``explain`` shows its terms one by one (``terms``). Stored as the "site" section of a model
file, or beside the shipped model as ``models/content-site.json`` (tied to that model's
digest), as JSON: no pickle.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Protocol, cast

import numpy as np

from ... import native
from .memory import NO_PRINT

if TYPE_CHECKING:
    from ...jsontypes import JSONObject, Loaded

# the stage's columns, in order; "logit" is the model's block log-odds
COLUMNS = ("logit", "share", "share_nb", "unique", "short", "share_x_logit")
NAMES = {
    "logit": "model's log-odds of this block",
    "share": "site: share of the host's other pages holding this block",
    "share_nb": "site: mean share of the two neighbouring blocks",
    "unique": "site: block on none of the host's other pages",
    "short": "site: block too short to fingerprint",
    "share_x_logit": "site: share x model's log-odds",
}


def logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(p, dtype=np.float64), 1e-12, 1 - 1e-12)
    return np.log(p / (1 - p))


def site_columns(scores: np.ndarray, fps: np.ndarray, k: np.ndarray, n: int) -> np.ndarray:
    """The stage's input matrix (COLUMNS order) of a page's blocks: model probabilities
    ``scores``, fingerprints ``fps`` and the memory's (k, n) with n > 0."""
    z = logit(scores)
    has = fps != NO_PRINT
    share = np.where(has, k / max(n, 1), 0.0)
    pad = np.concatenate(([0.0], share, [0.0]))
    cnt = np.concatenate(([0.0], has.astype(np.float64), [0.0]))
    nb = (pad[:-2] + pad[2:]) / np.maximum(cnt[:-2] + cnt[2:], 1.0)
    unique = (has & (k == 0)).astype(np.float64)
    return np.column_stack((z, share, nb, unique, (~has).astype(np.float64), share * z))


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0)))


@dataclass
class SiteStage:
    coef: np.ndarray  # one weight per COLUMNS entry
    intercept: float
    model_digest: str = ""  # the model whose scores it was fitted on ('' in a model's own section)
    meta: dict[str, Loaded] | None = None  # the fit's notes, not checked

    def decision(self, x: np.ndarray) -> np.ndarray:
        return x @ self.coef + self.intercept

    def apply(self, scores: np.ndarray, fps: np.ndarray, k: np.ndarray, n: int) -> np.ndarray:
        """The blocks' probabilities with the site columns; the model's ``scores`` where n = 0.
        In one C call without the GIL (score/site/_stage.c, the one implementation; its numpy
        oracle, sigmoid(decision(site_columns(...))), gives the same values to ~1e-15: only the
        order of the terms' additions differs)."""
        if n <= 0 or not len(scores):
            return scores
        out = np.empty(len(scores))
        _c.stage(np.ascontiguousarray(scores, dtype=np.float64), np.ascontiguousarray(fps, dtype=np.uint64),
                np.ascontiguousarray(k, dtype=np.float64), n,
                np.ascontiguousarray(self.coef, dtype=np.float64), float(self.intercept), out)
        return out

    def terms(self, x: np.ndarray) -> np.ndarray:
        """Per block and column, its term in the stage's log-odds."""
        return x * self.coef

    def to_json(self) -> JSONObject:
        d: JSONObject = {"columns": list(COLUMNS), "coef": [float(c) for c in self.coef],
                             "intercept": float(self.intercept)}
        if self.model_digest:
            d["model_digest"] = self.model_digest
        if self.meta:
            d["meta"] = self.meta
        return d

    @classmethod
    def from_json(cls, d: object) -> SiteStage:
        """The stage of a "site" section; ValueError for anything else."""
        if not isinstance(d, dict) or d.get("columns") != list(COLUMNS):
            raise ValueError(f"site: expected an object with columns {list(COLUMNS)}")
        coef = np.asarray(d.get("coef"), dtype=np.float64)
        b = d.get("intercept")
        if coef.shape != (len(COLUMNS),) or not np.all(np.isfinite(coef)) \
                or isinstance(b, bool) or not isinstance(b, (int, float)) or not np.isfinite(b):
            raise ValueError("site: coef must be one finite number per column, intercept finite")
        digest = d.get("model_digest", "")
        if not isinstance(digest, str):
            raise ValueError("site: model_digest must be a string")
        return cls(coef, float(b), digest, d.get("meta"))


def shipped_stage(model_digest: str) -> SiteStage | None:
    """The site stage shipped beside the content model (models/content-site.json), when it was
    fitted on the model of ``model_digest``; None otherwise."""
    ref = resources.files("ce_filter") / "models" / "content-site.json"
    if not ref.is_file():
        return None
    stage = SiteStage.from_json(json.loads(ref.read_text(encoding="utf-8")))
    return stage if stage.model_digest == model_digest else None


class StageC(Protocol):
    """The function of the C part (score/site/_stage.c) that Python calls: the stage's
    probabilities into ``out``."""

    def stage(self, scores: np.ndarray, fps: np.ndarray, k: np.ndarray, n_pages: int, coef: np.ndarray,
              intercept: float, out: np.ndarray, /) -> None: ...


_c = cast(StageC, native.required("score.site._stage"))
