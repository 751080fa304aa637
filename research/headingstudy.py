"""The boilerplate-heading list (features/headings.py) against a longer candidate list.

    python -m research.headingstudy stats [--data ../shared/data]
    python -m research.headingstudy cv --words base|all|shipped|LIST --pages OUT.tsv
    python -m research.headingstudy attribute BASE.tsv VARIANT.tsv [--words all]

``stats``: on every trainable corpus, each candidate phrase's headings (a heading block of at
most HEADING_MAX_WORDS words whose lower-cased text the phrase matches, the same rule as the
``head_lex`` column) and the blocks they govern (the blocks up to the next heading): how many,
on how many sites, and which share of the governed words the training labels call content.
``cv``: the shipped configuration fitted on dragnet train, cleaneval-dev and wcxb-dev with the
lexicon replaced for the run, and its own cross-validation (5 folds grouped by site; stage 1,
stage 2 and the thin-page rule out of fold; page F1 from the LCS counts, the training's proxy of
the metric: ``meta.cv`` of a model file) per corpus and per page. ``--words``: ``base`` the
list before the study, ``all`` it and every candidate, a comma list of candidates added to it,
or ``shipped`` (features/headings.py's); ``--pages`` writes each page's out-of-fold figure.
``attribute``: the paired per-page F1 difference of two such runs, overall and on the pages
where each candidate phrase is a heading (the pages it can change).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ce_filter.read.segment import HEADINGS
from ce_filter.score.features import dense, headings
from tests.oracles.headings_regex import boiler_heading

# Section titles over what is not the main content that the list before the study (PREVIOUS)
# does not match. The first group is the phrases named from the MSc thesis's Appendix A; the
# rest are section titles of the same kind commonly found on news, blog and shop pages.
THESIS_NAMED = ("further reading", "editor's choice", "editors' choice", "editor’s choice",
                "editors’ choice", "references", "you may like", "paid content")
CANDIDATES = THESIS_NAMED + (
    "editor's picks", "editors' picks", "editor’s picks", "editors’ picks", "you might like",
    "you may be interested", "you might be interested", "we recommend", "promoted content",
    "promoted stories", "partner content", "from our partners", "more like this",
    "what to read next", "don't miss", "don’t miss", "in case you missed", "other stories",
    "more articles", "top picks", "external links", "bibliography", "footnotes", "sources",
    "notes", "join the conversation", "what others are reading", "around the site",
    "related topics", "topics", "previous post", "next post", "about us", "contact us",
    "quick links", "resources", "copyright", "more videos", "watch next", "featured",
    "best of", "explore")
# the candidates the study adopted (features/headings.py has them since); PREVIOUS: the list
# before, the base every run here is compared with
ADOPTED = ("editor's picks", "you might like", "more like this", "don't miss", "don\u2019t miss",
           "in case you missed", "more articles", "footnotes", "topics", "previous post",
           "next post", "contact us", "featured")
PREVIOUS = tuple(w for w in headings.BOILER_WORDS if w not in ADOPTED)
DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
TRAIN = ("dragnet:train", "cleaneval-dev", "wcxb-dev")
TRAINABLE = TRAIN + ("magic-html", "newspaper", "zh-content")
SHIPPED = "best+kind+pn.5+w1+shop05+ic30+thin"


def lexicon(words: tuple[str, ...]) -> re.Pattern[str]:
    """The head_lex regex of a word list (the C part's matches: tests/oracles/headings_regex.py),
    for the study's per-phrase counts."""
    return boiler_heading(words)


def use(words: tuple[str, ...]) -> None:
    """Replace the lexicon in this process (the features' C part reads it)."""
    dense.use_lexicon(words)


def resolve(spec: str) -> tuple[str, ...]:
    """``base``: the list before the study (PREVIOUS); ``shipped``: features/headings.py's;
    ``all``: PREVIOUS and every candidate; else PREVIOUS and a comma list of candidates."""
    base = PREVIOUS
    if spec == "base":
        return base
    if spec == "shipped":
        return tuple(headings.BOILER_WORDS)
    if spec == "all":
        return base + tuple(w for w in CANDIDATES if w not in base)
    add = tuple(w.strip() for w in spec.split(",") if w.strip())
    unknown = [w for w in add if w not in CANDIDATES]
    if unknown:
        raise SystemExit(f"not candidates: {unknown}")
    return base + add


def _heading_hits(texts: Sequence[str], tag: list[int] | np.ndarray, n_tok: list[int],
                  phrases: dict[str, re.Pattern[str]]) -> dict[str, list[tuple[int, int]]]:
    """Per phrase, the (heading index, end of its governed run) of the page's headings it
    matches."""
    tag = np.asarray(tag)
    hs = [i for i, t in enumerate(tag.tolist()) if t in HEADINGS]
    out: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for j, i in enumerate(hs):
        if n_tok[i] > headings.HEADING_MAX_WORDS:
            continue
        low = texts[i].lower()
        end = hs[j + 1] if j + 1 < len(hs) else len(texts)
        for w, rx in phrases.items():
            if rx.search(low):
                out[w].append((i, end))
    return out


def stats(data: Path) -> str:
    from ce_filter.learn.corpus import Spec
    from ce_filter.learn.fit import prepare

    phrases = {w: lexicon((w,)) for w in CANDIDATES}
    base_rx = lexicon(PREVIOUS)
    agg: dict[str, dict[str, float]] = {w: defaultdict(float) for w in CANDIDATES}
    sites: dict[str, set[str]] = {w: set() for w in CANDIDATES}
    tot: dict[str, float] = defaultdict(float)
    for spec in TRAINABLE:
        c = Spec.parse(f"{data}/{spec}")
        pages = prepare(c.load())
        print(f"{c.label}: {len(pages)} pages", file=sys.stderr, flush=True)
        for p in pages:
            n_tok = p.n_words.astype(int).tolist()
            hits = _heading_hits(p.blocks.texts, p.blocks.tag, n_tok, phrases)
            # the previous list's governed words, for the reference row
            for runs in _heading_hits(p.blocks.texts, p.blocks.tag, n_tok,
                                      {"(before)": base_rx}).values():
                for i, end in runs:
                    nw = p.n_words[i + 1:end]
                    tot["headings"] += 1
                    tot["words"] += float(nw.sum())
                    tot["content"] += float((nw * p.y[i + 1:end]).sum())
            for w, runs in hits.items():
                a = agg[w]
                sites[w].add(p.site or p.id)
                a["pages"] += 1
                for i, end in runs:
                    nw = p.n_words[i + 1:end]
                    a["headings"] += 1
                    a["already"] += base_rx.search(p.blocks.texts[i].lower()) is not None
                    a["head_content"] += float(p.y[i])
                    a["words"] += float(nw.sum())
                    a["content"] += float((nw * p.y[i + 1:end]).sum())
    lines = ["| phrase | headings | already matched | pages | sites | governed words | "
             "content share of governed words | heading itself content |",
             "|---|---|---|---|---|---|---|---|"]
    lines.append(f"| (the list before) | {int(tot['headings'])} |  |  |  | {int(tot['words'])} | "
                 f"{tot['content'] / max(tot['words'], 1):.3f} |  |")
    for w in CANDIDATES:
        a = agg[w]
        if not a["headings"]:
            lines.append(f"| {w} | 0 |  |  |  |  |  |  |")
            continue
        lines.append(f"| {w} | {int(a['headings'])} | {int(a['already'])} | {int(a['pages'])} | "
                     f"{len(sites[w])} | {int(a['words'])} | "
                     f"{a['content'] / max(a['words'], 1):.3f} | "
                     f"{a['head_content'] / a['headings']:.2f} |")
    return "\n".join(lines)


def cv(data: Path, words: tuple[str, ...], out: str | None) -> str:
    """The shipped configuration fitted on the three training corpora under ``words``: its own
    5-fold CV grouped by site (stage 1, stage 2 and the thin-page rule out of fold; page F1
    from the LCS counts, the training's proxy of the metric). ``out``: each page's figure."""
    from ce_filter.learn import fit
    from ce_filter.learn.configs import CONFIGS
    from ce_filter.learn.crossval import load_docs

    use(words)
    seen: dict[str, Any] = {}
    original = fit.choose_min_words

    def spy(pages: list[fit.LabelledPage], per: list[np.ndarray], threshold: float,
            limits: tuple[int, ...]) -> tuple[int, dict[str, float]]:
        seen.update(pages=pages, per=per, threshold=threshold)
        return original(pages, per, threshold, limits)

    fit.choose_min_words = spy
    labels, docs, _ = load_docs([f"{data}/{s}" for s in TRAIN])
    cfg = CONFIGS[SHIPPED]
    pages = fit.prepare(docs, rule=cfg.label_rule)
    model = fit.train(pages, cfg, name="content", data_desc={"corpora": labels})
    pages_, per, thr = seen["pages"], seen["per"], float(seen["threshold"])
    f = fit.page_prf(pages_, per, thr)[:, 2]
    by: dict[str, list[float]] = defaultdict(list)
    rows = []
    for p, v in zip(pages_, f.tolist()):
        c = p.id.split("/", 1)[0]
        by[c].append(v)
        rows.append(f"default\t{c}\t{p.id}\t{p.page_type}\t0\t0\t{v:.6f}\t0\t\t{p.site}\n")
    if out:
        with open(out, "w", encoding="utf-8") as fh:
            fh.write("cut\tcorpus\tpage\tpage_type\tprecision\trecall\tf1\tempty\tlang\tsite\n")
            fh.writelines(rows)
    means = {c: float(np.mean(v)) for c, v in by.items()}
    return (json.dumps({"cv": model.meta["cv"], "threshold": thr, "by_corpus": means,
                        "mean_of_corpora": float(np.mean(list(means.values()))),
                        "all_pages": float(f.mean())}, indent=1) + "\n")


def _read_pages(path: str) -> dict[str, tuple[str, float]]:
    out = {}
    with open(path, encoding="utf-8") as f:
        next(f)
        for line in f:
            c = line.rstrip("\n").split("\t")
            if c[0] == "default":
                out[c[2]] = (c[1], float(c[6]))
    return out


def attribute(data: Path, base: str, variant: str, words: tuple[str, ...]) -> str:
    """Per candidate: the pages where it heads a section, their mean F1 in both runs."""
    from ce_filter.learn.crossval import load_docs
    from ce_filter.learn.fit import prepare

    a, b = _read_pages(base), _read_pages(variant)
    ids = sorted(set(a) & set(b))
    _, docs, _ = load_docs([f"{data}/{s}" for s in TRAIN])
    phrases = {w: lexicon((w,)) for w in words if w not in PREVIOUS}
    on: dict[str, list[str]] = defaultdict(list)
    for p in prepare(docs):
        hits = _heading_hits(p.blocks.texts, p.blocks.tag, p.n_words.astype(int).tolist(), phrases)
        for w in hits:
            on[w].append(p.id)
    rows = ["| phrase | pages with it as a heading | F1 without | F1 with | difference |",
            "|---|---|---|---|---|"]
    da = np.array([a[i][1] for i in ids])
    db = np.array([b[i][1] for i in ids])
    rows.append(f"| all pages | {len(ids)} | {da.mean():.4f} | {db.mean():.4f} | "
                f"{db.mean() - da.mean():+.4f} |")
    by_corpus: dict[str, list[int]] = defaultdict(list)
    for k, i in enumerate(ids):
        by_corpus[a[i][0]].append(k)
    for c, ks in by_corpus.items():
        rows.append(f"| all pages: {c} | {len(ks)} | {da[ks].mean():.4f} | {db[ks].mean():.4f} | "
                    f"{db[ks].mean() - da[ks].mean():+.4f} |")
    for w in phrases:
        ks = [ids.index(i) for i in on.get(w, []) if i in a and i in b]
        if not ks:
            rows.append(f"| {w} | 0 |  |  |  |")
            continue
        rows.append(f"| {w} | {len(ks)} | {da[ks].mean():.4f} | {db[ks].mean():.4f} | "
                    f"{db[ks].mean() - da[ks].mean():+.4f} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m research.headingstudy", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("stats", "cv", "attribute"))
    ap.add_argument("runs", nargs="*", help="attribute: the base and the variant --pages files")
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--words", default="all", help="base, all or a comma list of candidates")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--pages", default=None, help="cv: write each page's figures here")
    a = ap.parse_args(argv)
    if a.what == "stats":
        print(stats(Path(a.data)))
    elif a.what == "cv":
        print(cv(Path(a.data), resolve(a.words), a.pages))
    else:
        if len(a.runs) != 2:
            ap.error("attribute: two --pages files")
        print(attribute(Path(a.data), a.runs[0], a.runs[1], resolve(a.words)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
