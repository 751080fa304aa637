"""Crawl of the fixture site on 127.0.0.1 (a real HTTP server) -> filter -> JSONL and Kafka;
a Kafka consumer and kcat read back the expected clean texts."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from ce_filter.pipelines.kafka_io import read_topic

from ce_filter.record import validate

from .conftest import SITE, dead_port, run_cli, unique

EXPECTED = {  # path -> a sentence of its main text
    "/": "reopening of its old lighthouse on Saturday",
    "/index.html": "reopening of its old lighthouse on Saturday",
    "/a.html": "largest catch in a decade",
    "/b.html": "Café owners around the square welcomed the plan",  # Latin-1, charset from the HTTP header
    "/c.html": "strong winds and heavy rain expected",
}


def direct(path: str) -> str:
    """What the filter alone makes of the page: the pipeline must deliver exactly that."""
    from ce_filter import Extractor

    name = "index.html" if path == "/" else path.lstrip("/")
    hint = "iso-8859-1" if name == "b.html" else None
    return Extractor().extract((SITE / name).read_bytes(), encoding=hint).text


def crawl_site(site_server, kafka, stats_path, *sinks: str):
    """``ce-filter crawl`` of the fixture site (depth 2) into ``sinks``, stats to a file."""
    to = [arg for sink in sinks for arg in ("--to", sink)]
    kafka_args = ["--bootstrap-servers", kafka.bootstrap_servers]
    return run_cli(
        ["crawl", site_server.base + "/", "--max-depth", "2", "--download-delay", "0", *to, *kafka_args]
        + ["--stats", str(stats_path), "--log-level", "WARNING"]
        # each page alone: with the site memory a page's text depends on the pages crawled
        # before it (tests/pipeline/test_warc_site_memory.py tests that)
        + ["--no-site-memory"]
    )


def test_crawl_site_to_jsonl_and_kafka(site_server, kafka, kcat, tmp_path):
    topic = unique("crawl")
    out, stats_path = tmp_path / "crawl.jsonl", tmp_path / "stats.json"
    r = crawl_site(site_server, kafka, stats_path, f"jsonl:{out}", f"kafka:{topic}")
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    base = site_server.base
    recs = {
        x["url"].removeprefix(base): x for x in map(json.loads, out.read_text(encoding="utf-8").splitlines())
    }
    assert sorted(recs) == sorted(
        EXPECTED
    )  # d.html is beyond depth 2; robots, JSON and offsite never make records
    for path, sentence in EXPECTED.items():
        rec = recs[path]
        assert sentence in rec["text"] and validate(rec) == []
        assert rec["text"] == direct(path)
        assert rec["status"] == 200 and rec["source"] == {
            "type": "crawl",
            "name": "cefilter",
            "record_id": None,
        }
    # the crawl was polite and stayed in bounds
    assert "/robots.txt" in site_server.requests
    assert "/private/secret.html" not in site_server.requests and "/d.html" not in site_server.requests
    assert "/data.json" in site_server.requests  # fetched, found not to be HTML, skipped
    stats = json.loads(stats_path.read_text())
    assert stats["cefilter/skipped/non_html/application/json"] == 1
    assert stats["robotstxt/forbidden"] >= 1 and stats["offsite/filtered"] >= 1
    assert stats["cefilter/kafka/delivered"] == len(EXPECTED) and stats["cefilter/kafka/failed"] == 0
    # a Kafka consumer reads the same clean texts, keyed by URL ...
    msgs = read_topic(kafka, topic)
    assert sorted(m.key.decode() for m in msgs) == sorted(base + p for p in EXPECTED)
    for m in msgs:
        assert json.loads(m.value)["text"] == recs[m.key.decode().removeprefix(base)]["text"]
    # ... and so does kcat, an independent client
    seen = {m["key"]: json.loads(m["payload"])["text"] for m in kcat(kafka.bootstrap_servers, topic)}
    assert seen == {base + p: rec["text"] for p, rec in recs.items()}


def test_scrapy_crawl_command_from_the_project(site_server, tmp_path):
    """Plain `scrapy crawl cefilter` from the repo (scrapy.cfg -> ce_filter.crawler.settings), output by
    setting, limits by spider argument."""
    import subprocess
    import sys

    from .conftest import REPO, cli_env

    out = tmp_path / "s.jsonl"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "scrapy",
            "crawl",
            "cefilter",
            "-a",
            f"start_urls={site_server.base}/a.html",
            "-a",
            "max_depth=1",
            "-s",
            f"CE_FILTER_JSONL={out}",
            "-s",
            "DOWNLOAD_DELAY=0",
            "-s",
            "LOG_LEVEL=WARNING",
        ],
        cwd=REPO,
        env=cli_env(),
        capture_output=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    urls = sorted(json.loads(x)["url"].removeprefix(site_server.base) for x in out.read_text().splitlines())
    assert urls == ["/a.html", "/c.html", "/index.html"]


def test_crawl_page_limit_and_url_file(site_server, tmp_path):
    urls = tmp_path / "urls.txt"
    urls.write_text(f"# start here\n{site_server.base}/a.html\n{site_server.base}/b.html\n")
    out = tmp_path / "o.jsonl"
    r = run_cli(
        [
            "crawl",
            "--url-file",
            str(urls),
            "--max-pages",
            "2",
            "--download-delay",
            "0",
            "--to",
            f"jsonl:{out}",
            "--log-level",
            "WARNING",
        ]
    )
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    assert len(out.read_text().splitlines()) == 2


def test_crawl_raw_pages_to_kafka_feed_the_workers(site_server, kafka, start_cli, tmp_path):
    """--to kafka-raw:T: the crawler sends each page as fetched, in the worker's JSON envelope
    (key = the page's host, so a site's pages reach one worker), and filters nothing itself; a
    worker on T then makes the same records."""
    import base64

    from .test_worker import worker_args

    raw, out = unique("crawl-raw"), unique("crawl-clean")
    stats_path = tmp_path / "stats.json"
    r = crawl_site(site_server, kafka, stats_path, f"kafka-raw:{raw}")
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    stats = json.loads(stats_path.read_text())
    assert stats["cefilter/kafka_raw/delivered"] == len(EXPECTED) and stats["cefilter/kafka_raw/failed"] == 0
    assert "cefilter/records" not in stats  # nothing was filtered in the crawler
    base = site_server.base
    msgs = read_topic(kafka, raw)
    assert sorted(json.loads(m.value)["url"] for m in msgs) == sorted(base + p for p in EXPECTED)
    assert {m.key for m in msgs} == {b"127.0.0.1"}  # the host (no port): one partition
    for m in msgs:
        env = json.loads(m.value)
        path = env["url"].removeprefix(base)
        name = "index.html" if path == "/" else path.lstrip("/")
        assert env["status"] == 200 and env["fetch_time"]
        assert base64.b64decode(env["html_b64"]) == (SITE / name).read_bytes()  # the bytes as served
        assert env["content_type"].startswith("text/html")
    latin1 = next(e for e in map(json.loads, (m.value for m in msgs)) if e["url"].endswith("/b.html"))
    assert latin1["content_type"] == "text/html; charset=iso-8859-1"

    w = start_cli(worker_args(kafka, raw, out, unique("group")))
    recs = {
        m.key.decode().removeprefix(base): json.loads(m.value)
        for m in read_topic(kafka, out, count=len(EXPECTED), timeout_s=90)
    }
    assert w.stop() == 0, w.log()
    assert sorted(recs) == sorted(EXPECTED), w.log()
    for path, rec in recs.items():
        assert rec["text"] == direct(path) and EXPECTED[path] in rec["text"] and validate(rec) == []
        assert rec["status"] == 200 and rec["source"]["type"] == "kafka"


def test_raw_pages_keyed_by_host_or_url():
    from ce_filter.pipelines.commands import _crawl_overrides
    from ce_filter.pipelines.scrapy_pipelines import raw_key

    from ce_filter.cli import build_parser

    assert raw_key("https://www.Example.com:8443/a/b.html?x=1", "host") == b"example.com"
    assert raw_key("https://www.Example.com/a", "url") == b"https://www.Example.com/a"
    assert raw_key("not a url", "host") == b"not a url"  # no host: the URL itself
    p = build_parser()
    a = p.parse_args(["crawl", "https://example.com/", "--to", "kafka-raw:t"])
    assert _crawl_overrides(a)["CE_FILTER_KAFKA_RAW_KEY"] == "host"
    a = p.parse_args(["crawl", "https://example.com/", "--to", "kafka-raw:t", "--kafka-raw-key", "url"])
    assert _crawl_overrides(a)["CE_FILTER_KAFKA_RAW_KEY"] == "url"
    with pytest.raises(SystemExit):
        p.parse_args(["crawl", "https://example.com/", "--to", "kafka-raw:t", "--kafka-raw-key", "path"])


def test_crawl_rejects_a_bad_sink(tmp_path):
    r = run_cli(["crawl", "http://127.0.0.1:9/", "--to", "kafka-raw:"], timeout=60)
    assert r.returncode == 2 and b"kafka-raw:TOPIC" in r.stderr


def test_a_crawl_that_fetched_nothing_exits_2_and_says_why(site_server, tmp_path):
    out = tmp_path / "o.jsonl"
    with dead_port() as port:
        r = _crawl_one(f"http://127.0.0.1:{port}/", out)
    _fetched_nothing(r, "ConnectionRefusedError")
    _fetched_nothing(_crawl_one(site_server.base + "/no-such-page.html", out), "HTTP 404")


def _crawl_one(url: str, out: Path) -> subprocess.CompletedProcess[bytes]:
    return run_cli(["crawl", url, "--to", f"jsonl:{out}", "--download-delay", "0", "-s", "RETRY_TIMES=0",
                    "--log-level", "CRITICAL"], timeout=120)


def _fetched_nothing(r: subprocess.CompletedProcess[bytes], why: str) -> None:
    err = r.stderr.decode()
    assert r.returncode == 2, err
    assert "pages=0" in err and "ce-filter: error: the crawl fetched no HTML page (" in err and why in err


def test_an_unreachable_page_is_one_warning_line_not_a_traceback(tmp_path):
    """Scrapy logs a failed fetch as ERROR with its downloader's traceback; the crawl says it in
    one warning line per failure (the traceback stays at --log-level DEBUG)."""
    with dead_port() as port:
        url = f"http://127.0.0.1:{port}/"
        args = ["crawl", url, "--to", f"jsonl:{tmp_path / 'o.jsonl'}", "--download-delay", "0",
                "-s", "RETRY_TIMES=1"]
        err = run_cli(args, timeout=120).stderr.decode()
        debug = run_cli(args + ["--log-level", "DEBUG"], timeout=120).stderr.decode()
    assert "Traceback" not in err and " ERROR: " not in err, err[-3000:]
    line = f"WARNING: Error downloading <GET {url}>: "
    ends = "(DownloadConnectionRefusedError)"
    assert any(line in x and x.endswith(ends) for x in err.splitlines()), err[-3000:]
    assert "ce-filter: error: the crawl fetched no HTML page" in err
    assert "Traceback" in debug and "DownloadConnectionRefusedError" in debug


def test_scrapy_settings_on_the_command_line_and_feeds(site_server, tmp_path):
    """`-s NAME=VALUE` as `scrapy crawl` takes it: Scrapy's feed exports alone are a destination."""
    feed = tmp_path / "feed.jsonl"
    feeds = json.dumps({str(feed): {"format": "jsonlines"}})
    r = run_cli(["crawl", site_server.base + "/a.html", "--max-depth", "0", "-s", f"FEEDS={feeds}",
                 "-s", "DOWNLOAD_DELAY=0", "--log-level", "WARNING"], timeout=120)
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    recs = [json.loads(x) for x in feed.read_text(encoding="utf-8").splitlines()]
    assert [r["url"] for r in recs] == [site_server.base + "/a.html"]
    assert EXPECTED["/a.html"] in recs[0]["text"] and validate(recs[0]) == []
