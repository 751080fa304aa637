"""The speed tables: tools side by side, ce-filter's breakdown and floor, linearity, memory."""

from __future__ import annotations

import pickle
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ce_filter.learn.corpus import Doc
from ce_filter.learn.evaluate import Score

from . import peers, stats
from .measure import run_child
from .report import num, table

if TYPE_CHECKING:
    from .measure import ChildResult


def say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def measure_tools(tools: list[str], docs: list[Doc], repeat: int, pin: int | None,
                  timeout: float) -> dict[str, ChildResult]:
    """One fresh child per tool; a tool that is not installed is reported, not run. Each
    tool's warm-up outputs are scored here against the gold (mean per-page token F1)."""
    from ce_filter.progress import Ticker

    results: dict[str, ChildResult] = {}
    with tempfile.TemporaryDirectory(prefix="ce-bench-pages-") as tmp, \
            Ticker("bench: speed", len(tools), unit="tool") as ticker:
        pages_file = Path(tmp, "pages.pickle")
        with open(pages_file, "wb") as f:
            pickle.dump([(d.html, d.url or None) for d in docs], f, protocol=pickle.HIGHEST_PROTOCOL)
        for name in tools:
            if not peers.available(name):
                hint = peers.missing_hint(name)
                results[name] = {"ok": False, "missing": True, "error": hint}
                ticker.write(f"bench: {name}: {hint}")
                ticker.tick()
                continue
            t0 = time.perf_counter()
            ticker.set_postfix(name)
            r = run_child({"kind": "tool", "tool": name, "pages_file": str(pages_file), "repeat": repeat,
                           "pin": pin}, timeout)
            if r.get("missing"):
                r["error"] = peers.missing_hint(name) + f": {r['error']}"
            elif r.get("ok"):
                _score(r, docs)
                r["version"] = peers.version(name)
            results[name] = r
            status = "done" if r.get("ok") else r["error"]
            ticker.write(f"bench: {name}: {status} in {time.perf_counter() - t0:.0f} s")
            ticker.tick()
    return results


def _score(r: ChildResult, docs: list[Doc]) -> None:
    s = Score(r["tool"])
    for out, d in zip(r.pop("outputs"), docs):
        s.add(out, d.gold)
    # the ignore: mypy takes TypedDict.update's keywords for unknown ones (python/mypy#6019)
    r.update(precision=s.precision, recall=s.recall, f1=s.mean_f1, empty=s.empty,  # type: ignore[call-arg]
             sizes=[len(d.html) for d in docs])


def summarise(r: ChildResult, stat: str) -> ChildResult:
    """Adds per-page seconds and the headline figures to a tool result."""
    secs = stats.per_page(r["runs"], stat)
    r["secs"] = secs
    total = sum(secs)
    r["pps"] = len(secs) / total if total else float("nan")
    r["p50_ms"] = 1000 * stats.percentile(secs, 50)
    r["p95_ms"] = 1000 * stats.percentile(secs, 95)
    return r


def speed_table(results: dict[str, ChildResult], stat: str) -> str:
    ok = {k: summarise(v, stat) for k, v in results.items() if v.get("ok")}
    ref = ok.get("ce-filter", {}).get("pps")
    rows = []
    for name, r in results.items():
        if not r.get("ok"):
            rows.append([name, "—", r["error"]] + ["—"] * 10)
            continue
        ratio = ref / r["pps"] if ref and r["pps"] else float("nan")
        rows.append([
            name, r["version"], num(r["pps"]), num(r["p50_ms"], ".2f"), num(r["p95_ms"], ".2f"),
            num(ratio, ".2f") + "×", num(r["rss_peak_kb"] / 1024, ".0f"),
            num((r["rss_peak_kb"] - r["rss_base_kb"]) / 1024, ".0f"),
            num(r["precision"], ".3f"), num(r["recall"], ".3f"), num(r["f1"], ".3f"),
            str(r["errors"]), str(r["empty"]),
        ])
    return table(["tool", "version", "pages/s", "ms/page p50", "ms/page p95", "ce-filter ÷ tool (pages/s)",
                  "peak RSS MB", "RSS added MB", "precision", "recall", "mean F1", "errors", "empty"],
                 rows)


def breakdown_tables(st: ChildResult, e2e: ChildResult | None, stat: str
                     ) -> tuple[str, str, float, list[str]]:
    """(stage table, floor table, ce-filter p50 / floor p50, the stages over their budgets)."""
    from .stages import STAGE_BUDGETS

    names = st["stages"]
    per_stage = []
    for i, _ in enumerate(names):
        runs = [[page[i] for page in rep] for rep in st["stage_runs"]]
        per_stage.append(stats.per_page(runs, stat))
    sums = [sum(col) for col in zip(*per_stage)]
    total_mean = statistics.fmean(sums) if sums else float("nan")
    over: list[str] = []

    def against(p50_ms: float, budget: float | None) -> list[str]:
        if budget is None:
            return ["none", "—"]
        x = p50_ms / budget
        return [num(budget, ".3f"), num(x, ".2f") + "×" + (" **over**" if x > 1 else "")]

    rows = []
    for n, s in zip(names, per_stage):
        p50 = 1000 * stats.percentile(s, 50)
        budget = STAGE_BUDGETS.get(n)
        if budget is not None and p50 > budget:
            over.append(n)
        share = 100 * statistics.fmean(s) / total_mean if total_mean else float("nan")
        rows.append([n, num(p50, ".3f"), *against(p50, budget), num(1000 * statistics.fmean(s), ".3f"),
                     num(share, ".0f") + " %"])
    record_budget = sum(STAGE_BUDGETS.get(n, 0.0) for n in names)
    sum_p50 = 1000 * stats.percentile(sums, 50)
    rows.append(["sum of stages", num(sum_p50, ".3f"), *against(sum_p50, record_budget),
                 num(1000 * total_mean, ".3f"), "100 %"])
    if e2e and e2e.get("ok"):
        rows.append(["`Extractor.extract` (speed table run)", num(e2e["p50_ms"], ".3f"), "", "",
                     num(1000 * statistics.fmean(e2e["secs"]), ".3f"), ""])
    stage_t = table(["stage", "ms/page p50", "budget ms/page p50", "p50 ÷ budget", "ms/page mean",
                     "share of mean"], rows)
    stage_t += ("\n\nbudget: the stage's allowed p50 per page on dragnet test (`STAGE_BUDGETS` in "
                "`benchmarks/stages.py`); the budgets add up to the whole record's, 1.6× the parse + walk "
                "budgets. **over**: the stage's p50 is above its budget. Budgets are milliseconds on the "
                "machine of the published run; on another machine compare the stages' ratios with each "
                "other rather than with 1.")
    parse = stats.per_page([[p[0] for p in rep] for rep in st["floor_runs"]], stat)
    walk = stats.per_page([[p[1] for p in rep] for rep in st["floor_runs"]], stat)
    floor_p50 = 1000 * stats.percentile(walk, 50)
    frows = [["selectolax (Lexbor) parse alone", num(1000 * stats.percentile(parse, 50), ".3f"),
              num(1000 * statistics.fmean(parse), ".3f")],
             ["parse + one bare DOM walk", num(floor_p50, ".3f"), num(1000 * statistics.fmean(walk), ".3f")]]
    ratio = e2e["p50_ms"] / floor_p50 if e2e and e2e.get("ok") and floor_p50 else float("nan")
    floor_t = table(["floor (decoded page in)", "ms/page p50", "ms/page mean"], frows)
    floor_t += f"\n\nDOM nodes per page: median {statistics.median(st['nodes']):.0f}, max {max(st['nodes'])}."
    return stage_t, floor_t, ratio, over


def alloc_table(results: dict[str, ChildResult]) -> str | None:
    """ce-filter's rows (text, whole record): object allocations per page and per block from the
    untimed pass, the garbage collector's collections and share of the timed passes. None when
    neither row ran."""
    from .allocs import gc_summary

    rows = []
    for name in peers.OURS:
        r = results.get(name, {})
        if not r.get("ok") or "gc_runs" not in r:
            continue
        g = gc_summary(r["runs"], r["gc_runs"], r.get("gc_collections", [0, 0, 0]))
        counts, blocks = r.get("allocs"), r.get("blocks")
        if counts:
            per_block = sum(counts) / sum(blocks) if blocks and sum(blocks) else float("nan")
            alloc_cells = [num(statistics.median(counts), ".0f"), num(statistics.fmean(counts), ".0f"),
                           num(per_block, ".1f")]
        else:
            alloc_cells = ["—", "—", "—"]
        rows.append([name, *alloc_cells, " / ".join(num(c, ".2f") for c in g["per_page"]),
                     num(g["ms_per_page"], ".3f"), num(100 * g["share"], ".1f") + " %"])
    if not rows:
        return None
    why = next((results[n]["alloc_error"] for n in peers.OURS if results.get(n, {}).get("alloc_error")), "")
    note = ("allocations: new blocks taken from CPython's object allocator (`PyObject_Malloc`, where "
            "every Python object comes from) while the page is extracted, counted by a hook on that "
            "allocator in one more pass over the same pages after the timed ones (untimed, so the "
            "count costs the speed table nothing); memory a C part or numpy takes for itself is not "
            "in it. per block: all the pages' allocations ÷ all their blocks. GC collections: "
            "collections of generation 0 / 1 / 2 per page, GC ms: milliseconds in collections per "
            "page (mean), and GC share: time in collections ÷ time of the pages, all three over the "
            "timed passes of the speed table, the collector's start and stop read with `gc.callbacks` "
            "(a forced collection before each pass is left out).")
    if why:
        note += f" Allocations not counted in this run: {why}."
    return table(["tool", "allocations/page p50", "allocations/page mean", "allocations/block",
                  "GC collections/page (gen 0 / 1 / 2)", "GC ms/page mean", "GC share of time"],
                 rows) + "\n\n" + note


def linearity_table(results: dict[str, ChildResult]) -> tuple[str, dict[str, tuple[float, float, float]]]:
    ok = {k: v for k, v in results.items() if v.get("ok")}
    if not ok:
        return "(no tool ran)", {}
    sizes = next(iter(ok.values()))["sizes"]
    bucket_heads = [f"{lab} (n={n})" for lab, n, _, _ in stats.buckets(sizes, [0.0] * len(sizes))]
    rows, fits = [], {}
    for name, r in ok.items():
        fit = stats.linear_fit(r["sizes"], r["secs"])
        fits[name] = fit
        rows.append([name] + [num(ms, ".2f") for _, _, _, ms in stats.buckets(r["sizes"], r["secs"])]
                    + [num(fit[0], ".2f"), num(fit[1], ".2f"), num(fit[2], ".3f")])
    return table(["tool"] + [f"p50 ms, {h}" for h in bucket_heads]
                 + ["slope ms/100 KB", "intercept ms", "R²"], rows), fits


def measure_memory(docs: list[Doc], n_pages: int, pin: int | None, timeout: float) -> ChildResult:
    """Write a synthetic WARC of ``n_pages`` (temp dir, deleted after) and stream it in a child."""
    from .synthwarc import write_warc

    with tempfile.TemporaryDirectory(prefix="ce-bench-warc-") as tmp:
        path = Path(tmp, "bench.warc.gz")
        say(f"bench: writing a {n_pages}-page WARC in {tmp} ...")
        size = write_warc(path, docs, n_pages)
        say("bench: streaming it through Extractor.extract ...")
        r = run_child({"kind": "memory", "warc": str(path), "pages": n_pages, "pin": pin}, timeout)
        r["warc_bytes"] = size
    return r


def memory_table(r: ChildResult) -> tuple[str, float]:
    """(table, growth in MB from the 10 % mark to the end)."""
    if not r.get("ok"):
        return f"memory run failed: {r.get('error')}", float("nan")
    samples = r["samples"]
    n = r["pages"]
    rows = [[("before the first page" if k == 0 else f"{k} ({100 * k / n:.0f} %)"), num(kb / 1024, ".1f")]
            for k, kb in samples]
    ref = next((kb for k, kb in samples if k >= 0.1 * n), samples[0][1])
    growth = (samples[-1][1] - ref) / 1024
    text = table(["pages streamed", "RSS MB"], rows)
    text += (f"\n\nPeak RSS {r['rss_peak_kb'] / 1024:.1f} MB; RSS change from the 10 % mark to the end: "
             f"{growth:+.1f} MB. WARC: {n} pages, {r['warc_bytes'] / 1e6:.0f} MB gzipped; streamed at "
             f"{n / r['seconds']:.1f} pages/s (warcio read + gunzip + extract, one process).")
    return text, growth
