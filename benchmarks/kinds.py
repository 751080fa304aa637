"""Per page kind: ce-filter out of fold beside every peer, and the page-kind model out of fold.

The quality bench (``ce-filter bench --quality``) scores every tool per page type where the
corpus has types (wcxb-dev). ce-filter's row there is the shipped model, which was trained on
wcxb-dev: in sample. Given the per-page figures of an out-of-fold run (``--oof PAGES.tsv``, the
file ``ce-filter evaluate --cv ... --pages PAGES.tsv`` writes: every training page scored by a
model trained without its site), the bench adds for each corpus of that file:

- per page type: pages, ce-filter out of fold, the shipped model (in sample), each peer's mean
  F1, the best peer and ce-filter's out-of-fold distance to it (out of fold minus best peer:
  positive is ahead);
- the page-kind model's confusion out of fold: the corpus's page type against the kind the fold
  model's own page-kind model (fitted on the other folds' pages) estimated, with each type's
  recall;
- the out-of-fold mean F1 per page type, split by whether the kind was estimated right.

Only the standard library and the bench's own modules are imported here.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .report import num, table

if TYPE_CHECKING:
    from ce_filter.learn.evaluate import ScoreFigures

# The page types in the order the tables show them (ce_filter.learn.evaluate.PAGE_TYPES; the
# page-kind model's KINDS are the same seven)
PAGE_TYPES = ("article", "documentation", "service", "forum", "collection", "listing", "product")
NONE = "none"  # the column of pages without an estimated kind (no text to read one from)


@dataclass(frozen=True)
class OofPage:
    """One page's out-of-fold figures: its corpus label, id, page type (the corpus's), F1, and
    the kind the fold's model estimated ('' where none)."""

    corpus: str
    page: str
    page_type: str
    f1: float
    kind: str = ""


def read_oof(path: str, cut: str = "default") -> list[OofPage]:
    """The rows of ``cut`` in an ``evaluate --cv --pages`` file (a file without the ``kind``
    column, from an older run, gives '' kinds)."""
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    if rows and not {"cut", "corpus", "page", "page_type", "f1"} <= set(rows[0]):
        raise ValueError(f"{path}: not the per-page file of `ce-filter evaluate --cv --pages`")
    return [OofPage(r["corpus"], r["page"], r["page_type"], float(r["f1"]), r.get("kind") or "")
            for r in rows if r["cut"] == cut]


def _order(kinds: Iterable[str]) -> list[str]:
    got = set(kinds) - {""}
    return [k for k in PAGE_TYPES if k in got] + sorted(got - set(PAGE_TYPES))


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _signed(x: float | None) -> str:
    return "—" if x is None else f"{x:+.3f}"


@dataclass(frozen=True)
class KindRow:
    """One row of the per-kind table: the page type ('all' for the corpus), pages out of fold,
    ce-filter's out-of-fold and in-sample mean F1, each peer's, the best peer and the
    distance (out of fold minus the best peer's)."""

    kind: str
    pages: int
    oof: float | None
    shipped: float | None
    peers: dict[str, float | None]
    best: str | None
    distance: float | None


def kind_rows(oof: list[OofPage], rows: Mapping[str, ScoreFigures], ours: str,
              peers: list[str]) -> list[KindRow]:
    """Per page type of ``oof`` (then 'all'): the figures of ``KindRow``. ``rows``: the quality
    bench's row of each tool on this corpus (``ours`` is ce-filter's, in sample); a peer whose
    row is an error, or has no figure for a type, is left out of that type's best."""
    def figure(tool: str, kind: str) -> float | None:
        r = rows.get(tool)
        if r is None or "error" in r:
            return None
        if kind == "all":
            return r.get("mean_f1")
        return r.get("by_type", {}).get(kind, {}).get("mean_f1")

    out = []
    for kind in [*_order(p.page_type for p in oof), "all"]:
        pages = [p.f1 for p in oof if kind == "all" or p.page_type == kind]
        f = {t: figure(t, kind) for t in peers}
        ran = {t: v for t, v in f.items() if v is not None}
        best = max(ran, key=lambda t: ran[t]) if ran else None  # ties: the first in ``peers``
        mean = _mean(pages)
        dist = mean - ran[best] if best is not None and mean is not None else None
        out.append(KindRow(kind, len(pages), mean, figure(ours, kind), f, best, dist))
    return out


def kind_table(krows: list[KindRow], peers: list[str], ours: str = "ce-filter") -> str:
    head = (["page type", "pages", f"{ours} out of fold", f"{ours} shipped (in sample)"]
            + peers + ["best peer", "out of fold − best peer"])
    body = []
    for r in krows:
        body.append([r.kind, str(r.pages), num(r.oof, ".3f"), num(r.shipped, ".3f")]
                    + [num(r.peers[t], ".3f") for t in peers]
                    + [f"{r.best} ({num(r.peers[r.best], '.3f')})" if r.best else "—",
                       _signed(r.distance)])
    return table(head, body)


def confusion(oof: list[OofPage]) -> tuple[list[str], list[str], dict[tuple[str, str], int]]:
    """(true types, estimated kinds (``NONE`` last where a page has none), counts by (true,
    estimated)) of the pages with a page type."""
    typed = [p for p in oof if p.page_type]
    true = _order(p.page_type for p in typed)
    est = _order([p.kind for p in typed] + true)
    if any(not p.kind for p in typed):
        est.append(NONE)
    counts: dict[tuple[str, str], int] = {}
    for p in typed:
        key = (p.page_type, p.kind or NONE)
        counts[key] = counts.get(key, 0) + 1
    return true, est, counts


def confusion_table(oof: list[OofPage]) -> str:
    """True page type (rows) x estimated kind (columns), each type's pages and recall, the
    pages estimated as each kind and that kind's precision, and the accuracy."""
    true, est, counts = confusion(oof)
    body = []
    for t in true:
        n = sum(counts.get((t, e), 0) for e in est)
        right = counts.get((t, t), 0)
        body.append([t] + [str(counts.get((t, e), 0)) for e in est]
                    + [str(n), num(right / n if n else None, ".3f")])
    col = {e: sum(counts.get((t, e), 0) for t in true) for e in est}
    total = sum(col.values())
    right = sum(counts.get((t, t), 0) for t in true)
    body.append(["estimated as"] + [str(col[e]) for e in est] + [str(total), ""])
    body.append(["precision"] + [num(counts.get((e, e), 0) / col[e] if col[e] and e in true else None, ".3f")
                                 for e in est] + ["", ""])
    body.append(["accuracy", *([""] * len(est)), "", num(right / total if total else None, ".3f")])
    return table(["page type \\ estimated"] + est + ["pages", "recall"], body)


@dataclass(frozen=True)
class SplitRow:
    """Out-of-fold mean F1 of a page type's pages whose kind was estimated right, and of the
    others; the difference (right minus wrong)."""

    kind: str
    right: int
    right_f1: float | None
    wrong: int
    wrong_f1: float | None

    @property
    def difference(self) -> float | None:
        if self.right_f1 is None or self.wrong_f1 is None:
            return None
        return self.right_f1 - self.wrong_f1


def split_rows(oof: list[OofPage]) -> list[SplitRow]:
    typed = [p for p in oof if p.page_type]
    out = []
    for kind in [*_order(p.page_type for p in typed), "all"]:
        these = [p for p in typed if kind == "all" or p.page_type == kind]
        r = [p.f1 for p in these if p.kind == p.page_type]
        w = [p.f1 for p in these if p.kind != p.page_type]
        out.append(SplitRow(kind, len(r), _mean(r), len(w), _mean(w)))
    return out


def split_table(oof: list[OofPage]) -> str:
    body = [[s.kind, str(s.right), num(s.right_f1, ".3f"), str(s.wrong), num(s.wrong_f1, ".3f"),
             _signed(s.difference)] for s in split_rows(oof)]
    return table(["page type", "kind right: pages", "mean F1", "kind wrong: pages", "mean F1",
                  "right − wrong"], body)


def oof_parts(label: str, oof: list[OofPage], rows: Mapping[str, ScoreFigures], tools: list[str],
              ours: str = "ce-filter") -> list[str]:
    """The markdown parts for one corpus: the per-kind table against the peers, and where
    the file has page types and estimated kinds, the confusion and the split by it."""
    if not oof:
        return []
    from .peers import OURS

    peers = [t for t in tools if t not in OURS]
    parts = [f"ce-filter out of fold against the best peer, per page type ({label}; "
             f"{len(oof)} pages out of fold):",
             kind_table(kind_rows(oof, rows, ours, peers), peers, ours)]
    typed = [p for p in oof if p.page_type]
    if typed and any(p.kind for p in typed):
        parts += [f"The page-kind model out of fold ({label}): page type against estimated kind:",
                  confusion_table(oof),
                  f"Out-of-fold mean F1 by whether the kind was estimated right ({label}):",
                  split_table(oof)]
    return parts
