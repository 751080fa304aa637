"""Test data made in the tests: WARC files with the records crawlers really write."""

from __future__ import annotations

import io
from dataclasses import dataclass, field

from ce_filter.crawler.warcgen import WarcBuilder

NAV = "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(12))


def article(title: str, paras: list[str], charset: str | None = "utf-8") -> str:
    meta = f'<meta charset="{charset}">' if charset else ""
    return (
        f"<html><head>{meta}<title>{title}</title></head><body>"
        f'<div id="header"><ul class="nav">{NAV}</ul></div>'
        f'<div id="content"><div class="article"><h1>{title}</h1>'
        + "".join(f"<p>{p}</p>" for p in paras)
        + '</div></div><div id="footer"><a href="/privacy">Privacy</a> | Copyright 2024</div></body></html>'
    )


def paras(topic: str) -> list[str]:
    return [
        f"The committee on {topic} met on Tuesday to discuss a plan that has been debated for more than "
        f"two years, after a long consultation that drew thousands of responses from residents.",
        f"Supporters of the {topic} plan said it would make daily life easier for families and older "
        f"people, while critics worried about the cost and the disruption during the building work.",
        f"Work on {topic} is expected to begin next spring and to last about eighteen months, according "
        f"to the department, which will publish a detailed timetable in the coming weeks.",
    ]


@dataclass
class WarcFixture:
    data: bytes
    pages: dict[str, str] = field(default_factory=dict)  # url -> a sentence its text must hold
    record_ids: dict[str, str] = field(default_factory=dict)  # url -> WARC-Record-ID
    records: int = 0
    skipped: int = 0


def make_warc(gzip: bool = True) -> WarcFixture:
    """Six HTML pages (plain, chunked, gzip, chunked+gzip, deflate+Latin-1 via the header
    charset, a resource record) among warcinfo, request, PNG, 404 and revisit records."""
    buf = io.BytesIO()
    w = WarcBuilder(buf, gzip=gzip)
    t = WarcFixture(b"")
    w.warcinfo({"software": "ce-filter tests"})
    variants = [
        ("plain", {}),
        ("chunked", {"chunked": True}),
        ("gzip", {"content_encoding": "gzip"}),
        ("chunkgzip", {"chunked": True, "content_encoding": "gzip"}),
    ]
    for name, kw in variants:
        url = f"http://news.test/{name}.html"
        if name == "plain":
            w.request(url)
            t.skipped += 1
        p = paras(name)
        t.record_ids[url] = w.response(url, article(f"News about {name}", p).encode(), **kw)
        t.pages[url] = p[0]
    url = "http://news.test/latin1.html"
    p = paras("café terraces")
    body = article("Café terraces", p, charset=None).encode("latin-1")
    t.record_ids[url] = w.response(
        url, body, content_type="text/html; charset=iso-8859-1", content_encoding="deflate"
    )
    t.pages[url] = p[1]
    url = "http://news.test/resource.html"
    p = paras("resources")
    t.record_ids[url] = w.resource(url, article("Resource", p).encode())
    t.pages[url] = p[2]
    w.response("http://news.test/logo.png", b"\x89PNG\r\n\x1a\n" + bytes(200), content_type="image/png")
    w.response("http://news.test/missing.html", article("Not found", ["Nothing here."]).encode(), status=404)
    w.revisit("http://news.test/plain.html", t.record_ids["http://news.test/plain.html"])
    t.skipped += 4  # png, 404, revisit, warcinfo
    t.records = len(t.pages) + t.skipped
    t.data = buf.getvalue()
    return t
