"""Training: corpus -> blocks + LCS labels -> features -> L2 logistic regression, C by grouped CV.

scikit-learn (its GroupKFold) and scipy (sparse matrices, the solve; installed with scikit-learn)
are needed here only (the fit is learn/logreg.py); the result is a JSON model served with numpy.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, TypedDict

import numpy as np

from ..progress import Ticker, progress
from ..read.page import read
from ..read.segment import Blocks
from ..score.blockmodel import Linear, Model, sigmoid, thin_page
from ..score.features import (
    TOKEN_PREFIXES,
    FeatureSpec,
    context_features,
    feature_names,
    heading_words,
    page_inputs,
    stage2_inputs,
)
from ..score.features.context import signature_columns, signature_groups, with_deep
from ..score.features.style import style_names
from ..score.features.tokens import select_tokens
from ..score.pagekind import KINDS, PageKindModel, page_signals
from ..version import __version__
from . import logreg
from .corpus import Doc, site_of
from .digits import significant
from .labels import DEFAULT_RULE, LabelRule, block_labels, words
from .logreg import Design

if TYPE_CHECKING:
    from ..score.features.leaves import Trees


@dataclass
class LabelledPage:
    id: str
    blocks: Blocks
    y: np.ndarray  # block labels
    n_words: np.ndarray  # word tokens per block (the metric's tokenisation)
    matched: np.ndarray  # of those, matched to the gold by the LCS
    gold_words: int
    site: str = ""  # the CV group: the corpus's domain column where it has one, else site_of
    page_type: str = ""
    signals: np.ndarray | None = None  # pagekind.page_signals: the page-kind model's input
    kind: np.ndarray | None = None  # the page-kind probabilities the block features read
    style: np.ndarray | None = None  # the page-style probabilities (page_styles)
    html_chars: int = 0  # the decoded page's length (model.thin_page)


@dataclass
class TrainConfig:
    # "text" and "ctx" exist but do not pay for themselves on CV (docs/research/ABLATION.md), so the
    # default leaves them out
    # "rx" (readability's class/id patterns, features.RX): site-grouped CV 0.8978 -> 0.9101,
    # +0.011 / +0.015 / +0.017 on three other fold assignments (docs/RESULTS.md)
    # "head" (the governing heading reads as boilerplate, by a fixed lexicon or its class/id):
    # site-grouped CV 0.9101 -> 0.9149, +0.003 / +0.004 / +0.004 on three other fold assignments
    groups: tuple[str, ...] = ("st", "cetr", "ic", "dom", "rx", "head")
    ic_ancestors: bool = True
    heading_words: bool = True
    ic_min_frac: float = 0.0
    ic_odds: float = 2.5
    ic_min_pages: int = 15
    ic_max_tokens: int | None = None
    label_runs: bool = True  # count only LCS matches in runs (labels.in_runs)
    # realign the gold lines the page-wide LCS left unmatched (labels.realign_lines): label
    # oracle on wcxb-dev 0.979 -> 0.980, product pages 0.946 -> 0.958 (docs/MODEL.md)
    label_lines: bool = False
    # per-corpus weight multipliers (by corpus dir name): balances a small corpus of another
    # gold style (cleaneval-dev) against the large dragnet set
    # cleaneval-dev x4: the page-relative stage-2 input cost its pages 0.022 of CV F1; weights
    # 1 / 2 / 4 gave the same overall CV (0.8980 / 0.8981 / 0.8978) and 4 the best mean of the
    # two corpora' CV (docs/RESULTS.md); with wcxb-dev in training, dragnet x1.5 / x2 or wcxb-dev
    # x0.5 do not beat it out of fold (docs/research/ABLATION.md, "Corpus weights")
    corpus_weight: dict = field(default_factory=lambda: {"cleaneval-dev": 4.0})
    cv_groups: str = "site"  # page | site: what a CV fold holds out
    # None: GroupKFold's own assignment of groups to folds; a seed: the groups shuffled first,
    # another assignment (to check that a CV gain is not one split's luck)
    cv_seed: int | None = None
    ic_by_site: bool = True  # ic_min_pages counts distinct sites instead of pages
    stage2: bool = True
    # stage 2 also sees each block's score over the page's best (model.context_features):
    # site-grouped CV 0.8903 -> 0.8980 (docs/RESULTS.md)
    stage2_page_rel: bool = True
    weight: str = "sqrt"  # none | sqrt (sqrt of tokens, capped) | tokens (capped)
    weight_cap: float = 100.0
    # > 0: each page's block weights are scaled by (mean page total / page total) ** page_norm
    # before the corpus multipliers, so a page of many blocks weighs less against a short one
    # (1: every page the same total, as the metric, a mean over pages, counts them); 0: off
    page_norm: float = 0.0
    cs: tuple[float, ...] = (0.001, 0.01)
    folds: int = 5
    thresholds: tuple[float, ...] = tuple(np.round(np.arange(0.05, 0.81, 0.05), 2))
    # the precision-leaning threshold (Extractor(precise=True)) maximises the CV mean page
    # F-beta with this beta (< 1: precision counts more than recall), over precise_thresholds
    precise_beta: float = 0.5
    # the recall-leaning threshold (Extractor(recall=True)): the best CV mean page F-beta with
    # this beta (> 1: recall counts more), over the same thresholds, never above the default
    recall_beta: float = 2.0
    precise_thresholds: tuple[float, ...] = tuple(np.round(np.arange(0.05, 0.96, 0.05), 2))
    # a cut per predicted page kind (kind_cuts), chosen like the global one on the CV scores of
    # the training pages of that kind; a kind with fewer than kind_min_pages pages keeps the
    # global cut, and a kind's cut is pulled toward the global one as if kind_shrink more pages
    # had voted for it (0: no pull)
    kind_cuts: bool = False
    kind_min_pages: int = 40
    kind_shrink: float = 0.0
    # dense block columns that also get a weight per page kind, mixed by the kind probabilities
    # (FeatureSpec.kind_mix, features.kind.MIX_COMPACT / MIX_WIDE; stage 2 is left as it is):
    # out of fold no gain over best+kind (docs/research/ABLATION.md), so off by default
    kind_mix: tuple[str, ...] = ()
    # FeatureSpec.shop_min_p: the shop cues only on pages at least this likely product pages
    shop_min_p: float = 0.0
    # FeatureSpec.ritem_min_p: the ritemlc columns only on pages at least this likely listings
    # or collections
    ritem_min_p: float = 0.0
    # stage 2 also sees the page-kind probabilities and their products with these of its
    # columns (context.stage2_columns names, Model.stage2_kind; needs page types); None: off
    stage2_kind: tuple[str, ...] | None = None
    # a third stage of stage 2's form over stage 2's out-of-fold scores (Model.stage3), kept
    # when its CV beats stage 2's
    stage3: bool = False
    # stage 2 also sees the mean scores under these farther ancestor levels (Model.stage2_deep)
    stage2_deep: tuple[int, ...] = ()
    # a page-style model over the training corpora (page_styles) and its columns: the page's
    # probability of resembling each corpus and their products with these dense columns
    # (features.style, FeatureSpec.style_mix)
    style: bool = False
    style_mix: tuple[str, ...] = ()
    # the style model's class of a training corpus (unlisted: the corpus's own name): corpora
    # annotated alike, or too small for columns of their own, share one
    style_classes: dict = field(default_factory=dict)
    # the style columns' L2 penalty, times the shared columns' (logreg.Design.scale_mult)
    style_penalty: float = 1.0
    # stage 2 also sees the page-style probabilities and their products with these of its
    # columns (Model.stage2_style; fits the page-style model, with or without ``style``)
    stage2_style: tuple[str, ...] | None = None
    # stage 2 (and 3) also see the mean score of the block's signature group (Model.stage2_sig)
    stage2_sig: bool = False
    # the thin-page word limits (Model.min_words, model.thin_page) to choose from on CV, with the
    # model's cut; (): off (0 among them: the rule may be left off)
    min_words: tuple[int, ...] = ()
    # tree-leaf inputs (features/leaves.py, learn/leaves.py): (trees, leaves per tree at most,
    # depth at most) of a boosted ensemble over the stage-1 dense columns, fitted on each CV
    # fold's training rows and then on all, whose leaves become 0/1 stage-1 inputs; (): off
    trees: tuple[int, ...] = ()
    log: bool = True
    extra: dict = field(default_factory=dict)

    @property
    def label_rule(self) -> LabelRule:
        return LabelRule(runs=self.label_runs, lines=self.label_lines)


def prepare(docs: Iterable[Doc], comments: bool = False,
            rule: LabelRule = DEFAULT_RULE) -> list[LabelledPage]:
    """Segment and label each page (pages without blocks are left out)."""
    pages = []
    for d in docs:
        page = read(d.html)  # the page steps every stage takes (page.read)
        if page.blocks is None or not len(page.blocks):
            continue
        html, b = page.text, page.blocks
        y, share = block_labels(b.texts, d.target(comments), runs=rule.runs, lines=rule.lines)
        nw = np.array([len(words(t)) for t in b.texts], dtype=np.float64)
        pages.append(LabelledPage(d.id, b, y, nw, np.round(share * nw), len(words(d.target(comments))),
                          d.domain or site_of(d.html), d.page_type,
                          page_signals(b, html, d.url or None), html_chars=len(html)))
    return pages


class _TokenRule(TypedDict):
    """select_tokens' keyword arguments for the IC token lists."""

    odds: float
    min_frac: float
    page_of_row: np.ndarray
    min_pages: int
    max_tokens: int | None


def learn_spec(pages: list[LabelledPage], cfg: TrainConfig) -> FeatureSpec:
    """IC token lists from the training blocks (the paper's odds/frequency rule)."""
    y = np.concatenate([p.y for p in pages])
    spec = FeatureSpec(groups=cfg.groups, kind_mix=tuple(cfg.kind_mix), shop_min_p=cfg.shop_min_p,
                       ritem_min_p=cfg.ritem_min_p)
    if "ic" not in cfg.groups:
        return spec
    unit = _group_ids(pages, "site" if cfg.ic_by_site else "page")
    page_of_row = np.repeat(unit, [len(p.y) for p in pages])
    kw: _TokenRule = {"odds": cfg.ic_odds, "min_frac": cfg.ic_min_frac, "page_of_row": page_of_row,
          "min_pages": cfg.ic_min_pages, "max_tokens": cfg.ic_max_tokens}
    spec.ic_own = select_tokens([t for p in pages for t in p.blocks.own_tokens], y, **kw)
    if cfg.ic_ancestors:
        spec.ic_anc = select_tokens([t for p in pages for t in p.blocks.anc_tokens], y, **kw)
    if cfg.heading_words and "text" in cfg.groups:
        rows = [w for p in pages for w in heading_words(p.blocks.texts, np.asarray(p.blocks.tag))]
        spec.heading_words = select_tokens(rows, y, **kw)
    return spec


def _group_ids(pages: list[LabelledPage], by: str) -> np.ndarray:
    if by == "site":
        keys = [p.site or p.id for p in pages]  # a page with no site is its own group
    else:
        keys = [p.id for p in pages]
    index: dict[str, int] = {}
    return np.array([index.setdefault(k, len(index)) for k in keys], dtype=np.int64)


def _weights(pages: list[LabelledPage], cfg: TrainConfig) -> np.ndarray:
    nw = np.concatenate([p.n_words for p in pages])
    if cfg.weight == "tokens":
        w = np.minimum(np.maximum(nw, 1.0), cfg.weight_cap)
    elif cfg.weight == "sqrt":
        w = np.sqrt(np.minimum(np.maximum(nw, 1.0), cfg.weight_cap))
    else:
        w = np.ones_like(nw)
    sizes = [len(p.y) for p in pages]  # every page has a block (prepare)
    if cfg.page_norm and pages:
        total = np.add.reduceat(w, np.cumsum([0] + sizes[:-1]))
        w = w * np.repeat((total.mean() / total) ** cfg.page_norm, sizes)
    if cfg.corpus_weight:
        mult = [cfg.corpus_weight.get(corpus_of(p), 1.0) for p in pages]
        w = w * np.repeat(mult, sizes)
    return w


def page_prf(pages: list[LabelledPage], scores: list[np.ndarray], threshold: float,
             beta: float = 1.0) -> np.ndarray:
    """Per page (precision, recall, F-beta) of the blocks at or over ``threshold``, from the
    LCS match counts (fast proxy of the metric). A page with no match scores 0 (1 when both
    the output and the gold are empty)."""
    out = np.zeros((len(pages), 3))
    b2 = beta * beta
    for i, (p, s) in enumerate(zip(pages, scores)):
        keep = s >= threshold
        tp = p.matched[keep].sum()
        n_pred = p.n_words[keep].sum()
        if n_pred == 0 or p.gold_words == 0 or tp == 0:
            out[i] = 1.0 if n_pred == 0 and p.gold_words == 0 else 0.0
            continue
        prec, rec = tp / n_pred, tp / p.gold_words
        out[i] = prec, rec, (1 + b2) * prec * rec / (b2 * prec + rec)
    return out


def build_design(pages: list[LabelledPage], spec: FeatureSpec, log: bool = False) -> Design:
    """Every block's features as a Design: the dense columns in one float64 matrix, filled page
    by page (no per-page copies stacked at the end), and the token-list columns as a sparse 0/1
    matrix (a block has a handful of a list's hundreds of tokens)."""
    import scipy.sparse as sp

    names = feature_names(spec)
    is_tok = np.array([n.startswith(TOKEN_PREFIXES) for n in names], dtype=bool)
    dense = np.empty((sum(len(p.y) for p in pages), int((~is_tok).sum())))
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    at = 0
    for p in progress(pages, "train: features", enabled=log):
        x, lists = page_inputs(p.blocks, spec, p.kind, p.style)
        dense[at:at + len(x)] = x
        offset = 0
        for _prefix, token_rows, vocab in lists:
            memo: dict[tuple[str, ...], list[int]] = {}
            r: list[int] = []
            c: list[int] = []
            for i, toks in enumerate(token_rows):
                hit = memo.get(toks)
                if hit is None:  # a token counts once, however often the ancestors repeat it
                    hit = memo[toks] = sorted({j for j in map(vocab.get, toks) if j is not None})
                r.extend([at + i] * len(hit))
                c.extend(hit)
            rows.append(np.asarray(r, dtype=np.int64))
            cols.append(np.asarray(c, dtype=np.int64) + offset)
            offset += len(vocab)
        at += len(x)
    r_all = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    c_all = np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64)
    tokens = sp.csr_array((np.ones(len(r_all)), (r_all, c_all)), shape=(at, int(is_tok.sum())))
    return Design(dense, tokens, np.flatnonzero(~is_tok), np.flatnonzero(is_tok))


def _fit(design: Design, y: np.ndarray, w: np.ndarray, c: float,
         rows: np.ndarray | None = None) -> Linear:
    mean, scale, coef, intercept = logreg.fit(design, y, w, c, rows)
    r = significant
    return Linear(r(mean), r(scale), r(coef), float(r(intercept)))


def _split(sizes: list[int], scores: np.ndarray) -> list[np.ndarray]:
    return np.split(scores, np.cumsum(sizes)[:-1])


def _oof(design: Design, y: np.ndarray, w: np.ndarray, groups: np.ndarray, c: float,
         folds: int, ticker: Ticker, leaves: Callable[[np.ndarray], Design] | None = None) -> np.ndarray:
    """Out-of-fold scores; ``leaves(tr)`` (optional): the design with tree-leaf columns from
    trees fitted on the training rows ``tr`` alone, so no fold's trees saw its held-out sites."""
    from sklearn.model_selection import GroupKFold

    out = np.zeros(len(y))
    for tr, te in GroupKFold(n_splits=folds).split(np.zeros(len(y)), y, groups):
        d = design if leaves is None else leaves(tr)
        out[te] = sigmoid(d.decision(_fit(d, y, w, c, tr), te))
        ticker.tick()
    return out


def _leaf_designs(design: Design, y: np.ndarray, w: np.ndarray, spec: FeatureSpec,
                  shape: tuple[int, ...]
                  ) -> tuple[Callable[[np.ndarray], Design], Callable[[], tuple[Design, Trees]]]:
    """For TrainConfig.trees: the per-fold design maker for _oof (each fold's trees kept, so
    every C reuses them) and the fit on all rows, (design with leaves, trees)."""
    from .leaves import fit_trees, with_leaves

    inputs = tuple(n for n in feature_names(spec) if not n.startswith(TOKEN_PREFIXES))
    memo: dict[bytes, Trees] = {}
    three = (int(shape[0]), int(shape[1]), int(shape[2]))

    def fold(tr: np.ndarray) -> Design:
        key = hashlib.sha256(np.ascontiguousarray(tr).tobytes()).digest()
        if key not in memo:
            memo[key] = fit_trees(design.dense[tr], y[tr], w[tr], inputs, three)
        return with_leaves(design, memo[key])

    def full() -> tuple[Design, Trees]:
        trees = fit_trees(design.dense, y, w, inputs, three)
        return with_leaves(design, trees), trees

    return fold, full


def _best_threshold(pages: list[LabelledPage], sizes: list[int], s: np.ndarray,
                    thresholds: tuple[float, ...], beta: float = 1.0) -> tuple[float, float]:
    """The threshold with the best CV mean page F-beta (ties: the higher one)."""
    return _best_cut(pages, _split(sizes, s), thresholds, beta)


def _best_cut(pages: list[LabelledPage], per: list[np.ndarray], thresholds: tuple[float, ...],
              beta: float = 1.0) -> tuple[float, float]:
    """``_best_threshold`` over each page's own scores."""
    res = [(float(page_prf(pages, per, t, beta)[:, 2].mean()), t) for t in thresholds]
    f, t = max(res)
    return t, f


def kind_cuts(pages: list[LabelledPage], per: list[np.ndarray], kinds: tuple[str, ...], cfg: TrainConfig,
              default: float, precise: float) -> tuple[dict[str, float], dict[str, float], dict]:
    """The default and the precise cut per predicted page kind (the argmax of ``LabelledPage.kind``,
    what serving sees, for every page: dragnet and cleaneval pages have no gold kind), each
    chosen like the global one on the pages of that kind; a kind with fewer than
    ``cfg.kind_min_pages`` pages is left out (it keeps the global cuts). One global cut does
    not suit every kind: listings and products want more recall than old news articles.
    Returns the two tables and what the choice saw (pages, CV proxy F1 at the global and at
    the kind's cut), for the model's meta."""
    pred = np.array([-1 if p.kind is None else int(np.argmax(p.kind)) for p in pages])
    cut: dict[str, float] = {}
    pcut: dict[str, float] = {}
    seen: dict[str, dict] = {}
    for i, k in enumerate(kinds):
        idx = np.flatnonzero(pred == i).tolist()
        if not idx:
            continue
        sub, s = [pages[j] for j in idx], [per[j] for j in idx]
        n = len(idx)
        f_global = float(page_prf(sub, s, default)[:, 2].mean())
        row: dict[str, float] = {"pages": n, "page_f1_global": round(f_global, 4)}
        if n >= cfg.kind_min_pages:
            t, _ = _best_cut(sub, s, cfg.thresholds)
            tp, _ = _best_cut(sub, s, cfg.precise_thresholds, cfg.precise_beta)
            m = cfg.kind_shrink
            t = round(float((n * t + m * default) / (n + m)), 4)
            tp = round(float(max((n * tp + m * precise) / (n + m), t)), 4)
            cut[k], pcut[k] = t, tp
            row.update(threshold=t, precise_threshold=tp,
                       page_f1=round(float(page_prf(sub, s, t)[:, 2].mean()), 4))
        seen[k] = row
    return cut, pcut, seen


def train(pages: list[LabelledPage], cfg: TrainConfig, name: str, data_desc: dict) -> Model:
    """Fit with single-threaded BLAS: a multi-threaded BLAS may sum in another order from run
    to run, and the model file must rebuild bit-for-bit."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        return _train(pages, cfg, name, data_desc)


def page_kinds(pages: list[LabelledPage], log: bool = False) -> PageKindModel | None:
    """The page-kind model fitted on the pages with a page type (None: no page has one), and
    every page's kind probabilities set (``LabelledPage.kind``): out of fold (folds grouped by site) for
    the pages it was fitted on, so the block model learns from estimates as good as a new
    page's, and from the fitted model for the others."""
    from . import pagekind

    typed = [i for i, p in enumerate(pages) if p.page_type in KINDS and p.signals is not None]
    groups = [pages[i].site or pages[i].id for i in typed]
    if len({pages[i].page_type for i in typed}) < 2 or len(set(groups)) < 2:
        return None  # nothing to tell apart, or no held-out site to estimate it on
    x = np.vstack([np.asarray(pages[i].signals) for i in typed])
    types = [pages[i].page_type for i in typed]
    model, oof = pagekind.train(x, types, groups, log=log)
    for i, pr in zip(typed, oof):
        pages[i].kind = pr
    for p in pages:
        if p.kind is None and p.signals is not None:
            p.kind = model.proba(p.signals)
    return model


def corpus_of(p: LabelledPage) -> str:
    """The training corpus a page comes from (ids carry it: ``corpus/page``)."""
    return p.id.split("/")[0]


def page_styles(pages: list[LabelledPage], log: bool = False, classes: dict | None = None
                ) -> PageKindModel | None:
    """The page-style model: which training corpus a page resembles, a softmax over the page
    signals fitted on every training page with its corpus as the class (``classes`` maps a
    corpus to another class name; C and folds as the page-kind model's, grouped by site);
    every page's probabilities set (``LabelledPage.style``) out of fold, so the block model learns
    from estimates as good as a new page gets. None: fewer than two classes, or one site."""
    from . import pagekind

    have = [i for i, p in enumerate(pages) if p.signals is not None]
    classes = classes or {}
    label = [classes.get(c, c) for c in (corpus_of(pages[i]) for i in have)]
    corpora = tuple(sorted(set(label)))
    groups = [pages[i].site or pages[i].id for i in have]
    if len(corpora) < 2 or len(set(groups)) < 2:
        return None
    x = np.vstack([np.asarray(pages[i].signals) for i in have])
    model, oof = pagekind.train(x, label, groups, log=log, kinds=corpora, what="pagestyle")
    for i, pr in zip(have, oof):
        pages[i].style = pr
    return model


def _context_stage(key: str, ctx: Design, prev_f1: float, y: np.ndarray, w: np.ndarray,
                   groups: np.ndarray, pages: list[LabelledPage], sizes: list[int], cfg: TrainConfig,
                   cv: dict, ticker: Ticker, say: Callable[[str], None]
                   ) -> tuple[Linear | None, float, float, np.ndarray]:
    """A context stage (C = 1) over the previous stage's out-of-fold scores: its own CV, and
    its fit when that CV beats the previous stage's (else None); (fit, cut, CV F1, CV scores)."""
    s = _oof(ctx, y, w, groups, 1.0, cfg.folds, ticker)
    t, f = _best_threshold(pages, sizes, s, cfg.thresholds)
    cv[key] = {"threshold": float(t), "page_f1": round(f, 4)}
    say(f"  {key}: CV page F1 {f:.4f} at threshold {t}")
    fit = _fit(ctx, y, w, 1.0) if f > prev_f1 else None
    ticker.tick()
    return fit, t, f, s


def _train(pages: list[LabelledPage], cfg: TrainConfig, name: str, data_desc: dict) -> Model:
    say = (lambda *a: print(*a, file=sys.stderr, flush=True)) if cfg.log else (lambda *a: None)
    kind_model = page_kinds(pages, cfg.log)
    if ("kind" in cfg.groups or cfg.stage2_kind is not None) and kind_model is None:
        raise ValueError("the kind feature group and stage2_kind need training pages with page types")
    spec = learn_spec(pages, cfg)
    style_model = (page_styles(pages, cfg.log, cfg.style_classes)
                   if cfg.style or cfg.stage2_style is not None else None)
    if cfg.style and style_model is not None:
        spec = replace(spec, style=style_model.kinds, style_mix=tuple(cfg.style_mix))
    design = build_design(pages, spec, cfg.log)
    if spec.style and cfg.style_penalty != 1.0:
        sty = set(style_names(spec.style, spec.style_mix))
        is_sty = np.array([n in sty for n in feature_names(spec)])
        design.scale_mult = np.where(is_sty, np.sqrt(cfg.style_penalty), 1.0)
    sizes = [len(p.y) for p in pages]
    y = np.concatenate([p.y for p in pages]).astype(int)
    w = _weights(pages, cfg)
    gid = _group_ids(pages, cfg.cv_groups)
    if cfg.cv_seed is not None:
        gid = np.random.default_rng(cfg.cv_seed).permutation(gid.max() + 1)[gid]
    groups = np.repeat(gid, sizes)
    say(f"train: {len(pages)} pages, {len(y)} blocks, {design.n_features} features, "
        f"{y.mean():.3f} content")
    cv: dict[str, dict] = {}
    best: tuple[float, float, float, np.ndarray] | None = None
    # every fit: cs x folds, the final stage 1, stage 2's folds and its final fit
    ticker = Ticker("train: fits", len(cfg.cs) * cfg.folds + 1
                    + (cfg.folds + 1) * cfg.stage2 * (1 + (cfg.stage2 and cfg.stage3)),
                    unit="fit", enabled=cfg.log)
    if cfg.log:
        say = ticker.write
    leaves = full_leaves = None
    if cfg.trees:
        leaves, full_leaves = _leaf_designs(design, y, w, spec, cfg.trees)
    for c in cfg.cs:
        s = _oof(design, y, w, groups, c, cfg.folds, ticker, leaves)
        t, f = _best_threshold(pages, sizes, s, cfg.thresholds)
        cv[f"C={c:g}"] = {"threshold": float(t), "page_f1": round(f, 4)}
        say(f"  stage1 C={c:g}: CV page F1 {f:.4f} at threshold {t}")
        if best is None or f > best[0]:
            best = (f, c, t, s)
    assert best is not None  # cfg.cs is never empty
    f1, c, thr, oof1 = best
    trees = None
    if full_leaves is not None:
        design, trees = full_leaves()
    stage1 = _fit(design, y, w, c)
    ticker.tick()
    stage2 = stage3 = None
    final_oof = oof1
    # the model's stage-2 options before the fit: Model.kind_context builds the kind columns
    # of training as of serving
    model = Model(name=name, spec=spec, stage1=stage1, stage2_page_rel=cfg.stage2_page_rel,
                  pagekind=kind_model, stage2_kind=cfg.stage2_kind, stage2_deep=cfg.stage2_deep,
                  pagestyle=style_model, stage2_style=cfg.stage2_style, stage2_sig=cfg.stage2_sig,
                  trees=trees)
    if cfg.stage2:
        rows = [_stage2_rows(s, p, cfg) for s, p in zip(_split(sizes, oof1), pages)]
        if cfg.stage2_kind is not None or cfg.stage2_style is not None:
            rows = [model.kind_context(r, p.kind, p.style) for r, p in zip(rows, pages)]
        ctx = logreg.dense_design(np.vstack(rows))
        stage2, t2, f2, s2 = _context_stage("stage2", ctx, f1, y, w, groups, pages, sizes, cfg, cv,
                                            ticker, say)
        if stage2 is not None:
            thr, final_oof = t2, s2
        if cfg.stage3 and stage2 is not None:
            ctx3 = logreg.dense_design(np.vstack([_stage2_rows(s, p, cfg)
                                                  for s, p in zip(_split(sizes, s2), pages)]))
            stage3, t3, _, s3 = _context_stage("stage3", ctx3, f2, y, w, groups, pages, sizes, cfg,
                                               cv, ticker, say)
            if stage3 is not None:
                thr, final_oof = t3, s3
    ticker.close()
    min_words = 0
    if cfg.min_words and kind_model is not None:
        min_words, cv["min_words"] = choose_min_words(pages, _split(sizes, final_oof), float(thr),
                                                      cfg.min_words)
        say(f"  thin pages: fewer than {min_words} words (CV page F1 by limit: {cv['min_words']})")
    # the precision-leaning threshold, and CV precision / recall at both
    t_p, fb = _best_threshold(pages, sizes, final_oof, cfg.precise_thresholds, cfg.precise_beta)
    t_p = float(max(t_p, thr))
    t_r, fr = _best_threshold(pages, sizes, final_oof, cfg.precise_thresholds, cfg.recall_beta)
    t_r = float(min(t_r, thr))
    prf = {}
    for key, t in (("default", float(thr)), ("precise", t_p), ("recall", t_r)):
        prf[key] = page_prf(pages, _split(sizes, final_oof), t)
        m = prf[key].mean(axis=0)
        cv[key] = {"threshold": t, "precision": round(float(m[0]), 4),
                   "recall": round(float(m[1]), 4), "page_f1": round(float(m[2]), 4)}
    cv["precise"]["f_beta"] = round(fb, 4)
    cv["recall"]["f_beta"] = round(fr, 4)
    say(f"  precise: threshold {t_p} (CV F{cfg.precise_beta:g} {fb:.4f}; P/R {cv['precise']['precision']}"
        f" / {cv['precise']['recall']} against {cv['default']['precision']} / {cv['default']['recall']})")
    say(f"  recall: threshold {t_r} (CV F{cfg.recall_beta:g} {fr:.4f}; P/R {cv['recall']['precision']}"
        f" / {cv['recall']['recall']})")
    kcut: dict[str, float] | None = None
    kpcut: dict[str, float] | None = None
    if cfg.kind_cuts and kind_model is not None:
        kcut, kpcut, cv["kinds"] = kind_cuts(pages, _split(sizes, final_oof), kind_model.kinds, cfg,
                                             float(thr), t_p)
        say(f"  cuts per page kind: {cv['kinds']}")
    by_corpus: dict[str, list[float]] = {}
    for p, f in zip(pages, prf["default"][:, 2].tolist()):
        by_corpus.setdefault(p.id.split("/")[0] if "/" in p.id else "", []).append(f)
    if len(by_corpus) > 1:
        cv["by_corpus"] = {k: round(float(np.mean(v)), 4) for k, v in sorted(by_corpus.items())}
        say(f"  CV page F1 by corpus: {cv['by_corpus']}")
    by_type: dict[str, list[float]] = {}
    for p, f in zip(pages, prf["default"][:, 2].tolist()):
        if p.page_type:
            by_type.setdefault(p.page_type, []).append(f)
    if by_type:  # the LCS proxy per page type (wcxb-dev's pages.tsv), for the ablation
        order = sorted(by_type, key=lambda t: (KINDS.index(t) if t in KINDS else len(KINDS), t))
        cv["by_type"] = {k: round(float(np.mean(by_type[k])), 4) for k in order}
        say(f"  CV page F1 by page type: {cv['by_type']}")
    skip = {"log", "thresholds", "precise_thresholds"}
    # options recorded only when on (set, or not None): model files trained without them keep
    # their bytes, so older models rebuild bit for bit
    skip.update(k for k in _RECORDED_WHEN_SET if not getattr(cfg, k))
    skip.update(k for k in _RECORDED_WHEN_NOT_NONE if getattr(cfg, k) is None)
    if not cfg.kind_cuts:
        skip.update(("kind_min_pages", "kind_shrink"))
    if not cfg.style:
        skip.update(("style_mix", "style_penalty"))
        if cfg.stage2_style is None:
            skip.add("style_classes")
    meta = {
        "trained_with": f"ce-filter {__version__}",
        # the fit's numerics come from these: another version may move a weight past the 9th digit
        "libraries": _library_versions(),
        "data": data_desc,
        "config": {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(cfg).items()
                   if k not in skip},
        "C": c,
        "cv": cv,
        "blocks": int(len(y)),
        "pages": len(pages),
        "content_share": round(float(y.mean()), 4),
    }
    return replace(model, stage2=stage2, threshold=float(thr), meta=meta,
                   stage2_page_rel=stage2 is not None and cfg.stage2_page_rel, precise_threshold=t_p,
                   recall_threshold=t_r, kind_thresholds=kcut, kind_precise_thresholds=kpcut,
                   stage2_kind=cfg.stage2_kind if stage2 is not None else None, stage3=stage3,
                   stage2_deep=cfg.stage2_deep if stage2 is not None else (),
                   stage2_style=cfg.stage2_style if stage2 is not None else None,
                   stage2_sig=cfg.stage2_sig and stage2 is not None, min_words=min_words,
                   pagestyle=style_model if cfg.style or stage2 is not None else None)


# TrainConfig options left out of the model file's meta.config when off (see _train)
_RECORDED_WHEN_SET = ("stage2_page_rel", "label_lines", "kind_cuts", "kind_mix", "shop_min_p",
                      "ritem_min_p", "page_norm", "stage3", "stage2_deep", "style", "stage2_sig", "min_words",
                      "trees")
_RECORDED_WHEN_NOT_NONE = ("cv_seed", "stage2_kind", "stage2_style")


def choose_min_words(pages: list[LabelledPage], per: list[np.ndarray], threshold: float,
                     limits: tuple[int, ...]) -> tuple[int, dict[str, float]]:
    """The thin-page limit (model.thin_page) with the best CV mean page F1 at ``threshold``
    (ties: the smaller), and each limit's: a dropped page scores 1 where its gold is empty too,
    else 0; the others as page_prf scores them."""
    f1 = page_prf(pages, per, threshold)[:, 2]
    kept = np.array([float(p.blocks.token_counts()[s >= threshold].sum()) for p, s in zip(pages, per)])
    empty_gold = np.array([p.gold_words == 0 for p in pages])
    best, by = 0, {}
    for k in sorted(set(limits) | {0}):
        drop = np.array([thin_page(w, p.kind, k, p.html_chars) for w, p in zip(kept, pages)],
                        dtype=bool)
        by[str(k)] = round(float(np.where(drop, empty_gold, f1).mean()), 4)
        if by[str(k)] > by[str(best)]:
            best = k
    return best, by


def _stage2_rows(s: np.ndarray, p: LabelledPage, cfg: TrainConfig) -> np.ndarray:
    """Stage 2's own columns of page ``p`` for its scores ``s`` (the reference: Model.context_columns
    gives the same through the C part)."""
    cont, weight = stage2_inputs(p.blocks)
    x = with_deep(context_features(s, cont, weight, cfg.stage2_page_rel), s, cont, weight,
                  cfg.stage2_deep)
    if not cfg.stage2_sig:
        return x
    return np.hstack((x, signature_columns(s, signature_groups(p.blocks), weight)))


def _library_versions() -> dict[str, str]:
    """What the weights' last digits depend on: the libraries, the BLAS kernel and the CPU's
    vector unit (learn/blas.py)."""
    import sklearn

    from .blas import kernels, vector_unit

    return {"numpy": np.__version__, "scikit-learn": sklearn.__version__, "blas": kernels(),
            "cpu": vector_unit()}


def data_digest(pages: list[LabelledPage]) -> str:
    h = hashlib.sha256()
    for p in pages:
        h.update(p.id.encode())
        h.update(np.asarray(p.y, dtype=np.uint8).tobytes())
    return h.hexdigest()[:16]
