"""Fit and measure the site stage (ce_filter.score.site.stage; docs/research/SITE_MEMORY.md).

    python -m ce_filter.learn.sitefit fit ../shared/data/newspaper ../shared/data/magic-html \
        ../shared/data/zh-content --out site.json
    python -m ce_filter.learn.sitefit report --stage site.json ../shared/data/big5 \
        ../shared/data/zh-finance ../shared/data/cleanportaleval

``fit``: the shipped model's block scores on the named corpora (which it was not trained on),
the order-free site columns (each page's other pages of its site), block labels by the training
rule; five folds grouped by site give the out-of-fold mean F1 with and without the stage (the
real cut, thin-page rule and metric), then the stage is fitted on all pages. ``report``: each
corpus fed grouped by site in a fixed order (site, then page id) through a streaming
SiteMemory, so each site's first page has no memory; mean F1 with and without, the site part's
cost per page and the memory's size.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict

import numpy as np

from ..api import Extractor
from ..keep.render import to_text
from ..read.segment import Blocks
from ..score.site.memory import SiteCounts, SiteMemory, block_fingerprints, host_of
from ..score.site.stage import COLUMNS, SiteStage, site_columns
from .corpus import Doc, Spec, site_of
from .crossval import assign_folds
from .evaluate import token_prf
from .labels import DEFAULT_RULE, block_labels

if TYPE_CHECKING:
    from ..score.site.memory import Memory

# Extractor.site_scores' result: the page's scores and the site inputs (fingerprints, counts,
# pages, the scores before the stage)
SiteScored = tuple[np.ndarray, tuple[np.ndarray, np.ndarray, int, np.ndarray]]
# oof's figures of one corpus: mean F1 without and with the stage, over all pages and over the
# pages with another page of their site (None where there is none)
OofRow = TypedDict("OofRow", {"pages": int, "without": float, "with": float, "multi_pages": int,
                              "multi_without": float | None, "multi_with": float | None})
# report's figures of one corpus; sites: site -> [pages, mean F1 without, mean F1 with]
SiteReport = TypedDict("SiteReport", {"pages": int, "without": float, "with": float,
                                      "site_us_per_page": float, "memory_entries": int,
                                      "memory_bytes": int, "sites": dict[str, list[float]]})


@dataclass
class SitePage:
    corpus: str
    id: str
    host: str
    blocks: Blocks
    scores: np.ndarray  # the model's block probabilities
    kind: np.ndarray | None
    html: str
    fps: np.ndarray
    y: np.ndarray
    gold: str


def site_key(corpus: str, d: Doc) -> str:
    """The page's site: the corpus's site column, else its URL host, else its canonical host;
    prefixed with the corpus (the same host in two corpora is two samples)."""
    return f"{corpus}/{d.domain or host_of(d.url) or site_of(d.html) or d.id}"


def read_pages(specs: list[str], ex: Extractor) -> list[SitePage]:
    """Every page of the corpora with its blocks, model scores, fingerprints and labels."""
    out = []
    for s in specs:
        spec = Spec.parse(s)
        for d in spec.load():
            page = ex.read(d.html)
            blocks, text_html = page.blocks, page.text
            if blocks is None or not len(blocks):
                continue
            kind, style = ex.page_context(blocks, text_html, d.url or None)
            scores = ex.model.block_scores(blocks, kind, style)
            y, _ = block_labels(blocks.texts, d.gold, runs=DEFAULT_RULE.runs, lines=DEFAULT_RULE.lines)
            out.append(SitePage(spec.label, d.id, site_key(spec.label, d), blocks, scores, kind,
                                text_html, block_fingerprints(blocks), y, d.gold))
    return out


def site_inputs(pages: list[SitePage]) -> list[tuple[np.ndarray, int]]:
    """Each page's order-free (k, n): its site's other pages."""
    counts = SiteCounts()
    for p in pages:
        counts.add(p.host, p.fps)
    return [counts.seen(p.host, p.fps) for p in pages]


def fit_logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray, c: float = 1.0, iters: int = 50
                 ) -> tuple[np.ndarray, float]:
    """L2 logistic regression (the intercept not penalised) by Newton's method: (coef, b)."""
    xa = np.column_stack((x, np.ones(len(x))))
    beta = np.zeros(xa.shape[1])
    beta[0] = 1.0 if x.shape[1] and COLUMNS[0] == "logit" else 0.0  # start at the model's own scores
    pen = np.full(xa.shape[1], 1.0 / c)
    pen[-1] = 0.0
    for _ in range(iters):
        z = xa @ beta
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))
        g = xa.T @ (w * (p - y)) + pen * beta
        h = (xa * (w * p * (1 - p))[:, None]).T @ xa + np.diag(pen)
        step = np.linalg.solve(h, g)
        beta -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return beta[:-1], float(beta[-1])


def fit_stage(pages: list[SitePage], inputs: list[tuple[np.ndarray, int]],
              meta: dict[str, object] | None = None) -> SiteStage:
    """The stage fitted on the blocks of the pages with n > 0 (block weight 1, each page's
    scaled by (mean page total / page total)^0.5)."""
    xs, ys, ws = [], [], []
    for p, (k, n) in zip(pages, inputs):
        if n <= 0:
            continue
        xs.append(site_columns(p.scores, p.fps, k, n))
        ys.append(p.y.astype(np.float64))
        ws.append(np.full(len(p.y), 1.0))
    if not xs:
        raise ValueError("no page has another page of its site: nothing to fit the stage on")
    totals = np.array([len(w) for w in ws], dtype=np.float64)
    scale = (totals.mean() / totals) ** 0.5
    coef, b = fit_logistic(np.vstack(xs), np.concatenate(ys),
                           np.concatenate([w * s for w, s in zip(ws, scale)]))
    return SiteStage(np.round(coef, 9), round(b, 9), meta=meta)


def page_f1(ex: Extractor, p: SitePage, scores: np.ndarray) -> float:
    """The page's token F1 with these block scores (the extractor's cut and thin-page rule)."""
    keep, _ = ex.keep(p.blocks, scores, p.kind, len(p.html))
    text = to_text(p.blocks, keep)
    return token_prf(text, p.gold)[2]


def oof(pages: list[SitePage], inputs: list[tuple[np.ndarray, int]], ex: Extractor, folds: int = 5
        ) -> dict[str, OofRow]:
    """Out-of-fold mean F1 with and without the stage, per corpus and on multi-page sites."""
    hosts = {h: i for i, h in enumerate(sorted({p.host for p in pages}))}
    fold = assign_folds(np.array([hosts[p.host] for p in pages]), folds)
    base = np.array([page_f1(ex, p, p.scores) for p in pages])
    site = base.copy()
    for f in range(folds):
        tr = [i for i in range(len(pages)) if fold[i] != f]
        stage = fit_stage([pages[i] for i in tr], [inputs[i] for i in tr])
        for i in np.flatnonzero(fold == f):
            k, n = inputs[i]
            if n > 0:
                site[i] = page_f1(ex, pages[i], stage.apply(pages[i].scores, pages[i].fps, k, n))
    multi = np.array([n > 0 for _, n in inputs])
    rows: dict[str, OofRow] = {}
    for c in sorted({p.corpus for p in pages}) + ["all"]:
        m = np.array([c in ("all", p.corpus) for p in pages])
        mm = m & multi
        rows[c] = {"pages": int(m.sum()), "without": float(base[m].mean()), "with": float(site[m].mean()),
                   "multi_pages": int(mm.sum()),
                   "multi_without": float(base[mm].mean()) if mm.any() else None,
                   "multi_with": float(site[mm].mean()) if mm.any() else None}
    return rows


def adopted(rows: dict[str, OofRow]) -> bool:
    """The rule of docs/research/SITE_MEMORY.md, written before the run."""
    a = rows["all"]
    per = all(r["with"] >= r["without"] - 0.002 for c, r in rows.items() if c != "all")
    return a["with"] >= a["without"] and per and (a["multi_with"] or 0) > (a["multi_without"] or 0)


def report(specs: list[str], stage: SiteStage, window: int = 50) -> dict[str, SiteReport]:
    """Each corpus streamed grouped by site: mean F1 without and with the memory, the site
    part's time per page and the memory's size."""
    out: dict[str, SiteReport] = {}
    for s in specs:
        spec = Spec.parse(s)
        docs = sorted(spec.load(), key=lambda d: (site_key(spec.label, d), d.id))
        plain = Extractor()
        mem = Extractor(site_memory=SiteMemory(pages=window))
        mem.site_stage = stage
        spent = [0.0]
        site_part = mem.site_scores
        prints: list[tuple[str, np.ndarray]] = []

        def timed(memory: Memory, blocks: Blocks, scores: np.ndarray, url: str | None,
                  site: str | None = None,
                  _f: Callable[[Memory, Blocks, np.ndarray, str | None, str | None], SiteScored] = site_part,
                  spent: list[float] = spent, prints: list[tuple[str, np.ndarray]] = prints) -> SiteScored:
            t0 = time.perf_counter()
            r = _f(memory, blocks, scores, url, site)
            spent[0] += time.perf_counter() - t0
            prints.append((site or host_of(url), r[1][0]))
            return r

        mem.site_scores = timed  # type: ignore[method-assign,assignment]
        f0: list[float] = []
        f1: list[float] = []
        per_site: dict[str, list[tuple[float, float]]] = {}
        for d in docs:  # the URL where the corpus has one (the page kind reads it), as evaluate
            key = site_key(spec.label, d)
            a = token_prf(plain.extract(d.html, d.url or None).text, d.gold)[2]
            b = token_prf(mem.extract(d.html, d.url or None, site=key).text, d.gold)[2]
            f0.append(a)
            f1.append(b)
            per_site.setdefault(key, []).append((a, b))
        tracemalloc.start()
        replay = SiteMemory(pages=window)
        for h, fps in prints:
            replay.observe(h, fps)
        size, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        out[spec.label] = {
            "pages": len(docs), "without": float(np.mean(f0)), "with": float(np.mean(f1)),
            "site_us_per_page": 1e6 * spent[0] / max(len(docs), 1),
            "memory_entries": replay.entries, "memory_bytes": size,
            "sites": {k: [len(v), float(np.mean([x[0] for x in v])), float(np.mean([x[1] for x in v]))]
                      for k, v in per_site.items()},
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ce_filter.learn.sitefit", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fit", help="out-of-fold figures, then the stage fitted on all pages")
    f.add_argument("corpora", nargs="+")
    f.add_argument("--out", help="write the stage (JSON, tied to the shipped model's digest)")
    r = sub.add_parser("report", help="report-only corpora streamed by site, with and without")
    r.add_argument("corpora", nargs="+")
    r.add_argument("--stage", required=True, help="a stage file written by fit")
    r.add_argument("--pages", type=int, default=50, help="pages remembered per host")
    a = ap.parse_args(argv)
    if a.cmd == "fit":
        ex = Extractor()
        pages = read_pages(a.corpora, ex)
        inputs = site_inputs(pages)
        rows = oof(pages, inputs, ex)
        ok = adopted(rows)
        print(json.dumps({"oof": rows, "adopted": ok}, indent=1))
        stage = fit_stage(pages, inputs, meta={"corpora": [Spec.parse(c).label for c in a.corpora],
                                                "pages": len(pages), "adopted_by_rule": ok})
        stage.model_digest = ex.model.digest
        print(json.dumps(stage.to_json(), indent=1))
        if a.out:
            with open(a.out, "w", encoding="utf-8") as fh:
                fh.write(json.dumps(stage.to_json(), indent=1, sort_keys=True) + "\n")
        return 0
    with open(a.stage, encoding="utf-8") as fh:
        stage = SiteStage.from_json(json.load(fh))
    print(json.dumps(report(a.corpora, stage, a.pages), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
