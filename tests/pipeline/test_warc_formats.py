"""Documented inputs of the WARC reader beyond WARC itself: a zstd Content-Encoding on a
payload (as brotli's in test_warc_reader.py), and ARC files, plain and gzipped, read by the
public functions ``iter_pages`` / ``read_all`` / ``decode_content``."""

from __future__ import annotations

import gzip
import io
import sys
from pathlib import Path
from typing import Any

from ce_filter.crawler.warc import WarcStats, decode_content, iter_pages, read_all
from ce_filter.crawler.warcgen import WarcBuilder

from .helpers import article, paras


def _zstd() -> Any:
    """The zstd module the reader uses: Python 3.14's compression.zstd, else backports.zstd,
    which the warc extra (and so the test extra) installs below 3.14. No skip: without it the
    reader skips zstd bodies, and this test fails."""
    if sys.version_info >= (3, 14):
        from compression import zstd  # type: ignore[import-not-found]
    else:
        from backports import zstd
    return zstd


def test_zstd_content_encoding_in_a_warc_payload():
    """A zstd body (and gzip under zstd) decoded through the WARC reader: the page's body is
    the HTML; a body that is not zstd is skipped as undecodable."""
    zstd = _zstd()
    html = article("Zstandard", paras("zstd")).encode()
    buf = io.BytesIO()
    w = WarcBuilder(buf)
    w.response("http://x.test/zstd", zstd.compress(html), headers=[("Content-Encoding", "zstd")])
    # two layers, undone last-applied first: gzip, then zstd over it
    w.response("http://x.test/both", zstd.compress(gzip.compress(html)),
               headers=[("Content-Encoding", "gzip, zstd")])
    w.response("http://x.test/lie", b"\x28\xb5\x2f\xfd garbage", headers=[("Content-Encoding", "zstd")])
    stats = WarcStats()
    pages = {p.url: p for p in read_all(buf.getvalue(), stats)}
    assert pages["http://x.test/zstd"].body == html and pages["http://x.test/both"].body == html
    assert "http://x.test/lie" not in pages and stats.pages == 2 and stats.records == 3
    assert stats.skipped == {"undecodable body (zstd: ZstdError)": 1}  # (not: no zstd module)
    # a bomb is cut at the limit, not inflated
    assert decode_content(zstd.compress(b"x" * 5_000_000), "zstd", limit=1000) == b"x" * 1000


def _arc_record(url: str, body: bytes, ctype: str = "text/html", status: str = "200 OK") -> bytes:
    http = (f"HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n\r\n"
            .encode() + body)
    return f"{url} 127.0.0.1 20240102030405 {ctype} {len(http)}\n".encode() + http + b"\n"


def _arc(records: list[bytes], gz: bool) -> bytes:
    """An ARC (version 1) file: its filedesc header record, then the records; gzipped, one
    gzip member a record, as .arc.gz files are."""
    version = b"1 0 ce-filter-test\nURL IP-address Archive-date Content-type Archive-length\n"
    head = b"filedesc://test.arc 0.0.0.0 20240102030405 text/plain %d\n" % len(version) + version + b"\n"
    parts = [head, *records]
    return b"".join(gzip.compress(p, mtime=0) for p in parts) if gz else b"".join(parts)


def test_arc_files_plain_and_gzipped(tmp_path: Path):
    html = article("Archive", paras("arc")).encode()
    records = [_arc_record("http://x.test/a", html),
               _arc_record("http://x.test/logo.png", b"\x89PNG", "image/png"),
               _arc_record("http://x.test/gone", b"<p>no</p>", status="404 Not Found"),
               _arc_record("http://x.test/b", html.replace(b"Archive", b"Second"))]
    (tmp_path / "crawl.arc").write_bytes(_arc(records, gz=False))
    (tmp_path / "crawl.arc.gz").write_bytes(_arc(records, gz=True))
    stats = WarcStats()
    pages = list(iter_pages(tmp_path, stats))  # a directory: its .arc and .arc.gz files
    assert stats.files == 2 and stats.errors == []
    for name in ("crawl.arc", "crawl.arc.gz"):
        got = [p for p in pages if p.source_name.endswith(name)]
        assert [p.url for p in got] == ["http://x.test/a", "http://x.test/b"], name
        assert got[0].body == html and got[0].status == 200
        assert got[0].fetch_time.startswith("2024-01-02T03:04:05"), got[0].fetch_time
    assert stats.records == 2 * 5 and stats.pages == 4
    assert stats.skipped == {"non-html image/png": 2, "http status 404": 2, "record type warcinfo": 2}
