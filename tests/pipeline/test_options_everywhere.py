"""The extraction options reach every stage, as flags, CE_FILTER_* variables and Scrapy
settings; and every stage writes the same record, valid against the one schema.

Pages: the sample WARC's five real pages, on which each option changes what is kept (checked
here), so a stage that dropped an option would show it. Two option sets:
A = a model file of one's own + threshold 0.9, B = the comments model + the precise cut.
(The Spark job: tests/deploy/test_spark_job.py.)"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from ce_filter.crawler.warc import iter_pages
from ce_filter.pipelines.kafka_io import read_topic
from ce_filter.pipelines.worker import envelope

from ce_filter import Extractor
from ce_filter.read.rawpage import RawPage
from ce_filter.record import schema, validate
from ce_filter.score.blockmodel import Model

from .conftest import REPO, cli_env, run_cli, unique
from .test_worker import produce, worker_args

SAMPLE = REPO / "samples" / "sample.warc.gz"
FIELDS = list(schema()["properties"])
SCRAPY_CRAWL = [sys.executable, "-m", "scrapy", "crawl", "cefilter"]


@pytest.fixture(scope="module")
def pages() -> list[RawPage]:
    return list(iter_pages(str(SAMPLE)))


@pytest.fixture(scope="module")
def option_sets(custom_model) -> dict[str, tuple[dict[str, str], dict[str, Any], str]]:
    """name -> (CE_FILTER_* variables, the same as Extractor arguments, model name)."""
    return {
        "A": ({"CE_FILTER_MODEL": str(custom_model), "CE_FILTER_THRESHOLD": "0.9"},
              {"model": Model.load(custom_model), "threshold": 0.9}, "custom"),
        "B": ({"CE_FILTER_COMMENTS": "1", "CE_FILTER_PRECISE": "true"},
              {"comments": True, "precise": True}, "comments"),
    }


def kept(pages: list[RawPage], hint: bool = True, urls: list[str] | None = None, **kw: Any) -> list[int]:
    """Blocks kept per page; ``urls``: the URLs the pages were read under (the page kind reads
    the URL, and the block scores read the kind)."""
    ex = Extractor(**kw)
    return [ex.extract(p.body, u or None, encoding=p.encoding if hint else None).blocks_kept
            for p, u in zip(pages, urls or [p.url for p in pages])]


def test_each_option_changes_these_pages(pages, option_sets):
    default = kept(pages)
    assert kept(pages, threshold=0.9) != default and kept(pages, precise=True) != default
    assert kept(pages, comments=True, precise=True) != kept(pages, comments=True)
    for _env, kw, _name in option_sets.values():
        assert kept(pages, **kw) != default


def check(records: list[dict[str, Any]], pages: list[RawPage], kw: dict[str, Any], model: str,
          hint: bool = True) -> None:
    """``records`` (in the order of ``pages``) are what an Extractor with ``kw`` makes of the
    pages; each one is valid and has every field."""
    urls = [r["url"] for r in records]
    assert [r["stats"]["blocks_kept"] for r in records] == kept(pages, hint, urls, **kw)
    for r in records:
        assert r["model"].split("@")[0] == model
        assert validate(r) == [] and list(r) == FIELDS


def by_url(records: list[dict[str, Any]], pages: list[RawPage]) -> list[dict[str, Any]]:
    got = {r["url"]: r for r in records}
    assert len(got) == len(records) == len(pages)
    return [got[p.url] for p in pages]


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("which", ["A", "B"])
def test_extract(pages, option_sets, which, tmp_path):
    env, kw, model = option_sets[which]
    files = []
    for i, p in enumerate(pages):
        files.append(tmp_path / f"{i}.html")
        files[-1].write_bytes(p.body)
    r = run_cli(["extract", "--format", "jsonl", *map(str, files)], env=cli_env(**env))
    assert r.returncode == 0, r.stderr.decode()
    recs = [json.loads(x) for x in r.stdout.decode().splitlines()]
    assert [rec["source"]["name"] for rec in recs] == list(map(str, files))
    check(recs, pages, kw, model, hint=False)


@pytest.mark.parametrize("which,workers", [("A", "1"), ("B", "2")])
def test_warc(pages, option_sets, which, workers, tmp_path):
    env, kw, model = option_sets[which]
    out = tmp_path / "o.jsonl"
    r = run_cli(["warc", str(SAMPLE), "--to", f"jsonl:{out}", "--workers", workers], env=cli_env(**env))
    assert r.returncode == 0, r.stderr.decode()
    check(by_url(_jsonl(out), pages), pages, kw, model)


@pytest.mark.parametrize("which", ["A", "B"])
def test_worker(pages, option_sets, which, kafka):
    env, kw, model = option_sets[which]
    src, out = unique("opt-raw"), unique("opt-clean")
    produce(kafka, src, [(p.url.encode(), envelope(p)) for p in pages])
    r = run_cli(worker_args(kafka, src, out, unique("opt-group"), "--idle-exit", "3"), env=cli_env(**env))
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    check(by_url([json.loads(m.value) for m in read_topic(kafka, out)], pages), pages, kw, model)


class _Pages(BaseHTTPRequestHandler):
    """The sample pages over HTTP, with the Content-Type they were archived with; / links them."""

    pages: dict[str, RawPage] = {}

    def log_message(self, *a: Any) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if self.path == "/":
            body = "".join(f'<a href="/p{i}">page {i}</a> ' for i in range(len(self.pages))).encode()
            ctype, status = "text/html; charset=utf-8", 200
        elif self.path in self.pages:
            body, ctype, status = self.pages[self.path].body, self.pages[self.path].content_type, 200
        else:
            body, ctype, status = b"not here", "text/plain", 404
        self.send_response(status)
        self.send_header("Content-Type", ctype or "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def sample_site(pages):
    handler = type("H", (_Pages,), {"pages": {f"/p{i}": p for i, p in enumerate(pages)}})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _crawled(recs: list[dict[str, Any]], base: str) -> list[dict[str, Any]]:
    recs = [r for r in recs if r["url"] != base + "/"]
    return sorted(recs, key=lambda r: int(r["url"].rsplit("/p", 1)[1]))


@pytest.mark.parametrize("which", ["A", "B"])
def test_crawl(pages, option_sets, which, sample_site, tmp_path):
    env, kw, model = option_sets[which]
    out = tmp_path / "c.jsonl"
    r = run_cli(["crawl", sample_site + "/", "--max-depth", "1", "--download-delay", "0",
                 "--to", f"jsonl:{out}", "--log-level", "WARNING"], env=cli_env(**env))
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    check(_crawled(_jsonl(out), sample_site), pages, kw, model)


@pytest.mark.parametrize("which", ["A", "B"])
def test_scrapy_settings(pages, option_sets, which, sample_site, tmp_path):
    """A plain `scrapy crawl` in the project: the same options as Scrapy settings (-s, set A)
    or as environment variables the settings module reads (set B)."""
    env, kw, model = option_sets[which]
    out = tmp_path / "s.jsonl"
    settings = [x for k, v in env.items() for x in ("-s", f"{k}={v}")] if which == "A" else []
    r = subprocess.run([*SCRAPY_CRAWL, "-a", f"start_urls={sample_site}/", "-a", "max_depth=1",
                        "-s", f"CE_FILTER_JSONL={out}", "-s", "DOWNLOAD_DELAY=0",
                        "-s", "LOG_LEVEL=WARNING", *settings],
                       cwd=REPO, env=cli_env(**({} if settings else env)), capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    check(_crawled(_jsonl(out), sample_site), pages, kw, model)


def test_scrapy_settings_are_checked(sample_site, tmp_path):
    r = subprocess.run([*SCRAPY_CRAWL, "-a", f"start_urls={sample_site}/",
                        "-s", f"CE_FILTER_JSONL={tmp_path / 'x.jsonl'}", "-s", "CE_FILTER_THRESHOLD=7"],
                       cwd=REPO, env=cli_env(), capture_output=True, timeout=120)
    assert r.returncode != 0 and b"CE_FILTER_THRESHOLD: '7' is not a number in [0, 1]" in r.stderr
