"""The WARC reader on files made here with warcio: framing undone, non-HTML counted,
truncated and broken files reported with the offset where they break."""

from __future__ import annotations

import gzip
import io
import zlib

import pytest

from crawler.warc import WarcStats, decode_content, iter_pages, read_all
from crawler.warcgen import WarcBuilder

from .helpers import article, make_warc, paras


@pytest.mark.parametrize("gz", [True, False], ids=["warc.gz", "warc"])
def test_pages_counts_and_framing(gz):
    t = make_warc(gzip=gz)
    stats = WarcStats()
    pages = read_all(t.data, stats)
    assert [p.url for p in pages] == list(t.pages)
    assert stats.records == t.records == stats.pages + stats.skipped_total
    assert stats.pages == len(t.pages) and stats.errors == []
    assert stats.skipped == {
        "record type warcinfo": 1,
        "record type request": 1,
        "non-html image/png": 1,
        "http status 404": 1,
        "revisit (no payload)": 1,
    }
    for p in pages:
        assert p.body.startswith(b"<html>") and p.body.endswith(b"</html>")  # dechunked, decompressed
        assert p.record_id == t.record_ids[p.url]
        assert p.fetch_time and p.source == "warc"
    by_url = {p.url: p for p in pages}
    latin = by_url["http://news.test/latin1.html"]
    assert (
        latin.encoding == "cp1252" and "Café".encode("latin-1") in latin.body
    )  # header charset kept as hint
    assert by_url["http://news.test/plain.html"].status == 200
    assert by_url["http://news.test/resource.html"].status is None  # resource records have no HTTP


def test_all_statuses_keeps_404():
    stats = WarcStats()
    urls = [p.url for p in iter_pages(io.BytesIO(make_warc().data), stats, all_statuses=True)]
    assert "http://news.test/missing.html" in urls and "http status 404" not in stats.skipped


def test_paths_globs_dirs_and_missing(tmp_path):
    t = make_warc()
    (tmp_path / "a.warc.gz").write_bytes(t.data)
    (tmp_path / "b.warc").write_bytes(make_warc(gzip=False).data)
    stats = WarcStats()
    assert len(list(iter_pages(str(tmp_path / "*.warc*"), stats))) == 2 * len(t.pages)
    assert stats.files == 2
    assert len(list(iter_pages(tmp_path))) == 2 * len(t.pages)
    with pytest.raises(FileNotFoundError):
        iter_pages([tmp_path / "a.warc.gz", tmp_path / "nope.warc.gz"])  # raised at call, not mid-run


def test_brotli_and_unknown_encodings():
    pytest.importorskip("brotli", reason="brotli not installed: br content-encoding not available")
    buf = io.BytesIO()
    w = WarcBuilder(buf)
    html = article("Brotli", paras("brotli")).encode()
    w.response("http://x.test/br", html, content_encoding="br", chunked=True)
    w.response("http://x.test/lie", html, headers=[("Content-Encoding", "gzip")])  # says gzip, is not
    payload = gzip.compress(html)
    w.response("http://x.test/weird", payload, headers=[("Content-Encoding", "compress")])
    stats = WarcStats()
    pages = {p.url: p for p in read_all(buf.getvalue(), stats)}
    assert pages["http://x.test/br"].body == html
    assert pages["http://x.test/lie"].body == html  # a lie that is HTML is kept
    assert stats.skipped == {"unsupported content-encoding compress": 1}


def test_decode_content_layers():
    data = b"<p>hello</p>" * 50
    assert decode_content(zlib.compress(gzip.compress(data)), "gzip, deflate") == data
    assert decode_content(gzip.compress(data) + gzip.compress(data), "x-gzip") == data + data  # multi-member
    with pytest.raises(LookupError):
        decode_content(data, "compress")


def _record_bounds(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of each gzip member (= record) of a .warc.gz."""
    out, off = [], 0
    while off < len(data):
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        d.decompress(data[off:])
        end = len(data) - len(d.unused_data)
        out.append((off, end))
        off = end
    return out


def test_truncated_warc_gz_keeps_whole_records_and_reports_offset():
    t = make_warc()
    bounds = _record_bounds(t.data)
    assert len(bounds) == t.records
    # Cut inside each record in turn: every record wholly before the cut is read, then the break is
    # reported at the offset where the broken record begins. A cut in the gzip trailer (last 8 bytes)
    # leaves the record's data whole: it is read, and the break still reported.
    for i, (start, end) in enumerate(bounds):
        for cut, upto in ((start + 10, i), ((start + end) // 2, i), (end - 3, i + 1)):
            stats = WarcStats()
            pages = read_all(t.data[:cut], stats)
            whole = [u for u, rid in t.record_ids.items() if _index_of(t, bounds, rid) < upto]
            assert [p.url for p in pages] == whole, (i, cut)
            assert len(stats.errors) == 1, (i, cut, stats.errors)
            err = stats.errors[0]
            assert err["offset"] == start, (i, cut, err)  # where the broken record begins
            assert "truncated" in err["error"]
            assert stats.records == stats.pages + stats.skipped_total


def _index_of(t, bounds, record_id) -> int:
    for i, (s, e) in enumerate(bounds):
        if record_id.encode() in zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(t.data[s:e]):
            return i
    raise AssertionError(record_id)


def test_truncated_plain_warc():
    t = make_warc(gzip=False)
    cut = t.data.index(b"WARC-Target-URI: http://news.test/gzip.html") + 30  # inside that record's header
    stats = WarcStats()
    pages = read_all(t.data[:cut], stats)
    assert [p.url for p in pages] == ["http://news.test/plain.html", "http://news.test/chunked.html"]
    assert len(stats.errors) == 1 and "truncated" in stats.errors[0]["error"]
    assert 0 < stats.errors[0]["offset"] < cut


def test_not_a_warc_is_an_error_not_a_crash():
    stats = WarcStats()
    assert read_all(b"<html><body>not a warc</body></html>", stats) == []
    assert len(stats.errors) == 1 and stats.errors[0]["offset"] == 0
    stats = WarcStats()
    assert read_all(b"", stats) == [] and stats.errors == [] and stats.records == 0
