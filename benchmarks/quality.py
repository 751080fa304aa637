"""The quality table: each tool's token precision / recall / F1 on each report corpus.

No timing here, so the (tool, corpus) tasks run in parallel processes (``--jobs``).
"""

from __future__ import annotations

import multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from ce_filter.learn.corpus import load_corpus
from ce_filter.learn.evaluate import evaluate

from . import pages, peers
from .report import num, table

# Rough relative cost per page, to start the slow tasks first.
_COST = {"readability-lxml": 8, "trafilatura": 6, "justext": 4, "boilerpy3": 4, "html-text": 2}


def _task(args: tuple[str, str, int | None]) -> dict[str, Any]:
    import logging
    import warnings

    from .measure import single_core

    single_core()
    logging.disable(logging.CRITICAL)
    warnings.filterwarnings("ignore")
    tool, spec, limit = args
    try:
        fn = peers.make(tool)
    except ImportError as e:
        return {"tool": tool, "spec": spec, "error": f"not installed ({e})"}
    path, split = pages.resolve(spec)
    s = evaluate(fn, load_corpus(path, split, limit), name=tool)
    return {"tool": tool, "spec": spec, **s.as_dict(), "errors": fn.errors}


def measure(tools: list[str], corpora: list[str], limit: int | None, jobs: int) -> list[dict[str, Any]]:
    for spec in corpora:
        pages.resolve(spec)  # fail early, with the hint, on a wrong corpus
    todo = [(t, c, limit) for c in corpora for t in tools if peers.available(t)]
    missing = [{"tool": t, "spec": c, "error": "not installed"} for c in corpora for t in tools
                if not peers.available(t)]
    order = sorted(todo, key=lambda a: -_COST.get(a[0], 1))
    if jobs <= 1:
        done = [_task(a) for a in order]
    else:  # a pool whose worker dies says so (BrokenProcessPool) instead of hanging
        done = []
        with ProcessPoolExecutor(jobs, mp_context=mp.get_context("spawn")) as pool:
            futures = {pool.submit(_task, a): a for a in order}
            for fut, (tool, spec, _) in futures.items():
                try:
                    done.append(fut.result())
                except Exception as e:  # noqa: BLE001 - one row says what went wrong
                    done.append({"tool": tool, "spec": spec, "error": f"{type(e).__name__}: {e}"[:200]})
    by_key = {(d["tool"], d["spec"]): d for d in done + missing}
    return [by_key[(t, c)] for c in corpora for t in tools]


def quality_tables(results: list[dict[str, Any]], corpora: list[str], tools: list[str]) -> str:
    f1 = {(r["tool"], r["spec"]): r.get("mean_f1") for r in results}
    best = {c: max((f1[(t, c)] for t in tools if f1.get((t, c)) is not None), default=None) for c in corpora}
    rows = []
    for t in tools:
        row = [t]
        for c in corpora:
            v = f1.get((t, c))
            cell = num(v, ".3f")
            row.append(f"**{cell}**" if v is not None and v == best[c] else cell)
        rows.append(row)
    summary = table(["mean F1"] + [pages.label(c) for c in corpora], rows)
    detail = []
    for r in results:
        if "error" in r:
            detail.append([pages.label(r["spec"]), r["tool"], r["error"]] + ["—"] * 6)
        else:
            detail.append([pages.label(r["spec"]), r["tool"], str(r["pages"]), num(r["precision"], ".3f"),
                           num(r["recall"], ".3f"), num(r["mean_f1"], ".3f"), num(r["f1_of_means"], ".3f"),
                           str(r["empty"]), str(r["errors"])])
    return (summary + "\n\n" + table(["corpus", "tool", "pages", "precision", "recall", "mean F1",
                                      "F1 of means", "empty", "errors"], detail))
