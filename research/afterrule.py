"""The after-article run rule and its out-of-fold evaluation over an oofdump,
by the adoption rule of docs/research/ARTICLE_PRECISION.md: the grid point chosen by nested
cross-validation over the dump's folds on the article pages, then every page scored before and
after (page F1 of the kept blocks' text against the gold, the same computation both times).

    python -m research.afterrule /tmp/art/kd/pages.jsonl.gz \\
        --confirm /tmp/art/ship/pages.jsonl.gz

The rule: on article pages most of what the cut keeps and the gold leaves out comes after the
article's last paragraph (related teasers, "more from" lists, author boxes). The kept blocks are
split into runs at gaps of at least ``gap`` dropped words; the run with the most kept words is
the main one; each later run whose mean block probability is below ``level`` is dropped whole.
It was not adopted (the study's record says why), so it lives here, not in the extractor.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np

from ce_filter.read.words import tokens as words
from research.articlestudy import is_article, read_dump


def after_runs(keep: np.ndarray, scores: np.ndarray, counts: np.ndarray, gap: float, level: float
               ) -> np.ndarray:
    """The mask of the kept blocks the rule drops (all False where it drops none); ``counts``:
    each block's words."""
    keep = np.asarray(keep, dtype=bool)
    out = np.zeros(len(keep), dtype=bool)
    k = np.flatnonzero(keep)
    if len(k) < 2:
        return out
    w = np.asarray(counts, dtype=np.float64)
    dropped = np.cumsum(np.where(keep, 0.0, w))
    new_run = (dropped[k[1:]] - dropped[k[:-1]]) >= gap  # words dropped between kept neighbours
    run = np.concatenate(([0], np.cumsum(new_run)))
    if run[-1] == 0:
        return out
    run_words = np.bincount(run, weights=w[k])
    main = int(np.argmax(run_words))
    mean = np.bincount(run, weights=np.asarray(scores, dtype=np.float64)[k]) / np.bincount(run)
    out[k] = (run > main) & (mean[run] < level)
    return out


GAPS = (5.0, 10.0, 20.0, 40.0, 80.0)
LEVELS = (0.5, 0.6, 0.7, 0.8, 0.9, 1.01)
GRID: list[tuple[float, float] | None] = [None, *itertools.product(GAPS, LEVELS)]


@dataclass
class Page:
    """What the rule and the metric need of one dumped page."""

    group: str  # corpus, or "corpus: type" for typed pages
    article: bool
    fold: int
    is_article_kind: bool  # the page-kind model's most probable kind is article
    keep: np.ndarray
    score: np.ndarray
    words: np.ndarray
    toks: list[Counter[str]]
    gold: Counter[str]
    n_gold: int

    def prf(self, keep: np.ndarray) -> tuple[float, float, float]:
        """Precision, recall and F1 of the kept blocks' tokens (evaluate.token_prf's)."""
        pred: Counter[str] = Counter()
        for i in np.flatnonzero(keep):
            pred.update(self.toks[i])
        n_p = sum(pred.values())
        if n_p == 0 and self.n_gold == 0:
            return 1.0, 1.0, 1.0
        if n_p == 0 or self.n_gold == 0:
            return 0.0, 0.0, 0.0
        inter = sum((pred & self.gold).values())
        p, r = inter / n_p, inter / self.n_gold
        return p, r, (2 * p * r / (p + r) if inter else 0.0)


def load(path: str, kinds_article: int = 0) -> list[Page]:
    """The dump's pages (pages without blocks keep an empty mask)."""
    out = []
    for rec in read_dump([path]):
        n = int(rec.get("blocks") or 0)
        kind = rec.get("kind")
        g = Counter(words(rec.get("gold") or ""))
        group = f"{rec['corpus']}: {rec['page_type']}" if rec.get("page_type") else rec["corpus"]
        out.append(Page(
            group, is_article(rec), int(rec.get("fold", -1)),
            kind is not None and int(np.argmax(kind)) == kinds_article,
            np.asarray(rec["keep"] if n else [], dtype=bool),
            np.asarray(rec["score"] if n else [], dtype=np.float64),
            np.asarray(rec["words"] if n else [], dtype=np.float64),
            [Counter(words(t)) for t in (rec["text"] if n else [])], g, sum(g.values())))
    return out


def apply(p: Page, point: tuple[float, float] | None) -> np.ndarray:
    """The page's kept mask under the rule at ``point`` (None: the cut's)."""
    if point is None or not p.is_article_kind or not len(p.keep):
        return p.keep
    return p.keep & ~after_runs(p.keep, p.score, p.words, *point)


def prf_table(pages: list[Page]) -> dict[tuple[float, float] | None, np.ndarray]:
    """Per grid point, each page's (P, R, F1) under the rule: pages x 3."""
    out = {}
    base = np.array([p.prf(p.keep) for p in pages])
    for point in GRID:
        rows = base.copy()
        for i, p in enumerate(pages):
            m = apply(p, point)
            if m is not p.keep and not np.array_equal(m, p.keep):
                rows[i] = p.prf(m)
        out[point] = rows
    return out


def nested(pages: list[Page], table: dict[Any, np.ndarray]) -> tuple[np.ndarray, dict[int, Any]]:
    """(each page's (P, R, F1) under the point chosen on the other folds' article pages, the
    point chosen per fold)."""
    folds = np.array([p.fold for p in pages])
    art = np.array([p.article for p in pages])
    out = table[None].copy()
    chosen = {}
    for k in sorted(set(folds.tolist())):
        train = art & (folds != k)
        best = max(GRID, key=lambda pt: (table[pt][train, 2].sum(), pt is None))
        chosen[k] = best
        out[folds == k] = table[best][folds == k]
    return out, chosen


def report(pages: list[Page], before: np.ndarray, after: np.ndarray, title: str) -> str:
    """Markdown rows: per group (and the pooled article pages), pages, mean P / R / F1 before
    and after, the change of F1."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(pages):
        groups[p.group].append(i)
        if p.article:
            groups["article pages (pooled)"].append(i)
    lines = [f"| {title} | pages | P / R / F1 before | P / R / F1 after | ΔF1 |", "|---|---|---|---|---|"]
    for g in sorted(groups):
        ix = groups[g]
        b, a = before[ix].mean(0), after[ix].mean(0)
        lines.append(f"| {g} | {len(ix)} | {b[0]:.4f} / {b[1]:.4f} / {b[2]:.4f} | "
                     f"{a[0]:.4f} / {a[1]:.4f} / {a[2]:.4f} | {a[2] - b[2]:+.4f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m research.afterrule", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dump", help="the out-of-fold oofdump (pages.jsonl.gz)")
    ap.add_argument("--confirm", nargs="*", default=[],
                    help="held-out dumps scored at the point chosen on all folds")
    ap.add_argument("--write", default=None, metavar="DIR",
                    help="write each dump again into DIR with the kept masks of the rule at the "
                         "point chosen on all folds (for articlestudy --against)")
    a = ap.parse_args(argv)
    pages = load(a.dump)
    if not any(p.article for p in pages):
        print("afterrule: no article pages in the dump", file=sys.stderr)
        return 1
    table = prf_table(pages)
    after, chosen = nested(pages, table)
    art = np.array([p.article for p in pages])
    full = max(GRID, key=lambda pt: (table[pt][art, 2].sum(), pt is None))
    print("points chosen per fold (gap words, level):", chosen)
    print("point chosen on all folds:", full)
    print()
    print(report(pages, table[None], after, "out of fold, nested"))
    for path in a.confirm:
        held = load(path)
        hb = np.array([p.prf(p.keep) for p in held])
        ha = np.array([p.prf(apply(p, full)) for p in held])
        print()
        print(report(held, hb, ha, f"held out at {full}"))
    if a.write:
        for path in [a.dump, *a.confirm]:
            write_applied(path, full, a.write)
    return 0


def write_applied(path: str, point: tuple[float, float] | None, folder: str) -> str:
    """A copy of the dump at ``path`` in ``folder`` (named after the dump's folder) whose kept
    masks are the rule's at ``point`` (the records' ``f1`` stay the cut's)."""
    import gzip
    import json
    import os

    os.makedirs(folder, exist_ok=True)
    out = os.path.join(folder, os.path.basename(os.path.dirname(os.path.abspath(path))) + ".jsonl.gz")
    with gzip.open(out, "wt", encoding="utf-8") as f:
        for rec in read_dump([path]):
            kind = rec.get("kind")
            if point is not None and rec.get("blocks") and kind is not None and int(np.argmax(kind)) == 0:
                keep = np.asarray(rec["keep"], dtype=bool)
                drop = after_runs(keep, np.asarray(rec["score"]), np.asarray(rec["words"]), *point)
                rec["keep"] = (keep & ~drop).astype(np.int64).tolist()
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return out


if __name__ == "__main__":
    raise SystemExit(main())
