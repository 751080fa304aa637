"""Byte-range shards of gzip WARCs (crawler/warc_shards.py): read shard by shard, a file gives
exactly the pages, counts and errors of reading it whole, however it is cut."""

from __future__ import annotations

import gzip
import io

import pytest
from ce_filter.crawler.warc import WarcStats, iter_pages
from ce_filter.crawler.warc_shards import plan, read_shard

from .helpers import make_warc


def _whole(path) -> tuple[list[str], WarcStats]:
    stats = WarcStats()
    return [p.url for p in iter_pages(str(path), stats)], stats


def _sharded(path, n: int) -> tuple[list[str], WarcStats, int]:
    stats = WarcStats()
    shards = plan(str(path), n)
    urls = []
    for a, b in shards:
        part = WarcStats()
        urls += [p.url for p in read_shard(str(path), a, b, part)]
        stats.merge(part)
    return urls, stats, len(shards)


def _same(a: WarcStats, b: WarcStats) -> None:
    assert a.to_dict() == b.to_dict()


@pytest.fixture
def big(tmp_path):
    data = b"".join(make_warc().data for _ in range(12))  # 12 x 14 records, concatenated
    path = tmp_path / "big.warc.gz"
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 40])
def test_shards_give_the_pages_and_counts_of_the_whole_file(big, n):
    urls, stats = _whole(big)
    s_urls, s_stats, k = _sharded(big, n)
    assert s_urls == urls and len(urls) == 12 * 6
    _same(s_stats, stats)
    assert k == min(n, 12 * 14) or (n == 40 and k > 20)  # cut at record starts only


def test_cut_points_are_record_starts(big):
    data = big.read_bytes()
    for a, _b in plan(str(big), 10):
        assert data[a:a + 3] == b"\x1f\x8b\x08"
        assert gzip.GzipFile(fileobj=io.BytesIO(data[a:a + 4096])).read(5) == b"WARC/"


def test_truncated_file_reports_the_same_break(big, tmp_path):
    data = big.read_bytes()
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(data[: len(data) * 2 // 3 + 17])
    urls, stats = _whole(cut)
    s_urls, s_stats, k = _sharded(cut, 4)
    assert k == 4 and s_urls == urls and len(stats.errors) == 1
    _same(s_stats, stats)


def test_plain_warc_and_single_gzip_stream_stay_one_shard(tmp_path):
    plain = tmp_path / "plain.warc"
    plain.write_bytes(make_warc(gzip=False).data)
    assert plan(str(plain), 4) == [(0, None)]
    one = tmp_path / "one.warc.gz"  # the whole WARC as one gzip member: no cut point inside
    one.write_bytes(gzip.compress(make_warc(gzip=False).data * 20))
    assert plan(str(one), 4) == [(0, None)]
    urls, stats = _whole(one)
    s_urls, s_stats, _ = _sharded(one, 4)
    assert s_urls == urls  # (warcio reads only the first record of such a file)
    _same(s_stats, stats)
