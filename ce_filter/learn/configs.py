"""Named training configurations (the paper's rows and ours) and the ``ce-filter train`` command.

The shipped models are rebuilt bit-for-bit by ``scripts/train_models.sh``.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import TypedDict

from ..progress import progress
from ..score.features import TOKEN_PREFIXES, FeatureSpec, feature_names
from ..score.features.comments import CMT_NAMES
from ..score.features.context import STAGE2_KIND_ANCESTORS, STAGE2_KIND_COLUMNS, STAGE2_STYLE_COLUMNS
from ..score.features.item import NAMES as ITEM_NAMES
from ..score.features.kind import MIX_COMPACT, MIX_WIDE
from ..score.features.repitem import GATED_NAMES as RITEMG_NAMES
from ..score.features.repitem import LC_NAMES as RITEMLC_NAMES
from ..score.features.repitem import NAMES as RITEM_NAMES
from ..score.features.style import STYLE_MIX
from . import blas
from .corpus import Spec
from .fit import LabelledPage, TrainConfig, data_digest, prepare, train
from .labels import DEFAULT_RULE, LabelRule


class _PaperRows(TypedDict):
    """The TrainConfig fields the paper's rows share (keyword arguments)."""

    ic_ancestors: bool
    heading_words: bool
    stage2: bool
    weight: str
    label_runs: bool
    cs: tuple[float, ...]
    ic_min_frac: float
    ic_min_pages: int
    ic_by_site: bool
    cv_groups: str
    corpus_weight: dict[str, float]


_PAPER: _PaperRows = {"ic_ancestors": False, "heading_words": False, "stage2": False, "weight": "none",
          "label_runs": False, "cs": (0.01, 0.1, 1.0, 10.0), "ic_min_frac": 0.01, "ic_min_pages": 0,
          "ic_by_site": False, "cv_groups": "page", "corpus_weight": {}}

CONFIGS: dict[str, TrainConfig] = {
    # Table 2 of Peters & Lecocq (2013): single groups and their combinations.
    "cetr": TrainConfig(groups=("cetr",), **_PAPER),
    "ic": TrainConfig(groups=("ic",), **_PAPER),
    "st": TrainConfig(groups=("st",), **_PAPER),
    "st+ic": TrainConfig(groups=("st", "ic"), **_PAPER),
    "st+ic+cetr": TrainConfig(groups=("st", "ic", "cetr"), **_PAPER),
    # Ours: every group, ancestor and heading tokens, token weights, context stage.
    "best": TrainConfig(),
}
# best with the page-kind probabilities (and their products with block size, link and text
# density) as block features: needs training pages with page types (wcxb-dev)
CONFIGS["best+kind"] = replace(CONFIGS["best"], groups=CONFIGS["best"].groups + ("kind",))
# best with the page-kind probabilities (and their products with block size, link and text
# density; features.kind, needs training pages with page types) and the repeated-structure
# columns (features.struct) as block features
CONFIGS["best+kind+struct"] = replace(CONFIGS["best"], groups=CONFIGS["best"].groups + ("kind", "struct"))
# best with the gold lines realigned where the page-wide LCS missed them (labels.realign_lines)
CONFIGS["best+lines"] = replace(CONFIGS["best"], label_lines=True)
# Leave-one-out rows: what each addition of ours buys (ablation --rows with these names).
# They keep best's C (0.001) instead of searching it again, to keep the ablation short.
_LOO = replace(CONFIGS["best"], cs=(0.001,))


def _without(group: str) -> TrainConfig:
    return replace(_LOO, groups=tuple(g for g in _LOO.groups if g != group))


def _with(*groups: str) -> TrainConfig:
    return replace(_LOO, groups=_LOO.groups + groups)


CONFIGS.update({
    "best-dom": _without("dom"),
    "best+text": _with("text"),
    "best+ctx": _with("ctx"),
    "best+text+ctx": _with("text", "ctx"),
    "best@C": _LOO,  # best itself at its chosen C, for the rows beside it
    # the shipped content configuration (scripts/train_models.sh): CV 0.8483 -> 0.8515, wcxb-dev
    # 0.8251 -> 0.8310 on the same folds (docs/research/ABLATION.md)
    "best+kind": _with("kind"),
    # best+kind with the training corpora weighted otherwise (TrainConfig.corpus_weight: the
    # dragnet train pages against the wcxb-dev ones); out of fold none beats best+kind's mean of
    # the three corpora (0.8750 against 0.8730 / 0.8717 / 0.8737, docs/research/ABLATION.md)
    "best+kind+wd1.5": replace(_with("kind"), corpus_weight={"cleaneval-dev": 4.0, "dragnet": 1.5}),
    "best+kind+wd2": replace(_with("kind"), corpus_weight={"cleaneval-dev": 4.0, "dragnet": 2.0}),
    "best+kind+ww.5": replace(_with("kind"), corpus_weight={"cleaneval-dev": 4.0, "wcxb-dev": 0.5}),
    # best+kind with a cut per predicted page kind (TrainConfig.kind_cuts), chosen on the fit's CV
    # scores of the training pages of that kind; kinds with fewer than 40 pages keep the global cut
    "best+kind+kcut": replace(_with("kind"), kind_cuts=True),
    # the same, each kind's cut pulled toward the global one as if 100 more pages sat at it (a
    # kind with n pages keeps n / (n + 100) of its own move): the kinds' cuts moved between folds
    "best+kind+kcut100": replace(_with("kind"), kind_cuts=True, kind_shrink=100.0),
    # best+kind with a weight per page kind for more block columns, mixed by the kind
    # probabilities (TrainConfig.kind_mix): the compact set (16 columns) and the wide one (32);
    # out of fold neither beats best+kind's mean of the three corpora (0.8730 / 0.8700 against
    # 0.8750, docs/research/ABLATION.md): not adopted
    "best+kind+mix": replace(_with("kind"), kind_mix=MIX_COMPACT),
    "best+kind+mixw": replace(_with("kind"), kind_mix=MIX_WIDE),
    # best+kind with the shop-page cues times the page's product probability (features.shop:
    # repeated blocks, shop-section headings, shop-section class/id tokens; docs/research/ABLATION.md)
    "best+kind+shop": _with("kind", "shop"),
    "best+struct": _with("struct"),  # 0.8487: not adopted (docs/research/ABLATION.md)
    "best-rx": _without("rx"),
    "best-head": _without("head"),
    "best-stage2": replace(_LOO, stage2=False),
    "best-pagerel": replace(_LOO, stage2_page_rel=False),
    "best-cdweight": replace(_LOO, corpus_weight={}),
    "best-anc": replace(_LOO, ic_ancestors=False, heading_words=False),
    "best-weights": replace(_LOO, weight="none"),
    "best-runs": replace(_LOO, label_runs=False),
    "best-sites": replace(_LOO, ic_by_site=False, ic_min_pages=0, ic_min_frac=0.01, cv_groups="page"),
})
# best+kind with the comment-section columns (features.comments), each also weighed per page
# kind (kind_mix over them): readers' comments are boilerplate under an article, content in a forum
CONFIGS["best+kind+cmt"] = replace(_with("kind", "cmt"), kind_mix=CMT_NAMES)
# best+kind with each page's block weights scaled toward the same total per page
# (TrainConfig.page_norm): halfway (0.5) and fully (1)
CONFIGS["best+kind+pn.5"] = replace(_with("kind"), page_norm=0.5)
CONFIGS["best+kind+pn1"] = replace(_with("kind"), page_norm=1.0)
# best+kind+pn.5 with C chosen by the fit's own grouped CV from {0.001, 0.003} instead of fixed
# at 0.001 (chosen when the training data was a third of today's)
CONFIGS["best+kind+pn.5+c3"] = replace(_with("kind"), page_norm=0.5, cs=(0.001, 0.003))
# best+kind+pn.5 with the shop-page cues (features.shop) times the page's product probability
CONFIGS["best+kind+pn.5+shop"] = replace(_with("kind", "shop"), page_norm=0.5)
# best+kind+pn.5 with a third stage over stage 2's scores (Model.stage3)
CONFIGS["best+kind+pn.5+s3"] = replace(_with("kind"), page_norm=0.5, stage3=True)
# best+kind with each block weighed by its words (capped at 100) instead of their square root,
# the page totals pulled halfway (pn.5) or fully (pn1) to the mean: nearer the metric's word counts
CONFIGS["best+kind+pn.5+tok"] = replace(_with("kind"), page_norm=0.5, weight="tokens")
CONFIGS["best+kind+pn1+tok"] = replace(_with("kind"), page_norm=1.0, weight="tokens")
# the other way: every block the same weight, or the square root capped at 25 words instead of
# 100 (short blocks, the cards of collections and listings, weigh more against long ones)
CONFIGS["best+kind+pn.5+w1"] = replace(_with("kind"), page_norm=0.5, weight="none")
CONFIGS["best+kind+pn.5+cap25"] = replace(_with("kind"), page_norm=0.5, weight_cap=25.0)
# every block weight 1 and the shop cues: the two variants that lifted wcxb-dev most, together
CONFIGS["best+kind+pn.5+w1+shop"] = replace(_with("kind", "shop"), page_norm=0.5, weight="none")
# the same with the shop cues only on pages at least 5% likely product pages (shop_min_p): on
# the others, 95% of the dragnet test pages, they cost nothing
CONFIGS["best+kind+pn.5+w1+shop05"] = replace(_with("kind", "shop"), page_norm=0.5, weight="none",
                                              shop_min_p=0.05)
# best+kind+pn.5+w1+shop05 with the class/id token vocabulary cut at tokens seen on at least
# 8, 20, 30, 40 or 60 sites instead of 15 (chosen when the training pages were dragnet's alone);
# ic30 is the shipped configuration
_W1SHOP05 = CONFIGS["best+kind+pn.5+w1+shop05"]
CONFIGS.update({f"best+kind+pn.5+w1+shop05+ic{k}": replace(_W1SHOP05, ic_min_pages=k)
                for k in (8, 20, 30, 40, 60)})
_SHIPPED = CONFIGS["best+kind+pn.5+w1+shop05+ic30"]
# ic20 and the shipped ic30 with the repeated multi-block items (features.item) as block
# features: out of fold not adopted (docs/research/ABLATION.md)
CONFIGS.update({f"best+kind+pn.5+w1+shop05+ic{k}+item": replace(
    CONFIGS[f"best+kind+pn.5+w1+shop05+ic{k}"], groups=_SHIPPED.groups + ("item",)) for k in (20, 30)})
# the shipped configuration with the item columns times 1 - the page's product probability
CONFIGS["best+kind+pn.5+w1+shop05+ic30+itemg"] = replace(_SHIPPED, groups=_SHIPPED.groups + ("itemg",))
# the shipped configuration with the item columns, each also times each page kind's probability
# (kind_mix): how a repeated item bears on a block may differ by kind (a listing's cards are its
# content, a product page's related products are not)
CONFIGS["best+kind+pn.5+w1+shop05+ic30+itemk"] = replace(
    _SHIPPED, groups=_SHIPPED.groups + ("item",), kind_mix=tuple(ITEM_NAMES))
# the shipped configuration with stage 2 also seeing the mean scores under the ancestors 4, 6
# and 8 levels up (Model.stage2_deep): the grid a card sits in, the page's main column
CONFIGS["best+kind+pn.5+w1+shop05+ic30+deep"] = replace(_SHIPPED, stage2_deep=(4, 6, 8))
# the shipped configuration with stage 2 also reading the mean score of the block's signature
# group (blocks of the same tag and depth under the same class/id chain: Model.stage2_sig)
CONFIGS["best+kind+pn.5+w1+shop05+ic30+sig"] = replace(_SHIPPED, stage2_sig=True)
# the shipped configuration with the thin-page rule (model.thin_page): a page not read as an
# article whose kept text has fewer words than a limit chosen on CV from these gives no text
CONFIGS["best+kind+pn.5+w1+shop05+ic30+thin"] = replace(_SHIPPED, min_words=(5, 8, 10, 12, 15, 20))
# the shipped configuration with a page-style model over the training corpora (which corpus's
# annotation rules a page resembles, features.style): its probabilities and their products
# with the wide set of dense columns (STYLE_MIX), or with every dense column of the groups but
# kind and shop
CONFIGS["best+kind+pn.5+w1+shop05+ic30+styw"] = replace(_SHIPPED, style=True, style_mix=STYLE_MIX)
_PLAIN = FeatureSpec(groups=tuple(g for g in _SHIPPED.groups if g not in ("kind", "shop")))
CONFIGS["best+kind+pn.5+w1+shop05+ic30+styf"] = replace(_SHIPPED, style=True, style_mix=tuple(
    n for n in feature_names(_PLAIN) if not n.startswith(TOKEN_PREFIXES)))
# the same with two classes: the 2012 news corpus and the rest (cleaneval-dev's 58 pages are too
# few for weights of their own), or the two older corpora and the modern one
_STYF = CONFIGS["best+kind+pn.5+w1+shop05+ic30+styf"]
CONFIGS["best+kind+pn.5+w1+shop05+ic30+styf2"] = replace(
    _STYF, style_classes={"cleaneval-dev": "other", "wcxb-dev": "other"})
CONFIGS["best+kind+pn.5+w1+shop05+ic30+styf2o"] = replace(
    _STYF, style_classes={"cleaneval-dev": "old", "dragnet": "old"})
# styf with a class per corpus, its style weights paying 10 times the L2 penalty of the shared
# ones: a corpus of few pages gets an offset only where its labels insist
CONFIGS["best+kind+pn.5+w1+shop05+ic30+styf+p10"] = replace(_STYF, style_penalty=10.0)
# the page style in stage 2 only: a class per corpus, its probabilities and their products with
# the block's own score and score / page max (context.STAGE2_STYLE_COLUMNS); stage 1 unchanged
CONFIGS["best+kind+pn.5+w1+shop05+ic30+s2sty"] = replace(_SHIPPED,
                                                          stage2_style=STAGE2_STYLE_COLUMNS)
# best+kind+pn.5 with a cut per page kind, each pulled toward the global cut (kcut100's)
CONFIGS["best+kind+pn.5+kcut100"] = replace(_with("kind"), page_norm=0.5, kind_cuts=True, kind_shrink=100.0)

# best+kind with the page kind in stage 2 too: the kind probabilities and their products with
# the block's own score, its three ancestors' mean scores, the page mean and score / page max
# (context.STAGE2_KIND_COLUMNS, Model.stage2_kind)
CONFIGS["best+kind+s2k"] = replace(_with("kind"), stage2_kind=STAGE2_KIND_COLUMNS)
# the same with the products with the ancestors' mean scores only (no kind intercepts)
CONFIGS["best+kind+s2ka"] = replace(_with("kind"), stage2_kind=STAGE2_KIND_ANCESTORS)


def corpus_pages(specs: list[str], comments: bool, rule: LabelRule = DEFAULT_RULE,
                 log: bool = False) -> tuple[list[LabelledPage], dict]:
    """The training pages of ``specs`` (``dir[:split]``), segmented and labelled."""
    pages: list[LabelledPage] = []
    names = []
    for spec in specs:
        c = Spec.parse(spec)
        docs = progress(c.load(), f"train: read + label {c.name}", total=c.size(), enabled=log)
        part = prepare(docs, comments=comments, rule=rule)
        for p in part:  # ids carry the corpus so CV can report per corpus
            p.id = f"{c.name}/{p.id}"
        pages.extend(part)
        names.append(c.name + (f":{c.split}" if c.split else ""))
    return pages, {"corpora": names, "pages": len(pages), "labels_digest": data_digest(pages)}


def train_command(a: argparse.Namespace) -> int:
    try:
        cfg = CONFIGS[a.config]
    except KeyError:
        print(f"unknown config {a.config!r}; one of {', '.join(CONFIGS)}", file=sys.stderr)
        return 2
    if getattr(a, "cv_seed", None) is not None:
        cfg = replace(cfg, cv_seed=a.cv_seed)
    note = blas.unpinned_note()
    if note:
        print(note, file=sys.stderr)
    comments = a.target == "comments"
    pages, desc = corpus_pages(a.corpus, comments, rule=cfg.label_rule, log=cfg.log)
    if not pages:
        print("no training pages found", file=sys.stderr)
        return 2
    desc["target"] = a.target
    desc["config"] = a.config
    model = train(pages, cfg, name=a.target, data_desc=desc)
    model.save(a.out)
    print(f"wrote {a.out} ({model.digest}); CV: {model.meta['cv']}", file=sys.stderr)
    return 0
# the shipped configuration with tree-leaf inputs (features/leaves.py, He et al. 2014): 30
# boosted trees of at most 15 leaves and depth 6 over the stage-1 dense columns, fitted on each
# CV fold's training sites, each block's leaf in each tree a 0/1 stage-1 input
# (docs/research/TREE_LEAVES.md)
CONFIGS["best+kind+pn.5+w1+shop05+ic30+thin+leaves"] = replace(
    CONFIGS["best+kind+pn.5+w1+shop05+ic30+thin"], trees=(30, 15, 6))
# the shipped configuration with the repeated items (features.repitem: groups of same-shaped
# siblings, their count, share of the page, link text, headings and prices per item) as block
# features (ritem); the same, each also times each page kind's probability (ritemk: a listing's
# cards are its content, an article's related-story cards are not)
_THIN = CONFIGS["best+kind+pn.5+w1+shop05+ic30+thin"]
CONFIGS["best+kind+pn.5+w1+shop05+ic30+thin+ritem"] = replace(_THIN, groups=_THIN.groups + ("ritem",))
CONFIGS["best+kind+pn.5+w1+shop05+ic30+thin+ritemk"] = replace(
    _THIN, groups=_THIN.groups + ("ritem",), kind_mix=RITEM_NAMES)
# the same two with a cut per predicted page kind, each pulled toward the global cut as if 100
# more pages sat at it (kcut100's)
CONFIGS["best+kind+pn.5+w1+shop05+ic30+thin+kcut100"] = replace(_THIN, kind_cuts=True, kind_shrink=100.0)
CONFIGS["best+kind+pn.5+w1+shop05+ic30+thin+ritemk+kcut100"] = replace(
    CONFIGS["best+kind+pn.5+w1+shop05+ic30+thin+ritemk"], kind_cuts=True, kind_shrink=100.0)
# the repeated items times the page's probability of being neither an article nor a product
# page (ritemg), and the same each also times each kind's probability (ritemgk)
CONFIGS["best+kind+pn.5+w1+shop05+ic30+thin+ritemg"] = replace(_THIN, groups=_THIN.groups + ("ritemg",))
CONFIGS["best+kind+pn.5+w1+shop05+ic30+thin+ritemgk"] = replace(
    _THIN, groups=_THIN.groups + ("ritemg",), kind_mix=RITEMG_NAMES)
# the repeated items only on listing-like pages, gated as the shop cues are on product pages:
# times the page's listing + collection probability where that is at least 0.5 (ritemlc05) or
# 0.3 (ritemlc03), zeros elsewhere (ritem_min_p); and the 0.5 one each also times each kind's
# probability under the same gate (ritemlck05)
CONFIGS.update({f"best+kind+pn.5+w1+shop05+ic30+thin+ritemlc{t:02d}": replace(
    _THIN, groups=_THIN.groups + ("ritemlc",), ritem_min_p=t / 10) for t in (3, 5)})
CONFIGS["best+kind+pn.5+w1+shop05+ic30+thin+ritemlck05"] = replace(
    CONFIGS["best+kind+pn.5+w1+shop05+ic30+thin+ritemlc05"], kind_mix=RITEMLC_NAMES)
