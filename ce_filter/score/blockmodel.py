"""The model file: JSON (safe to load, diffable), served with numpy (standardise, dot, sigmoid).

Stage 1 scores each block from its features; the optional stage 2 is a second logistic
regression over the stage-1 scores of the block's neighbours (context smoothing), and the
optional stage 3 a third one of the same form over the stage-2 scores (stacked once more).
The blocks kept at the cut: ``select``. A page's scores (of the shapes most models have) and
its cut run through the C part beside this module (_blockmodel.c) where it is built and agrees
with the numpy reference on a probe at import.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar, cast

import numpy as np

from .. import native
from ..read.segment import FLAG_PRE, PATH_LEN, Blocks, vocab_table
from . import features as features_module
from .features import (
    GROUPS,
    TOKEN_PREFIXES,
    FeatureSpec,
    TokenRows,
    context_features,
    feature_names,
    page_inputs,
    pass_layout,
    stage2_inputs,
)
from .features import dense as _dense_part
from .features.context import (
    CONTAINER_LEVELS,
    SIGNATURE_COLUMNS,
    context_inputs,
    kind_context,
    signature_columns,
    signature_groups,
    stage2_columns,
    with_deep,
)
from .features.leaves import Trees, TreesError
from .features.rx import RX_LEVELS, RX_MATCHER, RX_NAMES
from .features.shop import SHOP_TITLE_PHRASES, shop_ic_source
from .features.tokens import token_weight_sums
from .pagekind import KINDS, PageKindError, PageKindModel

if TYPE_CHECKING:

    from ..jsontypes import JSONObject, Loaded
    from ..read.segment import VocabTable
    from .site.stage import SiteStage

T = TypeVar("T")

FORMAT_VERSION = 1


class ModelError(ValueError):
    """A model file that is not a valid ce-filter model."""


def sigmoid(z: np.ndarray) -> np.ndarray:
    # minimum/maximum: np.clip's values without its Python-level wrappers (~4 us a call)
    return 1.0 / (1.0 + np.exp(-np.minimum(np.maximum(z, -40.0), 40.0)))


@dataclass
class Linear:
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    # the scaler folded into the weights: one pass over the page's matrix, no standardised copy
    _w: np.ndarray = field(init=False, repr=False, compare=False)
    _b: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._w = self.coef / self.scale
        self._b = float(self.intercept - np.dot(self.mean, self._w))

    def decision(self, x: np.ndarray) -> np.ndarray:
        # einsum, not @: a matrix-vector product goes to BLAS, and OpenBLAS spreads even a
        # page-sized one over threads that spin on the other cores, so a worker process takes
        # more than its core and N workers scale worse than N times (docs/BENCHMARKS.md)
        return np.einsum("ij,j->i", x, self._w) + self._b

    def to_json(self) -> JSONObject:
        return {"mean": self.mean.tolist(), "scale": self.scale.tolist(),
                "coef": self.coef.tolist(), "intercept": float(self.intercept)}

    @classmethod
    def from_json(cls, d: Loaded, n: int, what: str) -> Linear:
        _need(d, dict, what)
        arrs = [np.asarray(_need(d[k], list, f"{what}.{k}"), dtype=np.float64)
                for k in ("mean", "scale", "coef")]
        if any(a.shape != (n,) for a in arrs):
            raise ModelError(f"{what}: expected {n} weights, got {[a.shape for a in arrs]}")
        if not np.all(np.isfinite(np.concatenate(arrs))) or np.any(arrs[1] == 0):
            raise ModelError(f"{what}: non-finite weights or zero scale")
        return cls(arrs[0], arrs[1], arrs[2], _number(d["intercept"], f"{what}.intercept"))


def _need(v: object, kind: type[T], what: str) -> T:
    """``v`` when it is a ``kind``; else ModelError naming the field."""
    if not isinstance(v, kind):
        names: dict[type, str] = {dict: "object", list: "array", str: "string"}
        raise ModelError(f"{what} must be a JSON {names.get(kind, kind.__name__)}, not {type(v).__name__}")
    return v


def _number(v: object, what: str, lo: float = -np.inf, hi: float = np.inf) -> float:
    """A finite number in [lo, hi] (JSON allows NaN and Infinity; a model must not)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not (lo <= v <= hi) or not np.isfinite(v):
        raise ModelError(f"{what} must be a finite number in [{lo}, {hi}], not {v!r}")
    return float(v)


@dataclass
class Model:
    name: str
    spec: FeatureSpec
    stage1: Linear
    stage2: Linear | None = None
    threshold: float = 0.5
    meta: dict[str, Loaded] = field(default_factory=dict)  # the training's notes, not checked
    stage2_page_rel: bool = False  # stage 2 also sees score / page max (context_features)
    # the precision-leaning cut chosen on CV (learn.fit.TrainConfig.precise_beta); None in model
    # files from before it was recorded
    precise_threshold: float | None = None
    # the recall-leaning cut chosen on CV (learn.fit.TrainConfig.recall_beta); None in model
    # files from before it was recorded
    recall_threshold: float | None = None
    # the page-kind model trained with it on the training pages' types (None: the training data
    # had none); the "kind" feature group reads its probabilities
    pagekind: PageKindModel | None = None
    # the cuts per page kind chosen on CV (learn.fit.kind_cuts): a page whose most probable kind
    # is listed is cut there instead of at ``threshold`` / ``precise_threshold``; None: one cut
    kind_thresholds: dict[str, float] | None = None
    kind_precise_thresholds: dict[str, float] | None = None
    # stage 2 also sees the page-kind probabilities and their products with these of its columns
    # (context.stage2_columns names; context.kind_context); None: off, and not in the file
    stage2_kind: tuple[str, ...] | None = None
    # a third stage over stage 2's scores, with stage 2's own columns (context_features, no kind
    # columns): context propagated one step further; None: off, and not in the file
    stage3: Linear | None = None
    # stage 2 (and 3) also see the mean scores under these farther ancestor levels
    # (context.deep_columns), after their other columns; (): off, and not in the file
    stage2_deep: tuple[int, ...] = ()
    # the page-style model: which training corpus's annotation conventions a page resembles
    # (features.style; its classes are spec.style where the block model has style columns);
    # None: off, and not in the file
    pagestyle: PageKindModel | None = None
    # stage 2 also sees the page-style probabilities and their products with these of its
    # columns, after any kind columns (as stage2_kind; needs the pagestyle); None: off
    stage2_style: tuple[str, ...] | None = None
    # stage 2 (and 3) also see the mean score of the block's signature group
    # (context.signature_columns), after any deep columns; False: off, and not in the file
    stage2_sig: bool = False
    # a page not read as an article (thin_page) whose kept blocks hold fewer words than this
    # gives no text: the shell of a page whose content was not in its HTML (learn.fit chooses it
    # on CV); 0: off, and not in the file
    min_words: int = 0
    # the site stage over the block scores and the site memory's columns (site/stage.py), read
    # only by an Extractor with a site memory; None: off, and not in the file
    site: SiteStage | None = None
    # tree-leaf inputs of stage 1 (features/leaves.py): each block's leaf in each tree a 0/1
    # column after the spec's features; None: off, and not in the file
    trees: Trees | None = None

    def predict_proba(self, x: np.ndarray, cont: np.ndarray | None = None,
                      weight: np.ndarray | None = None, kind: np.ndarray | None = None,
                      style: np.ndarray | None = None, groups: np.ndarray | None = None
                      ) -> np.ndarray:
        """Block probabilities. ``cont``/``weight`` (ancestor ids, block sizes; see
        ``stage2_inputs``) feed the DOM context of stage 2, ``kind`` / ``style`` its page-kind
        and page-style columns, ``groups`` (``signature_groups``) its signature-group ones."""
        if len(x) == 0:
            return np.zeros(0)
        return self._stage2(sigmoid(self.stage1.decision(self.stage1_matrix(x))), cont, weight, kind,
                            style, groups)

    def stage1_matrix(self, x: np.ndarray) -> np.ndarray:
        """Stage 1's whole input matrix from the spec's features ``x`` (``page_features``):
        ``x`` itself, with the tree-leaf columns after it where the model has trees."""
        if self.trees is None:
            return x
        return np.hstack((x, self.trees.onehot(x[:, self._dense_columns()])))

    def _dense_columns(self) -> np.ndarray:
        """Where the spec's dense columns (the trees' inputs) sit among its features."""
        return np.flatnonzero([not n.startswith(TOKEN_PREFIXES) for n in feature_names(self.spec)])

    def block_scores(self, blocks: Blocks, kind: np.ndarray | None = None,
                     style: np.ndarray | None = None) -> np.ndarray:
        """Block probabilities of a segmented page (what Extractor calls); ``kind``: the page's
        kind probabilities (``Extractor.page_context``), read when the model has the ``kind`` group;
        ``style`` its page-style probabilities, read when it has a ``pagestyle``."""
        return self.scores(*page_inputs(blocks, self.spec, kind, style), blocks, kind, style)

    def scores(self, x: np.ndarray, tokens: list[TokenRows], blocks: Blocks,
               kind: np.ndarray | None = None, style: np.ndarray | None = None) -> np.ndarray:
        """``predict_proba`` from ``page_inputs``' parts: the dense columns through their
        weights, plus each block's token weights summed (the same sum as the full matrix)."""
        if len(x) == 0:
            return np.zeros(0)
        if self._plain():  # the page in one C call where the model's shape allows it
            dense_w, token_w, tables = self._layout()
            tok = None
            for prefix, rows, vocab in tokens:
                t = token_weight_sums(rows, vocab, token_w[prefix], tables[prefix])
                tok = t if tok is None else tok + t
            s2 = self.stage2
            cont, weight = stage2_inputs(blocks)
            return scores_c(x, dense_w, self.stage1._b, tok, None if s2 is None else s2._w,
                            0.0 if s2 is None else s2._b, self.stage2_page_rel,
                            np.ascontiguousarray(cont, dtype=np.int64),
                            np.ascontiguousarray(weight, dtype=np.float64))
        return self.reference_scores(x, tokens, blocks, kind, style)

    def reference_scores(self, x: np.ndarray, tokens: list[TokenRows], blocks: Blocks,
                         kind: np.ndarray | None = None, style: np.ndarray | None = None
                         ) -> np.ndarray:
        """``scores`` in numpy: the reference of the C call, and the path of every model shape
        the C call does not cover (trees, kind or style in stage 2, deep or signature columns,
        stage 3)."""
        if len(x) == 0:
            return np.zeros(0)
        dense_w, token_w, tables = self._layout()
        z = np.einsum("ij,j->i", x, dense_w) + self.stage1._b
        for prefix, rows, vocab in tokens:
            z += token_weight_sums(rows, vocab, token_w[prefix], tables[prefix])
        if self.trees is not None:  # each block's leaf weights, one per tree
            z += self._leaf_weights()[self.trees.leaves(x)].sum(axis=1)
        return self._stage2(sigmoid(z), *stage2_inputs(blocks), kind, style,
                            self.signature_groups(blocks))

    def pass_plan(self) -> tuple[object, dict[str, int], int] | None:
        """(what the pass after the walk reads of this model, each C group's first column, the
        last groups' width) where the pass covers its shape (``scores_and_cut``), else None: trees,
        stage 3, stage 2 beyond the context columns (``_plain``), or a dense row with other
        columns (features.pass_layout). Made once per model."""
        if "_plan" not in self.__dict__:
            lay = pass_layout(self.spec) if self._plain() else None
            plan = None
            if lay is not None:
                off, width, extra = lay
                dense_w = self._layout()[0]
                if len(dense_w) != width + extra:
                    raise ValueError(f"the model's dense weights ({len(dense_w)}) are not its "
                                     f"spec's dense row ({width} + {extra})")
                s2 = self.stage2
                cap = _c.pass_plan(
                    PATH_LEN, width, extra, tuple(off[g] for g in _PASS_GROUPS),
                    _dense_part.HEAD_GROUP, _dense_part.UNLIKELY, _dense_part.NEGATIVE,
                    _dense_part.TAG_GROUP_LUT, _dense_part.HEADING_MAX_WORDS, dense_w, self.stage1._b,
                    None if s2 is None else s2._w, 0.0 if s2 is None else s2._b, self.stage2_page_rel,
                    FLAG_PRE, FALLBACK_REL)
                plan = (cap, off, extra)
            self.__dict__["_plan"] = plan
        return self.__dict__["_plan"]

    def page_pass(self, blocks: Blocks, cuts: np.ndarray, spans: np.ndarray, span_out: int = 0, *,
                  kind: np.ndarray | None = None, kind_model: PageKindModel | None = None,
                  html: str = "", url: str | None = None, seen: np.ndarray | None = None,
                  after: tuple[object, ...] | None = None
                  ) -> tuple[np.ndarray | None, np.ndarray, np.ndarray, tuple[int, str] | None] | None:
        """(the page's kind probabilities, its block probabilities, the blocks kept at its cut)
        of a page of >= 1 block in one C call without the GIL (ce_filter/_pass.c): with
        ``kind_model``, its probabilities of the page (``html``, ``url``: PageKindModel.page_proba),
        else ``kind`` (None: no estimate); ``block_scores``; for the most probable kind k (KINDS
        order), the cut at ``cuts[k]`` with the code rule (``select_c``), then, where ``spans[k]``
        >= 0, the span rule at that level (keep.kindrules.fill_span: ``span_out`` its flags,
        ``seen`` the blocks it never adds). The same bits as those steps one by one. With
        ``after`` (Extractor.page_run's: the rules after the cut, the thin-page rule, the text),
        the same call goes on: the mask is then the kept blocks, and the fourth value is (why
        the text is empty: 0 it is not, 1 a thin page, 2 no block kept; the kept text, code
        blocks as written from ``after``'s last item, Blocks.code_column), else None. None where
        the pass does not cover the model (``pass_plan``): the caller takes the steps."""
        plan = self.pass_plan()
        if plan is None or features_module.CETR_COLUMNS is not None:
            return None
        cap, off, extra = plan
        classes = blocks.class_tokens()
        if classes is None:
            return None
        own = anc = None
        if "ic" in self.spec.groups:
            _, _, tables = self._layout()
            own, anc = tables["ic_own:"], tables["ic_anc:"]
        rx = (RX_MATCHER, RX_LEVELS, len(RX_NAMES)) if off["rx"] >= 0 or off["head"] >= 0 else (None, 0, 0)
        kp = None if kind_model is None else kind_model.pass_plan()
        k = (np.zeros(len(KINDS)) if kp is not None
             else None if kind is None else np.array(kind, dtype=np.float64))
        cnt, tag, n_tags, depth, flags, cont, _, _, utf8, starts, lexicon = \
            _dense_part.block_arrays(blocks, None, off, rx=False)
        n = len(blocks)
        scores, keep = np.empty(n), np.empty(n, dtype=np.bool_)
        got = _c.page_scores(cap, kp, html, url, cnt, tag, n_tags, depth, flags, cont,
                             blocks.text_column().joined, k, (*classes, *rx, own, anc), utf8, starts,
                             lexicon, SHOP_TITLE_PHRASES, shop_ic_source() if extra else None,
                             self.spec.shop_min_p,
                             np.ascontiguousarray(blocks.token_counts(), dtype=np.float64),
                             np.ascontiguousarray(cuts, dtype=np.float64),
                             np.ascontiguousarray(spans, dtype=np.float64), span_out,
                             None if seen is None else np.ascontiguousarray(seen, dtype=np.uint8),
                             scores, keep.view(np.uint8), after)
        return k, scores, keep, got

    def _plain(self) -> bool:
        """Whether the C call (``scores_c``) covers this model: stage 1 without trees,
        stage 2 (if any) over the context columns alone, no stage 3."""
        return (self.trees is None and self.stage3 is None and not self.stage2_deep
                and not self.stage2_sig and self.stage2_kind is None and self.stage2_style is None)

    def signature_groups(self, blocks: Blocks) -> np.ndarray | None:
        """The blocks' signature groups where stage 2 reads them (else None: not computed)."""
        return signature_groups(blocks) if self.stage2_sig and self.stage2 is not None else None

    def _stage2(self, s: np.ndarray, cont: np.ndarray | None, weight: np.ndarray | None,
                kind: np.ndarray | None = None, style: np.ndarray | None = None,
                groups: np.ndarray | None = None) -> np.ndarray:
        """Stage-1 probabilities through stage 2, where the model has one."""
        if self.stage2 is None:
            return s
        x = self.context_columns(s, cont, weight, groups)
        if self.stage2_kind is None and self.stage2_style is None:
            p = sigmoid(self.stage2.decision(x))
        else:
            w, b = self._folded_weights(kind, style)
            p = sigmoid(np.einsum("ij,j->i", x, w) + b)
        if self.stage3 is None:
            return p
        return sigmoid(self.stage3.decision(self.context_columns(p, cont, weight, groups)))

    def context_columns(self, s: np.ndarray, cont: np.ndarray | None, weight: np.ndarray | None,
                        groups: np.ndarray | None = None) -> np.ndarray:
        """Stage 2's (and 3's) own columns for the scores ``s`` (before any kind columns)."""
        x = with_deep(context_inputs(s, cont, weight, self.stage2_page_rel), s, cont, weight,
                      self.stage2_deep)
        if not self.stage2_sig:
            return x
        if groups is None:
            raise ValueError("this model's stage 2 reads the blocks' signature groups")
        return np.hstack((x, signature_columns(s, groups, weight)))

    def _folded_weights(self, kind: np.ndarray | None, style: np.ndarray | None = None
                      ) -> tuple[np.ndarray, float]:
        """Stage 2's folded weights over its own columns for a page of kind probabilities
        ``kind`` (and style probabilities ``style``): the kind and style columns are linear in
        p, so their weights fold into the page's weights of the columns they multiply and into
        its intercept (the same sums as over ``kind_context``'s matrix, without building it)."""
        assert self.stage2 is not None
        parts = self.__dict__.get("_s2k_parts")
        if parts is None:  # kind_context's order: own columns, then p times each of cols
            w = self.stage2._w
            nb = nb0 = (len(stage2_columns(self.stage2_page_rel)) + len(self.stage2_deep)
                        + len(SIGNATURE_COLUMNS) * self.stage2_sig)
            groups = []
            for cols, n in self._context_groups():
                u = w[nb:nb + n * len(cols)].reshape(len(cols), n)
                nb += n * len(cols)
                one = [i for i, c in enumerate(cols) if c < 0]  # p times ones: the intercept's
                at = [i for i, c in enumerate(cols) if c >= 0]
                groups.append((u[one].sum(axis=0), u[at], [cols[i] for i in at]))
            parts = self.__dict__["_s2k_parts"] = (w[:nb0], groups)
        w0, groups = parts
        w, b = w0, self.stage2._b
        for (v, u, at), q in zip(groups, self._group_probs(kind, style)):
            if q is None:  # zero probabilities: the group's columns are all 0
                continue
            p = np.asarray(q, dtype=np.float64)
            w = w.copy() if w is w0 else w
            w[at] += u @ p
            b = b + float(v @ p)
        return w, b

    def _group_probs(self, kind: np.ndarray | None, style: np.ndarray | None
                     ) -> list[np.ndarray | None]:
        """The probabilities of each of _context_groups' groups, in their order."""
        return ([kind] if self.stage2_kind is not None else []) + (
            [style] if self.stage2_style is not None else [])

    def _context_groups(self) -> list[tuple[list[int], int]]:
        """Stage 2's product groups after its own columns, in order: where each group's
        columns sit among stage 2's own (-1: "one"), and how many probabilities multiply them
        (the kind group, then the style group; cached)."""
        groups = self.__dict__.get("_s2k_groups")
        if groups is None:
            names = stage2_columns(self.stage2_page_rel)
            groups = []
            for cols, m in ((self.stage2_kind, self.pagekind), (self.stage2_style, self.pagestyle)):
                if cols is not None:
                    n = len(m.kinds) if m is not None else 0
                    groups.append(([-1 if c == "one" else names.index(c) for c in cols], n))
            self.__dict__["_s2k_groups"] = groups
        return groups

    def kind_context(self, base: np.ndarray, kind: np.ndarray | None,
                     style: np.ndarray | None = None) -> np.ndarray:
        """Stage 2's columns ``base`` with the page-kind ones of ``stage2_kind`` and the
        page-style ones of ``stage2_style`` (a page without probabilities gets zeros, as the
        ``kind`` block columns do)."""
        extra = [kind_context(base, np.zeros(n) if q is None else np.asarray(q, dtype=np.float64),
                              cols)[:, base.shape[1]:]
                 for (cols, n), q in zip(self._context_groups(), self._group_probs(kind, style))]
        return np.hstack([base, *extra]) if extra else base

    def _layout(self) -> tuple[np.ndarray, dict[str, list[float]], dict[str, VocabTable]]:
        """Stage 1's folded weights split into the dense columns' and each token list's, and
        each token list with its weights as a segment.vocab_table."""
        lay = self.__dict__.get("_lay")
        if lay is None:
            names = feature_names(self.spec)
            w = self.stage1._w[:len(names)]  # the leaf columns' weights follow (_leaf_weights)
            tok = np.array([n.startswith(TOKEN_PREFIXES) for n in names], dtype=bool)
            parts = {p: w[[i for i, n in enumerate(names) if n.startswith(p)]].tolist()
                     for p in TOKEN_PREFIXES}
            tables = {p: vocab_table([n[len(p):] for n in names if n.startswith(p)], parts[p])
                      for p in TOKEN_PREFIXES}
            lay = self.__dict__["_lay"] = (np.ascontiguousarray(w[~tok]), parts, tables)
        return lay

    def _leaf_weights(self) -> np.ndarray:
        """Stage 1's folded weights of the tree-leaf columns (after the spec's features; cached)."""
        w = self.__dict__.get("_leaf_w")
        if w is None:
            w = self.__dict__["_leaf_w"] = self.stage1._w[len(feature_names(self.spec)):]
        return w

    def feature_names(self) -> list[str]:
        """Stage 1's input names: the spec's features, then any tree-leaf columns."""
        return feature_names(self.spec) + (self.trees.names if self.trees is not None else [])

    def to_json(self) -> JSONObject:
        d: JSONObject = {
            "format": "ce-filter-model",
            "format_version": FORMAT_VERSION,
            "name": self.name,
            "threshold": self.threshold,
            "features": {"spec": self.spec.to_json(), "names": self.feature_names()},
            "stage1": self.stage1.to_json(),
            "stage2": self.stage2.to_json() if self.stage2 else None,
            "meta": self.meta,
        }
        if self.stage2_page_rel:  # written only when on: older model files keep their bytes
            d["stage2_page_rel"] = True
        if self.precise_threshold is not None:
            d["precise_threshold"] = self.precise_threshold
        if self.recall_threshold is not None:
            d["recall_threshold"] = self.recall_threshold
        if self.pagekind is not None:
            d["pagekind"] = self.pagekind.to_json()
        if self.stage2_kind is not None:  # only when on, as stage2_page_rel
            d["stage2_kind"] = list(self.stage2_kind)
        if self.stage3 is not None:  # likewise
            d["stage3"] = self.stage3.to_json()
        if self.stage2_deep:  # likewise
            d["stage2_deep"] = list(self.stage2_deep)
        if self.pagestyle is not None:  # likewise
            d["pagestyle"] = self.pagestyle.to_json()
        if self.stage2_style is not None:  # likewise
            d["stage2_style"] = list(self.stage2_style)
        if self.stage2_sig:  # likewise
            d["stage2_sig"] = True
        if self.min_words:  # likewise
            d["min_words"] = self.min_words
        if self.site is not None:  # likewise
            d["site"] = self.site.to_json()
        if self.trees is not None:  # likewise
            d["trees"] = self.trees.to_json()
        for key in ("kind_thresholds", "kind_precise_thresholds"):  # only when present
            if getattr(self, key) is not None:
                d[key] = dict(getattr(self, key))
        return d

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1, sort_keys=True) + "\n"

    @property
    def digest(self) -> str:
        """Content hash of the model file (cached: models are not mutated after loading)."""
        d = self.__dict__.get("_digest")
        if d is None:
            d = self.__dict__["_digest"] = hashlib.sha256(self.dumps().encode()).hexdigest()[:12]
        return d

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.dumps(), encoding="utf-8")

    @classmethod
    def from_json(cls, d: Loaded) -> Model:
        """The model of a decoded model file; ModelError for anything that is not a valid one
        (a wrong type anywhere included: it must never surface as another exception)."""
        try:
            return cls._from_json(d)
        except ModelError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError) as e:
            raise ModelError(f"malformed model file: {type(e).__name__}: {e}") from e

    @classmethod
    def _from_json(cls, d: Loaded) -> Model:
        _need(d, dict, "the model file")
        if d.get("format") != "ce-filter-model":
            raise ModelError("not a ce-filter model file")
        if d.get("format_version") != FORMAT_VERSION:
            raise ModelError(f"model format {d.get('format_version')} != {FORMAT_VERSION}")
        feats = _need(d["features"], dict, "features")
        spec = FeatureSpec.from_json(_need(feats["spec"], dict, "features.spec"))
        for key in ("groups", "ic_own", "ic_anc", "heading_words"):
            if not all(isinstance(t, str) for t in getattr(spec, key)):
                raise ModelError(f"features.spec.{key} must be a list of strings")
        if not set(spec.groups) <= set(GROUPS):
            raise ModelError(f"features.spec.groups: unknown groups {sorted(set(spec.groups) - set(GROUPS))}")
        names = feature_names(spec)
        trees = None
        if d.get("trees") is not None:
            try:
                trees = Trees.from_json(d["trees"], [n for n in names if not n.startswith(TOKEN_PREFIXES)])
            except TreesError as e:
                raise ModelError(str(e)) from e
            names = names + trees.names
        if feats.get("names") != names:
            raise ModelError("feature names in the file do not match this ce-filter's features")
        s2 = d.get("stage2")
        rel = d.get("stage2_page_rel", False)
        if not isinstance(rel, bool):
            raise ModelError("stage2_page_rel must be true or false")
        deep = _deep_levels(d.get("stage2_deep", []))
        sig = d.get("stage2_sig", False)
        if not isinstance(sig, bool):
            raise ModelError("stage2_sig must be true or false")
        if sig and not s2:
            raise ModelError("stage2_sig needs a stage 2")
        n2 = (context_features(np.zeros(1), page_rel=rel).shape[1] + len(deep)
              + len(SIGNATURE_COLUMNS) * sig)
        pt = d.get("precise_threshold")
        rt = d.get("recall_threshold")
        pk = d.get("pagekind")
        if pk is not None and not isinstance(pk, dict):
            raise ModelError("pagekind must be a page-kind model object")
        try:
            kind_model = PageKindModel.from_json(pk) if pk is not None else None
        except PageKindError as e:
            raise ModelError(str(e)) from e
        if kind_model is None and "kind" in spec.groups:
            raise ModelError("a model with the kind feature group needs its page-kind model")
        min_words = d.get("min_words", 0)
        if type(min_words) is not int or min_words < 0:
            raise ModelError("min_words must be a whole number >= 0")
        if min_words and (kind_model is None or kind_model.kinds[:1] != ("article",)):
            raise ModelError("min_words needs the model's page-kind model, article first")
        s2s = _stage2_group(d.get("stage2_style"), rel, "stage2_style")
        style_model = _page_style(d.get("pagestyle"), spec, s2s is not None)
        kt, kpt = (_kind_cuts(d.get(key), key, kind_model)
                   for key in ("kind_thresholds", "kind_precise_thresholds"))
        s2k = _stage2_kind(d.get("stage2_kind"), rel, kind_model)
        s3 = d.get("stage3")
        if s3 is not None and not s2:
            raise ModelError("stage3 needs a stage 2")
        stage3 = Linear.from_json(s3, n2, "stage3") if s3 is not None else None
        if s2k is not None and kind_model is not None:
            n2 += len(kind_model.kinds) * len(s2k)
        if s2s is not None and style_model is not None:
            n2 += len(style_model.kinds) * len(s2s)
        return cls(
            name=_need(d["name"], str, "name"),
            spec=spec,
            stage1=Linear.from_json(d["stage1"], len(names), "stage1"),
            stage2=Linear.from_json(s2, n2, "stage2") if s2 else None,
            threshold=_number(d["threshold"], "threshold", 0.0, 1.0),
            meta=dict(_need(d.get("meta", {}), dict, "meta")),
            stage2_page_rel=rel,
            precise_threshold=None if pt is None else _number(pt, "precise_threshold", 0.0, 1.0),
            recall_threshold=None if rt is None else _number(rt, "recall_threshold", 0.0, 1.0),
            pagekind=kind_model,
            kind_thresholds=kt,
            kind_precise_thresholds=kpt,
            stage2_kind=s2k,
            stage3=stage3,
            stage2_deep=deep,
            pagestyle=style_model,
            stage2_style=s2s,
            stage2_sig=sig,
            min_words=min_words,
            site=_site_stage(d.get("site")),
            trees=trees,
        )

    @classmethod
    def load(cls, path: str | Path) -> Model:
        try:
            return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))
        except ModelError as e:
            raise ModelError(f"{path}: {e}") from e
        except (ValueError, RecursionError) as e:  # not JSON, not UTF-8, or nested past the parser
            raise ModelError(f"{path}: not a model file: {type(e).__name__}: {e}") from e


FALLBACK_REL = 0.8


def select(scores: np.ndarray, threshold: float, in_code: np.ndarray | None = None) -> np.ndarray:
    """Blocks at or above the threshold; on a page where none is, the best-scored ones
    (within FALLBACK_REL of the top score), since an empty page is the worst answer.

    ``in_code`` (blocks inside a ``<pre>``): a code block between the first and the last kept
    block is kept too. The model scores code low (its text looks like nothing it keeps: 2 % of
    the annotated code blocks of wcxb-dev's documentation pages were kept); inside the kept
    span it belongs to the text. Mean word F1 on wcxb-dev documentation pages 0.628 -> 0.692,
    all wcxb-dev 0.688 -> 0.694; dragnet train and cleaneval-dev unchanged. (``select_c`` with
    the code blocks as a mask.)"""
    flags = None if in_code is None else np.asarray(in_code, dtype=np.int64)
    return select_c(scores, threshold, flags, 1, FALLBACK_REL)


def scores_c(x: np.ndarray, w: np.ndarray, b: float, tok: np.ndarray | None,
             w2: np.ndarray | None, b2: float, page_rel: bool, cont: np.ndarray | None,
             weight: np.ndarray | None) -> np.ndarray:
    """A page's block probabilities through the C part in one call without the GIL: stage 1
    (the dense matrix ``x`` through weights ``w`` and intercept ``b``, plus the blocks'
    token-weight sums ``tok``), then stage 2 (weights ``w2``, None: no stage 2) over the
    context of stage 1's probabilities (context_inputs' columns). Model.reference_scores, the
    general path, gives the same values to ~1e-15 (only the order of the dot products'
    additions differs)."""
    n = len(x)
    out = np.empty(n)
    _c.score(n, np.ascontiguousarray(x, dtype=np.float64), x.shape[1], w, b, tok, w2, b2,
             page_rel, cont, PATH_LEN if cont is None else cont.shape[1], weight, out)
    return out


def select_c(s: np.ndarray, threshold: float, flags: np.ndarray | None, code_bit: int,
             rel: float) -> np.ndarray:
    """The cut in C: the blocks at or above ``threshold``, else those within ``rel`` of the
    best score; then the blocks whose ``flags`` have ``code_bit`` between the first and the
    last kept one (flags None: not)."""
    out = np.empty(len(s), dtype=np.bool_)
    _c.select(np.ascontiguousarray(s, dtype=np.float64), threshold, flags, code_bit, rel,
              out.view(np.uint8))
    return out


# thin_page: a page at least this likely an article keeps even a short text (a caption, a
# one-line summary under a video: dragnet's gold has such pages)
THIN_ARTICLE_P = 0.5
# thin_page: only a whole web page (this many characters of HTML at least) can be a shell; a
# fragment or a test page of a line keeps its line (the page-kind model reads tiny pages badly)
THIN_MIN_CHARS = 8000


def thin_page(kept_words: float, kind: np.ndarray | None, min_words: int, page_chars: int) -> bool:
    """Whether a page's output is dropped as too little main content: fewer than ``min_words``
    kept words on a whole page (``page_chars`` of HTML) that the page-kind model (``kind``: its
    probabilities, article first) does not read as an article. Item pages saved before their
    items loaded, an app shell's "enable JavaScript" line, a product page with no product in
    its HTML: annotators find no main content there, and an index is better without it."""
    return bool(min_words) and kind is not None and float(kind[0]) < THIN_ARTICLE_P \
        and kept_words < min_words and page_chars >= THIN_MIN_CHARS


def _kind_cuts(v: Loaded, what: str, kind_model: PageKindModel | None) -> dict[str, float] | None:
    """A table of cuts per page kind: kinds the model's page-kind model knows, cuts in [0, 1]."""
    if v is None:
        return None
    _need(v, dict, what)
    if kind_model is None:
        raise ModelError(f"{what} needs the model's page-kind model")
    unknown = sorted(set(v) - set(kind_model.kinds))
    if unknown:
        raise ModelError(f"{what}: unknown page kinds {unknown}")
    return {k: _number(t, f"{what}.{k}", 0.0, 1.0) for k, t in v.items()}


def _stage2_kind(v: object, page_rel: bool, kind_model: PageKindModel | None) -> tuple[str, ...] | None:
    """The stage-2 columns multiplied by the kind probabilities: names stage 2 has ("one":
    the probabilities themselves), and a page-kind model to give the probabilities."""
    if v is not None and kind_model is None:
        raise ModelError("stage2_kind needs the model's page-kind model")
    return _stage2_group(v, page_rel, "stage2_kind")


def _stage2_group(v: Loaded, page_rel: bool, what: str) -> tuple[str, ...] | None:
    """Stage-2 columns multiplied by a page's probabilities: distinct names stage 2 has
    ("one": the probabilities themselves)."""
    if v is None:
        return None
    _need(v, list, what)
    names = ["one", *stage2_columns(page_rel)]
    if not all(isinstance(c, str) and c in names for c in v) or len(set(v)) != len(v):
        raise ModelError(f"{what} must name distinct stage-2 columns ({', '.join(names)})")
    return tuple(v)


def _page_style(v: object, spec: FeatureSpec, in_stage2: bool) -> PageKindModel | None:
    """The page-style model: present exactly when the spec has style columns (over the same
    corpora in the same order) or stage 2 has style columns."""
    if v is None:
        if spec.style or in_stage2:
            raise ModelError("a model with style columns needs its page-style model")
        return None
    _need(v, dict, "pagestyle")
    try:
        m = PageKindModel.from_json(v)
    except PageKindError as e:
        raise ModelError(f"pagestyle: {e}") from e
    if (spec.style or not in_stage2) and m.kinds != spec.style:
        raise ModelError(f"pagestyle's classes {list(m.kinds)} are not "
                         f"features.spec.style {list(spec.style)}")
    return m


def _site_stage(v: object) -> SiteStage | None:
    """The "site" section (site.stage.SiteStage), None where absent."""
    if v is None:
        return None
    from .site.stage import SiteStage

    try:
        return SiteStage.from_json(v)
    except ValueError as e:
        raise ModelError(str(e)) from e


def _deep_levels(v: Loaded) -> tuple[int, ...]:
    """stage2_deep: distinct ancestor levels past CONTAINER_LEVELS that a block remembers."""
    _need(v, list, "stage2_deep")
    ok = range(max(CONTAINER_LEVELS) + 1, PATH_LEN)
    if not all(type(x) is int and x in ok for x in v) or len(set(v)) != len(v):
        raise ModelError(f"stage2_deep must be distinct levels from {ok.start} to {ok.stop - 1}")
    return tuple(v)


_cache: dict[str, Model] = {}


def load_default(target: str = "content") -> Model:
    """The model shipped in the package: 'content' (article) or 'comments' (article+comments)."""
    if target not in _cache:
        ref = resources.files("ce_filter") / "models" / f"{target}.json"
        _cache[target] = Model.from_json(json.loads(ref.read_text(encoding="utf-8")))
    return _cache[target]


class BlockModelC(Protocol):
    """The functions of the C part (score/_blockmodel.c) that Python calls: each writes into
    ``out`` (float64 probabilities; 0/1 bytes)."""

    def score(self, n: int, x: np.ndarray, width: int, w: np.ndarray, b: float, tok: np.ndarray | None,
              w2: np.ndarray | None, b2: float, page_rel: bool, cont: np.ndarray | None, path_len: int,
              weight: np.ndarray | None, out: np.ndarray, /) -> None: ...

    def select(self, s: np.ndarray, threshold: float, flags: np.ndarray | None, code_bit: int,
               rel: float, out: np.ndarray, /) -> None: ...

    def pass_plan(self, path_len: int, width: int, extra: int, offsets: tuple[int, ...],
                  head_group: int, rx_unlikely: int, rx_negative: int, tag_group_lut: np.ndarray,
                  head_max_words: float, w: np.ndarray, b: float, w2: np.ndarray | None, b2: float,
                  page_rel: bool, code_bit: int, fallback_rel: float, /) -> object: ...

    def page_scores(self, plan: object, *args: object) -> tuple[int, str] | None: ...


_c = cast(BlockModelC, native.required("_pass"))
# the C groups in the order of pass_plan's offsets
_PASS_GROUPS = ("st", "cetr", "dom", "rx", "kind", "head")
