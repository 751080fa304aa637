"""The FineWeb-style datatrove run, twice: ``WarcReader -> extractor -> JsonlWriter`` with
datatrove's own ``Trafilatura(favour_precision=True)`` and with ce-filter's ``CEFilter``, the
same executor settings, on one WARC of corpus pages. Documents per second, peak RSS of the task
and of its extractor sandbox, and the token F1 of each step's documents against the corpus gold.

``python -m ce_filter.bench.datatrove [--pin 1]`` (needs the ``datatrove`` and ``bench``
extras); writes the ``datatrove`` section of docs/BENCHMARKS.md. Each step runs in a fresh
interpreter (so its RSS is its own), one after the other in the same run.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import resource
import shlex
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, cast

from . import pages
from .measure import child_env, peak_rss_kb, single_core
from .report import num, run_header, table, update_doc

if TYPE_CHECKING:
    from datatrove.pipeline.extractors.base import BaseExtractor

    from ce_filter.learn.corpus import Doc

# the report-only corpora (never trained or tuned on): every page once, 2,664 HTML records
DEFAULT_CORPORA = ("dragnet:test", "cleaneval-final", "readability", "cleanportaleval", "big5", "zh-finance")
MIN_PAGES = 2000
# (run name, table label): datatrove's step as FineWeb ran it, then ours at its default and its
# precision-leaning cut (the counterpart of favour_precision=True)
STEPS = (("trafilatura", "datatrove `Trafilatura(favour_precision=True)`"),
         ("ce-filter", "ce-filter `CEFilter()`"),
         ("ce-filter-precise", "ce-filter `CEFilter(precise=True)`"))
SECTION = "datatrove"
URL = "http://bench.invalid/{corpus}/{id}.html"


class StepJob(TypedDict):
    """One run of a step, in a child (JSON): the step's name (STEPS), the core to pin it to, the
    per-document timeout, the tasks, the WARC folder, the output and log folders."""

    step: str
    pin: int | None
    doc_timeout: float
    tasks: int
    warcs: str
    out: str
    logs: str


class StepScore(TypedDict):
    """score's figures: mean token P/R/F1, documents written, mean F1 per corpus."""

    p: float
    r: float
    f1: float
    docs_out: int
    per_corpus: dict[str, float]


class StepRun(TypedDict, total=False):
    """A step's run (child's JSON): wall and extractor seconds, datatrove's counts of the step,
    peak RSS of the task and of its children; the parent adds documents per second and, for
    the fastest run of the step, its StepScore."""

    seconds: float
    step_seconds: float
    counts: dict[str, float]
    task_rss_kb: int
    children_rss_kb: int
    docs_per_s: float
    p: float
    r: float
    f1: float
    docs_out: int
    per_corpus: dict[str, float]


class DatatroveResults(TypedDict):
    """measure's figures: the WARC's records, the distinct pages, the corpora and the records of
    each, each step's fastest run."""

    pages: int
    distinct: int
    corpora: list[str]
    per_corpus_pages: dict[str, int]
    steps: dict[str, StepRun]


# ------------------------------------------------------------------ the WARC


_CANONICAL = re.compile(
    rb"""<(?:link[^>]*rel=["']?canonical[^>]*href|meta[^>]*property=["']?og:url[^>]*content)"""
    rb"""=["']?(https?://[^"'\s>]+)""", re.I)


def page_url(doc: Doc, corpus: str) -> str:
    """The page's URL: the corpus's, else its canonical / og:url link, else a made-up one."""
    if doc.url:
        return str(doc.url)
    m = _CANONICAL.search(doc.html[:200_000])
    if m:
        return m.group(1).decode("ascii", "replace")
    return URL.format(corpus=corpus.replace(" ", "-"), id=doc.id)


def record_index(record_id: str) -> int:
    """The record index ``write_warcs`` put in a record id."""
    return uuid.UUID(record_id.strip("<>").removeprefix("urn:uuid:")).int


def write_warcs(docs: list[Doc], labels: list[str], folder: Path, files: int, n_pages: int) -> None:
    """``n_pages`` response records cycling over ``docs``, dealt round-robin into ``files`` WARC
    files (one per task). Each record has ``WARC-Identified-Payload-Type: text/html``, as Common
    Crawl's do: datatrove's WarcReader selects HTML by it (else by libmagic, which misses pages).
    The record id carries its index (which maps each output document back to its gold); the URL
    is the page's own, as crawled, where the corpus or the page's canonical link gives it: both
    extractors may read it, and a made-up one changes what a URL-aware extractor does."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    folder.mkdir(parents=True, exist_ok=True)
    fhs = [open(folder / f"part-{k:03d}.warc.gz", "wb") for k in range(files)]
    try:
        writers = [WARCWriter(fh, gzip=True) for fh in fhs]
        for i in range(n_pages):
            d, label = docs[i % len(docs)], labels[i % len(docs)]
            http = StatusAndHeaders("200 OK", [("Content-Type", "text/html"),
                                               ("Content-Length", str(len(d.html)))], protocol="HTTP/1.1")
            rec = writers[i % files].create_warc_record(
                page_url(d, label), "response", payload=io.BytesIO(d.html), http_headers=http,
                warc_headers_dict={"WARC-Identified-Payload-Type": "text/html",
                                   "WARC-Record-ID": f"<urn:uuid:{uuid.UUID(int=i)}>"})
            writers[i % files].write_record(rec)
    finally:
        for fh in fhs:
            fh.close()


# ------------------------------------------------------------------ one step, in a child


def _step(name: str, doc_timeout: float) -> BaseExtractor:
    if name == "trafilatura":
        import trafilatura  # noqa: F401 - imported in the task, so the forked sandbox starts warm
        from datatrove.pipeline.extractors import Trafilatura

        return Trafilatura(favour_precision=True, timeout=doc_timeout)
    from ce_filter.integrations.datatrove import CEFilter

    return CEFilter(precise=name == "ce-filter-precise", timeout=doc_timeout)


def child(job: StepJob) -> StepRun:
    """Run the pipeline once with one extractor; counts, wall time and peak RSS."""
    single_core(job["pin"])
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import WarcReader
    from datatrove.pipeline.writers import JsonlWriter

    step = _step(job["step"], job["doc_timeout"])
    ex = LocalPipelineExecutor(
        pipeline=[WarcReader(job["warcs"]), step, JsonlWriter(job["out"], compression=None)],
        tasks=job["tasks"], workers=job["tasks"], logging_dir=job["logs"])
    t0 = time.perf_counter()
    stats = ex.run()
    seconds = time.perf_counter() - t0
    counts: dict[str, float] = {}
    step_time = 0.0
    for s in stats.stats:
        if s.name == str(step):
            counts = {k: v.total for k, v in s.stats.items()}
            step_time = s.time_stats.total
    return {"seconds": seconds, "step_seconds": step_time, "counts": counts,
            "task_rss_kb": peak_rss_kb(),
            # the sandbox children (and datatrove's Manager process); forked, so pages shared with
            # the task count in both figures
            "children_rss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}


def run_child(job: StepJob, timeout: float) -> StepRun:
    with tempfile.TemporaryDirectory() as tmp:
        jpath, rpath = Path(tmp) / "job.json", Path(tmp) / "result.json"
        jpath.write_text(json.dumps(job))
        cmd = [sys.executable, "-m", "ce_filter.bench.datatrove", "--child", str(jpath), str(rpath)]
        p = subprocess.run(cmd, env=child_env(), capture_output=True, text=True, timeout=timeout)
        if p.returncode != 0 or not rpath.exists():
            raise RuntimeError(f"{job['step']} run failed (exit {p.returncode}): {p.stderr[-2000:]}")
        return cast("StepRun", dict(json.loads(rpath.read_text())))


# ------------------------------------------------------------------ scoring


def score(out_dir: Path, docs: list[Doc], labels: list[str], n_pages: int) -> StepScore:
    """Mean token P/R/F1 (ce_filter.learn.evaluate.token_prf) over every record of the WARC; a
    dropped or timed-out record counts as an empty output."""
    from ce_filter.learn.evaluate import token_prf

    texts: dict[int, str] = {}
    for f in sorted(out_dir.glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            d = json.loads(line)
            texts[record_index(d["id"])] = d["text"]
    per: dict[str, list[tuple[float, float, float]]] = {}
    for i in range(n_pages):
        k = i % len(docs)
        per.setdefault(labels[k], []).append(token_prf(texts.get(i, ""), docs[k].gold))
    allp = [x for v in per.values() for x in v]

    def mean(xs: list[tuple[float, float, float]], j: int) -> float:
        return sum(x[j] for x in xs) / len(xs)

    return {"p": mean(allp, 0), "r": mean(allp, 1), "f1": mean(allp, 2), "docs_out": len(texts),
            "per_corpus": {c: mean(v, 2) for c, v in per.items()}}


# ------------------------------------------------------------------ the run


def measure(a: argparse.Namespace) -> DatatroveResults:
    docs: list[Doc] = []
    labels: list[str] = []
    for spec in a.corpus:
        got = pages.load([spec], a.limit)
        docs += got
        labels += [pages.label(spec)] * len(got)
    if not docs:
        raise SystemExit("no pages with gold in the corpora given")
    n_pages = max(a.pages, len(docs))
    results: DatatroveResults = {"pages": n_pages, "distinct": len(docs), "corpora": sorted(set(labels)),
                               "per_corpus_pages": {c: sum(labels[i % len(docs)] == c for i in range(n_pages))
                                                    for c in set(labels)}, "steps": {}}
    with tempfile.TemporaryDirectory(prefix="ce-dt-bench-") as tmp:
        warcs = Path(tmp) / "warc"
        write_warcs(docs, labels, warcs, a.tasks, n_pages)
        # the steps alternate, a.repeat rounds; each step's fastest run is kept (the other runs'
        # time went to the machine, not the step), its documents scored
        for rnd in range(a.repeat):
            for name, _ in STEPS:
                out = Path(tmp) / f"{name}-{rnd}"
                job: StepJob = {"step": name, "pin": a.pin, "doc_timeout": a.doc_timeout, "tasks": a.tasks,
                       "warcs": str(warcs), "out": str(out / "out"), "logs": str(out / "logs")}
                r = run_child(job, a.timeout)
                r["docs_per_s"] = n_pages / r["seconds"]
                print(f"{name} (round {rnd + 1}): {r['docs_per_s']:.1f} docs/s", file=sys.stderr)
                best = results["steps"].get(name)
                if best is None or r["seconds"] < best["seconds"]:
                    r.update(score(out / "out", docs, labels, n_pages))
                    results["steps"][name] = r
        for name, _ in STEPS:
            r = results["steps"][name]
            print(f"{name}: {r['docs_per_s']:.1f} docs/s, F1 {r['f1']:.4f}", file=sys.stderr)
    return results


def command_line(a: argparse.Namespace) -> str:
    parts = ["python", "-m", "ce_filter.bench.datatrove"]
    if list(a.corpus) != list(DEFAULT_CORPORA):
        parts += a.corpus
    for flag, v, d in (("--pages", a.pages, MIN_PAGES), ("--tasks", a.tasks, 1), ("--pin", a.pin, None),
                       ("--doc-timeout", a.doc_timeout, 1.0), ("--limit", a.limit, None),
                       ("--repeat", a.repeat, 3)):
        if v != d:
            parts += [flag, str(v)]
    return shlex.join(parts)


def report(r: DatatroveResults, a: argparse.Namespace) -> str:
    steps = r["steps"]
    base = steps["trafilatura"]["docs_per_s"]
    rows = []
    for name, label in STEPS:
        s = steps[name]
        c = {k: int(v) for k, v in s["counts"].items()}
        rows.append([label, num(s["docs_per_s"]), num(s["docs_per_s"] / base, ".1f") + "×",
                     num(1000 * s["step_seconds"] / max(1, c.get("total", 0)), ".2f"),
                     f"{c.get('total', 0)}: {c.get('forwarded', 0)} / {c.get('dropped', 0)} / "
                     f"{c.get('timeout', 0)}",
                     num(s["task_rss_kb"] / 1024, ".0f"), num(s["children_rss_kb"] / 1024, ".0f"),
                     num(s["p"], ".3f"), num(s["r"], ".3f"), num(s["f1"], ".4f")])
    main = table(["step", "docs/s", "vs Trafilatura", "extractor ms/doc", "read: kept / dropped / timeouts",
                  "peak RSS task (MiB)", "peak RSS children (MiB)", "P", "R", "F1"], rows)
    f1s = [[num(steps[name]["per_corpus"][c], ".4f") for name, _ in STEPS] for c in r["corpora"]]
    corp = table(["corpus", "records", *(f"F1 {label.split('`')[1]}" for _, label in STEPS)],
                 [[c, str(r["per_corpus_pages"][c]), *f] for c, f in zip(r["corpora"], f1s)])
    tasks = f"{a.tasks} task" + ("s" if a.tasks > 1 else "")
    from importlib.metadata import version

    return "\n".join([
        run_header(command_line(a), a.pin), f"- datatrove: {version('datatrove')}", "",
        f"{r['pages']} HTML records ({r['distinct']} distinct corpus pages), `LocalPipelineExecutor`, "
        f"{tasks}, per-document timeout {a.doc_timeout:g} s for every step.", "",
        main, "",
        "Token F1 per corpus (mean over the records of each corpus):", "",
        corp,
    ])


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("corpus", nargs="*", default=list(DEFAULT_CORPORA),
                   help="corpus dir[:split] or a name under the data root "
                        f"(default: {' '.join(DEFAULT_CORPORA)})")
    p.add_argument("--pages", type=int, default=MIN_PAGES,
                   help="records in the WARC, cycling over the pages when there are fewer "
                        f"(default {MIN_PAGES}; every page is written at least once)")
    p.add_argument("--limit", type=int, help="at most N pages per corpus")
    p.add_argument("--tasks", type=int, default=1, help="datatrove tasks (and WARC files), run side by side "
                                                        "(default 1)")
    p.add_argument("--pin", type=int, metavar="CORE", help="pin both runs to this CPU core")
    p.add_argument("--doc-timeout", type=float, default=1.0,
                   help="datatrove's per-document extractor timeout, both steps (default 1, its default)")
    p.add_argument("--repeat", type=int, default=3, help="rounds of the steps, alternating; each step's "
                                                        "fastest run is reported")
    p.add_argument("--timeout", type=float, default=3600, help="seconds allowed per run")
    p.add_argument("--out", default=str(pages.REPO / "docs" / "BENCHMARKS.md"),
                   help="markdown file whose datatrove section is replaced (default docs/BENCHMARKS.md)")
    p.add_argument("--no-write", action="store_true", help="print only")
    p.add_argument("--json", metavar="PATH", help="also write the raw results as JSON")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        job = json.loads(Path(argv[1]).read_text())
        Path(argv[2]).write_text(json.dumps(child(job)))
        return 0
    p = argparse.ArgumentParser(prog="python -m ce_filter.bench.datatrove",
                                description=(__doc__ or "").split("\n\n")[0])
    add_arguments(p)
    a = p.parse_args(argv)
    if a.tasks < 1 or a.pages < 1 or a.repeat < 1:
        p.error("--tasks, --pages and --repeat must be 1 or more")
    try:
        import datatrove  # noqa: F401
        import trafilatura  # noqa: F401
    except ImportError as e:
        p.error(f"needs the datatrove and bench extras: pip install 'ce-filter[datatrove,bench]' ({e})")
    if a.pin is not None:
        os.sched_setaffinity(0, {a.pin})
    r = measure(a)
    text = report(r, a)
    print(text)
    if a.json:
        Path(a.json).write_text(json.dumps(r, indent=1))
    if not a.no_write and a.out:
        update_doc(a.out, {SECTION: text})
    return 0


if __name__ == "__main__":
    sys.exit(main())
