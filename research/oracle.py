"""The label oracle: what a block classifier would score if it decided every block as the
training labels do. It is the ceiling of any model trained on these labels and blocks, so it
says where the limit is: in the segmenter (gold text in no block), or in the labels.

    python -m research.oracle ../shared/data/wcxb-dev ../shared/data/dragnet:train

For each page: segment as the extractor does, label every block by the alignment rule
(``labels.block_labels``), join the text of the content blocks as the extractor joins kept
blocks, and score that text against the gold with the real metric (``evaluate.token_prf``).
Beside it, the share of gold tokens that the page's blocks hold at all (the recall of keeping
every block: what no labelling can exceed).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable

import numpy as np

from ce_filter.learn.corpus import Doc, Spec
from ce_filter.learn.evaluate import Score, table
from ce_filter.learn.labels import DEFAULT_RULE, LabelRule, block_labels
from ce_filter.progress import progress
from ce_filter.read.decode import decode_html
from ce_filter.read.segment import parse, segment


def oracle(docs: Iterable[Doc], rule: LabelRule = DEFAULT_RULE, comments: bool = False,
           name: str = "", total: int | None = None, log: bool = False) -> tuple[Score, Score]:
    """(the oracle's score, the score of keeping every block) over ``docs``."""
    best, every = Score(name), Score(name)
    for d in progress(docs, f"oracle {name}".strip(), total=total, enabled=log):
        html, _ = decode_html(d.html)
        b = segment(parse(html))
        gold = d.target(comments)
        y = (block_labels(b.texts, gold, runs=rule.runs, lines=rule.lines)[0] if len(b)
             else np.zeros(0, dtype=bool))
        best.add("\n\n".join(t for t, k in zip(b.texts, y) if k), gold, d)
        every.add("\n\n".join(b.texts), gold, d)
    return best, every


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m research.oracle", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", nargs="+", help="corpus dir[:split]")
    ap.add_argument("--plain-lcs", action="store_true",
                    help="the paper's plain LCS rule (no run filter)")
    ap.add_argument("--lines", action="store_true",
                    help="realign the gold lines the page-wide LCS left unmatched (LabelRule.lines)")
    a = ap.parse_args(argv)
    rule = LabelRule(runs=not a.plain_lcs, lines=a.lines)
    results = []
    for c in map(Spec.parse, a.corpus):
        results.append((c.label, *oracle(c.load(), rule, name=c.label, total=c.size(), log=True)))
    print("Oracle (every block labelled by the alignment rule, the real metric on the kept text):")
    print()
    print(table([(label, best) for label, best, _ in results]))
    print()
    print("Every block kept (the recall here is the share of gold tokens that sit in blocks):")
    print()
    print(table([(label, every) for label, _, every in results]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
