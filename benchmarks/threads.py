"""One Extractor shared by threads: pages/s with 1 and with N threads, and the share of a
page's time spent in the C calls that release the GIL.

    python -m benchmarks.threads dragnet:test --threads 2 --repeat 3

Each pass runs every page of the corpora once (the whole record: ``extract(...).to_dict()``),
the pages handed out to the threads from one queue; 1-thread and N-thread passes alternate
and the best of each is kept. Wall-clock, so on a machine other processes load it is a lower
bound on what the threads give; the number of cores bounds it (N threads on 2 cores: at most
2x). The GIL-free share is measured on one thread by timing every call of the C functions that
release the GIL for their work (the pre-parse scan, the parse, the walk, the class/id tokens
and their weights, the dense features, the page signals and kind model, CETR's k-means, the mojibake
test): the rest of a page holds the GIL, which bounds what threads can give (Amdahl: 2
threads at most 1 / max(held share, 1/2) times one).
"""

from __future__ import annotations

import argparse
import queue
import threading
import time
from collections.abc import Callable

# (module, function) of the C calls that release the GIL for their work
GIL_FREE = (("ce_filter.read._segment", "parse"), ("ce_filter.read._segment", "segment"),
            ("ce_filter.read._segment", "page_tokens"), ("ce_filter.read._segment", "ic_sums"),
            ("ce_filter._pass", "features"), ("ce_filter._pass", "context"),
            ("ce_filter._pass", "score"), ("ce_filter._pass", "page_scores"),
            ("ce_filter._pass", "phrase_hits"),
            ("ce_filter.read._segment", "flag_columns"),
            ("ce_filter._pass", "scan_html"), ("ce_filter._pass", "head_signals"),
            ("ce_filter._pass", "block_signals"), ("ce_filter._pass", "text_signals"),
            ("ce_filter._pass", "kind_proba"),
            ("ce_filter._pass", "tidy"),
            ("ce_filter.read._mojibake", "suspect"),
            ("ce_filter.read._precheck", "scan"))
# a page as the passes hand it out: its bytes and its URL (None where the corpus has none)
HtmlPage = tuple[bytes, str | None]


def run_pass(fn: Callable[[HtmlPage], object], pages: list[HtmlPage], threads: int) -> float:
    """Seconds for ``threads`` threads to take every page from one queue and run ``fn``."""
    q: queue.SimpleQueue[HtmlPage | None] = queue.SimpleQueue()
    for p in pages:
        q.put(p)
    for _ in range(threads):
        q.put(None)
    start = threading.Barrier(threads + 1)

    def work() -> None:
        start.wait()
        while (p := q.get()) is not None:
            fn(p)

    ts = [threading.Thread(target=work) for _ in range(threads)]
    for t in ts:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    for t in ts:
        t.join()
    return time.perf_counter() - t0


def gil_free_share(fn: Callable[[HtmlPage], object], pages: list[HtmlPage]) -> tuple[float, dict[str, float]]:
    """(share of one thread's time inside the GIL-releasing C calls, seconds per call name)."""
    import importlib

    spent: dict[str, float] = {}
    saved = []
    for mod_name, name in GIL_FREE:
        mod = importlib.import_module(mod_name)
        orig = getattr(mod, name)
        saved.append((mod, name, orig))

        def timed(*a: object, _o: Callable[..., object] = orig,
                  _k: str = f"{mod_name.rsplit('.', 1)[1]}.{name}") -> object:
            t0 = time.perf_counter()
            try:
                return _o(*a)
            finally:
                spent[_k] = spent.get(_k, 0.0) + time.perf_counter() - t0

        setattr(mod, name, timed)  # the callers look the function up on the module per call
    try:
        t0 = time.perf_counter()
        for p in pages:
            fn(p)
        total = time.perf_counter() - t0
    finally:
        for mod, name, orig in saved:
            setattr(mod, name, orig)
    return sum(spent.values()) / total, spent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpora", nargs="*", default=["dragnet:test"])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--text", action="store_true", help="the text alone (default: the whole record)")
    ap.add_argument("--scrapy", action="store_true",
                    help="through the Scrapy FilterPipeline (budget off, CE_FILTER_THREADS = the threads)")
    a = ap.parse_args()

    from ce_filter import Extractor

    from . import pages as corpus

    docs = corpus.load(a.corpora, a.limit)
    pages = [(d.html, d.url or None) for d in docs]
    ex = Extractor()
    if a.text:
        def fn(p: HtmlPage) -> object:
            return ex.extract(p[0], p[1]).text
    else:
        def fn(p: HtmlPage) -> object:
            return ex.extract(p[0], p[1]).to_dict()
    fn_n = fn
    if a.scrapy:
        from ce_filter.pipelines.scrapy_pipelines import FilterPipeline

        from ce_filter.run.budget import Budget

        pipes = {n: FilterPipeline(budget=Budget(0, 0), threads=n) for n in (1, a.threads)}

        def fn(p: HtmlPage) -> object:
            return pipes[1].filter({"url": p[1] or "", "body": p[0]})

        def fn_n(p: HtmlPage) -> object:
            return pipes[a.threads].filter({"url": p[1] or "", "body": p[0]})

    run_pass(fn, pages[:50], 1)  # warm-up
    share, spent = gil_free_share(fn, pages)
    one, many = [], []
    for _ in range(a.repeat):
        one.append(run_pass(fn, pages, 1))
        many.append(run_pass(fn_n, pages, a.threads))
    pps1, ppsn = len(pages) / min(one), len(pages) / min(many)
    what = "Scrapy FilterPipeline.filter" if a.scrapy else "text" if a.text else "whole record"
    print(f"{len(pages)} pages ({', '.join(a.corpora)}), {what}")
    print(f"time in GIL-releasing C calls: {100 * share:.0f} % of one thread's time")
    for k, v in sorted(spent.items(), key=lambda kv: -kv[1]):
        print(f"  {k:28s} {1000 * v / len(pages):.3f} ms/page")
    print(f"1 thread: {pps1:.1f} pages/s; {a.threads} threads: {ppsn:.1f} pages/s; ratio {ppsn / pps1:.2f}x")
    print(f"load average at the end: {open('/proc/loadavg').read().split()[:3]}")


if __name__ == "__main__":
    main()
