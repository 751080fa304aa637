"""Documentation page signals for the page-kind model: does the page read as a software
manual (inline code, code-like words, a documentation generator's markup)?

    python -m research.docsignals ../shared/data/wcxb-dev

Candidate signals, each computed from what the page-kind model already reads (the HTML's
first 2,000,000 characters, the blocks' texts' first 20,000 characters):

- ``code_tags``: log1p of the number of ``<code``/``<kbd``/``<samp``/``<var`` tags in the
  HTML, and the same per block (log1p of tags per 10 blocks);
- ``code_words``: share of the text's first words that look like code (a call ``f(``, a dotted
  or ``::`` path between letters, snake_case, lowerCamelCase, ``->`` / ``=>``);
- ``doc_tool``: 0/1, the HTML names a documentation generator or host (Sphinx, MkDocs,
  Docusaurus, GitBook, Read the Docs, VuePress, VitePress, Docsify, rustdoc, Javadoc, Doxygen,
  devsite) or has an "edit this page" link.

Each set is added to the shipped page signals and scored by the page-kind model's grouped CV
(learn.pagekind.train: 5 folds by domain, C chosen on them), as research.repitems does.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

_CODE_TAG = re.compile(r"<(?:code|kbd|samp|var)[\s>]", re.I)
_CODE_WORD = re.compile(
    r"[A-Za-z_]\w*\(|[a-z]\w*(?:\.|::)[a-z_]\w*|[a-z]+_[a-z]\w*|[a-z]+[A-Z]\w*|->|=>")
_DOC_TOOL = re.compile(
    r"sphinx|mkdocs|docusaurus|gitbook|readthedocs|read the docs|vuepress|vitepress|docsify|"
    r"rustdoc|javadoc|doxygen|devsite|edit this page|edit on github|improve this doc", re.I)
_SCAN = 2_000_000
_TEXT = 20_000


def doc_signals(html: str, texts: Sequence[str]) -> np.ndarray:
    head = html[:_SCAN]
    n_code = len(_CODE_TAG.findall(head))
    n = max(len(texts), 1)
    toks = " ".join(texts)[:_TEXT].split()
    cw = sum(1 for t in toks if _CODE_WORD.search(t)) / max(len(toks), 1)
    tool = float(bool(_DOC_TOOL.search(head)))
    return np.array([np.log1p(n_code), np.log1p(10.0 * n_code / n), cw, tool])


def _kind(corpora: list[str], cache: Path) -> None:
    from ce_filter.score.pagekind import KINDS

    from .repitems import kind_rows, report_sets

    xb, xd, ys, gs = kind_rows(corpora, lambda blocks, html: doc_signals(html, blocks.texts), cache)
    ya = np.array(ys)
    for j, nm in enumerate(("code_tags", "code_tags_per_block", "code_words", "doc_tool")):
        print(nm, " ".join(f"{k[:4]}={xd[ya == k, j].mean():.3f}" for k in KINDS))
    report_sets({"base": xb, "+code_tags(2)": np.hstack([xb, xd[:, :2]]),
                 "+code_words": np.hstack([xb, xd[:, 2:3]]), "+doc_tool": np.hstack([xb, xd[:, 3:4]]),
                 "+all(4)": np.hstack([xb, xd])}, ys, gs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m research.docsignals", description=__doc__)
    ap.add_argument("corpus", nargs="+")
    ap.add_argument("--cache", default="/tmp/docsignals_kind.npz")
    a = ap.parse_args(argv)
    _kind(a.corpus, Path(a.cache))
    return 0


if __name__ == "__main__":
    sys.exit(main())
