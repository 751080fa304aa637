"""One bad record costs only itself: every kind of damage is reported with its offset and
kind, reading goes on at the next record, and 1 reader or N byte-range shards give the same
pages, counts and errors. Bombs are read past in bounded memory."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from ce_filter.crawler.warc import BODY_CAP, WarcStats, decode_content, iter_pages, read_all
from ce_filter.crawler.warc_shards import plan, read_shard

from .warcs import bomb_member, damage, pages

KINDS = {  # damage -> the kind the reader reports
    "crc": "crc",
    "corrupt": "corrupt",
    "garbage": "not-a-record",
    "absurd-length": "content-length",
    "short-length": "content-length",
    "bad-length": "content-length",
}
N = 300
AT = 30  # the damaged record (10% into the file)


class _Stream(io.RawIOBase):
    """A non-seekable stream, like stdin."""

    def __init__(self, data: bytes) -> None:
        self._b = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:  # type: ignore[no-untyped-def]
        chunk = self._b.read(min(len(b), 4099))
        b[: len(chunk)] = chunk
        return len(chunk)


def _sharded(path: Path, n: int) -> tuple[list[str], WarcStats]:
    stats = WarcStats()
    urls = []
    for a, b in plan(str(path), n):
        part = WarcStats()
        urls += [p.url for p in read_shard(str(path), a, b, part)]
        stats.merge(part)
    return urls, stats


@pytest.mark.parametrize("what", sorted(KINDS))
def test_one_damaged_record_costs_only_itself(tmp_path, what):
    data, offsets = pages(N)
    bad = damage(data, offsets, AT, what)
    stats = WarcStats()
    urls = [p.url for p in read_all(bad, stats)]
    assert urls == [f"http://p.test/{i}" for i in range(N) if i != AT]
    if what == "garbage":  # bytes that are no record are not counted as one
        assert stats.records == N - 1 and stats.skipped == {}
    else:
        assert stats.records == N and stats.skipped == {"damaged record": 1}
    assert stats.pages == N - 1
    [err] = stats.errors
    assert err["offset"] == offsets[AT] and err["kind"] == KINDS[what], err
    assert f"at offset {offsets[AT]}" in stats.summary()
    # a stream that cannot seek (stdin) reads the same
    s2 = WarcStats()
    assert [p.url for p in iter_pages(io.BufferedReader(_Stream(bad)), s2)] == urls
    assert s2.to_dict()["errors"] == [dict(err, source=s2.errors[0]["source"])]
    # 1 reader and N byte-range shards agree
    path = tmp_path / "bad.warc.gz"
    path.write_bytes(bad)
    whole = WarcStats()
    whole_urls = [p.url for p in iter_pages(str(path), whole)]
    for n in (2, 3, 7):
        s_urls, s_stats = _sharded(path, n)
        assert s_urls == whole_urls and s_stats.to_dict() == whole.to_dict(), n


def test_the_message_says_what_it_was():
    data, offsets = pages(10)
    seen = {}
    for what in ("crc", "absurd-length", "corrupt"):
        stats = WarcStats()
        read_all(damage(data, offsets, 4, what), stats)
        seen[what] = stats.errors[0]["error"]
    stats = WarcStats()
    read_all(data[: offsets[4] + 50], stats)
    seen["cut"] = stats.errors[0]["error"]
    assert "CRC" in seen["crc"] and "Content-Length" in seen["absurd-length"]
    assert "corrupt" in seen["corrupt"] and "truncated" in seen["cut"]
    assert len(set(seen.values())) == 4


def test_damage_in_many_places_and_at_both_ends():
    data, offsets = pages(60)
    bad = data
    for k, what in ((58, "corrupt"), (40, "crc"), (20, "absurd-length"), (0, "garbage")):
        bad = damage(bad, offsets, k, what)  # from the end: the offsets before k stay right
    stats = WarcStats()
    urls = [p.url for p in read_all(bad + b"\x00" * 100, stats)]
    assert len(urls) == 56 and "http://p.test/59" in urls and "http://p.test/1" in urls
    assert [e["kind"] for e in stats.errors] == ["not-a-record", "content-length", "crc", "corrupt",
                                                 "not-a-record"]
    assert stats.records == stats.pages + sum(stats.skipped.values())


def test_plain_warc_resynchronises_at_the_next_record():
    import gzip

    data, offsets = pages(40)
    records = [gzip.decompress(data[offsets[i]:offsets[i + 1]]) for i in range(40)]
    plain = b"".join(records)
    bad = plain.replace(records[10], records[10].replace(b"Content-Length: ", b"Content-Length: 9", 1))
    bad = bad.replace(records[20], b"junk that is not a record\r\n" + records[20])
    stats = WarcStats()
    urls = [p.url for p in read_all(bad, stats)]
    assert len(urls) == 39 and "http://p.test/10" not in urls and "http://p.test/20" in urls
    assert [e["kind"] for e in stats.errors] == ["content-length", "not-a-record"]


def test_content_encoding_bombs_are_cut():
    import gzip
    import zlib

    big = zlib.compressobj(9, zlib.DEFLATED, 31)
    bomb = b"".join(big.compress(b"\0" * (1 << 20)) for _ in range(64)) + big.flush()
    assert len(decode_content(bomb, "gzip")) == BODY_CAP
    assert len(decode_content(bomb, "gzip", limit=1000)) == 1000
    assert decode_content(gzip.compress(b"<p>x</p>"), "gzip") == b"<p>x</p>"


def test_warc_bombs_are_read_in_bounded_memory(tmp_path):
    """A member inflating to 1 GiB and a gzip body inflating to 1 GiB (together 2.1 GB at peak
    when read whole) are read in a child limited to 600 MiB of address space."""
    data, offsets = pages(4)
    path = tmp_path / "bombs.warc.gz"
    path.write_bytes(data[: offsets[2]] + bomb_member("http://bomb.test/a", 1 << 30)
                     + bomb_member("http://bomb.test/b", 1 << 30, "gzip") + data[offsets[2]:])
    code = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (600 << 20, 600 << 20))
        from ce_filter.crawler.warc import WarcStats, iter_pages
        stats = WarcStats()
        for p in iter_pages({str(path)!r}, stats):
            print(p.url, len(p.body))
        print(stats.to_dict())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert f"http://bomb.test/a {BODY_CAP}" in lines and f"http://bomb.test/b {BODY_CAP}" in lines
    assert len(lines) == 7 and "'errors': []" in lines[-1]


def test_absurd_content_length_in_the_first_record():
    data, offsets = pages(2000)
    stats = WarcStats()
    urls = [p.url for p in read_all(damage(data, offsets, 0, "absurd-length"), stats)]
    assert len(urls) == 1999 and stats.errors[0]["offset"] == 0
