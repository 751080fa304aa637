"""The Dragnet paper's Table 2 (Peters & Lecocq, WWW 2013) side by side with our reproduction.

    python -m research.table2 [--data ../shared/data] [--rows ...] [--targets paper,content]
                              [--json OUT.json]

Every row is trained here on the dragnet ``train`` pages with the paper's configuration
(``learn/configs.py``: the groups alone, no ancestor or heading tokens, no context stage, C from
{0.01, 0.1, 1, 10} by 5-fold CV over pages) and scored on

- CleanEval-EN (``cleaneval-final``), the 2012 train pages (in sample: the model on the pages it
  was fitted on) and the 2012 test pages, as the paper's three columns;
- ``big5`` 2009: not the paper's "Big 5" (see docs/research/ABLATION.md), shown for reference.

Two golds for the 2012 pages: ``paper`` (the article *and its comments*, the Dragnet paper's
extraction target, labels and scores alike) and ``content`` (the article alone, the project's
target). Two metrics: the positional word F1 of CETR (``ce_filter.learn.positional``, the
paper's) and the bag-of-words F1 (``ce_filter.learn.evaluate.token_prf``, the project's).
``ic`` rows come in two readings: ``ic`` the shipped one (features/tokens.py) and ``ic-paper``
the paper's (research/paperic.py). The baseline keeps every block.

Output: each page's text is its kept blocks' texts in page order (the threshold each fit chose
on its CV; a page with no block over it keeps its best-scored ones, as the extractor does).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ce_filter.extractor import select
from ce_filter.learn.configs import CONFIGS
from ce_filter.learn.corpus import Doc, load_corpus
from ce_filter.learn.evaluate import token_prf
from ce_filter.learn.fit import LabelledPage, prepare, train
from ce_filter.learn.positional import positional_prf
from ce_filter.read.decode import decode_html
from ce_filter.read.segment import Blocks, parse, segment
from ce_filter.score.blockmodel import Model

from .paperic import paper_selection, segment_paper

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
# (row, configuration, IC reading)
ROWS = (("baseline", "", ""), ("cetr", "cetr", ""), ("ic", "ic", "ours"), ("ic", "ic", "paper"),
        ("st", "st", ""), ("st+ic", "st+ic", "ours"), ("st+ic", "st+ic", "paper"),
        ("st+ic+cetr", "st+ic+cetr", "ours"), ("st+ic+cetr", "st+ic+cetr", "paper"))
_ROW_ORDER = ("baseline", "cetr", "ic", "st", "st+ic", "st+ic+cetr")
COLUMNS = ("cleaneval-final", "2012 train", "2012 test", "big5 2009")
# Table 2 of the paper, as far as the figures are known here (row -> column -> F1)
PAPER = {
    "baseline": {"2012 test": 0.623},
    "cetr": {"2012 test": 0.735, "cleaneval-final": 0.919},
    "ic": {"2012 test": 0.701},
    "st": {"2012 test": 0.809},
    "st+ic": {"2012 test": 0.824},
    "st+ic+cetr": {"2012 train": 0.848, "2012 test": 0.836, "cleaneval-final": 0.907},
}


# Readings of the blocks beyond the two IC ones, for the rows in EXTRA_ROWS: ``db`` the shipped
# features over blocks cut as Dragnet's blockifier cuts them (paperic.paper_segment's
# ``runs_on``), ``paper-db`` the paper's IC over those blocks
EXTRA_ROWS = (("cetr", "cetr", "db"), ("ic", "ic", "paper-db"), ("st+ic+cetr", "st+ic+cetr", "paper-db"))


@dataclass
class EvalPage:
    gold: dict[str, str]  # target -> gold text
    blocks: Blocks
    paper_blocks: Blocks
    dragnet_blocks: Blocks | None = None


@dataclass
class Result:
    row: str
    ic: str
    target: str
    # column -> metric -> (precision, recall, F1) means
    scores: dict[str, dict[str, tuple[float, float, float]]] = field(default_factory=dict)
    threshold: float = 0.0
    c: float = 0.0
    ic_tokens: list[str] = field(default_factory=list)
    seconds: float = 0.0


def use_dragnet_cetr(kmeans: bool = False) -> None:
    """Replace, in this process, the ``cetr`` group's columns by Dragnet's own (its
    ``weninger_features``: the block's characters per tag, Gaussian-smoothed, and the absolute
    smoothed derivative, no logarithm; with ``kmeans`` also the k-means verdict), computed by
    the numpy oracle's functions (the C part computes the shipped columns)."""
    import ce_filter.score.features as feats
    from tests.oracles.features_numpy import derivative, kmeans_verdict, smooth

    def columns(n_chr: np.ndarray, n_tags: np.ndarray) -> tuple[list[str], list[np.ndarray]]:
        g = smooth(n_chr / np.maximum(n_tags, 1.0))
        dg = derivative(g)
        if kmeans:
            return ["cetr_sx", "cetr_sdx", "cetr_km"], [g, dg, kmeans_verdict(g, dg)]
        return ["cetr_sx", "cetr_sdx"], [g, dg]

    feats.CETR_COLUMNS = columns


def _eval_pages(docs: list[Doc], dragnet_blocks: bool = False) -> list[EvalPage]:
    out = []
    for d in docs:
        html, _ = decode_html(d.html)
        out.append(EvalPage({"paper": d.target(True), "content": d.target(False)},
                            segment(parse(html)), segment_paper(html),
                            segment_paper(html, True) if dragnet_blocks else None))
    return out


def _dragnet_prepare(docs: list[Doc], comments: bool) -> list[LabelledPage]:
    """fit.prepare over blocks cut as Dragnet's blockifier cuts them (labelled by the plain LCS
    rule, as the paper's configurations are)."""
    from ce_filter.learn.corpus import site_of
    from ce_filter.learn.labels import block_labels, words
    from ce_filter.score.pagekind import page_signals

    out = []
    for d in docs:
        html, _ = decode_html(d.html)
        b = segment_paper(html, True)
        if not len(b):
            continue
        gold = d.target(comments)
        y, share = block_labels(b.texts, gold, runs=False)
        nw = np.array([len(words(t)) for t in b.texts], dtype=np.float64)
        out.append(LabelledPage(d.id, b, y, nw, np.round(share * nw), len(words(gold)),
                        d.domain or site_of(d.html), d.page_type,
                        page_signals(b, html, d.url or None), html_chars=len(html)))
    return out


def _paper_prepare(docs: list[Doc], comments: bool) -> list[LabelledPage]:
    """fit.prepare with the paper's blocks (the same blocks, the paper's IC tokens)."""
    base = {p.id: p for p in prepare(docs, comments=comments, rule=CONFIGS["ic"].label_rule)}
    out = []
    for d in docs:
        p = base.get(d.id)
        if p is None:
            continue
        html, _ = decode_html(d.html)
        b = segment_paper(html)
        assert b.texts == p.blocks.texts, d.id
        out.append(replace(p, blocks=b))
    return out


def _all_text(ep: EvalPage) -> str:
    """The baseline: every block."""
    return "\n".join(ep.blocks.texts)


def _chooser(model: Model, reading: str) -> Callable[[EvalPage], str]:
    """The text a model keeps of a page (its blocks at or over its cut)."""
    def choose(ep: EvalPage) -> str:
        b = (ep.dragnet_blocks if reading.endswith("db") else
             ep.paper_blocks if reading == "paper" else ep.blocks)
        assert b is not None
        if not len(b):
            return ""
        keep = select(model.block_scores(b), model.threshold)
        return "\n".join(t for t, k in zip(b.texts, keep.tolist()) if k)

    return choose


def _score(pages: list[EvalPage], target: str, choose: Callable[[EvalPage], str]
           ) -> dict[str, tuple[float, float, float]]:
    acc: dict[str, list[tuple[float, float, float]]] = {"positional": [], "bag": []}
    for ep in pages:
        text = choose(ep)
        gold = ep.gold[target]
        acc["positional"].append(positional_prf(text, gold))
        acc["bag"].append(token_prf(text, gold))
    return {m: tuple(float(np.mean([v[i] for v in vals])) for i in range(3))  # type: ignore[misc]
            for m, vals in acc.items()}


def run(data: Path, rows: list[tuple[str, str, str]], targets: list[str],
        log: bool = True, limit: int | None = None, dump: Path | None = None) -> list[Result]:
    """Every row of every target; ``dump``: rewrite the figures there after each row."""
    train_docs = list(load_corpus(data / "dragnet", "train"))[:limit]
    test_docs = list(load_corpus(data / "dragnet", "test"))[:limit]
    big5 = [d for d in load_corpus(data / "big5", None) if d.year == "2009"][:limit]
    ce = list(load_corpus(data / "cleaneval-final", None))[:limit]
    t0 = time.time()
    db = any(r[2].endswith("db") for r in rows)
    evals = {"cleaneval-final": _eval_pages(ce, db), "2012 train": _eval_pages(train_docs, db),
             "2012 test": _eval_pages(test_docs, db), "big5 2009": _eval_pages(big5, db)}
    if log:
        print(f"segmented the evaluation pages ({time.time() - t0:.0f}s)", file=sys.stderr, flush=True)
    train_pages: dict[tuple[str, str], list[LabelledPage]] = {}
    out = []
    for target in targets:
        comments = target == "paper"
        for row, config, ic in rows:
            t0 = time.time()
            res = Result(row, ic, target)
            if not config:
                choose: Callable[[EvalPage], str] = _all_text
            else:
                key = (target, ic or "ours")
                if key not in train_pages:
                    train_pages[key] = (_paper_prepare(train_docs, comments) if ic == "paper"
                                        else _dragnet_prepare(train_docs, comments)
                                        if ic.endswith("db")
                                        else prepare(train_docs, comments=comments,
                                                     rule=CONFIGS[config].label_rule))
                cfg = replace(CONFIGS[config], log=False)
                desc = {"corpora": ["dragnet:train"], "target": target, "config": config}
                if ic.startswith("paper"):
                    with paper_selection():
                        model = train(train_pages[key], cfg, name="content", data_desc=desc)
                else:
                    model = train(train_pages[key], cfg, name="content", data_desc=desc)
                res.threshold = float(model.threshold)
                res.c = float(model.meta.get("C", 0.0) or 0.0)
                res.ic_tokens = list(model.spec.ic_own)
                choose = _chooser(model, ic)
            for col, pages in evals.items():
                res.scores[col] = _score(pages, target, choose)
            res.seconds = time.time() - t0
            if log:
                f = {c: round(v["positional"][2], 3) for c, v in res.scores.items()}
                print(f"{target} {row} {ic}: {f} ({res.seconds:.0f}s)", file=sys.stderr, flush=True)
            out.append(res)
            if dump is not None:
                dump.write_text(json.dumps([r.__dict__ for r in out], indent=1))
    return out


def ic_token_counts(data: Path, comments: bool = True) -> dict[str, int]:
    """How many tokens each reading's rule keeps on the 2012 train pages (labels of ``comments``)."""
    from ce_filter.score.features.tokens import select_tokens

    from .paperic import paper_rule

    docs = list(load_corpus(data / "dragnet", "train"))
    ours = prepare(docs, comments=comments, rule=CONFIGS["ic"].label_rule)
    paper = _paper_prepare(docs, comments)
    y = np.concatenate([p.y for p in ours])
    rows_ours = [t for p in ours for t in p.blocks.own_tokens]
    rows_paper = [t for p in paper for t in p.blocks.own_tokens]
    got_p = paper_rule(rows_paper, y)
    return {"ours (1 % of all blocks, opener)": len(select_tokens(rows_ours, y, odds=2.5, min_frac=0.01)),
            "ours rule on paper tokens": len(select_tokens(rows_paper, y, odds=2.5, min_frac=0.01)),
            "paper rule on opener tokens": len(paper_rule(rows_ours, y)),
            "paper (id)": sum(t.startswith("id:") for t in got_p),
            "paper (class)": sum(t.startswith("class:") for t in got_p)}


def render(results: list[Result], metric: str = "positional") -> str:
    lines = []
    for target in dict.fromkeys(r.target for r in results):
        gold = "article + comments" if target == "paper" else "article only"
        lines.append(f"Gold of the 2012 pages: {gold}; metric: {metric} word F1.")
        lines.append("")
        lines.append("| row | IC | " + " | ".join(COLUMNS) + " | paper: " + " / ".join(COLUMNS[:3]) + " |")
        lines.append("|---|---|" + "---|" * len(COLUMNS) + "---|")
        for r in (r for r in results if r.target == target):
            cells = []
            for c in COLUMNS:
                f = r.scores[c][metric][2]
                p = PAPER.get(r.row, {}).get(c)
                cells.append(f"{f:.3f}" + (f" ({f - p:+.3f})" if p is not None else ""))
            paper = " / ".join(f"{PAPER.get(r.row, {}).get(c, '—')}" for c in COLUMNS[:3])
            lines.append(f"| {r.row} | {r.ic or '—'} | " + " | ".join(cells) + f" | {paper} |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m research.table2", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--rows", default="all", help="comma list of row[:ic] (default: all)")
    ap.add_argument("--targets", default="paper,content")
    ap.add_argument("--json", default=None, help="write the figures here")
    ap.add_argument("--render", nargs="+", default=None, help="only render these --json files")
    ap.add_argument("--tokens", action="store_true", help="only count the IC tokens of each rule")
    ap.add_argument("--limit", type=int, default=None, help="the first N pages of each corpus (a smoke run)")
    ap.add_argument("--dragnet-cetr", choices=("plain", "kmeans"), default=None,
                    help="the cetr group as Dragnet computes it (use_dragnet_cetr)")
    a = ap.parse_args(argv)
    if a.tokens:
        print(json.dumps(ic_token_counts(Path(a.data)), indent=1))
        return 0
    if a.dragnet_cetr:
        use_dragnet_cetr(a.dragnet_cetr == "kmeans")
    if a.render:
        order = [(r[0], r[2]) for r in sorted(ROWS + EXTRA_ROWS, key=lambda r: _ROW_ORDER.index(r[0]))]
        results = sorted((Result(**{**d, "scores": {c: {m: tuple(v) for m, v in ms.items()}
                                                    for c, ms in d["scores"].items()}})
                          for f in a.render for d in json.loads(Path(f).read_text())),
                         key=lambda r: (r.target, order.index((r.row, r.ic))))
    else:
        rows = list(ROWS)
        if a.rows != "all":
            want = a.rows.split(",")
            rows = [r for r in ROWS + EXTRA_ROWS if r[0] in want or f"{r[0]}:{r[2]}" in want]
        results = run(Path(a.data), rows, a.targets.split(","), limit=a.limit,
                      dump=Path(a.json) if a.json else None)
    for metric in ("positional", "bag"):
        print(render(results, metric))
    return 0


if __name__ == "__main__":
    sys.exit(main())
