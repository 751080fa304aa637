"""Builds samples/sample.warc.gz, the WARC the demo runs on (byte-identical on every run).

Five pages of the Dragnet corpus (CC BY 4.0, see samples/README.md), framed the ways
crawlers see them: plain, chunked, gzip-encoded, chunked + gzip, and a charset-less header;
plus a request record, a non-HTML (PNG) response, a revisit and a warcinfo record.

    python scripts/make_sample.py [--data ../shared/data/dragnet/html] [--out samples/sample.warc.gz]

It runs with the project installed (``pip install -e '.[warc]'``): ce_filter.crawler is the
installed package's (no ``sys.path`` edit; the checkout has no ce_filter.crawler).
"""

from __future__ import annotations

import argparse
import io
import struct
import zlib
from pathlib import Path

from ce_filter.crawler.warcgen import WarcBuilder

ROOT = Path(__file__).resolve().parents[1]

# (Dragnet id, URL the page was crawled from (its canonical link), framing)
PAGES = [
    (
        "T172",
        "http://lasermotive.com/2012/08/07/outdoor-proof-of-concept-laser-powered-uas-flights/",
        {"content_type": "text/html; charset=UTF-8"},
    ),
    (
        "R950",
        "http://www.nintendo.com/whatsnew/detail/eQQfExB_P9mULhK09MlrxoNBFDW_n3ga",
        {"content_type": "text/html; charset=UTF-8", "chunked": True, "content_encoding": "gzip"},
    ),
    (
        "R650",
        "http://bigthink.com/ideafeed/nasa-hopes-to-continue-its-space-exploration-plans",
        {"content_type": "text/html; charset=utf-8", "content_encoding": "gzip"},
    ),
    (
        "R647",
        "http://bigthink.com/waq-al-waq/sanaa-notebook-al-qaeda-and-electricity",
        {"content_type": "text/html; charset=utf-8", "chunked": True},
    ),
    (
        "T14",
        "http://www.thisisfakediy.co.uk/articles/news/refused-announce-european-headline-tour",
        {"content_type": "text/html"},
    ),
]


def tiny_png() -> bytes:
    """A valid 1x1 PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\x00\xff\xff\xff"))
        + chunk(b"IEND", b"")
    )


def build(data_dir: Path) -> bytes:
    buf = io.BytesIO()
    w = WarcBuilder(buf, gzip=True, date="2012-08-08T10:00:00Z")
    w.warcinfo(
        {
            "software": "ce-filter scripts/make_sample.py",
            "description": "5 Dragnet corpus pages (CC BY 4.0) framed as crawled responses",
        }
    )
    first = None
    for i, (pid, url, framing) in enumerate(PAGES):
        if i == 0:
            w.request(url)
        rid = w.response(url, (data_dir / f"{pid}.html").read_bytes(), **framing)
        first = first or rid
    w.response("http://lasermotive.com/wp-content/uploads/pixel.png", tiny_png(), content_type="image/png")
    w.revisit(PAGES[0][1], first)
    return buf.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "dragnet" / "html"))
    ap.add_argument("--out", default=str(ROOT / "samples" / "sample.warc.gz"))
    a = ap.parse_args()
    data = build(Path(a.data))
    Path(a.out).write_bytes(data)
    print(f"wrote {a.out} ({len(data)} bytes)")


if __name__ == "__main__":
    main()
