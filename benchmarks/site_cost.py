"""What the site memory costs a page, in one process.

    taskset -c 1 python -m ce_filter.bench.site_cost big5 zh-finance --repeat 5

Per corpus, its pages decoded once and fed grouped by site (site, then id, as the study in
docs/research/SITE_MEMORY.md does), timed interleaved page by page: the block fingerprints
alone (``ce_filter.score.site.memory.block_fingerprints`` on a freshly segmented page, reading its texts
included), ``Extractor.extract`` without
a memory, and ``Extractor.extract`` with a fresh streaming ``SiteMemory`` each round (so every
round sees the same memory states). Best of ``--repeat`` per page; means over the pages in ms.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time


def main(argv: list[str] | None = None) -> int:
    from ce_filter import Extractor
    from ce_filter.read.decode import decode_html
    from ce_filter.read.page import read
    from ce_filter.score.site.memory import SiteMemory, block_fingerprints

    from . import pages

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("corpus", nargs="+")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--limit", type=int)
    a = p.parse_args(argv)
    clock = time.perf_counter
    print("| corpus | pages | fingerprints | extract alone | extract with the memory | the memory's share |")
    print("|---|---|---|---|---|---|")
    for spec in a.corpus:
        docs = sorted(pages.load([spec], a.limit), key=lambda d: (d.domain or "", d.id))
        work = [(decode_html(d.html)[0], d.url or f"http://{d.domain or 'site.test'}/{d.id}") for d in docs]
        alone = Extractor()
        best = [[float("inf")] * len(work) for _ in range(3)]
        gc.disable()
        for _ in range(a.repeat):
            with_memory = Extractor(site_memory=SiteMemory())
            for i, (html, url) in enumerate(work):
                blocks = read(html).blocks  # (a fresh page: its texts not yet read)
                assert blocks is not None
                t0 = clock()
                block_fingerprints(blocks)
                t1 = clock()
                alone.extract(html, url)
                t2 = clock()
                with_memory.extract(html, url)
                t3 = clock()
                for k, dt in enumerate((t1 - t0, t2 - t1, t3 - t2)):
                    best[k][i] = min(best[k][i], dt)
            gc.collect()
        gc.enable()
        fp = statistics.mean(best[0])
        one, two = statistics.mean(best[1]), statistics.mean(best[2])
        print(f"| {spec} | {len(work)} | {1e3 * fp:.3f} | {1e3 * one:.3f} | {1e3 * two:.3f} | "
              f"{100 * (two - one) / one:+.1f} % |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
