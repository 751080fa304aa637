"""What the structured plain text (a table row per line, a code block's own lines) changes and
costs, per corpus: the pages it changes, whether every page keeps the same word tokens (the
evaluation's ``\\w+``), and the time of making the text against joining the kept blocks.

The two are timed on the same extracted pages in one process, one after the other per page,
best of ``--repeats``; a code block's own lines come from the walk's code column
(``Blocks.code_column``), as in ``Extractor.extract``. Pin a core for stable figures:

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

from ce_filter.api import Extractor, code_blocks
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
        joined = "\n\n".join([t for t, k in zip(blocks.texts, keep) if k])
        same += WORDS.findall(joined) == WORDS.findall(r.text)
        tables += " | " in r.text and " | " not in joined
        code += bool((code_blocks(blocks) & keep).any())
        def join(blocks: Any = blocks, keep: Any = keep) -> str:
            return "\n\n".join([t for t, k in zip(blocks.texts, keep) if k])

        def structured(blocks: Any = blocks, keep: Any = keep) -> str:
            return to_text(blocks, keep)

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
    print("| corpus | pages | same word tokens | table rows joined | code blocks kept | "
          "join ms/page | structured text ms/page | extraction ms/page | extraction time |")
    print("|---|---|---|---|---|---|---|---|---|")
    for spec in a.corpus:
        print(measure(spec, a.repeats), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
