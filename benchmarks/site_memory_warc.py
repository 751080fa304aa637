"""A WARC run with the site memory on and off: pages/s and peak RSS of ``ce-filter warc``.

    python -m ce_filter.bench.site_memory_warc ../shared/data/zh-finance [--workers 1]

The corpus's pages (their URLs from pages.tsv, else http://SITE/ID) are written into one
gzipped WARC under a temporary directory, grouped by nothing (the corpus's id order), and
``ce-filter warc`` runs on it twice in child processes, with and without ``--no-site-memory``,
each timed and measured (the peak RSS of the run's largest process, from ``resource.getrusage``
in the run's own interpreter). Timings on a
shared machine are noisy: pin a core (``taskset -c 0``) and repeat."""

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


def build_warc(spec: str, path: Path) -> int:
    """The corpus's pages as one gzipped WARC; the number of pages."""
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus")
    ap.add_argument("--workers", default="1")
    ap.add_argument("--repeat", type=int, default=1, help="rounds, alternating; the fastest kept")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        warc = Path(tmp) / "pages.warc.gz"
        n = build_warc(a.corpus, warc)
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
