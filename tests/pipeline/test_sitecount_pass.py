"""The site memory's first pass (pipelines/sitecount.py) counts exactly what reading and
counting every page would: a page with the bytes of one counted already is not read again, a
URL captured twice still counts once, the same bytes under another host or charset hint are
read, and the pass in a child process (large inputs) counts what the pass here counts."""

from __future__ import annotations

import io
import json

from ce_filter.crawler.warcgen import WarcBuilder

from .helpers import article, paras

PROMO = ("Sign up for our morning briefing to get the most important stories of the day sent to "
         "your inbox before breakfast, free of charge.")
TOPICS = ["parks", "buses", "schools", "libraries", "bridges", "markets"]


def _html(t: str) -> bytes:
    p = paras(t)
    return article(f"News about {t}", p[:2] + [PROMO] + p[2:]).encode()


def _pages() -> list[tuple[str, bytes, str | None]]:
    """(URL, body, Content-Type) of a crawl with every kind of repeat the pass must count as
    one reading of every page counts it."""
    out: list[tuple[str, bytes, str | None]] = []
    for t in TOPICS:
        out.append((f"http://city.test/{t}.html", _html(t), None))
    out += [
        ("http://city.test/", _html("parks"), None),  # the same bytes under another URL
        ("http://city.test/index.html", _html("parks"), None),  # and again
        ("http://city.test/parks.html", _html("buses"), None),  # a URL again, other bytes
        ("http://town.test/parks.html", _html("parks"), None),  # the same bytes, another host
        ("http://town.test/buses.html", _html("buses"), None),
        ("http://town.test/copy", _html("buses"), "text/html; charset=iso-8859-1"),  # another hint
        ("http://other.test/alone.html", _html("alone"), None),
    ]
    # a URL first captured with the bytes of a counted page (not counted, nor its URL), then
    # captured again with new bytes (counted), those bytes then under another URL (not counted)
    out += [("http://city.test/dup.html", _html("schools"), None),
            ("http://city.test/dup.html", _html("fresh"), None),
            ("http://city.test/fresh.html", _html("fresh"), None)]
    return out


def _warc(tmp_path, name: str, pages: list[tuple[str, bytes, str | None]]) -> str:
    buf = io.BytesIO()
    w = WarcBuilder(buf, gzip=True)
    for url, body, ctype in pages:
        w.response(url, body, **({"content_type": ctype} if ctype else {}))
    path = tmp_path / name
    path.write_bytes(buf.getvalue())
    return str(path)


def _every_page(files: list[str]):
    """The counts of reading and counting every page, no page skipped (the reference)."""
    from ce_filter.crawler.warc import WarcStats, iter_pages
    from ce_filter.pipelines.sitecount import _page_sets

    from ce_filter.options import ExtractOptions
    from ce_filter.score.site.memory import SiteCounts

    counts = SiteCounts()
    for host, url, s in _page_sets(iter_pages(files, WarcStats()), ExtractOptions().alone().extractor()):
        counts.add(host, s, url)
    counts.prune()
    return counts


def test_the_pass_counts_what_reading_every_page_counts(tmp_path, monkeypatch):
    from ce_filter.pipelines import sitecount

    from ce_filter.options import ExtractOptions

    pages = _pages()
    files = [_warc(tmp_path, "a.warc.gz", pages[:9]), _warc(tmp_path, "b.warc.gz", pages[9:])]
    ref = _every_page(files)
    read: list[bytes] = []
    real = sitecount._fingerprints

    def counting(body, encoding, decoder, seconds=0.0):
        read.append(body)
        return real(body, encoding, decoder, seconds)

    monkeypatch.setattr(sitecount, "_fingerprints", counting)
    here = sitecount.count_sites(files, ExtractOptions())
    assert here.pages == ref.pages and here.counts == ref.counts
    # the copies of counted bytes under the same host and hint were not read again: the two
    # other URLs of parks.html, buses' bytes under parks.html, schools' and fresh's copies
    assert len(read) == len(pages) - 5
    assert ref.pages["city.test"] == len(TOPICS) + 1
    assert ref.pages["town.test"] == 2  # (its copy under another hint: read, the same blocks)
    monkeypatch.setattr(sitecount, "CHILD_BYTES", 0)  # read here, segmented in a child
    child = sitecount.count_sites(files, ExtractOptions())
    assert child.pages == ref.pages and child.counts == ref.counts
    spread = sitecount.count_sites(files, ExtractOptions(), workers=2, files=files)
    assert spread.pages == ref.pages and spread.counts == ref.counts


def test_a_page_that_kills_the_first_pass_child_is_left_out(tmp_path, monkeypatch):
    """A page whose child dies (here: killed as stuck past the wall-clock limit) is not
    counted; the pages after it, in flight or not, are counted by the next child."""
    from ce_filter.pipelines import sitecount

    from ce_filter.options import ExtractOptions

    monkeypatch.setattr(sitecount, "CHILD_BYTES", 0)
    # a page that takes the child a while (about 0.3 s): killed while on it
    stuck = ("<html><body><h1>Stuck</h1>" + "<div>" * 12_000 + "</div>" * 12_000 + "<p>x" * 85_000
             + "</body></html>").encode()
    pages = [(f"http://city.test/{t}.html", _html(t), None) for t in TOPICS[:3]]
    pages.append(("http://city.test/stuck.html", stuck, None))
    pages += [(f"http://city.test/{t}.html", _html(t), None) for t in TOPICS[3:]]
    warc = _warc(tmp_path, "a.warc.gz", pages)
    kills: list[int] = []
    real_events = sitecount.Pool._events

    def events(self, feed):  # the child on the stuck page is killed, as the wall clock would
        for c in self.children:
            if c.busy and c.work and b"<h1>Stuck" in c.work[0][1][0] and not kills:
                c.proc.kill()
                kills.append(c.proc.pid)
        return real_events(self, feed)

    monkeypatch.setattr(sitecount.Pool, "_events", events)
    counts = sitecount.count_sites([warc], ExtractOptions())
    assert kills
    ref = _every_page([_warc(tmp_path, "b.warc.gz", [p for p in pages if p[1] != stuck])])
    assert counts.pages == ref.pages and counts.counts == ref.counts
    assert counts.pages["city.test"] == len(TOPICS)


def test_warc_records_are_the_same_with_the_pass_in_a_child(tmp_path, monkeypatch):
    """``ce-filter warc``'s run with the site memory: the records of a run whose first pass
    runs in a child (an input past CHILD_BYTES) are those of a run whose pass runs here."""
    from ce_filter.pipelines import sitecount
    from ce_filter.pipelines.offline import clean_warcs
    from ce_filter.pipelines.sinks import JsonlSink

    from ce_filter.run.budget import Budget

    files = [_warc(tmp_path, "a.warc.gz", _pages())]
    outs = []
    for name, size in (("here", sitecount.CHILD_BYTES), ("child", 0)):
        monkeypatch.setattr(sitecount, "CHILD_BYTES", size)
        out = tmp_path / f"{name}.jsonl"
        sink = JsonlSink(out)
        clean_warcs(files, sink, budget=Budget(), site_memory=True)
        sink.close()
        recs = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
        for rec in recs:
            rec.pop("stats", None), rec.pop("processed_at", None)  # (timings, the clock)
        outs.append(sorted(recs, key=lambda x: (x["url"], x["text_sha256"])))
    assert outs[0] == outs[1] and len(outs[0]) == len(_pages())
    texts = {r["url"]: r["text"] for r in outs[0]}
    assert PROMO not in texts["http://town.test/buses.html"] and PROMO in texts["http://other.test/alone.html"]
