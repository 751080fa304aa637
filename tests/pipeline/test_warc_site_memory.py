"""``ce-filter warc`` with the site memory (on by default): a first pass counts each host's
blocks, so a block every page of the site repeats is dropped, the same way whatever
``--workers`` is; ``--no-site-memory`` filters each page alone."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from ce_filter.crawler.warcgen import WarcBuilder

from .conftest import run_cli
from .helpers import article, paras

PROMO = ("Sign up for our morning briefing to get the most important stories of the day sent to "
         "your inbox before breakfast, free of charge.")
TOPICS = ["parks", "buses", "schools", "libraries", "bridges", "markets"]


def _warc(tmp_path, name: str, topics: list[str]) -> str:
    buf = io.BytesIO()
    w = WarcBuilder(buf, gzip=True)
    for t in topics:
        p = paras(t)
        w.response(f"http://city.test/{t}.html", article(f"News about {t}", p[:2] + [PROMO] + p[2:]).encode())
    w.response("http://other.test/alone.html", article("Alone", paras("alone") + [PROMO]).encode())
    path = tmp_path / name
    path.write_bytes(buf.getvalue())
    return str(path)


def _texts(tmp_path, files: list[str], *extra: str) -> dict[str, str]:
    out = tmp_path / "out.jsonl"
    r = run_cli(["warc", *files, "--to", f"jsonl:{out}", "-q", *extra])
    assert r.returncode == 0, r.stderr.decode()
    return {x["url"]: x["text"] for x in map(json.loads, out.read_text(encoding="utf-8").splitlines())}


def test_site_memory_drops_repeats_the_same_with_any_workers(tmp_path):
    files = [_warc(tmp_path, "a.warc.gz", TOPICS[:3]), _warc(tmp_path, "b.warc.gz", TOPICS[3:])]
    alone = _texts(tmp_path, files, "--no-site-memory")
    one = _texts(tmp_path, files)
    two = _texts(tmp_path, files, "--workers", "2")
    reversed_order = _texts(tmp_path, files[::-1], "--workers", "2")
    assert one == two == reversed_order  # order-free: neither workers nor file order matter
    assert len(one) == len(TOPICS) + 1
    for t in TOPICS:
        url = f"http://city.test/{t}.html"
        assert PROMO in alone[url]  # kept by the single-page model
        assert PROMO not in one[url]  # on every other page of the site: dropped
        assert paras(t)[0] in one[url] and paras(t)[2] in one[url]
    # a host's only page is filtered as without the memory
    assert one["http://other.test/alone.html"] == alone["http://other.test/alone.html"]


def test_streams_keep_the_pages_seen_so_far_unless_told_not_to():
    from ce_filter.pipelines.commands import _crawl_overrides, _site_memory

    from ce_filter.cli import build_parser
    from ce_filter.options import ExtractOptions

    p = build_parser()
    a = p.parse_args(["worker", "--input-topic", "in", "--output-topic", "out"])
    assert _site_memory(ExtractOptions(), a).site_memory == "stream"
    a = p.parse_args(["worker", "--input-topic", "in", "--output-topic", "out", "--no-site-memory"])
    assert _site_memory(ExtractOptions(), a).site_memory == "off"
    a = p.parse_args(["crawl", "https://example.com/", "--to", "jsonl:x.jsonl"])
    assert _crawl_overrides(a)["CE_FILTER_SITE_MEMORY"] is True
    a = p.parse_args(["crawl", "https://example.com/", "--to", "jsonl:x.jsonl", "--no-site-memory"])
    assert _crawl_overrides(a)["CE_FILTER_SITE_MEMORY"] is False
    # the Extractor a stream's options make remembers the host's pages (one process)
    ex = ExtractOptions(site_memory="stream").extractor()
    for t in TOPICS[:3]:
        ex.extract(article(f"News about {t}", paras(t)), f"http://city.test/{t}.html")
    assert ex.site_memory.seen("city.test", np.zeros(0, dtype=np.uint64))[1] == 3


@pytest.mark.kafka
def test_worker_remembers_the_hosts_pages_unless_told_not_to(kafka):
    """The worker's site memory is on by default: the promo every earlier page of the host
    carried is dropped from the later pages; --no-site-memory keeps it everywhere."""
    from ce_filter.pipelines.kafka_io import ensure_topics, make_producer, read_topic

    from .conftest import unique
    from .test_worker import worker_args

    src = unique("raw")
    ensure_topics(kafka, [src])
    p = make_producer(kafka)
    for t in TOPICS:  # keyed by host: one partition, in this order
        html = article(f"News about {t}", paras(t)[:2] + [PROMO] + paras(t)[2:])
        p.send(src, key=b"city.test", value=json.dumps({"url": f"http://city.test/{t}.html",
                                                        "html": html}).encode()).get(timeout=60)
    p.close()
    texts = {}
    for flag in ("", "--no-site-memory"):
        out, group = unique("clean"), unique("group")
        ensure_topics(kafka, [out])
        r = run_cli(worker_args(kafka, src, out, group, "--idle-exit", "5", *([flag] if flag else [])),
                    timeout=300)
        assert r.returncode == 0, r.stderr.decode()[-3000:]
        recs = [json.loads(m.value) for m in read_topic(kafka, out)]
        texts[flag] = {x["url"]: x["text"] for x in recs}
    urls = [f"http://city.test/{t}.html" for t in TOPICS]
    assert set(texts[""]) == set(urls) == set(texts["--no-site-memory"])
    assert all(PROMO in texts["--no-site-memory"][u] for u in urls)
    assert PROMO in texts[""][urls[0]]  # the host's first page: no memory yet
    assert all(PROMO not in texts[""][u] for u in urls[3:])  # seen on every earlier page
    assert all(paras(t)[0] in texts[""][u] for t, u in zip(TOPICS, urls))


def test_the_first_pass_over_shards_counts_what_one_pass_counts(tmp_path):
    """--workers N spreads the first pass over N processes by byte-range shards; the pages are
    added in one pass's order, so the counts (a URL captured twice counts once) are the same."""
    from ce_filter.pipelines.sitecount import count_sites

    from ce_filter.options import ExtractOptions

    a = _warc(tmp_path, "a.warc.gz", TOPICS[:4])
    b = _warc(tmp_path, "b.warc.gz", TOPICS[2:])  # two pages again, and other.test again
    one = count_sites([a, b], ExtractOptions())
    spread = count_sites([a, b], ExtractOptions(), workers=2, files=[a, b])
    assert one.pages == spread.pages and one.counts == spread.counts
    assert one.pages["city.test"] == len(TOPICS) and "other.test" not in one.counts


def test_a_page_that_fails_or_runs_long_in_the_first_pass_is_not_counted():
    """The first pass runs outside the filter's child processes: a page that raises, or runs
    past the page budget's CPU seconds, is left out of the counts and the pass goes on."""
    import time

    from ce_filter.pipelines.sitecount import count_pages

    from ce_filter import Extractor
    from ce_filter.read.rawpage import RawPage

    real = Extractor()

    class Decoder:
        def read(self, body, encoding):
            if b"BOOM" in body:
                raise RuntimeError("a bug on this page")
            if b"SLOW" in body:
                t = time.process_time()
                while time.process_time() - t < 5:  # Python work: the deadline can stop it
                    pass
            return real.read(body, encoding)

    def page(t: str, extra: str = "") -> RawPage:
        html = article(f"News about {t}", paras(t)[:2] + [PROMO, extra] + paras(t)[2:])
        return RawPage(f"http://city.test/{t}.html", html.encode())

    pages = [page(t) for t in TOPICS[:3]] + [page("boom", "BOOM"), page("slow", "SLOW")]
    t0 = time.process_time()
    counts = count_pages(pages, Decoder(), seconds=0.5)
    assert time.process_time() - t0 < 4
    assert counts.pages["city.test"] == 3  # the two bad pages left out, the rest counted
