"""What each rule after the cut (ce_filter/keep/articles.py) does on labelled corpora
(docs/research/ARTICLE_CLEANUP.md).

    python scripts/articles_study.py run ../shared/data/dragnet:test --out /tmp/art/dt.jsonl
    python scripts/articles_study.py run ../shared/data/dragnet:train ../shared/data/cleaneval-dev \\
        ../shared/data/wcxb-dev --folds-dir /tmp/art/kd --out /tmp/art/oof.jsonl
    python scripts/articles_study.py table /tmp/art/dt.jsonl /tmp/art/oof.jsonl

``run``: every page once through the real Extractor (with ``--folds-dir``, each page with the
model of the five site-grouped folds it was not in: the fold models of ``research.oofdump``);
the cut's mask is taken before the rules (``Extractor.decide``), then each rule alone, all of
them, all but the byline rule (``--bylines``) and two variants of the comments rule are applied
to it, then the thin-page rule, and the kept blocks' text is scored against the gold (mean page
token precision, recall, F1). One JSON line a page: the scores of each variant, the texts of
the blocks each rule dropped (their first 100 characters, at most 12), and the number of
paragraphs that the output repeats (6 words or 24 characters or more). ``table``: the means per
corpus and page type, and the pages that repeat a paragraph.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict

import numpy as np

from ce_filter.api import Extractor
from ce_filter.keep import articles
from ce_filter.keep.render import to_text
from ce_filter.learn.crossval import assign_folds, load_docs, site_groups
from ce_filter.learn.evaluate import token_prf
from ce_filter.read.segment import KIND_CONTAINS, token_matcher
from ce_filter.score.blockmodel import thin_page

ALL = articles.RULES
PATTERNS, MATCHER = articles.COMMENT_PATTERNS, articles._COMMENT_MATCHER
CONTAINS = PATTERNS + ((0, KIND_CONTAINS, "comment"),)
VARIANTS = {
    "base": frozenset(),
    **{r: frozenset({r}) for r in sorted(ALL)},
    "all": ALL,
    "all, --bylines": ALL - {"bylines"},
    # the comments rule with any token containing "comment", and on every kind but forum
    "comments: contains": frozenset({"comments"}),
    "comments: not forum": frozenset({"comments"}),
}


def repeated(text: str) -> int:
    paras = [q for q in text.split("\n\n") if len(q.split()) >= 6 or len(q) >= 24]
    return len(paras) - len(set(paras))


def run(a: argparse.Namespace) -> int:
    labels, docs, corpus_of = load_docs(a.corpus)
    if a.folds_dir:
        fold = assign_folds(site_groups(docs), 5, None)
        exs = [Extractor(f"{a.folds_dir}/fold{k}.json", precise=a.precise) for k in range(5)]
    else:
        fold = np.zeros(len(docs), dtype=int)
        exs = [Extractor(precise=a.precise)]
    contains = token_matcher(CONTAINS)
    with open(a.out, "w", encoding="utf-8") as f:
        for d, k, c in zip(docs, fold, corpus_of):
            ex = exs[int(k)]
            rec: dict = {"id": d.id, "corpus": labels[c], "type": d.page_type}
            articles.RULES = frozenset()
            try:
                p = ex.page(d.html, d.url or None)
            finally:
                articles.RULES = ALL
            if p.blocks is None or p.scores is None or not len(p.blocks):
                rec.update({v: list(token_prf("", d.gold)) for v in VARIANTS})
                f.write(json.dumps(rec) + "\n")
                continue
            b, kind = p.blocks, p.kind
            keep0 = ex.decide(b, p.scores, kind)[0]
            name = ex.kind_name(kind)
            rec["kind"] = name
            for v, rules in VARIANTS.items():
                if v == "comments: contains":
                    articles.COMMENT_PATTERNS, articles._COMMENT_MATCHER = CONTAINS, contains
                if v == "comments: not forum" and ex.kind_model is not None:
                    articles.COMMENT_KINDS = frozenset(ex.kind_model.kinds) - {"forum"}
                try:
                    m = articles.tidy(b, p.scores, keep0, name, rules=rules) if rules else keep0
                finally:
                    articles.COMMENT_PATTERNS, articles._COMMENT_MATCHER = PATTERNS, MATCHER
                    articles.COMMENT_KINDS = frozenset({"article"})
                if thin_page(float(b.token_counts()[m].sum()), kind, ex.model.min_words, len(p.text)):
                    m = np.zeros(len(m), dtype=bool)
                text = to_text(b, m)
                rec[v] = [round(x, 5) for x in token_prf(text, d.gold)]
                if v in ("base", "all"):
                    rec[v + " repeats"] = repeated(text)
                if v != "base":
                    rec[v + " dropped"] = [b.texts[i][:100] for i in
                                           np.flatnonzero(keep0 & ~m)[:12].tolist()]
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return 0


def table(a: argparse.Namespace) -> int:
    rows = [json.loads(line) for fn in a.files for line in open(fn, encoding="utf-8")]
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        groups[r["corpus"]].append(r)
        if r.get("type"):
            groups[f'{r["corpus"]}: {r["type"]}'].append(r)
    print("| group | pages | " + " | ".join(VARIANTS) + " | pages repeating a paragraph: base → all |")
    print("|---" * (len(VARIANTS) + 3) + "|")
    for g, rs in groups.items():
        cells = []
        for v in VARIANTS:
            p, r, f1 = np.array([x[v] for x in rs]).mean(0)
            cells.append(f"{p:.3f} / {r:.3f} / {f1:.4f}")
        dup = f'{sum(1 for x in rs if x.get("base repeats"))} → {sum(1 for x in rs if x.get("all repeats"))}'
        print(f"| {g} | {len(rs)} | " + " | ".join(cells) + f" | {dup} |")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("corpus", nargs="+")
    r.add_argument("--folds-dir", help="the five fold models (fold0.json ...) of research.oofdump")
    r.add_argument("--precise", action="store_true")
    r.add_argument("--out", required=True)
    t = sub.add_parser("table")
    t.add_argument("files", nargs="+")
    a = ap.parse_args(argv)
    return run(a) if a.cmd == "run" else table(a)


if __name__ == "__main__":
    sys.exit(main())
