"""The child process: measures one thing in a fresh interpreter, so peak RSS is its own.

``python -m benchmarks.measure JOB.json RESULT.json``. Job kinds:

- ``tool``: read the pages (a pickled list of (bytes, url): no ce_filter import, so the RSS noted
  next is the same for every tool), build the tool, one warm-up pass (its outputs go back to
  be scored against the gold), then ``repeat`` timed passes over all pages, one clock read
  per page, the garbage collector's time within each page read by ``allocs.GcClock``; for
  ce-filter's rows, one more pass, untimed, counts the object allocations of each page
  (``allocs.count_allocations``).
  A tool that needs a newer Python than the bench's (``peers.foreign``) gets this process in
  that interpreter (``peers.interpreter``), run as ``python -m benchmarks.measure`` with only
  this folder on its path: the standard library, the harness and the tool, no ce_filter.
- ``stages``: the same passes over ``stages.staged_extract`` and ``stages.floor``.
- ``memory``: stream a WARC through ``Extractor.extract``, sampling RSS as it goes.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import pickle
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypedDict

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "RAYON_NUM_THREADS")


class Job(TypedDict, total=False):
    """A measuring child's job (JSON): its ``kind`` (tool, stages or memory), the core to pin
    it to, and the fields its kind reads."""

    kind: str
    pin: int | None
    repeat: int  # tool and stages: the timed passes
    tool: str  # tool: the tool's name (peers.TOOLS) and the pickled pages
    pages_file: str
    corpora: list[str]  # stages: the corpora and at most this many pages of each
    limit: int | None
    warc: str  # memory: the WARC and its pages
    pages: int


class ChildResult(TypedDict, total=False):
    """A measuring child's result (JSON): ``ok``, else ``error`` (and ``missing`` for a tool that
    is not installed); the figures of its job's kind; the figures the parent adds."""

    ok: bool
    missing: bool
    error: str
    pages: int
    rss_peak_kb: int
    # tool: seconds per [pass][page], setup and warm-up seconds, peak RSS before the tool, the
    # warm-up's texts, pages the tool failed on, the last failure, the interpreter's version
    tool: str
    runs: list[list[float]]
    setup_s: float
    warmup_s: float
    rss_base_kb: int
    outputs: list[str]
    errors: int
    last_error: str
    python: str
    # tool: seconds in garbage collections per [pass][page] of the timed passes, collections per
    # generation over them; ce-filter's rows only: the untimed pass's object allocations per
    # page and blocks per page, or why the allocations could not be counted
    gc_runs: list[list[float]]
    gc_collections: list[int]
    allocs: list[int]
    blocks: list[int]
    alloc_error: str
    # tool, added by the parent (speed.py): the scores against the gold, page sizes, seconds
    # per page over the passes and the headline figures
    version: str
    precision: float
    recall: float
    f1: float
    empty: int
    sizes: list[int]
    secs: list[float]
    pps: float
    p50_ms: float
    p95_ms: float
    # stages: seconds per [pass][page][stage], (parse, parse + bare walk) seconds per
    # [pass][page] (tuples in the child, lists once read back), DOM nodes per page
    stages: list[str]
    stage_runs: list[list[list[float]]]
    floor_runs: Sequence[Sequence[Sequence[float]]]
    nodes: list[int]
    # memory: seconds, (pages streamed, RSS KiB) samples, the WARC's bytes (added by the parent)
    seconds: float
    samples: Sequence[Sequence[int]]
    warc_bytes: int


def single_core(pin: int | None = None) -> None:
    """One thread for every numeric library; pinned to ``pin`` when given."""
    for k in THREAD_VARS:
        os.environ[k] = "1"
    if pin is not None:
        os.sched_setaffinity(0, {pin})


def _status_kb(field: str) -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def rss_kb() -> int:
    """Current resident set size (VmRSS) in KiB."""
    return _status_kb("VmRSS:")


def peak_rss_kb() -> int:
    """Peak RSS of this process in KiB. VmHWM, not getrusage's ru_maxrss: on Linux the latter
    keeps the parent's RSS from before fork+exec, so every child would report the parent's size."""
    return _status_kb("VmHWM:") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def timed_passes(htmls: list[tuple[bytes, str | None]], fn: Callable[[bytes, str | None], object],
                 repeat: int) -> tuple[list[list[float]], list[list[float]], list[int]]:
    """``repeat`` timed passes: (seconds per [pass][page], seconds of garbage collection within
    each of those pages, collections per generation over the passes)."""
    from .allocs import GcClock

    clock = time.perf_counter
    runs, gc_runs = [], []
    collections = [0, 0, 0]
    with GcClock() as g:
        for _ in range(repeat):
            gc.collect()
            g.take()  # the forced collection is not a page's
            row, gc_row = [], []
            for h, url in htmls:
                t0 = clock()
                fn(h, url)
                row.append(clock() - t0)
                secs, n = g.take()
                gc_row.append(secs)
                collections = [a + b for a, b in zip(collections, n)]
            runs.append(row)
            gc_runs.append(gc_row)
    return runs, gc_runs, collections


def time_tool(job: Job) -> ChildResult:
    from . import peers

    with open(job["pages_file"], "rb") as f:
        htmls: list[tuple[bytes, str | None]] = pickle.load(f)
    rss_base = peak_rss_kb()
    t0 = time.perf_counter()
    fn = peers.make(job["tool"])
    setup_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    outputs = [fn(h, url) for h, url in htmls]  # the warm-up; its outputs are scored
    warmup_s = time.perf_counter() - t0
    errors, last_error = fn.errors, fn.last_error
    runs, gc_runs, collections = timed_passes(htmls, fn, job["repeat"])
    out: ChildResult = {
        "tool": job["tool"], "pages": len(htmls), "runs": runs, "setup_s": setup_s, "warmup_s": warmup_s,
        "rss_base_kb": rss_base, "rss_peak_kb": peak_rss_kb(), "outputs": outputs,
        "errors": errors, "last_error": last_error, "python": sys.version.split()[0],
        "gc_runs": gc_runs, "gc_collections": collections,
    }
    if job["tool"] in peers.OURS and job["repeat"]:  # after the timed passes, so it moves none of them
        out.update(_allocations(fn, htmls))
    return out


def _allocations(fn: Callable[[bytes, str | None], object], htmls: list[tuple[bytes, str | None]]
                 ) -> ChildResult:
    """ce-filter's untimed allocation pass (allocs.count_allocations) and its blocks per page."""
    from ce_filter import Extractor

    from .allocs import count_allocations

    counts, why = count_allocations(fn, htmls)
    if counts is None:
        return {"alloc_error": why}
    ex = Extractor()
    return {"allocs": counts, "blocks": [len(ex.extract(h, url).blocks) for h, url in htmls]}


def time_stages(job: Job) -> ChildResult:
    from selectolax.lexbor import LexborHTMLParser

    from ce_filter import Extractor
    from ce_filter.read.decode import decode_html

    from . import pages, stages

    docs = pages.load(job["corpora"], job.get("limit"))
    decoded = [decode_html(d.html)[0] for d in docs]
    ex = Extractor()
    stage_runs: list[list[list[float]]] = []  # [repeat][page][stage]
    floor_runs: list[list[tuple[float, float]]] = []  # [repeat][page](parse, parse+walk)
    for r in range(job["repeat"] + 1):  # pass 0 is the warm-up
        gc.collect()
        st = [stages.staged_extract(ex, d.html)[1] for d in docs]
        fl = [stages.floor(h) for h in decoded]
        if r:
            stage_runs.append(st)
            floor_runs.append(fl)
    nodes = [stages.bare_walk(LexborHTMLParser(h)) for h in decoded]
    return {"stages": list(stages.STAGES), "stage_runs": stage_runs, "floor_runs": floor_runs,
            "nodes": nodes, "pages": len(docs)}


def stream_memory(job: Job) -> ChildResult:
    from warcio.archiveiterator import ArchiveIterator

    from ce_filter import Extractor
    from ce_filter.read.decode import charset_from_content_type

    ex = Extractor()
    total = job["pages"]
    marks = sorted({max(1, round(total * q)) for q in (0.01, 0.1, 0.25, 0.5, 0.75, 1.0)})
    samples = [(0, rss_kb())]
    n = 0
    t0 = time.perf_counter()
    with open(job["warc"], "rb") as fh:
        for rec in ArchiveIterator(fh):
            if rec.rec_type != "response":
                continue
            body = rec.content_stream().read()
            hint = charset_from_content_type(rec.http_headers.get_header("Content-Type"))
            # every field, as a pipeline's record reads them (the metadata rules run on reading)
            ex.extract(body, rec.rec_headers.get_header("WARC-Target-URI"), encoding=hint).settle()
            n += 1
            if n in marks:
                samples.append((n, rss_kb()))
    secs = time.perf_counter() - t0
    if not samples or samples[-1][0] != n:
        samples.append((n, rss_kb()))
    return {"pages": n, "seconds": secs, "samples": samples, "rss_peak_kb": peak_rss_kb()}


def child_env() -> dict[str, str]:
    """The environment of a measuring child: this checkout importable, one thread per library."""
    repo = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (repo, os.environ.get("PYTHONPATH")) if p))
    env.update({k: "1" for k in THREAD_VARS})
    return env


def foreign_child(tmp: str | Path) -> tuple[dict[str, str], str, str]:
    """(environment, working directory, module) of a measuring child in another interpreter:
    its path holds only a link named ``benchmarks`` to this folder (in a checkout and installed
    alike), so it imports the standard library, the harness and the tool, never ce_filter."""
    path = Path(tmp, "path")
    path.mkdir()
    (path / "benchmarks").symlink_to(Path(__file__).resolve().parent, target_is_directory=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONPATH"] = str(path)
    env.update({k: "1" for k in THREAD_VARS})
    return env, str(tmp), "benchmarks.measure"


def run_child(job: Job, timeout: float | None = None) -> ChildResult:
    """Run ``job`` in a fresh interpreter (parent side); failures come back as ``ok: False``.
    A tool job for a ``peers.foreign`` tool runs in ``peers.interpreter``; where there is none,
    the tool is reported missing (``peers.missing_hint``)."""
    from . import peers

    repo = str(Path(__file__).resolve().parents[1])
    tool = job.get("tool") if job.get("kind") == "tool" else None
    python = sys.executable
    if tool in peers.TOOLS and peers.foreign(tool):
        found = peers.interpreter(tool)
        if found is None:
            return {"ok": False, "missing": True, "error": peers.missing_hint(tool)}
        python = found
    with tempfile.TemporaryDirectory(prefix="ce-bench-") as tmp:
        job_path, out_path = Path(tmp, "job.json"), Path(tmp, "result.json")
        job_path.write_text(json.dumps(job))
        env, cwd, module = (child_env(), repo, "ce_filter.bench.measure") if python == sys.executable \
            else foreign_child(tmp)
        cmd = [python, "-m", module, str(job_path), str(out_path)]
        try:
            proc = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"ok": False, "error": f"timed out after {timeout:.0f} s"}
        if not out_path.exists():
            tail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
            return {"ok": False, "error": f"child exited {proc.returncode}: {tail[0][:200]}"}
        return json.loads(out_path.read_text())


def tool_outputs(tool: str, htmls: list[tuple[bytes, str | None]],
                 timeout: float | None = None) -> ChildResult:
    """One untimed pass of ``tool`` over ``htmls`` in a measuring child (in its own interpreter
    where it needs another): ``run_child``'s result, the texts in ``outputs``, one per page."""
    with tempfile.TemporaryDirectory(prefix="ce-bench-pages-") as tmp:
        pages_file = Path(tmp, "pages.pickle")
        with open(pages_file, "wb") as f:
            pickle.dump(htmls, f, protocol=pickle.HIGHEST_PROTOCOL)
        return run_child({"kind": "tool", "tool": tool, "pages_file": str(pages_file), "repeat": 0},
                         timeout)


KINDS = {"tool": time_tool, "stages": time_stages, "memory": stream_memory}


def main(argv: list[str] | None = None) -> int:
    job_path, out_path = argv if argv is not None else sys.argv[1:]
    with open(job_path) as f:
        job = json.load(f)
    single_core(job.get("pin"))
    logging.disable(logging.CRITICAL)  # peers log every odd page
    warnings.filterwarnings("ignore")
    try:
        result = KINDS[job["kind"]](job)
        result["ok"] = True
    except ImportError as e:
        result = {"ok": False, "missing": True, "error": f"not installed ({e})"}
    except Exception as e:  # noqa: BLE001 - reported in the table, not a traceback
        result = {"ok": False, "error": f"{type(e).__name__}: {e}"}
    with open(out_path, "w") as f:
        json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
