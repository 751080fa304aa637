"""Per language: ce-filter against trafilatura on the non-English article pages with gold.

``python -m ce_filter.bench.languages`` (writes the "languages" section of
docs/research/MULTILINGUAL.md; ``--no-write`` only prints).

Pages: every page of magic-html, newspaper and zh-content (the trainable corpora that have
non-English pages; none of them is in the shipped content model's training set, so the figure
is a development check, not in sample) whose ``pages.tsv`` gives a language other than English
and whose kind is an article (or not stated: zh-content's news, essays and encyclopaedia pages).
Each tool gets the page's raw bytes and address, called as the quality bench calls it
(benchmarks/peers.py); the figure is the mean per-page token F1 against the gold
(ce_filter.learn.evaluate.token_prf, the metric of ``ce-filter evaluate``). Languages with fewer
than ``--min-pages`` pages are pooled into one "other" row.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

from .pages import REPO, data_root
from .report import table, update_doc

DOC = REPO / "docs" / "research" / "MULTILINGUAL.md"
CORPORA = ("magic-html", "newspaper", "zh-content")
TOOLS = ("ce-filter", "trafilatura")
ARTICLE_KINDS = ("article", "")


def pages(data: Path, corpora: tuple[str, ...]) -> list[tuple[str, str, bytes, str | None, str]]:
    """(corpus, language, html, url, gold) of each non-English article page with gold."""
    from ce_filter.learn.corpus import Spec

    out = []
    for c in corpora:
        if not (data / c / "html").is_dir():
            continue
        for d in Spec.parse(str(data / c)).load():
            if d.lang and d.lang != "en" and d.page_type in ARTICLE_KINDS and d.gold.strip():
                out.append((c, d.lang, d.html, d.url or None, d.gold))
    return out


def measure(rows: list[tuple[str, str, bytes, str | None, str]], tools: tuple[str, ...],
            min_pages: int) -> tuple[list[str], list[list[str]]]:
    """The table: language, pages, corpora, each tool's mean F1 (languages by page count)."""
    from ce_filter.learn.evaluate import token_prf

    from .peers import make

    f1: dict[str, dict[str, list[float]]] = {t: defaultdict(list) for t in tools}
    for t in tools:
        fn = make(t)
        for _, lang, html, url, gold in rows:
            f1[t][lang].append(token_prf(fn(html, url), gold)[2])
    n: dict[str, int] = defaultdict(int)
    where: dict[str, set[str]] = defaultdict(set)
    for c, lang, *_ in rows:
        n[lang] += 1
        where[lang].add(c)
    big = sorted((g for g in n if n[g] >= min_pages), key=lambda g: (-n[g], g))
    small = sorted(g for g in n if n[g] < min_pages)
    groups: list[tuple[str, list[str]]] = [(g, [g]) for g in big]
    if small:
        groups.append((f"other ({', '.join(small)})", small))
    groups.append(("all non-English", list(n)))
    body = []
    for name, langs in groups:
        cells = []
        for t in tools:
            vals = [v for g in langs for v in f1[t][g]]
            cells.append(f"{sum(vals) / len(vals):.3f}")
        corpora = sorted({c for g in langs for c in where[g]})
        body.append([name, str(sum(n[g] for g in langs)), ", ".join(corpora), *cells])
    return ["language", "pages", "corpora", *(f"{t} F1" for t in tools)], body


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ce_filter.bench.languages", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=None, help="corpora folder (default: "
                    "$CE_FILTER_DATA or the shared data)")
    ap.add_argument("--corpora", default=",".join(CORPORA))
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--min-pages", type=int, default=5)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--doc", type=Path, default=DOC, help="the Markdown file to update")
    a = ap.parse_args(argv)
    data = a.data or data_root()
    rows = pages(data, tuple(c for c in a.corpora.split(",") if c))
    if not rows:
        print("no non-English article pages with gold in these corpora", file=sys.stderr)
        return 2
    tools = tuple(t for t in a.tools.split(",") if t)
    header, body = measure(rows, tools, a.min_pages)
    from ce_filter.score.blockmodel import load_default

    m = load_default()
    text = (f"Command: `python -m ce_filter.bench.languages` (model {m.name}@{m.digest})\n\n"
            + table(header, body))
    print(text)
    if not a.no_write:
        update_doc(a.doc, {"languages": text})
    return 0


if __name__ == "__main__":
    sys.exit(main())
