"""The page-kind decoding rules tried on the out-of-fold dump (learn/oofdump), chosen by nested
CV over its folds (docs/research/KIND_DECODING.md has the rule of adoption and the figures).

    python -m research.kindstudy /tmp/kd [--write ce_filter/models/content.decoding.json]

Each page's blocks are kept as the extractor keeps them (api.select at the page's cut, the
group rule, the thin-page rule: the same functions), and scored by the metric of
learn/evaluate (a bag of word tokens against the gold) from each block's tokens, so a grid of
cuts costs a sparse product per page, not an extraction. The rules' decisions are made by
ce_filter.keep.kindrules, the code the extractor runs.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from ce_filter.api import select
from ce_filter.keep.kindrules import GROUP_KINDS, KindDecoding, decide_groups, jsonld_candidates, missing
from ce_filter.read.segment import FLAG_PRE
from ce_filter.read.words import tokens
from ce_filter.score.blockmodel import thin_page
from ce_filter.score.pagekind import KINDS

LOS: tuple[float | None, ...] = (None, 0.1, 0.2, 0.3)
HIS: tuple[float | None, ...] = (None, 0.3, 0.4, 0.5, 0.6)
SURE_HIS: tuple[float | None, ...] = (None, 0.3, 0.4, 0.5)
SURE_QS = (0.5, 0.7, 0.9)
COVERS: tuple[float | None, ...] = (None, 0.3, 0.5, 0.8)
JSONLD_KINDS = ("product", "listing", "collection", "forum")
MIN_GAIN = 0.005
TOL = 0.0005


@dataclass
class PageData:
    id: str
    corpus: str
    page_type: str
    fold: int
    kind: str  # the estimated kind ('' without kind probabilities)
    f1_real: float  # the real extraction's F1 (the dump's)
    m: Any = None  # blocks x vocabulary token counts (CSR)
    gold: np.ndarray | None = None
    scores: np.ndarray | None = None
    sig: np.ndarray | None = None
    code: np.ndarray | None = None
    words: np.ndarray | None = None
    cut: float = 0.5
    kindp: np.ndarray | None = None
    page_chars: int = 0
    min_words: int = 0
    texts: list[str] | None = None
    cands: list[str] | None = None
    vocab: dict[str, int] | None = None


def load(out: str) -> list[PageData]:
    """The dump's pages as PageData (token counts per block against the page's vocabulary)."""
    min_words: dict[int, int] = {}
    pages = []
    with gzip.open(os.path.join(out, "pages.jsonl.gz"), "rt", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            k = int(r["fold"])
            if k not in min_words:
                with open(os.path.join(out, f"fold{k}.json"), encoding="utf-8") as mf:
                    min_words[k] = int(json.load(mf).get("min_words", 0))
            kp = r.get("kind")
            p = PageData(r["id"], r["corpus"], r["page_type"], k,
                         KINDS[int(np.argmax(kp))] if kp else "", float(r["f1"]))
            pages.append(p)
            vocab: dict[str, int] = {}
            g_tok = [vocab.setdefault(t, len(vocab)) for t in tokens(r["gold"])]
            if not r.get("blocks"):
                p.gold = np.bincount(np.asarray(g_tok, dtype=np.int64), minlength=len(vocab))
                continue
            rows, cols = [], []
            for i, t in enumerate(r["text"]):
                ids = [vocab.setdefault(w, len(vocab)) for w in tokens(t)]
                rows += [i] * len(ids)
                cols += ids
            n = len(r["text"])
            cands = jsonld_candidates(r.get("jsonld") or [])
            for c in cands:
                for w in tokens(c):
                    vocab.setdefault(w, len(vocab))
            v = len(vocab)
            p.m = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, v))
            p.gold = np.bincount(np.asarray(g_tok, dtype=np.int64), minlength=v).astype(np.float64)
            p.scores = np.asarray(r["score"])
            p.sig = np.asarray(r["sig"], dtype=np.int64)
            p.code = (np.asarray(r["flags"], dtype=np.int64) & FLAG_PRE) != 0
            p.words = np.asarray(r["words"], dtype=np.float64)
            p.cut = float(r["cut"])
            p.kindp = np.asarray(kp) if kp else None
            p.page_chars = int(r["page_chars"])
            p.min_words = min_words[k]
            p.texts = r["text"]
            p.cands = cands
            p.vocab = vocab
    return pages


def keep_of(p: PageData, group: tuple[float | None, ...] | None) -> np.ndarray:
    """The page's kept mask as Extractor.keep makes it, with the group rule (lo, hi) or
    (lo, hi, q: the estimated kind's probability it needs) or none."""
    assert p.scores is not None and p.words is not None
    keep = select(p.scores, p.cut, p.code)
    sure = group is not None and (len(group) < 3 or p.kindp is None
                                  or float(p.kindp.max()) >= (group[2] or 0.0))
    if group is not None and sure:
        keep = decide_groups(keep, p.scores, p.sig, group[0], group[1])[0]  # type: ignore[arg-type]
    if thin_page(float(p.words[keep].sum()), p.kindp, p.min_words, p.page_chars):
        return np.zeros(len(keep), dtype=bool)
    return keep


def f1(pred: np.ndarray, gold: np.ndarray) -> float:
    """The metric's F1 of two token-count vectors (empty against empty: 1)."""
    n_p, n_g = pred.sum(), gold.sum()
    if n_p == 0 and n_g == 0:
        return 1.0
    if n_p == 0 or n_g == 0:
        return 0.0
    inter = np.minimum(pred, gold).sum()
    if inter == 0:
        return 0.0
    pr, rc = inter / n_p, inter / n_g
    return float(2 * pr * rc / (pr + rc))


def page_f1(p: PageData, group: tuple[float | None, ...] | None = None,
            cover: float | None = None, only_empty: bool = False) -> float:
    """F1 of the page decoded with the group rule ``group`` and the JSON-LD rule at ``cover``
    (``only_empty``: added only where the kept blocks are none)."""
    if p.m is None:
        return p.f1_real
    assert p.gold is not None
    keep = keep_of(p, group)
    pred = np.asarray(p.m.T @ keep.astype(np.float64)).ravel()
    if cover is not None and p.cands and (not only_empty or not keep.any()):
        assert p.texts is not None and p.vocab is not None
        kept = "\n".join(t for t, k in zip(p.texts, keep) if k)
        for c in missing(p.cands, kept, cover):
            for w in tokens(c):
                pred[p.vocab[w]] += 1
    return f1(pred, p.gold)


def nested(pages: list[PageData], grid: list[Any], fn: Any) -> tuple[np.ndarray, list[Any], Any]:
    """(each page's F1 under the grid point chosen without its fold, the point chosen per
    fold, the point chosen on all folds). ``fn(page, point)`` is the page's F1."""
    if not pages:
        return np.zeros(0), [], grid[0]
    f = np.array([[fn(p, g) for g in grid] for p in pages])
    fold = np.array([p.fold for p in pages])
    out = np.empty(len(pages))
    chosen = []
    for k in sorted(set(fold.tolist())):
        j = int(np.argmax(f[fold != k].sum(axis=0)))  # ties: the first, "off"
        chosen.append(grid[j])
        out[fold == k] = f[fold == k, j]
    return out, chosen, grid[int(np.argmax(f.sum(axis=0)))]


def summary(pages: list[PageData], f: np.ndarray) -> dict[str, float]:
    """Mean F1 per corpus, per wcxb-dev page type, and the mean of the corpora's means."""
    by: dict[str, list[float]] = defaultdict(list)
    for p, x in zip(pages, f):
        by[p.corpus].append(x)
        if p.page_type:
            by[f"{p.corpus}: {p.page_type}"].append(x)
    out = {k: float(np.mean(v)) for k, v in by.items()}
    corpora = sorted({p.corpus for p in pages})
    out["mean of corpora"] = float(np.mean([out[c] for c in corpora]))
    return out


def verdict(pages: list[PageData], base: np.ndarray, after: np.ndarray, kind: str,
            target_mask: np.ndarray | None = None) -> tuple[bool, str]:
    """The rule of adoption: the annotated kind's wcxb-dev mean (or, with ``target_mask``, the
    mean over the wcxb-dev pages it marks) up by MIN_GAIN, nothing else down by more than TOL."""
    b, a = summary(pages, base), summary(pages, after)
    target = f"wcxb-dev: {kind}"
    if target_mask is not None:
        target = "wcxb-dev pages left empty"
        m = target_mask & np.array([p.corpus == "wcxb-dev" for p in pages])
        gain = float(after[m].mean() - base[m].mean()) if m.any() else 0.0
    else:
        gain = a.get(target, 0.0) - b.get(target, 0.0)
    worse = [k for k in b if k != target and a[k] < b[k] - TOL]
    ok = gain >= MIN_GAIN and not worse
    why = f"gain {gain:+.4f} on {target}" + (f"; lowers {', '.join(worse)}" if worse else "")
    return ok, why


def table(pages: list[PageData], cols: list[tuple[str, np.ndarray]]) -> str:
    sums = [(name, summary(pages, f)) for name, f in cols]
    keys = list(sums[0][1])
    order = sorted(keys, key=lambda k: (k == "mean of corpora", ":" in k, k))
    lines = ["| | " + " | ".join(n for n, _ in sums) + " |", "|---" * (len(sums) + 1) + "|"]
    for k in order:
        lines.append(f"| {k} | " + " | ".join(f"{s[k]:.4f}" for _, s in sums) + " |")
    return "\n".join(lines)


def cost(decoding: str, corpus: str, limit: int | None = None, repeat: int = 5) -> str:
    """Microseconds per page of the decision after the scores (Extractor.decide), with the
    rules of ``decoding`` and without, on the first ``limit`` pages of ``corpus``, in one
    process, alternated, the best of ``repeat`` passes each (other processes share the CPU)."""
    import time

    from ce_filter.api import Extractor
    from ce_filter.learn.corpus import Spec
    from ce_filter.read.decode import decode_html
    from ce_filter.read.segment import parse, segment

    on, off = Extractor(decoding=decoding), Extractor(decoding=False)
    pages = []
    for d in Spec.parse(corpus).load(limit):
        html, _ = decode_html(d.html)
        b = segment(parse(html))
        if len(b):
            kind, style = off.page_context(b, html, d.url or None)
            pages.append((b, off.model.block_scores(b, kind, style), kind))
    best = {"off": float("inf"), "on": float("inf")}
    for _ in range(repeat):
        for name, ex in (("off", off), ("on", on)):
            t0 = time.perf_counter()
            for b, sc, kind in pages:
                ex.decide(b, sc, kind)
            best[name] = min(best[name], (time.perf_counter() - t0) / len(pages) * 1e6)
    ruled = sum(on.decide(b, sc, kind)[1] is not None for b, sc, kind in pages)
    extra = best["on"] - best["off"]
    return (f"{len(pages)} pages of {corpus} ({ruled} with a group rule): decide "
            f"{best['off']:.1f} us/page without the rules, {best['on']:.1f} with "
            f"(+{extra:.1f} a page; +{extra * len(pages) / max(ruled, 1):.0f} a page the rule acts on)")


def report(decoding: str, corpora: list[str]) -> str:
    """``ce-filter evaluate``'s tables for ``corpora`` with the shipped model, without the
    decoding rules and with the rules file ``decoding`` (the same evaluate and metric): the
    report-only corpora are scored so, never chosen on."""
    from ce_filter.api import Extractor
    from ce_filter.learn.corpus import Spec
    from ce_filter.learn.evaluate import evaluate as run
    from ce_filter.learn.evaluate import table as score_table
    from ce_filter.learn.evaluate import text_fn

    out = []
    for name, ex in (("without the page-kind decoding", Extractor(decoding=False)),
                     (f"with {decoding}", Extractor(decoding=decoding))):
        res = []
        for c in corpora:
            spec = Spec.parse(c)
            res.append((spec.label, run(text_fn(ex), spec.load(), name=spec.label)))
        out += [f"### {name}", "", score_table(res), ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m research.kindstudy", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dump", nargs="?", help="the directory oofdump wrote")
    ap.add_argument("--cost", nargs=2, metavar=("DECODING", "CORPUS"),
                    help="time Extractor.decide with the rules file DECODING and without on CORPUS")
    ap.add_argument("--write", help="save the adopted rules (chosen on all folds) here")
    ap.add_argument("--model", help="the model the written rules are for (its digest ties them)")
    ap.add_argument("--report", nargs="+", metavar="DECODING CORPUS",
                    help="score CORPUS... with the shipped model without and with the rules file")
    a = ap.parse_args(argv)
    if a.report:
        if len(a.report) < 2:
            ap.error("--report DECODING CORPUS...")
        print(report(a.report[0], a.report[1:]))
        return 0
    if a.cost:
        print(cost(*a.cost))
        return 0
    if not a.dump:
        ap.error("the dump directory is needed")
    pages = load(a.dump)
    base = np.array([page_f1(p) for p in pages])
    real = np.array([p.f1_real for p in pages])
    print(f"{len(pages)} pages; offline F1 against the real extraction's: mean "
          f"{base.mean():.4f} vs {real.mean():.4f}, max |diff| {np.abs(base - real).max():.4f}")
    current = base.copy()
    groups: dict[str, tuple[float | None, float | None]] = {}
    gl = [(lo, hi) for lo in LOS for hi in HIS if lo is None or hi is None or lo <= hi]
    tried_a = base.copy()  # every kind's nested result, adopted or not
    tried_a2 = base.copy()
    print("\n## (a) groups decided as wholes\n")
    for kind in GROUP_KINDS:
        idx = [i for i, p in enumerate(pages) if p.kind == kind]
        sub = [pages[i] for i in idx]
        f, chosen, whole = nested(sub, gl, lambda p, g: page_f1(p, g))
        after = current.copy()
        after[idx] = f
        tried_a[idx] = f
        ok, why = verdict(pages, current, after, kind)
        print(f"- estimated {kind} ({len(idx)} pages): per-fold choices {chosen}, on all folds "
              f"{whole}; {why}: {'ADOPTED' if ok and whole != (None, None) else 'not adopted'}")
        if ok and whole != (None, None):
            groups[kind] = whole
            current = after
    print("\n## (a') groups kept whole where the kind is sure\n")
    sure: dict[str, float] = {}
    gl2 = [(None, hi, q) for hi in SURE_HIS for q in SURE_QS]
    for kind in GROUP_KINDS:
        if kind in groups:
            continue
        idx = [i for i, p in enumerate(pages) if p.kind == kind]
        sub = [pages[i] for i in idx]
        f, chosen, whole = nested(sub, gl2, lambda p, g: page_f1(p, g))
        after = current.copy()
        after[idx] = f
        tried_a2[idx] = f
        ok, why = verdict(pages, current, after, kind)
        on = whole[1] is not None
        print(f"- estimated {kind} ({len(idx)} pages): per-fold choices {chosen}, on all folds "
              f"{whole}; {why}: {'ADOPTED' if ok and on else 'not adopted'}")
        if ok and on:
            groups[kind] = (None, whole[1])
            sure[kind] = whole[2]
            current = after
    after_a = current.copy()
    print("\n## (b) JSON-LD text where the kept blocks miss it\n")
    jsonld: dict[str, float] = {}
    tried_b = current.copy()

    def rule_of(p: PageData) -> tuple[float | None, ...] | None:
        g = groups.get(p.kind)
        return None if g is None else (*g, sure.get(p.kind, 0.0))

    empty = np.array([p.m is not None and not keep_of(p, rule_of(p)).any() for p in pages])
    for kind in (*JSONLD_KINDS, "empty"):
        idx = [i for i, p in enumerate(pages) if (p.kind == kind if kind != "empty" else True)]
        sub = [pages[i] for i in idx]

        def fn(p: PageData, c: float | None, kind: str = kind) -> float:
            if kind == "empty" and p.kind in jsonld:  # its kind's rule first, as kinds.after_cut
                return page_f1(p, rule_of(p), jsonld[p.kind])
            return page_f1(p, rule_of(p), c, only_empty=kind == "empty")

        f, chosen, whole = nested(sub, list(COVERS), fn)
        after = current.copy()
        after[idx] = f
        if kind != "empty":
            tried_b[idx] = f
        ok, why = verdict(pages, current, after, kind, empty if kind == "empty" else None)
        print(f"- {kind} ({len(idx)} pages): per-fold choices {chosen}, on all folds {whole}; "
              f"{why}: {'ADOPTED' if ok and whole is not None else 'not adopted'}")
        if ok and whole is not None:
            jsonld[kind] = whole
            current = after
    print("\n## mean F1 out of fold (nested choices)\n")
    print(table(pages, [("cut alone", base), ("groups, all four kinds", tried_a),
                        ("sure groups, all four kinds", tried_a2),
                        ("JSON-LD, all four kinds", tried_b), ("+ groups adopted", after_a),
                        ("+ JSON-LD adopted", current)]))
    if a.write:
        if not a.model:
            print("--write needs --model", file=sys.stderr)
            return 2
        from ce_filter.score.blockmodel import Model

        KindDecoding(Model.load(a.model).digest, groups, jsonld, sure=sure).save(a.write)
        print(f"\nwritten: {a.write}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
