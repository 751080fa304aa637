"""``ce-filter bench``: arguments and the run (see docs/BENCHMARKS.md)."""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import sys
import time
from typing import TYPE_CHECKING, TypedDict

from . import pages, peers
from .measure import single_core
from .report import num, read_section, read_table, run_header, table, update_doc

if TYPE_CHECKING:
    from .measure import ChildResult
    from .pipeline import PipelineResult
    from .quality import QualityRow

SECTIONS = ("speed", "stages", "memory", "pipeline", "quality")
DEFAULT_SECTIONS = "speed,stages,memory"
# docs/BENCHMARKS.md is the default output only inside a checkout; installed from a wheel
# there is no docs/ folder, and the table goes where --out says (else it is only printed).
IN_CHECKOUT = (pages.REPO / "pyproject.toml").exists() and (pages.REPO / "docs").is_dir()
DOC = pages.REPO / "docs" / "BENCHMARKS.md" if IN_CHECKOUT else None
PLOT = pages.REPO / "docs" / "speed-quality.png" if IN_CHECKOUT else None


class BenchResults(TypedDict, total=False):
    """What a run measured (``--json``): the command and corpora, then each section's results."""

    command: str
    corpora: list[str]
    quality: list[QualityRow]
    tools: dict[str, ChildResult]  # the speed section: each tool's child
    memory: ChildResult
    pipeline: PipelineResult


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("corpus", nargs="*",
                   help="corpus dir[:split] (a folder with html/ID.html and gold/ID.txt), or a name "
                        "under the data root: $CE_FILTER_DATA, else ../shared/data from the current "
                        "directory (default: dragnet:test; with --quality: dragnet:test "
                        "cleaneval-final readability cleanportaleval)")
    p.add_argument("--limit", type=int, help="at most N pages per corpus")
    p.add_argument("--repeat", type=int, default=3, help="timed passes after the warm-up (default 3)")
    p.add_argument("--stat", choices=("best", "median"), default="best",
                   help="per-page time over the passes (default best = fastest)")
    p.add_argument("--tools", default="all", help=f"comma list from {', '.join(peers.ALL)} (default all)")
    p.add_argument("--pin", type=int, metavar="CORE", help="pin every measuring process to this CPU core")
    p.add_argument("--sections", default=DEFAULT_SECTIONS,
                   help=f"comma list from {', '.join(SECTIONS)} (default {DEFAULT_SECTIONS})")
    p.add_argument("--pipeline", action="store_true",
                   help="add the pipeline rows (WARC->JSONL, Kafka worker)")
    p.add_argument("--quality", action="store_true", help="only the quality table (P/R/F1 per corpus)")
    p.add_argument("--jobs", type=int, default=2, help="processes for --quality (default 2)")
    p.add_argument("--oof", metavar="PAGES.tsv",
                   help="with --quality: the per-page file of `ce-filter evaluate --cv ... --pages "
                        "PAGES.tsv`; each of its corpora in the run gets ce-filter's out-of-fold mean F1 "
                        "per page type against the best peer, and the page-kind model's confusion "
                        "out of fold")
    p.add_argument("--metadata", action="store_true",
                   help="only the metadata table: title/author/date on wcxb-dev beside trafilatura, and "
                        "their cost (written into docs/OUTPUT.md when run in a checkout)")
    p.add_argument("--warc-pages", type=int, default=10_000,
                   help="pages in the memory-run WARC (default 10000)")
    p.add_argument("--pipeline-pages", type=int, default=10_000,
                   help="pages / messages for the pipeline rows (default 10000: at 2000 the "
                        "worker pool's start-up was a quarter of a 2-worker run)")
    p.add_argument("--timeout", type=float, default=1800, help="seconds allowed per measuring process")
    p.add_argument("--out", default=str(DOC) if DOC else None,
                   help="markdown file to update (default docs/BENCHMARKS.md in a checkout; "
                        "installed, none: the table is printed only)")
    p.add_argument("--plot", default=str(PLOT) if PLOT else None,
                   help="PNG of pages/s against mean F1 for every tool, drawn by the speed section "
                        "(default docs/speed-quality.png in a checkout; installed, none)")
    p.add_argument("--replot", action="store_true",
                   help="measure nothing: draw --plot from the speed table already in --out, and link it")
    p.add_argument("--no-write", action="store_true", help="print only; leave the docs alone")
    p.add_argument("--json", metavar="PATH", help="also write the raw results as JSON")


def sections(a: argparse.Namespace) -> list[str]:
    if a.quality:
        return ["quality"]
    got = [s.strip() for s in a.sections.split(",") if s.strip()]
    bad = [s for s in got if s not in SECTIONS]
    if bad:
        raise ValueError(f"unknown section(s) {', '.join(bad)}; known: {', '.join(SECTIONS)}")
    if a.pipeline and "pipeline" not in got:
        got.append("pipeline")
    return got


def command_line(a: argparse.Namespace) -> str:
    """The command that repeats this run (options at their defaults left out)."""
    parts = ["ce-filter", "bench", *a.corpus]
    defaults = {"limit": None, "repeat": 3, "stat": "best", "tools": "all", "pin": None,
                "sections": DEFAULT_SECTIONS, "pipeline": False, "quality": False, "jobs": 2, "oof": None,
                "warc_pages": 10_000, "pipeline_pages": 10_000, "timeout": 1800}
    for k, d in defaults.items():
        v = getattr(a, k)
        if v != d and not (k in ("jobs", "oof") and not a.quality):
            flag = "--" + k.replace("_", "-")
            parts += [flag] if v is True else [flag, str(v)]
    return shlex.join(parts)


def smoke_note(a: argparse.Namespace) -> str:
    """A warning line for runs smaller than the documented full run (their figures prove the
    harness, not the filter)."""
    small = [f"--limit {a.limit}"] if a.limit else []
    if not a.quality:
        small += [f"--repeat {a.repeat}"] if a.repeat < 3 else []
        small += [f"--warc-pages {a.warc_pages}"] if a.warc_pages < 10_000 else []
        small += [f"--pipeline-pages {a.pipeline_pages}"] if a.pipeline_pages < 10_000 else []
    if not small:
        return ""
    return (f"**Smoke run** ({', '.join(small)}): these figures show that the harness works; "
            "they are not the benchmark. The full commands are under 'How to run' in docs/BENCHMARKS.md.\n\n")


def _targets(res: BenchResults, ratio_floor: float, fits: dict[str, tuple[float, float, float]],
             growth: float, pipe: PipelineResult | None, over: list[str] | None = None) -> str:
    tools = res.get("tools", {})
    ce = tools.get("ce-filter", {})

    def ok(cond: bool | None) -> str:
        return "—" if cond is None else ("met" if cond else "**not met**")

    def pps(name: str) -> float | None:
        r = tools.get(name, {})
        return r.get("pps") if r.get("ok") else None

    rows = []
    for peer, need in (("trafilatura", 5.0), ("resiliparse", 1.0)):
        a, b = pps("ce-filter"), pps(peer)
        x = a / b if a and b else None
        rows.append([f"throughput ≥ {need:g}× {peer}", num(x, ".2f") + "×" if x else "—",
                     ok(None if x is None else x >= need)])
    tf = tools.get("trafilatura", {})
    if ce.get("ok") and tf.get("ok"):
        rows.append(["mean F1 ≥ trafilatura's (these pages)", f"{ce['f1']:.3f} vs {tf['f1']:.3f}",
                     ok(ce["f1"] >= tf["f1"])])
    if not math.isnan(ratio_floor):
        rows.append(["p50 ≤ 4× (parse + bare walk) p50", f"{ratio_floor:.2f}×", ok(ratio_floor <= 4)])
    if over is not None:
        from .stages import STAGES

        rows.append(["every stage within its budget (p50)",
                     f"{len(over)} of {len(STAGES)} over" + (f": {', '.join(over)}" if over else ""),
                     ok(not over)])
    if "ce-filter" in fits:
        slope, icpt, r2 = fits["ce-filter"]
        rows.append(["cost linear in page size", f"{slope:.2f} ms/100 KB, R² {r2:.2f}", "see the fit"])
    if not math.isnan(growth):
        rows.append(["RSS flat over the WARC stream", f"{growth:+.1f} MB from 10 % to end",
                     ok(abs(growth) < 20)])
    if pipe and "pps" in pipe.get("warc1", {}) and "pps" in pipe.get("warc2", {}):
        x = pipe["warc2"]["pps"] / pipe["warc1"]["pps"]
        rows.append(["WARC→JSONL --workers 2 ≥ 1.8× one", f"{x:.2f}×", ok(x >= 1.8)])
    return table(["target", "reached", ""], rows)


def _plot(results: dict[str, ChildResult], path: str, doc: str | None, title: str) -> str:
    """Draw the speed-vs-quality PNG; the markdown that shows it (a note when it cannot)."""
    from . import plot

    try:
        drawn = plot.speed_quality_png(results, path, title)
    except ImportError:
        print("ce-filter bench: no matplotlib, so no picture (pip install 'ce-filter[bench]')",
              file=sys.stderr)
        return "(no picture: matplotlib is not installed)"
    print(f"wrote {os.path.relpath(path)} ({len(drawn)} tools)", file=sys.stderr)
    rel = os.path.relpath(path, os.path.dirname(os.path.abspath(doc))) if doc else path
    return f"{PICTURE}({rel})"


SIDE_BY_SIDE = "### Side by side ("
PICTURE = "![pages/s against mean F1, every tool]"


def replot(a: argparse.Namespace) -> int:
    """The picture of the speed run written in ``--out``, without measuring again."""
    body = read_section(a.out, "speed") if a.out else None
    rows = read_table(body or "", "tool")
    if not body or not a.plot or not rows:
        print("ce-filter bench --replot: needs --out with a speed section (a run of the speed section) "
              "and --plot", file=sys.stderr)
        return 2
    results: dict[str, ChildResult] = {
        r["tool"]: {"ok": True, "pps": float(r["pages/s"]), "f1": float(r["mean F1"])}
        for r in rows if r.get("version", "—") != "—"}  # a tool that did not run: no numbers
    heading = next(ln for ln in body.splitlines() if ln.startswith(SIDE_BY_SIDE))
    where = heading[len(SIDE_BY_SIDE):].rstrip(")")
    link = _plot(results, a.plot, a.out, f"Speed and quality, {where}")
    if PICTURE not in body:  # a run from before the picture: link it where a run puts it
        cut = body.index("### Cost against page size")
        body = body[:cut] + link + "\n\n" + body[cut:]
    update_doc(a.out, {"speed": body})
    return 0


def run(a: argparse.Namespace) -> int:
    if a.replot:
        return replot(a)
    if a.metadata:
        from .metadata import run as run_metadata

        return run_metadata(a)
    try:
        todo = sections(a)
        oof = None
        if a.oof:
            if not a.quality:
                raise ValueError("--oof: with --quality only")
            from .kinds import read_oof

            oof = read_oof(a.oof)
        tools = peers.parse_tools(a.tools)
        if a.quality:  # ce-filter+metadata is ce-filter's extraction: the same text
            tools = [t for t in tools if t != "ce-filter+metadata"]
        corpora = list(a.corpus) or list(pages.DEFAULT_QUALITY if a.quality else pages.DEFAULT_SPEED)
        for spec in corpora:
            pages.load([spec], 1)  # a corpus with no page (html/ but no gold/) fails here, in one line
        if a.pin is not None and a.pin not in os.sched_getaffinity(0):
            cores = sorted(os.sched_getaffinity(0))
            raise ValueError(f"--pin {a.pin}: not one of this process's cores {cores}")
    except (ValueError, FileNotFoundError) as e:
        print(f"ce-filter bench: {e}", file=sys.stderr)
        return 2
    # One thread per library everywhere; only the measuring children pin themselves (--pin), so
    # the pipeline's --workers 2 run and the quality pool still get both cores.
    single_core()
    cmd = command_line(a)
    t_start = time.perf_counter()
    res: BenchResults = {"command": cmd, "corpora": corpora}
    out: dict[str, str] = {}  # doc section -> markdown
    printed: list[str] = []
    try:
        docs = pages.load(corpora, a.limit) if "quality" not in todo else []
    except FileNotFoundError as e:  # a folder with html/ but no page that has its gold text
        print(f"ce-filter bench: {e}", file=sys.stderr)
        return 2
    n_pages = len(docs)

    if "quality" in todo:
        from . import quality

        q = quality.measure(tools, corpora, a.limit, a.jobs)
        res["quality"] = q
        body = quality.quality_tables(q, corpora, tools, oof)
        out["quality"] = f"{smoke_note(a)}{run_header(cmd)}\n\n{body}"
        printed.append(body)

    speed_parts: list[str] = []
    fits: dict[str, tuple[float, float, float]] = {}
    ratio_floor, growth = math.nan, math.nan
    over: list[str] | None = None
    if "speed" in todo or "stages" in todo:
        from . import speed

        if "speed" in todo:
            res["tools"] = speed.measure_tools(tools, docs, a.repeat, a.pin, a.timeout)
            for name, r in res["tools"].items():  # one that needs another Python says which
                if r.get("missing") and peers.foreign(name):
                    r["error"] = peers.missing_hint(name)
            t = speed.speed_table(res["tools"], a.stat)
            lin, fits = speed.linearity_table(res["tools"])
            calls = table(["tool", "called as"], [[n, peers.TOOLS[n].how] for n in tools])
            where = f"{n_pages} pages: {', '.join(map(pages.label, corpora))}"
            speed_parts += [f"### Side by side ({where})", t, calls]
            if a.plot and not a.no_write:
                speed_parts.append(_plot(res["tools"], a.plot, a.out, f"Speed and quality, {where}"))
            speed_parts += ["### Cost against page size (per-page times; least-squares fit over the pages)",
                            lin]
        if "stages" in todo:
            speed.say("bench: timing ce-filter's stages and the floor ...")
            st = speed.run_child({"kind": "stages", "corpora": [pages.absolute(c) for c in corpora],
                                  "limit": a.limit, "repeat": a.repeat,
                                  "pin": a.pin}, a.timeout)
            if st.get("ok"):
                e2e = res.get("tools", {}).get("ce-filter")
                stage_t, floor_t, ratio_floor, over = speed.breakdown_tables(st, e2e, a.stat)
                line = (f"ce-filter p50 / floor p50 = **{ratio_floor:.2f}×**" if not math.isnan(ratio_floor)
                        else "(run the speed section too for the ce-filter / floor ratio)")
                speed_parts += ["### Where ce-filter's time goes", stage_t,
                                "### The floor: selectolax alone on the same pages", floor_t, line]
            else:
                speed_parts += ["### Where ce-filter's time goes", f"stage run failed: {st.get('error')}"]
        alloc_t = speed.alloc_table(res["tools"]) if "tools" in res else None
        if alloc_t:
            speed_parts += ["### Allocations and the garbage collector (ce-filter's text and whole record)",
                            alloc_t]
    if "memory" in todo:
        from . import speed

        m = speed.measure_memory(docs, a.warc_pages, a.pin, a.timeout)
        res["memory"] = m
        mt, growth = speed.memory_table(m)
        speed_parts += [f"### Memory while streaming a {a.warc_pages}-page WARC through `Extractor.extract`",
                        mt]
    pipe = None
    if "pipeline" in todo:
        from . import pipeline, speed

        speed.say("bench: pipeline rows ...")
        pipe = pipeline.measure(docs, a.pipeline_pages, a.timeout)
        res["pipeline"] = pipe
        pt = pipeline.pipeline_table(pipe)
        out["pipeline"] = f"{smoke_note(a)}{run_header(cmd)}\n\n{pt}"
        printed.append(pt)
    if speed_parts:
        speed_parts.insert(0, "### Targets\n\n" + _targets(res, ratio_floor, fits, growth, pipe, over))
        body = "\n\n".join(speed_parts)
        out["speed"] = f"{smoke_note(a)}{run_header(cmd, a.pin)}\n\n{body}"
        printed.insert(0, body)

    print("\n\n".join(printed))
    print(f"\n(bench took {time.perf_counter() - t_start:.0f} s)", file=sys.stderr)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, default=str)
    if not a.no_write and out and a.out:
        update_doc(a.out, out)
        print(f"wrote {os.path.relpath(a.out)} (sections: {', '.join(out)})", file=sys.stderr)
    elif not a.no_write and out:
        print("bench: not in a checkout, so no docs/BENCHMARKS.md: --out FILE writes the table",
              file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m ce_filter.bench", description=__doc__)
    add_arguments(p)
    return run(p.parse_args(argv))
