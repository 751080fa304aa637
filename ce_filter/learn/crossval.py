"""Out-of-fold evaluation: every training page scored by a model that never saw its site.

    ce-filter evaluate --cv ../shared/data/dragnet:train ../shared/data/cleaneval-dev \
        ../shared/data/wcxb-dev

The pages of all the named corpora are split into folds (5 by default) grouped by site: the
corpus's domain column where it has one (wcxb-dev's pages.tsv), else the page's canonical host
(``corpus.site_of``), so no site has pages in two folds. For each fold, a model is trained with
the named configuration on the pages of the other folds (its own C, threshold and token lists
chosen by its own grouped CV inside them), and the fold's pages are extracted with it by the
real extractor from their raw HTML and scored with the real metric (not the LCS proxy of
training). The figures are reported per corpus and per page type; ``--pages`` also writes each
page's estimated page kind, from the fold model's own page-kind model (fitted on the other
folds' pages), so the page-kind model is judged out of fold too. With ``--precise`` (and/or
``--recall``) the same fold models are scored again at their precision-leaning (recall-leaning)
cut (``Extractor(precise=True)`` / ``Extractor(recall=True)``: the cut each fold's training
chose on its own CV).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from ..progress import progress
from .corpus import Doc, Spec, site_of
from .evaluate import Score, evaluate, table

if TYPE_CHECKING:
    from ..extractor import Extractor


def load_docs(specs: list[str]) -> tuple[list[str], list[Doc], list[int]]:
    """(corpus labels, pages with ids prefixed by their corpus as in training, corpus index of
    each page)."""
    labels: list[str] = []
    docs: list[Doc] = []
    corpus_of: list[int] = []
    for k, spec in enumerate(specs):
        c = Spec.parse(spec)
        labels.append(c.label)
        for d in c.load():
            d.id = f"{c.name}/{d.id}"  # as in training: ids carry the corpus
            docs.append(d)
            corpus_of.append(k)
    return labels, docs, corpus_of



def site_groups(docs: list[Doc]) -> np.ndarray:
    """A group id per page: pages of one site (domain column, else canonical host) share it;
    a page with neither is its own group."""
    index: dict[str, int] = {}
    out = []
    for i, d in enumerate(docs):
        key = d.domain or site_of(d.html) or f"\0page{i}"
        out.append(index.setdefault(key, len(index)))
    return np.array(out, dtype=np.int64)


def assign_folds(groups: np.ndarray, folds: int, seed: int | None = None) -> np.ndarray:
    """The fold of each page: scikit-learn's GroupKFold over ``groups`` (the groups shuffled
    with ``seed`` first, for another assignment)."""
    from sklearn.model_selection import GroupKFold

    if seed is not None:
        groups = np.random.default_rng(seed).permutation(groups.max() + 1)[groups]
    fold = np.full(len(groups), -1, dtype=np.int64)
    for k, (_, te) in enumerate(GroupKFold(n_splits=folds).split(np.zeros(len(groups)), groups=groups)):
        fold[te] = k
    return fold


def oof_cuts(specs: list[str], config: str = "best", folds: int = 5, comments: bool = False,
             threshold: float | None = None, cuts: tuple[str, ...] = ("default",),
             seed: int | None = None, log: bool = True
             ) -> list[tuple[list[float], list[tuple[str, Score]]]]:
    """Per cut in ``cuts`` ("default": the model's threshold, "precise" / "recall": its
    precision- / recall-leaning one), the cut each fold's model used and (corpus label,
    out-of-fold score) for each of ``specs``: every cut is scored with the same fold models, so
    the other cuts cost no second training."""
    from ..api import Extractor
    from .configs import CONFIGS
    from .fit import data_digest, prepare, train

    cfg = replace(CONFIGS[config], log=log)
    labels, docs, corpus_of = load_docs(specs)
    groups = site_groups(docs)
    if len(set(groups.tolist())) < folds:
        raise ValueError(f"{len(docs)} pages from {len(set(groups.tolist()))} sites: too few for "
                         f"{folds} folds grouped by site")
    fold = assign_folds(groups, folds, seed)
    pages = prepare(progress(docs, "cv: read + label", enabled=log), comments=comments,
                    rule=cfg.label_rule)
    fold_of_id = {d.id: int(f) for d, f in zip(docs, fold)}
    scores = [[Score(lab) for lab in labels] for _ in cuts]
    used: list[list[float]] = [[] for _ in cuts]
    target = "comments" if comments else "content"
    for k in range(folds):
        if log:
            print(f"cv: fold {k + 1}/{folds}: training on the other folds", file=sys.stderr, flush=True)
        part = [p for p in pages if fold_of_id[p.id] != k]
        desc = {"corpora": labels, "pages": len(part), "labels_digest": data_digest(part),
                "target": target, "config": config, "cv_fold": f"{k + 1}/{folds}"}
        model = train(part, cfg, name=target, data_desc=desc)
        held = [[d for d, f, ck in zip(docs, fold, corpus_of) if f == k and ck == ci]
                for ci in range(len(labels))]
        for j, cut in enumerate(cuts):
            ex = Extractor(model, threshold=threshold, precise=cut == "precise",
                           recall=cut == "recall")
            used[j].append(ex.threshold)
            for ci, lab in enumerate(labels):
                kinds: list[str] = []
                sc = evaluate(text_and_kind(ex, kinds), held[ci], comments=comments,
                              name=f"cv fold {k + 1}: {lab}", total=len(held[ci]), log=log)
                sc.pages = [replace(r, kind=kd) for r, kd in zip(sc.pages, kinds)]
                scores[j][ci].extend(sc)
    return [(u, list(zip(labels, sc))) for u, sc in zip(used, scores)]


def text_and_kind(ex: Extractor, kinds: list[str]) -> Callable[[bytes, str | None], str]:
    """``ex.extract(html, url=url).text`` as a function that also appends the page's estimated
    kind (``Extractor.kind_name``: the argmax of its page-kind probabilities, '' without them)
    to ``kinds``, one entry per call, also for a page that raises. Only the model's own
    page-kind model counts: a model trained without one (a configuration without the kind
    group) borrows the shipped model's, which was fitted on wcxb-dev, so its estimates are
    left out ('')."""
    own = ex.model.pagekind is not None

    def run(h: bytes, url: str | None = None) -> str:
        try:
            p = ex.page(h, url=url)
        except Exception:
            kinds.append("")
            raise
        kinds.append((ex.kind_name(p.kind) or "") if own else "")
        return str(ex.extraction(p, url).text)

    return run


def cv_command(a: argparse.Namespace) -> int:
    from .configs import CONFIGS

    if a.model:
        print("--cv trains its own model per fold; --model does not apply", file=sys.stderr)
        return 2
    if a.config not in CONFIGS:
        print(f"unknown config {a.config!r}; one of {', '.join(CONFIGS)}", file=sys.stderr)
        return 2
    if a.folds < 2:
        print("--folds: at least 2", file=sys.stderr)
        return 2
    # --precise / --recall score the default cut too (the same fold models): the tables side by
    # side cost one training, not two
    cuts: tuple[str, ...] = ("default",)
    if a.threshold is None:
        cuts += tuple(c for c in ("precise", "recall") if getattr(a, c, False))
    try:
        result = oof_cuts(a.corpus, a.config, a.folds, a.comments, a.threshold, cuts, a.cv_seed)
    except ValueError as e:
        print(f"evaluate --cv: {e}", file=sys.stderr)
        return 2
    print(f"Out of fold: {a.folds} folds grouped by site/domain, config {a.config}"
          + (f", fold seed {a.cv_seed}" if a.cv_seed is not None else ""))
    for name, (used, res) in zip(cuts, result):
        cut = "fixed cut" if a.threshold is not None else f"{name} cut"
        print()
        print(f"{cut} (per fold: {', '.join(f'{t:g}' for t in used)})")
        print()
        print(table(res))
        if len(res) > 1:  # what a choice between configurations compares, unrounded
            mean = float(np.mean([np.mean([r.f for r in sc.pages]) if sc.pages else 0.0 for _, sc in res]))
            print(f"\nmean of the {len(res)} corpora's mean F1: {mean:.4f}")
    if a.pages:
        write_pages(a.pages, cuts, result)
    return 0


def write_pages(path: str, cuts: tuple[str, ...],
                result: list[tuple[list[float], list[tuple[str, Score]]]]) -> None:
    """Every page's out-of-fold figures, a TSV row per page and cut (same folds, same rows for
    every configuration: two runs compare page by page), and the kind the fold's model estimated
    for it."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("cut\tcorpus\tpage\tpage_type\tprecision\trecall\tf1\tempty\tlang\tsite\tkind\n")
        for name, (_, res) in zip(cuts, result):
            for label, sc in res:
                for r in sc.pages:
                    f.write(f"{name}\t{label}\t{r.id}\t{r.page_type}\t"
                            f"{r.p:.6f}\t{r.r:.6f}\t{r.f:.6f}\t{int(r.empty)}\t{r.lang}\t{r.site}\t{r.kind}\n")
