"""What the tree-leaf inputs (Model.trees, features/leaves.py) cost a page.

    taskset -c 1 python -m research.leaves_cost MODEL.json dragnet:test --repeat 7

For every page (decoded, segmented, its dense columns computed once), timed in the same
process and interleaved: the leaf transform alone (each block's leaf in each tree and the sum
of their weights; the walk in C, and the numpy walk of its test oracle), stage 1 + 2 as
served (``Model.scores``, the leaves included) and the shipped
content model's ``Model.scores`` on the same page; best of ``--repeat`` per page, means over
the pages in microseconds. The model must have trees.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

import numpy as np


def main(argv: list[str] | None = None) -> int:
    from ce_filter.bench import pages

    from ce_filter import Extractor
    from ce_filter.read.page import read
    from ce_filter.score.blockmodel import Model, load_default
    from ce_filter.score.features import page_inputs
    from tests.oracles.leaves_numpy import leaves as leaves_numpy

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model")
    p.add_argument("corpus", nargs="+")
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--limit", type=int)
    a = p.parse_args(argv)
    model = Model.load(a.model)
    if model.trees is None:
        p.error(f"{a.model} has no trees")
    trees = model.trees
    ex = Extractor(model=model)
    shipped = load_default("content")
    ex0 = Extractor(model=shipped)
    work = []
    for d in pages.load(a.corpus, a.limit):
        page = read(d.html)
        if page.blocks is None or not len(page.blocks):
            continue
        html, b = page.text, page.blocks
        kind, style = ex.page_context(b, html, None)
        x, tokens = page_inputs(b, model.spec, kind, style)
        k0, s0 = ex0.page_context(b, html, None)
        work.append((b, kind, style, x, tokens, (*page_inputs(b, shipped.spec, k0, s0), b, k0, s0)))
    lw = model._leaf_weights()
    clock = time.perf_counter

    def leaves(x: np.ndarray) -> None:
        lw[trees.leaves(x)].sum(axis=1)

    best_leaf = [float("inf")] * len(work)
    best_numpy = [float("inf")] * len(work)
    best_score = [float("inf")] * len(work)
    best_shipped = [float("inf")] * len(work)
    gc.disable()
    for _ in range(a.repeat):
        for i, (b, kind, style, x, tokens, plain) in enumerate(work):
            t0 = clock()
            lw[leaves_numpy(trees, x)].sum(axis=1)
            t1 = clock()
            best_numpy[i] = min(best_numpy[i], t1 - t0)
            t0 = clock()
            leaves(x)
            t1 = clock()
            model.scores(x, tokens, b, kind, style)
            t2 = clock()
            shipped.scores(*plain)
            t3 = clock()
            best_leaf[i] = min(best_leaf[i], t1 - t0)
            best_score[i] = min(best_score[i], t2 - t1)
            best_shipped[i] = min(best_shipped[i], t3 - t2)
    gc.enable()
    blocks = [len(w[0]) for w in work]
    print(f"{len(work)} pages, mean {statistics.mean(blocks):.0f} blocks; {len(trees.trees)} trees, "
          f"{trees.n_leaves} leaves, depth {trees.depth}; best of {a.repeat}, means in us:")
    print(f"  leaf transform: {1e6 * statistics.mean(best_leaf):.1f} "
          f"(median {1e6 * statistics.median(best_leaf):.1f}); with the numpy walk "
          f"{1e6 * statistics.mean(best_numpy):.1f} (median {1e6 * statistics.median(best_numpy):.1f})")
    print(f"  Model.scores (stages 1 and 2, leaves included): {1e6 * statistics.mean(best_score):.1f}")
    print(f"  the shipped content model's Model.scores: {1e6 * statistics.mean(best_shipped):.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
