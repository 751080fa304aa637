"""The README's datatrove quick start keeps every page: run as written on ``crawl/`` (two
copies of the sample WARC, whose responses carry no payload-type header), it writes a
document for each HTML page ``ce-filter warc`` reads, and the text says where the page's
fields go."""

from __future__ import annotations

import gzip
import json

import pytest

from .test_readme import REPO, crawl_dir, quick_start, run


def test_datatrove_quick_start_writes_every_html_page(tmp_path):
    for mod in ("datatrove", "warcio", "orjson"):
        pytest.importorskip(mod, reason="needs the datatrove extra: pip install 'ce-filter[datatrove]'")
    from ce_filter.crawler.warc import WarcStats, iter_pages

    section = quick_start("Build a training corpus with datatrove")
    (_, code) = section[1]
    assert "from ce_filter.integrations.datatrove import CEFilter, WarcReader" in code
    pages = crawl_dir(tmp_path)
    assert pages == 10
    (tmp_path / "build.py").write_text(code)
    r = run(["python", "build.py"], tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    docs = [json.loads(line) for f in sorted((tmp_path / "corpus").glob("*.jsonl.gz"))
            for line in gzip.open(f, "rt", encoding="utf-8")]
    want = [p for f in sorted((tmp_path / "crawl").iterdir()) for p in iter_pages(str(f), WarcStats())]
    assert len(docs) == pages
    assert sorted((d["metadata"]["file_path"].rsplit("/", 1)[-1], d["id"]) for d in docs) == sorted(
        (p.source_name.rsplit("/", 1)[-1], p.record_id) for p in want)
    # the page's own date is date_published; the reader's date is the crawl's
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    readme = readme.split("### Build a training corpus with datatrove")[1].split("\n### ", 1)[0]
    assert "`date_published`" in readme
    assert any("date_published" in d["metadata"] for d in docs)
    assert all(d["metadata"]["date"].startswith("2012-08-08") for d in docs)
