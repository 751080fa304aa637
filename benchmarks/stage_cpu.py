"""ce-filter's stages in CPU time, with the floors and resiliparse on the same pages.

    python -m benchmarks.stage_cpu dragnet:test wcxb-dev --repeat 3

Each stage of ``stages.staged_extract`` (the whole record: the metadata rules and the language
included) is timed with the process's CPU clock (``time.process_time``: the time this process
ran, not the time it waited for a core), as are the parse-only floor (selectolax parsing the
decoded page), parse + one bare walk, ``extract().text``, ``extract().to_dict()`` and
resiliparse. On a machine other processes load, CPU time moves far less than wall-clock time
(what the others do to the caches still shows); the per-page figure is the best of the
repeats, and the means over the pages are reported. Run it pinned (``taskset -c 1``).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable, Mapping
from functools import partial
from operator import itemgetter
from typing import TypeVar

from .stages import STAGES, bare_walk, staged_extract

T = TypeVar("T")

EXTRA = ("parse only", "parse + bare walk", "text (extract)", "record (extract + to_dict)", "resiliparse")


def measure(spec: str, repeat: int, limit: int | None) -> tuple[int, dict[str, list[float]]]:
    """(pages, seconds per page for every stage and extra row, best of ``repeat``)."""
    from selectolax.lexbor import LexborHTMLParser

    from ce_filter import Extractor
    from ce_filter.read.decode import decode_html

    from . import pages, peers

    docs = pages.load([spec], limit)
    ex = Extractor()
    res = peers._resiliparse()
    clock = time.process_time
    names = [*STAGES, *EXTRA]
    best = {n: [float("inf")] * len(docs) for n in names}
    decoded = [decode_html(d.html)[0] for d in docs]

    def timed(f: Callable[[], object]) -> float:
        t0 = clock()
        f()
        return clock() - t0

    for r in range(repeat + 1):  # pass 0: warm-up
        gc.collect()
        for i, d in enumerate(docs):
            url = d.url or None
            secs = [0.0] * len(STAGES)

            def call(k: int, fn: Callable[[], T], secs: list[float] = secs) -> T:
                t0 = clock()
                out = fn()
                secs[k] += clock() - t0
                return out

            staged_extract(ex, d.html, url, call)
            h, data = decoded[i], d.html

            def walk(h: str = h) -> int:
                return bare_walk(LexborHTMLParser(h))

            def text(data: bytes = data, url: str | None = url) -> str:
                return ex.extract(data, url).text

            def record(data: bytes = data, url: str | None = url) -> Mapping[str, object]:
                return ex.extract(data, url).to_dict()

            def peer(data: bytes = data, url: str | None = url) -> str:
                return res(data, url)

            row = secs + [timed(partial(LexborHTMLParser, h)), timed(walk), timed(text), timed(record),
                          timed(peer)]
            if r:
                for n, v in zip(names, row):
                    best[n][i] = min(best[n][i], v)
    return len(docs), best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpora", nargs="*", default=["dragnet:test"])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--limit", type=int)
    a = ap.parse_args()
    cols = {spec: measure(spec, a.repeat, a.limit) for spec in a.corpora}
    head = "| stage | " + " | ".join(f"{s}: ms/page (mean) | × parse alone" for s in cols) + " |"
    print(head)
    print("|---" * (1 + 2 * len(cols)) + "|")

    def row(name: str, get: Callable[[dict[str, list[float]]], list[float]]) -> None:
        cells = [name]
        for _n, best in cols.values():
            v, floor = statistics.fmean(get(best)), statistics.fmean(best["parse only"])
            cells += [f"{1000 * v:.3f}", f"{v / floor:.2f}×"]
        print("| " + " | ".join(cells) + " |")

    for s in STAGES:
        row(s, itemgetter(s))
    row("**sum of the stages (the whole record)**", lambda b: [sum(x) for x in zip(*(b[s] for s in STAGES))])
    for e in EXTRA:
        row(e, itemgetter(e))
    for spec, (n, best) in cols.items():
        mean = {k: statistics.fmean(v) for k, v in best.items()}
        p50 = {k: statistics.median(v) for k, v in best.items()}
        rec, txt, rp = mean["record (extract + to_dict)"], mean["text (extract)"], mean["resiliparse"]
        rec50 = p50["record (extract + to_dict)"]
        pw50 = statistics.median(x + y for x, y in zip(best["parse"], best["walk"]))
        print(f"\n{spec} ({n} pages): pages/s against resiliparse (mean CPU time): text {rp / txt:.2f}×, "
              f"record {rp / rec:.2f}×; record p50 ÷ (parse + walk stages) p50 {rec50 / pw50:.2f}×, "
              f"÷ (parse + bare walk) p50 {rec50 / p50['parse + bare walk']:.2f}×")
    print(f"\nload average at the end: {open('/proc/loadavg').read().split()[:3]}")


if __name__ == "__main__":
    main()
