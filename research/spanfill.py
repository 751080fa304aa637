"""The span rule after the cut (kindrules.fill_span, shipped with the levels
kindrules.SPAN_FILL): its measurement out of fold, with the levels chosen on the other folds,
on the 12 corpora, and its cost (docs/research/DOC_PAGES.md has the figures).

The rule: on a page whose estimated kind has a level (documentation 0.05, collection 0.1), every
block between the first and the last block the cut keeps is kept too where its probability is
at least that level and it sits in no nav, aside, header, footer or form.

    python -m research.oofdump ../shared/data/dragnet:train ../shared/data/cleaneval-dev \
        ../shared/data/wcxb-dev --config best+kind+pn.5+w1+shop05+ic30+thin --out /tmp/kd
    python -m research.spanfill oof /tmp/kd ../shared/data/dragnet:train \
        ../shared/data/cleaneval-dev ../shared/data/wcxb-dev     # the dump's fold models
    python -m research.spanfill nested /tmp/kd ...   # the levels chosen per kind on 4 folds
    python -m research.spanfill guard ../shared/data              # shipped model, 12 corpora
    taskset -c 1 python -m research.spanfill cost ../shared/data/wcxb-dev

Each prints mean F1 per corpus (and per wcxb-dev page type) without the rule and with it, at
the default and the precise cut, every page extracted by the real Extractor both times (the
same code, the same models): only ``Extractor.span_level`` differs. ``nested``: the levels
(none, 0, 0.05, ..., 0.3) per estimated kind (SPAN_KINDS: documentation, service, forum,
collection, listing, product; ``SPANFILL_KINDS`` to name fewer) chosen on the page F1 of the
other four folds, scored on the fold held out.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict

import numpy as np

from ce_filter.api import Extractor
from ce_filter.learn.corpus import Doc, Spec
from ce_filter.learn.crossval import assign_folds, load_docs, site_groups
from ce_filter.learn.evaluate import token_prf
from ce_filter.read.segment import FLAG_PRE
from ce_filter.score.blockmodel import FALLBACK_REL, select_c

CORPORA = ("big5", "cleaneval-dev", "cleaneval-final", "cleanportaleval", "dragnet:train",
           "dragnet:test", "magic-html", "newspaper", "readability", "wcxb-dev", "zh-content",
           "zh-finance")
LEVELS = (None, 0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3)
SPAN_KINDS = tuple(os.environ.get(
    "SPANFILL_KINDS", "documentation,service,forum,collection,listing,product").split(","))


class Levels(Extractor):
    """The Extractor with the span rule at the levels ``levels`` (kind -> level; {}: no rule)."""

    levels: dict[str, float] = {}

    def span_level(self, kind: np.ndarray | None) -> float | None:
        return self.levels.get(self.kind_name(kind) or "")


class NoSpan(Levels):
    levels: dict[str, float] = {}


def _f1s(ex: Extractor, docs: list[Doc]) -> list[float]:
    out = []
    for d in docs:
        try:
            text = ex.extract(d.html, url=d.url or None).text
        except Exception:  # scored as empty, as evaluate does
            text = ""
        out.append(token_prf(text, d.target(False))[2])
    return out


def _table(rows: dict[str, dict[str, list[float]]], order: list[str]) -> None:
    names = list(rows)
    print("| corpus | pages | " + " | ".join(names[:1] + [f"{n} − {names[0]}" for n in names[1:]]) + " |")
    print("|---|---|" + "---|" * len(names))
    for g in order:
        base = float(np.mean(rows[names[0]][g]))
        cells = [f"{base:.5f}"] + [f"{float(np.mean(rows[n][g])) - base:+.5f}" for n in names[1:]]
        print(f"| {g} | {len(rows[names[0]][g])} | " + " | ".join(cells) + " |")


def oof(dump: str, specs: list[str]) -> None:
    labels, docs, corpus_of = load_docs(specs)
    fold = assign_folds(site_groups(docs), 5)
    for cut in ("default", "precise"):
        rows: dict[str, dict[str, list[float]]] = {"no span rule": defaultdict(list),
                                                    "span rule": defaultdict(list)}
        for k in range(5):
            path = os.path.join(dump, f"fold{k}.json")
            held = [(d, c) for d, f, c in zip(docs, fold, corpus_of) if f == k]
            for name, cls in (("no span rule", NoSpan), ("span rule", Extractor)):
                ex = cls(path, precise=cut == "precise")
                for (d, c), f in zip(held, _f1s(ex, [d for d, _ in held])):
                    rows[name][labels[c]].append(f)
                    if d.page_type:
                        rows[name][f"{labels[c]}: {d.page_type}"].append(f)
            print(f"spanfill: {cut} cut, fold {k + 1}/5 done", file=sys.stderr, flush=True)
        print(f"\n{cut} cut, out of fold\n")
        _table(rows, sorted(rows["no span rule"]))
        for name in rows:
            m3 = float(np.mean([np.mean(rows[name][lab]) for lab in labels]))
            print(f"mean of the {len(labels)} corpora's mean F1, {name}: {m3:.5f}")



def nested(dump: str, specs: list[str]) -> None:
    """The rule's level chosen per estimated kind (None: off) by the page F1 of the other four
    folds (mean of the corpora's means), then scored on the fold held out: the rule's figure
    without the choice made on the pages it is scored on."""
    labels, docs, corpus_of = load_docs(specs)
    fold = assign_folds(site_groups(docs), 5)
    for cut in ("default", "precise"):
        f1 = np.zeros((len(docs), len(LEVELS)))
        est = [""] * len(docs)
        for k in range(5):
            path = os.path.join(dump, f"fold{k}.json")
            idx = [i for i in range(len(docs)) if fold[i] == k]
            for j, lo in enumerate(LEVELS):
                Levels.levels = {} if lo is None else {c: lo for c in SPAN_KINDS}
                ex = Levels(path, precise=cut == "precise")
                f1[idx, j] = _f1s(ex, [docs[i] for i in idx])
            for i in idx:
                est[i] = ex.kind_name(ex.page(docs[i].html, url=docs[i].url or None).kind) or ""
            print(f"spanfill: nested, {cut} cut, fold {k + 1}/5 done", file=sys.stderr, flush=True)
        w = np.array([1.0 / corpus_of.count(c) for c in corpus_of])
        chosen = np.zeros(len(docs), dtype=int)
        for k in range(5):
            train = fold != k
            picks = {}
            for kd in SPAN_KINDS:
                m = train & np.array([e == kd for e in est])
                gain = (f1[m] * w[m, None]).sum(axis=0) if m.any() else np.zeros(len(LEVELS))
                picks[kd] = int(np.argmax(gain - 1e-12 * np.arange(len(LEVELS))))  # ties: off
            print(f"{cut} cut, fold {k + 1}: " + ", ".join(f"{kd} {LEVELS[j]}" for kd, j in picks.items()))
            for j in np.flatnonzero(fold == k).tolist():
                chosen[j] = picks.get(est[j], 0)
        rows: dict[str, dict[str, list[float]]] = {"no span rule": defaultdict(list),
                                                    "nested": defaultdict(list)}
        for i, d in enumerate(docs):
            for name, v in (("no span rule", f1[i, 0]), ("nested", f1[i, chosen[i]])):
                rows[name][labels[corpus_of[i]]].append(float(v))
                if d.page_type:
                    rows[name][f"{labels[corpus_of[i]]}: {d.page_type}"].append(float(v))
        print(f"\n{cut} cut, out of fold, the levels chosen on the other folds\n")
        _table(rows, sorted(rows["no span rule"]))
        for name in rows:
            m3 = float(np.mean([np.mean(rows[name][lab]) for lab in labels]))
            print(f"mean of the {len(labels)} corpora's mean F1, {name}: {m3:.5f}")


def guard(root: str) -> None:
    for cut in ("default", "precise"):
        rows: dict[str, dict[str, list[float]]] = {"no span rule": defaultdict(list),
                                                    "span rule": defaultdict(list)}
        for spec in CORPORA:
            c = Spec.parse(os.path.join(root, spec))
            docs = list(c.load())
            for name, cls in (("no span rule", NoSpan), ("span rule", Extractor)):
                rows[name][c.label] = _f1s(cls(precise=cut == "precise"), docs)
            print(f"spanfill: {cut} cut, {c.label} done", file=sys.stderr, flush=True)
        print(f"\n{cut} cut, shipped model\n")
        _table(rows, list(rows["no span rule"]))


def cost(spec: str, passes: int = 5) -> None:
    """ms a page of ``Extractor.extract`` over the corpus without the rule and with it, each
    page's fastest of ``passes`` passes (the two interleaved pass by pass)."""
    docs = [(d.html, d.url or None) for d in Spec.parse(spec).load()]
    exs = {"no span rule": NoSpan(), "span rule": Extractor()}
    best = {name: np.full(len(docs), np.inf) for name in exs}
    for _ in range(passes):
        for name, ex in exs.items():
            for i, (h, u) in enumerate(docs):
                t0 = time.perf_counter()
                ex.extract(h, url=u)
                best[name][i] = min(best[name][i], time.perf_counter() - t0)
    for name in exs:
        print(f"{name}: {1000 * best[name].mean():.4f} ms a page ({len(docs)} pages, best of {passes})")
    d = best["span rule"] - best["no span rule"]
    print(f"difference: {1000 * d.mean():+.4f} ms a page")
    # the rule's own call (Extractor.span_added) on each page's blocks, probabilities and cut
    ex = exs["span rule"]
    own = np.full(len(docs), np.inf)
    for i, (h, u) in enumerate(docs):
        p = ex.page(h, url=u)
        if p.blocks is None or p.scores is None or not len(p.blocks):
            own[i] = 0.0
            continue
        flags = np.asarray(p.blocks.flags, dtype=np.int64)
        keep = select_c(p.scores, ex.cut(p.kind), flags, FLAG_PRE, FALLBACK_REL)
        for _ in range(passes):
            t0 = time.perf_counter()
            ex.span_added(keep, p.scores, flags, p.kind)
            own[i] = min(own[i], time.perf_counter() - t0)
    print(f"the rule's own call: {1000 * own.mean():.4f} ms a page")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m research.spanfill", description=__doc__)
    ap.add_argument("what", choices=("oof", "nested", "guard", "cost"))
    ap.add_argument("args", nargs="+", help="oof, nested: DUMP_DIR CORPUS...; guard: DATA_ROOT; "
                    "cost: CORPUS")
    a = ap.parse_args(argv)
    if a.what in ("oof", "nested"):
        (oof if a.what == "oof" else nested)(a.args[0], a.args[1:])
    elif a.what == "guard":
        guard(a.args[0])
    else:
        cost(a.args[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
