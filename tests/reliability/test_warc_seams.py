"""The WARC reader always ends and always moves on: junk before a record, a member past its
cap, a body of many gzip members, a Content-Length of thousands of digits and a stop signal
each cost their own bytes, never a hang or the run. Whatever could hang runs in a child
process under a time guard, so a hang fails the test instead of blocking the suite."""

from __future__ import annotations

import gzip
import json
import os
import random
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
import zlib
from pathlib import Path
from typing import Any

import pytest
from ce_filter.crawler import warc
from ce_filter.crawler.warc import WarcStats, read_all
from ce_filter.crawler.warc_shards import read_shard
from pipeline.conftest import REPO, cli_env, run_cli

from .warcs import pages

GUARD_S = 60  # not a timing assertion: a reader that spins is killed and the test fails


def _child(code: str, *args: str, timeout: float = GUARD_S) -> Any:
    """Run ``code`` in a fresh interpreter; the JSON it prints last. A hang fails the test."""
    try:
        r = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], cwd=REPO,
                           env=cli_env(), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running after {timeout:g} s: the reader hangs")
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.splitlines()[-1])


READ = """
    import json, sys
    from ce_filter.crawler import warc
    %s
    out = []
    for path in sys.argv[1:]:
        stats = warc.WarcStats()
        urls = [p.url for p in warc.iter_pages(path, stats)]
        out.append({"urls": urls, "errors": stats.errors, "records": stats.records})
    print(json.dumps(out))
"""


def _read(*paths: Path, setup: str = "") -> list[dict[str, Any]]:
    return _child(READ % setup, *map(str, paths))


def _plain(data: bytes, offsets: list[int]) -> list[bytes]:
    return [gzip.decompress(data[offsets[i]:offsets[i + 1]]) for i in range(len(offsets) - 1)]


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


# ---- junk before the next record


JUNK = (1, 65_535, 65_536, 65_537, 131_071, 131_072, 200_000, 1 << 20)  # around the read sizes


def test_junk_before_the_next_record_is_passed_over(tmp_path):
    """Junk of any length (around the reader's 64 KiB steps too) before two good records,
    gzip and plain: both records come out, the junk is one not-a-record error."""
    data, offsets = pages(2)
    plain = b"".join(_plain(data, offsets))
    paths = []
    for n in JUNK:
        for name, good in (("gz", data), ("plain", plain)):
            paths.append(tmp_path / f"junk{n}.warc{'.gz' if name == 'gz' else ''}")
            paths[-1].write_bytes(b"A" * n + good)
    for path, got in zip(paths, _read(*paths)):
        n = int(re.sub(r"\D", "", path.name.split(".")[0]))
        assert got["urls"] == ["http://p.test/0", "http://p.test/1"], (path.name, got)
        assert [(e["kind"], e["offset"], e["skipped"]) for e in got["errors"]] == [
            ("not-a-record", 0, n)], (path.name, got)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_junk_before_the_next_member_with_the_cli(tmp_path, workers):
    data, _ = pages(2)
    path = tmp_path / "junk.warc.gz"
    path.write_bytes(b"A" * 200_000 + data)
    out = tmp_path / "o.jsonl"
    try:
        r = run_cli(["warc", str(path), "--to", f"jsonl:{out}", "--workers", workers],
                    timeout=GUARD_S * 2)
    except subprocess.TimeoutExpired:
        pytest.fail("ce-filter warc hangs on junk before a gzip member")
    assert r.returncode == 1, r.stderr.decode()[-2000:]  # damaged input: exit 1, the rest written
    assert sorted(x["url"] for x in _lines(out)) == ["http://p.test/0", "http://p.test/1"]
    assert "bytes that are not a WARC record at offset 0 (200000 bytes passed over)" in r.stderr.decode()


# ---- a gzip member past the member cap


def _incompressible_member(url: str, size: int) -> bytes:
    """A gzip member holding a response of ``size`` random bytes (about as long compressed)."""
    body = random.Random(7).randbytes(size)
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n" % size
    head = (b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: " + url.encode()
            + b"\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n"
            % (len(http) + size))
    return gzip.compress(head + http + body + b"\r\n\r\n", mtime=0)


def test_the_member_cap_reports_and_skips_the_member(tmp_path):
    """The member cap's path, with the cap set to 1 MiB (MEMBER_CAP is read when a member is
    opened): a member inflating to 3 MiB is reported too-large at its offset and skipped, and
    the records after it come out, from the whole file and from byte-range shards."""
    assert warc.units.MEMBER_CAP == 1 << 30  # the cap the reader ships with
    data, offsets = pages(4)
    big = _incompressible_member("http://big.test/", 3 << 20)
    path = tmp_path / "big.warc.gz"
    path.write_bytes(data[:offsets[2]] + big + data[offsets[2]:])
    [got] = _read(path, setup="warc.units.MEMBER_CAP = 1 << 20")
    assert got["urls"] == [f"http://p.test/{i}" for i in range(4)], got
    [err] = got["errors"]
    assert (err["kind"], err["offset"], err["skipped"]) == ("too-large", offsets[2], len(big)), err
    assert err["error"] == "gzip member over 1 MiB decompressed: skipped"
    sharded = _child("""
        import json, sys
        from ce_filter.crawler import warc
        from ce_filter.crawler.warc_shards import plan, read_shard
        warc.units.MEMBER_CAP = 1 << 20
        path, stats = sys.argv[1], warc.WarcStats()
        shards = plan(path, 3)
        urls = [p.url for a, b in shards for p in read_shard(path, a, b, stats)]
        print(json.dumps({"urls": urls, "errors": stats.errors, "shards": len(shards)}))
    """, str(path))
    assert sharded["shards"] > 1
    assert sharded["urls"] == got["urls"] and sharded["errors"] == got["errors"]


# ---- many gzip members in one body


def _members_body(n: int, last: bytes = b"<html><body><p>the page</p></body></html>") -> bytes:
    return gzip.compress(b"", mtime=0) * n + gzip.compress(last, mtime=0)


def test_many_gzip_members_in_one_body_decode_in_linear_time():
    """300,000 empty gzip members (6 MB, 15 KB once the record is gzipped): the body decodes
    in well under a second of CPU (this took 22 s when every member's end copied the rest)."""
    got = _child("""
        import gzip, json, time
        from ce_filter.crawler.warc import decode_content
        body = gzip.compress(b"", mtime=0) * 300_000 + gzip.compress(b"<p>x</p>", mtime=0)
        t = time.thread_time()
        out = decode_content(body, "gzip")
        print(json.dumps({"out": out.decode(), "cpu": time.thread_time() - t}))
    """)
    assert got["out"] == "<p>x</p>"
    assert got["cpu"] < 5, got  # about 0.7 s on one idle core


def _response(url: str, body: bytes, coding: str) -> bytes:
    http = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: " + coding.encode()
            + b"\r\nContent-Length: %d\r\n\r\n" % len(body))
    head = (b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: " + url.encode()
            + b"\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n"
            % (len(http) + len(body)))
    return gzip.compress(head + http + body + b"\r\n\r\n", mtime=0)


def test_a_body_past_the_page_budget_is_skipped_and_the_run_goes_on():
    """Decoding a body counts against the page budget's CPU seconds, like parsing: past it
    the record is skipped with the reason, the records around it come out."""
    data, offsets = pages(2)
    slow = _response("http://many.test/", _members_body(300_000), "gzip")
    whole = data[:offsets[1]] + slow + data[offsets[1]:]
    assert len(slow) < 20_000
    stats = WarcStats()
    urls = [p.url for p in warc.iter_pages(__import__("io").BytesIO(whole), stats, seconds=0.02)]
    assert urls == ["http://p.test/0", "http://p.test/1"]
    assert stats.skipped == {"undecodable body (gzip: past the page budget's CPU seconds)": 1}
    stats = WarcStats()
    got = {p.url: p.body for p in read_all(whole, stats)}  # the default budget: 10 s
    assert got["http://many.test/"] == b"<html><body><p>the page</p></body></html>"
    with pytest.raises(warc.DecodeOverBudget):
        warc.decode_content(_members_body(300_000), "gzip", seconds=0.02)


# ---- Content-Length


def _long_length(record: bytes, digits: int = 5000) -> bytes:
    return re.sub(rb"Content-Length: \d+", b"Content-Length: " + b"9" * digits, record, count=1)


def test_a_content_length_of_thousands_of_digits_is_one_damaged_record(tmp_path):
    data, offsets = pages(3)
    records = _plain(data, offsets)
    plain = records[0] + _long_length(records[1]) + records[2]
    stats = WarcStats()
    assert [p.url for p in read_all(plain, stats)] == ["http://p.test/0", "http://p.test/2"]
    [err] = stats.errors
    assert err["kind"] == "content-length" and err["offset"] == len(records[0]), err
    assert "5000 digits" in err["error"]
    gz = data[:offsets[1]] + gzip.compress(_long_length(records[1])) + data[offsets[2]:]
    stats = WarcStats()
    assert [p.url for p in read_all(gz, stats)] == ["http://p.test/0", "http://p.test/2"]
    assert [(e["kind"], e["offset"]) for e in stats.errors] == [("content-length", offsets[1])]
    path = tmp_path / "long.warc"
    path.write_bytes(plain)
    out = tmp_path / "o.jsonl"
    r = run_cli(["warc", str(path), "--to", f"jsonl:{out}", "--workers", "1"])
    assert r.returncode == 1 and "Traceback" not in r.stderr.decode(), r.stderr.decode()[-2000:]
    assert sorted(x["url"] for x in _lines(out)) == ["http://p.test/0", "http://p.test/2"]


# ---- header lines


def test_a_long_header_line_costs_linear_time():
    """A 32 MiB header line (32 KB gzipped) is read in pieces, not joined piece by piece (that
    took 14 s: the square of its length)."""
    got = _child("""
        import gzip, json, time
        from ce_filter.crawler.warc import WarcStats, read_all
        rec = (b"WARC/1.0\\r\\nWARC-Type: response\\r\\nContent-Length: 10\\r\\nX: " + b"a" * (32 << 20)
               + b"\\r\\n\\r\\n0123456789\\r\\n\\r\\n")
        data = gzip.compress(rec)
        stats = WarcStats()
        t = time.thread_time()
        read_all(data, stats)
        print(json.dumps({"cpu": time.thread_time() - t, "errors": len(stats.errors)}))
    """)
    assert got["cpu"] < 5 and got["errors"] == 1, got  # about 0.2 s


# ---- a stop while the reader only reads


class _Flag:
    def __init__(self) -> None:
        self.set = False

    def __bool__(self) -> bool:
        return self.set


def test_a_set_halt_ends_the_reader_at_its_next_read():
    """The reader checks ``halt`` at every read of its input: reading /dev/zero (no record,
    ever) ends within a second of the flag being set; so does a shard."""
    for read in (lambda fh, flag: warc.iter_pages(fh, WarcStats(), halt=flag),
                 lambda fh, flag: read_shard("/dev/zero", 0, None, WarcStats(), halt=flag)):
        flag = _Flag()
        with open("/dev/zero", "rb") as fh:
            threading.Timer(0.3, lambda f=flag: setattr(f, "set", True)).start()
            t0 = time.monotonic()
            assert list(read(fh, flag)) == []
            assert time.monotonic() - t0 < 0.3 + 1.0


def _rchar(pid: int) -> int:
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    return 0


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs /proc/PID/io")
@pytest.mark.parametrize("args", [["--workers", "1"], ["--workers", "2"],
                                  ["--workers", "2", "--no-site-memory"]])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_ends_a_run_that_only_reads_within_a_second(tmp_path, args, sig):
    """``ce-filter warc /dev/zero``: the reader reads forever and finds no record (in the
    site memory's first pass, or the filter pass without it). Once it has read 16 MB, a
    SIGTERM or SIGINT ends the run within a second, with its summary and exit 128+N."""
    proc = subprocess.Popen([sys.executable, "-m", "ce_filter.cli", "warc", "/dev/zero", "--to",
                             f"jsonl:{tmp_path / 'o.jsonl'}", *args], cwd=REPO, env=cli_env(),
                            stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + GUARD_S
        while proc.poll() is None and _rchar(proc.pid) < 16 << 20:
            assert time.monotonic() < deadline, "the reader stopped reading (it spins)"
            time.sleep(0.05)
        t0 = time.monotonic()
        os.kill(proc.pid, sig)
        _, err = proc.communicate(timeout=GUARD_S)
        took = time.monotonic() - t0
    finally:
        proc.kill()
        proc.wait()
    text = err.decode()
    assert proc.returncode == 128 + sig, text[-2000:]
    assert f"interrupted by {signal.Signals(sig).name}" in text and "Traceback" not in text
    assert took < 1.0, took


def test_the_deflate_check_of_a_member_start_is_bounded():
    """A resync tries every ``1f 8b 08`` in a gap: each try looks at a bounded number of bytes
    (a header that claims a name and never ends it used to make zlib read 64 KiB each)."""
    junk = b"\x1f\x8b\x08" * 100_000 + pages(1)[0]
    stats = WarcStats()
    t0 = time.thread_time()
    assert [p.url for p in read_all(junk, stats)] == ["http://p.test/0"]
    assert time.thread_time() - t0 < 3  # about 0.2 s; 30 s a MB when each try read 64 KiB
    assert zlib.decompress(gzip.compress(b"x")[10:], -15) == b"x"  # (the raw deflate it reads)


def test_a_cut_member_that_runs_on_into_the_next_members_is_looked_at_again():
    """Junk that opens a gzip member whose header never ends (``1f 8b 08 1f``: a name with no
    end) reads on through the good members to the end of the input: the reader looks again
    from the damage, as after a corrupt member, and the records after it come out (found by
    the atheris run of fuzz/targets.py resync)."""
    data, offsets = pages(4)
    bad = data[:offsets[2]] + b"\x1f\x8b\x08" * 500 + data[offsets[2]:]
    stats = WarcStats()
    assert [p.url for p in read_all(bad, stats)] == [f"http://p.test/{i}" for i in range(4)]
    assert stats.errors[0]["offset"] == offsets[2]
    assert all(offsets[2] <= e["offset"] < offsets[2] + 1500 for e in stats.errors), stats.errors
