"""The WARC reader on files made here with warcio: framing undone, non-HTML counted,
truncated and broken files reported with the offset where they break."""

from __future__ import annotations

import gzip
import io
import zlib

import pytest
from ce_filter.crawler.warc import WarcStats, decode_content, iter_pages, read_all
from ce_filter.crawler.warcgen import WarcBuilder

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


def _digest_of(data: bytes, record_id: str) -> str:
    from warcio.archiveiterator import ArchiveIterator

    for r in ArchiveIterator(io.BytesIO(data)):
        if r.rec_headers.get_header("WARC-Record-ID") == record_id:
            return r.rec_headers.get_header("WARC-Payload-Digest")
    raise KeyError(record_id)


def test_revisits_resolved_by_refers_to_digest_and_uri_date():
    t = make_warc()  # its revisit names the original by WARC-Refers-To
    stats = WarcStats()
    pages = list(iter_pages(io.BytesIO(t.data), stats, revisits=True))
    assert len(pages) == len(t.pages) + 1 and "revisit (no payload)" not in stats.skipped
    assert stats.records == stats.pages + stats.skipped_total
    original, again = (p for p in pages if p.url == "http://news.test/plain.html")
    assert again.revisit_of == original.record_id == t.record_ids[original.url]
    assert again.record_id != original.record_id and again.body == original.body
    assert again.status == 200 and again.content_type.startswith("text/html")

    # by payload digest only, by target URI + date only, and a 304 (server-not-modified)
    url = "http://news.test/gzip.html"
    rid = t.record_ids[url]
    digest = _digest_of(t.data, rid)
    buf = io.BytesIO()
    w = WarcBuilder(buf, date="2024-02-01T00:00:00Z")
    w.revisit(url, payload_digest=digest, date="2024-02-01T00:00:00Z")
    w.revisit(url, refers_to_uri=url, refers_to_date="2024-01-01T00:00:00Z", date="2024-03-01T00:00:00Z")
    w.revisit(url, refers_to=rid, status=304, date="2024-04-01T00:00:00Z")
    w.revisit("http://news.test/new.html", refers_to="<urn:uuid:not-here>", date="2024-05-01T00:00:00Z")
    stats = WarcStats()
    pages = list(iter_pages([io.BytesIO(t.data), io.BytesIO(buf.getvalue())], stats, revisits=True))
    later = [p for p in pages if p.url == url][1:]
    assert [p.fetch_time[:7] for p in later] == ["2024-02", "2024-03", "2024-04"]
    assert {p.revisit_of for p in later} == {rid} and all(p.status == 200 for p in later)
    body = next(p.body for p in pages if p.record_id == rid)
    assert all(p.body == body and p.content_type.startswith("text/html") for p in later)
    assert stats.skipped["revisit (original not in input)"] == 1

    # skipped by default, as before
    stats = WarcStats()
    assert len(list(iter_pages(io.BytesIO(buf.getvalue()), stats))) == 0
    assert stats.skipped == {"revisit (no payload)": 4}


def test_revisit_index_is_bounded():
    from ce_filter.crawler.warc import RevisitIndex

    t = make_warc()
    index = RevisitIndex(max_bytes=1)  # holds nothing: every page is larger
    stats = WarcStats()
    pages = list(iter_pages(io.BytesIO(t.data), stats, revisits=index))
    assert len(pages) == len(t.pages) and index.bytes == 0
    assert stats.skipped["revisit (original not in input)"] == 1
    size = max(len(p.body) for p in pages)
    index = RevisitIndex(max_bytes=2 * size)
    for p in pages:
        index.add(p, None)
        assert index.bytes <= 2 * size
    assert len(index) == 2 and len(index._keys) <= 4  # a dropped page's keys go with it
    assert index.find(_Headers({"WARC-Refers-To": pages[-1].record_id})) is pages[-1]
    assert index.find(_Headers({"WARC-Refers-To": pages[0].record_id})) is None


class _Headers(dict):
    def get_header(self, name):
        return self.get(name)


def test_revisit_without_http_headers_takes_the_originals():
    t = make_warc()
    url = "http://news.test/chunked.html"
    buf = io.BytesIO()
    w = WarcBuilder(buf)
    # no HTTP block at all: the record's own Content-Type is application/http, not the page's
    w._write(url, "revisit", b"", None, extra={"WARC-Refers-To": t.record_ids[url]},
             content_type="application/http; msgtype=response")
    stats = WarcStats()
    pages = list(iter_pages([io.BytesIO(t.data), io.BytesIO(buf.getvalue())], stats, revisits=True))
    first, again = (p for p in pages if p.url == url)
    assert again.revisit_of == first.record_id and again.body == first.body
    assert again.content_type == first.content_type and again.status == first.status == 200
    assert again.headers == first.headers
