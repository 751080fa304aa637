"""Quality of the default path: `ce-filter warc` with the site memory on (its default, as for
`worker`, `crawl` and the Spark job) on a WARC of the evaluation-only corpora, each page with
its URL, scored per corpus against the gold with the project's scorer.
tests/core/test_quality.py holds the floors of ``Extractor()`` alone (no site memory).

A WARC record needs a URL: where the corpus has none for a page, the page gets
``https://SITE/ID.html``, SITE being the corpus's site column or the page's canonical host (the
key ``python -m ce_filter.learn.sitefit report`` groups by), so each site's pages share a host
and the site memory acts on them. To keep the run short, each site gives its first pages by
id (``PER_SITE``), several a site so the memory has other pages to count, and the three
corpora go through one run (one process start, most of a small run's cost).

The floors are regression guards a little under the figures measured on these pages (mean
token F1; the same run with --no-site-memory in brackets): each floor is above the figure
without the memory, so a memory that stopped acting fails here too.

    big5             180 pages (20 a site, 9 sites)        0.974 (0.963)
    zh-finance       150 pages (15 a site, 10 sites)       0.928 (0.908)
    cleanportaleval   71 pages (all: 4 sites, 12 to 30)    0.904 (0.852)
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from .conftest import CLI_TIMEOUT_S, REPO, cli_env

PER_SITE = {"big5": 20, "zh-finance": 15, "cleanportaleval": 30}
FLOORS = {  # corpus -> (min mean F1, max empty pages)
    "big5": (0.965, 0),
    "zh-finance": (0.915, 0),
    "cleanportaleval": (0.89, 0),
}


def write_corpus_warc(path: Path, corpora: dict[Path, int]) -> dict[str, tuple[str, Any]]:
    """Each corpus's first ``n`` pages of each site as HTML responses; URL -> (corpus, Doc)."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    from ce_filter.learn.corpus import load_corpus
    from ce_filter.learn.sitefit import site_key

    docs: dict[str, tuple[str, Any]] = {}
    with open(path, "wb") as fh:
        w = WARCWriter(fh, gzip=True)
        for corpus, n in corpora.items():
            sites: dict[str, list[Any]] = defaultdict(list)
            for d in sorted(load_corpus(corpus), key=lambda d: d.id):
                sites[site_key(corpus.name, d).split("/", 1)[1]].append(d)
            for site, pages in sorted(sites.items()):
                for d in pages[:n]:
                    url = d.url or f"https://{site}/{d.id}.html"
                    assert url not in docs, url
                    docs[url] = (corpus.name, d)
                    http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
                    w.write_record(w.create_warc_record(url, "response", payload=io.BytesIO(d.html),
                                                        http_headers=http))
    return docs


def _ce_filter() -> list[str]:
    """The installed command (the venv's entry point), else the module."""
    exe = shutil.which("ce-filter", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-m", "ce_filter.cli"]


@pytest.mark.corpus
def test_default_path_quality(data_dir, tmp_path):
    from ce_filter.learn.evaluate import Score

    warc, out = tmp_path / "corpora.warc.gz", tmp_path / "out.jsonl"
    docs = write_corpus_warc(warc, {data_dir / c: n for c, n in PER_SITE.items()})
    cmd = [*_ce_filter(), "warc", str(warc), "--to", f"jsonl:{out}", "-q"]  # the site memory on
    r = subprocess.run(cmd, cwd=REPO, env=cli_env(), capture_output=True, timeout=CLI_TIMEOUT_S)
    assert r.returncode == 0, r.stderr.decode(errors="replace")[-3000:]
    recs = {rec["url"]: rec for rec in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert sorted(recs) == sorted(docs)
    scores = {c: Score(c) for c in FLOORS}
    for url, (corpus, d) in docs.items():
        scores[corpus].add(recs[url]["text"], d.gold, d)
    got = {c: (round(s.mean_f1, 4), s.empty, len(s.pages)) for c, s in scores.items()}
    for c, (floor, max_empty) in FLOORS.items():
        assert scores[c].mean_f1 >= floor and scores[c].empty <= max_empty, (c, got)
