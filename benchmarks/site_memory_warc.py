"""A WARC run with the site memory on and off: pages/s and peak RSS of ``ce-filter warc``,
or with ``--spark`` of one Spark task (the Spark job's per-file work, without Spark).

    python -m ce_filter.bench.site_memory_warc ../shared/data/zh-finance [--workers 1]
    python -m ce_filter.bench.site_memory_warc ../shared/data/zh-finance --spark
    python -m ce_filter.bench.site_memory_warc dragnet:test --synthetic 10000


The corpus's pages (their URLs from pages.tsv, else http://SITE/ID) are written into one
gzipped WARC under a temporary directory, grouped by nothing (the corpus's id order), and
``ce-filter warc`` runs on it twice in child processes, with and without ``--no-site-memory``,
each timed and measured (the peak RSS of the run's largest process, from ``resource.getrusage``
in the run's own interpreter). With ``--synthetic N``, the WARC is instead N pages of one
host cycling over the corpus's pages (benchmarks/synthwarc.py, as the pipeline rows of
``ce-filter bench``): one site of N pages, each of the corpus's pages repeated under N / pages
URLs. With ``--spark``, a fresh interpreter runs
``spark_job.filter_file`` on the WARC as one task does (under the default per-page budget),
after a warm-up that starts the process's filter as an earlier task would have: the time is
the file's alone (with the memory: its first pass and the filter process started for its
counts, each also timed on its own), and the peak RSS is given for the task's process and for
its filter process (VmHWM of each: the counts live in both). Timings on a shared machine are noisy: pin a core
(``taskset -c 0``) and repeat."""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ce_filter.crawler.warcgen import WarcBuilder

from ce_filter.learn.corpus import Spec


def build_warc(spec: str, path: Path, synthetic: int = 0) -> int:
    """The corpus's pages as one gzipped WARC (``synthetic``: that many pages of one host,
    cycling over them); the number of pages."""
    if synthetic:
        from .synthwarc import write_warc

        write_warc(path, list(Spec.parse(spec).load()), synthetic)
        return synthetic
    buf = io.BytesIO()
    w = WarcBuilder(buf, gzip=True)
    n = 0
    for d in Spec.parse(spec).load():
        url = d.url or f"http://{d.domain or 'site.test'}/{d.id}"
        w.response(url, d.html)
        n += 1
    path.write_bytes(buf.getvalue())
    return n


# runs ``ce-filter warc`` in a fresh interpreter and prints the peak RSS (KiB) of that process
# and of its own children (the filter processes with --workers or a budget)
_RUN = ("import resource, sys\nfrom ce_filter.cli import main\nrc = main(sys.argv[1:])\n"
        "r = resource.getrusage\nprint(r(resource.RUSAGE_SELF).ru_maxrss, "
        "r(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\nsys.exit(rc)")


def run(warc: Path, out: Path, *extra: str) -> tuple[float, float]:
    """(seconds, peak RSS MB of the run's largest process)."""
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", _RUN, "warc", str(warc), "--to", f"jsonl:{out}", "-q", *extra],
                       check=True, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    own, children = (int(x) for x in r.stderr.strip().splitlines()[-1].split())
    return seconds, max(own, children) / 1024


# one Spark task's work on a file in a fresh interpreter, after a warm-up (an earlier task's
# filter process); prints JSON: seconds, pages, the VmHWM (KiB) of this process and of the
# filter processes (read before each is closed), and the time of the first pass and of starting
# the file's own filter process
_TASK = """import json, sys, time
from ce_filter.run.bounded import BoundedExtractor
from ce_filter.pipelines import spark_job

def hwm(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0

peaks = []
close = BoundedExtractor.close
def closing(self):
    if self._proc is not None:
        peaks.append(hwm(self._proc.pid))
    close(self)
BoundedExtractor.close = closing
spent = {"count_file": 0.0, "new_extractor": 0.0}
def timed(name):
    real = getattr(spark_job, name)
    def run(*a, **kw):
        t = time.perf_counter()
        try:
            return real(*a, **kw)
        finally:
            spent[name] += time.perf_counter() - t
    setattr(spark_job, name, run)
timed("count_file")
timed("new_extractor")
spark_job.get_extractor()
spent = dict.fromkeys(spent, 0.0)  # (the warm-up's filter process is an earlier task's)
t0 = time.perf_counter()
records, summary = spark_job.filter_file(sys.argv[1], None, site_memory=sys.argv[2] == "on")
seconds = time.perf_counter() - t0
peaks.append(hwm(spark_job.get_extractor()._proc.pid))
print(json.dumps({"seconds": seconds, "pages": summary["pages"], "site_memory": summary["site_memory"],
                  "task_kib": hwm("self"), "filter_kib": max(peaks), "first_pass_s": spent["count_file"],
                  "filter_start_s": spent["new_extractor"]}))
"""


def run_task(warc: Path, memory: str) -> dict[str, float]:
    """One task's run (``_TASK``) in a fresh interpreter."""
    r = subprocess.run([sys.executable, "-c", _TASK, str(warc), memory], check=True, capture_output=True,
                       text=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def spark(warc: Path, n: int, repeat: int) -> dict[str, object]:
    best: dict[str, dict[str, float]] = {}
    for _ in range(repeat):
        for name in ("off", "on"):
            got = run_task(warc, name)
            if got["pages"] != n:
                raise RuntimeError(f"the task read {got['pages']} pages of {n}")
            if name not in best or got["seconds"] < best[name]["seconds"]:
                best[name] = got
    out: dict[str, object] = {"pages": n, "warc_mb": round(os.path.getsize(warc) / 2**20, 1)}
    for name, got in best.items():
        out[f"site_memory_{name}"] = {
            "how": got["site_memory"], "seconds": round(got["seconds"], 2),
            "pages_per_s": round(n / got["seconds"], 1), "peak_rss_task_mb": round(got["task_kib"] / 1024, 1),
            "peak_rss_filter_mb": round(got["filter_kib"] / 1024, 1),
            "first_pass_s": round(got["first_pass_s"], 2), "filter_start_s": round(got["filter_start_s"], 2)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus")
    ap.add_argument("--workers", default="1")
    ap.add_argument("--repeat", type=int, default=1, help="rounds, alternating; the fastest kept")
    ap.add_argument("--synthetic", type=int, default=0, metavar="N",
                    help="N pages of one host cycling over the corpus's pages, not the corpus as it is")
    ap.add_argument("--spark", action="store_true",
                    help="one Spark task's work on the file, not ce-filter warc")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        warc = Path(tmp) / "pages.warc.gz"
        n = build_warc(a.corpus, warc, a.synthetic)
        if a.spark:
            print(json.dumps(spark(warc, n, a.repeat), indent=1))
            return 0
        best: dict[str, tuple[float, float]] = {}
        for _ in range(a.repeat):
            for name, extra in (("off", ["--no-site-memory"]), ("on", [])):
                s, rss = run(warc, Path(tmp) / f"{name}.jsonl", "--workers", a.workers, *extra)
                if name not in best or s < best[name][0]:
                    best[name] = (s, rss)
        out = {"pages": n, "warc_mb": round(os.path.getsize(warc) / 2**20, 1), "workers": a.workers}
        for name, (s, rss) in best.items():
            out[f"site_memory_{name}"] = {"seconds": round(s, 2), "pages_per_s": round(n / s, 1),
                                          "peak_rss_mb": round(rss, 1)}
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
