"""The quality tables: each tool's token precision / recall / F1 on each report corpus, the
snippet rates where the corpus has snippets, and all of it per page type where it has types (and
per language, site and year where ``Score.breakdowns`` shows them). With ``--oof PAGES.tsv`` (the
per-page file of an out-of-fold run, ``ce-filter evaluate --cv --pages``), each corpus of that
file also gets ce-filter's out-of-fold figure per page type against the best peer, and the
page-kind model's confusion out of fold (benchmarks/kinds.py).

No timing here, so the (tool, corpus) tasks run in parallel processes (``--jobs``), children
of the page runner (ce_filter.run.pool): a task whose child dies gets a row that says why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ce_filter.learn.corpus import load_corpus
from ce_filter.learn.evaluate import Breakdown, ScoreFigures, evaluate
from ce_filter.run.budget import Budget
from ce_filter.run.pool import Handler, Pool

from . import pages, peers
from .report import num, table

if TYPE_CHECKING:
    from .kinds import OofPage


class QualityRow(ScoreFigures, total=False):
    """One (tool, corpus) row: the tool's figures (Score.as_dict) and the pages it failed on,
    or ``error`` where it could not run."""

    tool: str
    spec: str
    errors: int
    error: str


# Rough relative cost per page, to start the slow tasks first.
_COST = {"readability-lxml": 8, "trafilatura": 6, "justext": 4, "boilerpy3": 4, "rs-trafilatura": 3,
         "html-text": 2}


def _task(args: tuple[str, str, int | None]) -> QualityRow:
    import logging
    import warnings

    from .measure import single_core

    single_core()
    logging.disable(logging.CRITICAL)
    warnings.filterwarnings("ignore")
    tool, spec, limit = args
    path, split = pages.resolve(spec)
    if peers.foreign(tool):  # runs in its own interpreter: one pass there, its texts scored here
        from .measure import tool_outputs

        docs = list(load_corpus(path, split, limit))
        r = tool_outputs(tool, [(d.html, d.url or None) for d in docs])
        if not r.get("ok"):
            return {"tool": tool, "spec": spec, "error": r["error"]}
        texts = iter(r["outputs"])
        s = evaluate(lambda _html, _url: next(texts), docs, name=tool)
        return {"tool": tool, "spec": spec, **s.as_dict(), "errors": r["errors"]}
    try:
        fn = peers.make(tool)
    except ImportError as e:
        return {"tool": tool, "spec": spec, "error": f"not installed ({e})"}
    s = evaluate(fn, load_corpus(path, split, limit), name=tool)
    return {"tool": tool, "spec": spec, **s.as_dict(), "errors": fn.errors}


class _Tasks(Handler):
    """A runner child's handler: one (tool, corpus, limit) task, its row."""

    def run(self, work: tuple[str, str, int | None]) -> QualityRow:
        return _task(work)


def _tasks() -> Handler:
    return _Tasks()


def measure(tools: list[str], corpora: list[str], limit: int | None, jobs: int) -> list[QualityRow]:
    for spec in corpora:
        pages.resolve(spec)  # fail early, with the hint, on a wrong corpus
    todo = [(t, c, limit) for c in corpora for t in tools if peers.available(t)]
    missing: list[QualityRow] = [{"tool": t, "spec": c, "error": peers.missing_hint(t)}
                                 for c in corpora for t in tools if not peers.available(t)]
    order = sorted(todo, key=lambda a: -_COST.get(a[0], 1))
    if jobs <= 1:
        done = [_task(a) for a in order]
    else:  # whole corpora, no per-page budget: a child that dies is that task's row, with why
        done = []
        with Pool(_tasks, jobs, Budget(0, 0), name="ce-filter-bench-quality") as pool:
            for r in pool.run(order):
                tool, spec, _ = r.task
                done.append({"tool": tool, "spec": spec, "error": r.failed} if r.failed else r.value)
    by_key = {(d["tool"], d["spec"]): d for d in done + missing}
    return [by_key[(t, c)] for c in corpora for t in tools]


def _cells(r: ScoreFigures) -> list[str]:
    """pages, P, R, mean F1, F1 of means, must-have found, must-not-have absent, empty."""
    return [str(r["pages"]), num(r["precision"], ".3f"), num(r["recall"], ".3f"), num(r["mean_f1"], ".3f"),
            num(r["f1_of_means"], ".3f"), num(r.get("must_have"), ".3f"), num(r.get("must_not_have"), ".3f"),
            str(r["empty"])]


_DETAIL = ["pages", "precision", "recall", "mean F1", "F1 of means", "must-have found",
           "must-not-have absent", "empty"]


def _bold_best(values: dict[str, float | None]) -> dict[str, str]:
    best = max((v for v in values.values() if v is not None), default=None)
    return {t: (f"**{num(v, '.3f')}**" if v is not None and v == best else num(v, ".3f"))
            for t, v in values.items()}


def quality_tables(results: list[QualityRow], corpora: list[str], tools: list[str],
                   oof: list[OofPage] | None = None) -> str:
    """The summary, the detail, and each corpus's breakdowns; with ``oof`` (out-of-fold pages,
    kinds.read_oof), after a corpus's page-type tables the out-of-fold ones of kinds.oof_parts."""
    by_key = {(r["tool"], r["spec"]): r for r in results}
    f1 = {k: r.get("mean_f1") for k, r in by_key.items()}
    cols = {c: _bold_best({t: f1.get((t, c)) for t in tools}) for c in corpora}
    summary = table(["mean F1"] + [pages.label(c) for c in corpora],
                    [[t] + [cols[c][t] for c in corpora] for t in tools])
    detail = []
    for r in results:
        if "error" in r:
            detail.append([pages.label(r["spec"]), r["tool"], r["error"]] + ["—"] * 8)
        else:
            detail.append([pages.label(r["spec"]), r["tool"]] + _cells(r) + [str(r["errors"])])
    parts = [summary, table(["corpus", "tool"] + _DETAIL + ["errors"], detail)]
    for c in corpora:
        for key, what in _BREAKDOWNS:
            parts += _group_tables(c, tools, by_key, key, what)
            if key == "by_type" and oof:
                from .kinds import oof_parts

                label = pages.label(c)
                parts += oof_parts(label, [p for p in oof if p.corpus == label],
                                   {t: by_key[(t, c)] for t in tools if (t, c) in by_key}, tools)
    return "\n\n".join(parts)


# Score.as_dict's breakdowns (page type; language, site, year where the corpus shows them)
_BREAKDOWNS: tuple[tuple[Breakdown, str], ...] = (
    ("by_type", "page type"), ("by_lang", "language"), ("by_site", "site"), ("by_year", "year"))


def _group_tables(spec: str, tools: list[str], by_key: dict[tuple[str, str], QualityRow],
                  key: Breakdown, what: str) -> list[str]:
    """For a corpus with groups of pages (``key``: page types, languages, sites, years): mean
    F1 per tool and group (best in bold), then every figure per group and tool."""
    groups: list[str] = []
    for t in tools:
        for k in by_key.get((t, spec), {}).get(key, {}):
            if k not in groups:
                groups.append(k)
    if not groups:
        return []
    per = {k: _bold_best({t: by_key.get((t, spec), {}).get(key, {}).get(k, {}).get("mean_f1")
                          for t in tools}) for k in groups}
    overall = _bold_best({t: by_key.get((t, spec), {}).get("mean_f1") for t in tools})
    label = pages.label(spec)
    head = table(["mean F1, " + label, "all"] + groups,
                 [[t, overall[t]] + [per[k][t] for k in groups] for t in tools])
    rows = []
    for k in groups:
        for t in tools:
            r = by_key.get((t, spec), {}).get(key, {}).get(k)
            if r:
                rows.append([k, t] + _cells(r))
    return [f"By {what} ({label}):", head, table([what, "tool"] + _DETAIL, rows)]
