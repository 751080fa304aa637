"""The Spark job's per-page guard: a page past its budget or one whose filter raises is one
record with the reason, never a lost page or a failed task. The executor side runs without
Spark here; one run through spark-submit checks the same end to end."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest
from ce_filter.crawler.warcgen import WarcBuilder
from pipeline.conftest import REPO

from .hostile import shapes
from .test_crawl_hostile import OVER
from .warcs import pages


def _warc(path) -> None:
    data, offsets = pages(6)
    buf = io.BytesIO()
    w = WarcBuilder(buf)
    w.response("http://hostile.test/slow", OVER.encode())
    w.response("http://hostile.test/deep", shapes()["nested divs"])
    path.write_bytes(data[: offsets[3]] + buf.getvalue() + data[offsets[3]:])


def test_filter_file_gives_every_page_a_record(tmp_path, monkeypatch):
    from ce_filter.pipelines import spark_job

    from ce_filter import Extractor

    path = tmp_path / "h.warc.gz"
    _warc(path)
    records, summary = spark_job.filter_file(str(path), None, budget=(0.1, 1024))
    recs = {r["url"]: r for r in records}
    assert len(recs) == 8 and summary["pages"] == 8 and summary["failed"] == 0
    assert recs["http://hostile.test/slow"]["reason"] == "over budget: time (0.1 s)"
    assert recs["http://hostile.test/deep"]["reason"] == "too costly to parse: nesting too deep"

    real = Extractor.extract

    def flaky(self, html, url=None, **kw):  # a filter bug on one page
        if url == "http://p.test/2":
            raise KeyError("boom")
        return real(self, html, url, **kw)

    monkeypatch.setattr(Extractor, "extract", flaky)
    records, summary = spark_job.filter_file(str(path), None, budget=(0, 0))  # in this process
    recs = {r["url"]: r for r in records}
    assert len(recs) == 8 and summary["failed"] == 1
    assert recs["http://p.test/2"]["reason"] == "filter error: KeyError"
    assert summary["errors"] == ["http://p.test/2: filter error: KeyError"]


def test_spark_job_with_a_page_past_its_budget(tmp_path):
    pytest.importorskip("pyspark", reason="pyspark not installed: the Spark run is skipped")
    path = tmp_path / "h.warc.gz"
    _warc(path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CE_FILTER_")}
    env["PYTHONPATH"] = str(REPO)
    env["PYSPARK_PYTHON"] = env["PYSPARK_DRIVER_PYTHON"] = sys.executable
    out, summary = tmp_path / "out", tmp_path / "summary.json"
    r = subprocess.run([sys.executable, "-m", "ce_filter.pipelines.spark_job", "--master", "local[1]",
                        "--input", str(path), "--output", str(out), "--format", "json",
                        "--page-budget", "0.1", "--summary", str(summary)],
                       capture_output=True, text=True, timeout=600, env=env, cwd=REPO)
    assert r.returncode == 0, r.stderr[-3000:]
    recs = {}
    for part in out.glob("part-*.json"):
        for line in part.read_text().splitlines():
            rec = json.loads(line)
            recs[rec["url"]] = rec
    assert len(recs) == 8 and recs["http://hostile.test/slow"]["reason"] == "over budget: time (0.1 s)"
    assert json.loads(summary.read_text())["totals"]["pages"] == 8


def test_the_page_budget_bounds_decoding_a_body_too(tmp_path):
    """--page-budget is also the CPU time one body's Content-Encoding may take to undo (the
    reader's budget, as in ``ce-filter warc``): a gzip body of 300,000 members is skipped and
    counted under a small budget, and read under the default one."""
    from ce_filter.pipelines import spark_job

    from .test_warc_seams import _members_body, _response

    data, offsets = pages(2)
    path = tmp_path / "m.warc"
    path.write_bytes(data[:offsets[1]] + _response("http://many.test/", _members_body(300_000), "gzip")
                     + data[offsets[1]:])
    for site_memory in (False, True):
        records, summary = spark_job.filter_file(str(path), None, budget=(0.02, 1024),
                                                 site_memory=site_memory)
        assert sorted(r["url"] for r in records) == ["http://p.test/0", "http://p.test/1"]
        assert summary["skipped"] == 1, summary
    records, summary = spark_job.filter_file(str(path), None, budget=(10.0, 1024), site_memory=False)
    assert "http://many.test/" in {r["url"] for r in records} and summary["skipped"] == 0
