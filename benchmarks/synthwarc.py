"""A synthetic WARC made of corpus pages, repeated: for the memory and pipeline rows."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

from ce_filter.learn.corpus import Doc


def write_warc(path: str | Path, docs: Sequence[Doc], n_pages: int, *, gzip: bool = True) -> int:
    """Write ``n_pages`` HTTP ``response`` records cycling over ``docs``; returns bytes written.
    Bodies go out as crawled (no charset in Content-Type, so readers sniff as for real pages)."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    if not docs:
        raise ValueError("no pages to write")
    with open(path, "wb") as fh:
        w = WARCWriter(fh, gzip=gzip)
        for i in range(n_pages):
            d = docs[i % len(docs)]
            http = StatusAndHeaders("200 OK", [("Content-Type", "text/html"),
                                               ("Content-Length", str(len(d.html)))],
                                    protocol="HTTP/1.1")
            rec = w.create_warc_record(f"http://bench.invalid/{i}/{d.id}", "response",
                                       payload=io.BytesIO(d.html), http_headers=http)
            w.write_record(rec)
        return fh.tell()
