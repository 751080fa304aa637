"""WARC files for the deploy tests, written with warcio: HTML responses among a warcinfo, a
request, a non-HTML response, a 404 and an empty page, gzip per record or plain."""

from __future__ import annotations

import io
from pathlib import Path

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

TOPICS = ["harbour", "library", "railway", "orchard", "bridge", "market", "museum", "river", "school"]


def page(title: str, seed: int) -> bytes:
    nav = "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(10))
    paras = "".join(
        f"<p>Paragraph {k} on the {title.lower()} story number {seed}: the council met again on Tuesday "
        f"to discuss the plan, which residents have debated for {seed + k} months, and agreed to "
        f"publish a detailed timetable for the work in the coming weeks.</p>"
        for k in range(3)
    )
    return (
        f'<html><head><meta charset="utf-8"><title>{title} {seed}</title></head><body>'
        f'<div id="header"><ul class="nav">{nav}</ul></div><div id="content"><div class="article">'
        f"<h1>{title} {seed}</h1>{paras}</div></div>"
        '<div id="footer"><a href="/privacy">Privacy</a> | Copyright 2024</div></body></html>'
    ).encode()


def _response(w: WARCWriter, url: str, body: bytes, ctype: str = "text/html; charset=utf-8",
              status: str = "200 OK") -> None:  # fmt: skip
    http = StatusAndHeaders(
        status, [("Content-Type", ctype), ("Content-Length", str(len(body)))], protocol="HTTP/1.1"
    )
    rec = w.create_warc_record(url, "response", payload=io.BytesIO(body), length=len(body), http_headers=http)
    w.write_record(rec)


def write_warc(path: Path, n_pages: int, seed: int = 0, gzip: bool = True) -> list[str]:
    """Write ``n_pages`` HTML pages (one of them without text) plus records that are skipped;
    returns the URLs of the HTML pages."""
    urls = []
    with open(path, "wb") as fh:
        w = WARCWriter(fh, gzip=gzip)
        w.write_record(w.create_warcinfo_record(path.name, {"software": "ce-filter deploy tests"}))
        for i in range(n_pages):
            url = f"http://site{seed}.test/{TOPICS[i % len(TOPICS)]}/{i}.html"
            title = TOPICS[(i + seed) % len(TOPICS)].title()
            body = b"<html><body></body></html>" if i == 1 else page(title, i)
            if i == 0:
                req = io.BytesIO(b"GET / HTTP/1.1\r\n\r\n")
                w.write_record(w.create_warc_record(url, "request", payload=req))
            _response(w, url, body)
            urls.append(url)
        _response(w, f"http://site{seed}.test/logo.png", b"\x89PNG\r\n\x1a\n" + bytes(64), ctype="image/png")
        _response(w, f"http://site{seed}.test/missing.html", page("Missing", 0), status="404 Not Found")
    return urls
