"""What the structured plain text (a table row per line, a code block's own lines) changes and
costs, per corpus: the pages it changes, whether every page keeps the same word tokens (the
evaluation's ``\\w+``), and the time of making the text against joining the kept blocks.

The two are timed on the same extracted pages in one process, one after the other per page,
best of ``--repeats``; the structured text's time includes walking the parse again for a page
that keeps a code block (as ``Extractor.extract`` does). Pin a core for stable figures:

    taskset -c 1 python scripts/text_cost.py ../shared/data/dragnet:test ../shared/data/cleaneval-final \\
        ../shared/data/wcxb-dev

It runs with the project installed (``pip install -e .``) and imports ``ce_filter.*`` as
installed: no ``sys.path`` edit.
"""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ce_filter.api import Extractor, code_blocks, extras_of
from ce_filter.keep.render import to_text
from ce_filter.learn.corpus import _html_bytes, corpus_ids

WORDS = re.compile(r"\w+")


def best_time(fn: Callable[[], Any], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def measure(spec: str, repeats: int) -> str:
    path, _, split = spec.partition(":")
    root = Path(path)
    ex = Extractor(metadata=False)
    n = same = tables = code = 0
    t_join = t_text = t_extract = 0.0
    for doc_id in corpus_ids(root, split or None):
        raw = _html_bytes(root, doc_id)
        if raw is None:
            continue
        n += 1
        t_extract += best_time(lambda raw=raw: ex.extract(raw), repeats)
        r = ex.extract(raw)
        if r._page is None or not len(r._page[0]):
            same += 1
            continue
        blocks, keep, page = r._page
        p = ex.read(raw)
        tree, again = p.tree, p.blocks
        assert again is not None
        assert again.texts == blocks.texts
        if not code_blocks(blocks).any():
            tree = None
        joined = "\n\n".join([t for t, k in zip(blocks.texts, keep) if k])
        same += WORDS.findall(joined) == WORDS.findall(r.text)
        tables += " | " in r.text and " | " not in joined
        code += "_extras" in r.__dict__
        def join(blocks: Any = blocks, keep: Any = keep) -> str:
            return "\n\n".join([t for t, k in zip(blocks.texts, keep) if k])

        def structured(blocks: Any = blocks, keep: Any = keep, page: str = page, tree: Any = tree) -> str:
            return to_text(blocks, keep, lambda: extras_of(blocks, page, tree))

        t_join += best_time(join, repeats)
        t_text += best_time(structured, repeats)
    ms = 1e3 / max(n, 1)
    return (f"| {spec} | {n} | {same} | {tables} | {code} | {t_join * ms:.3f} | {t_text * ms:.3f} | "
            f"{t_extract * ms:.2f} | {(t_text - t_join) / t_extract * 100:+.1f} % |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", nargs="+", help="corpus dir[:split]")
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args(argv)
    print("| corpus | pages | same word tokens | table rows joined | code walked again | "
          "join ms/page | structured text ms/page | extraction ms/page | extraction time |")
    print("|---|---|---|---|---|---|---|---|---|")
    for spec in a.corpus:
        print(measure(spec, a.repeats), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
