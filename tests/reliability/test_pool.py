"""``ce-filter warc`` with real pool children: a child killed mid-run, a page past its time or
memory budget, SIGTERM, a closed or full output. The run always ends, with a summary, an
exit code that says whether anything was lost, and every record accounted for."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pipeline.conftest import REPO, cli_env, run_cli

from .warcs import damage, pages

HANG_GUARD_S = 300  # not a timing assertion: a run that hangs fails instead of blocking CI


def _popen(args: list[str], **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "ce_filter.cli", *args], cwd=REPO, env=cli_env(),
                            stderr=subprocess.PIPE, **kw)


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids = (task / "children").read_text().split()
        out += [int(k) for k in kids]
    return out


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> tuple[Path, int]:
    n = 12_000
    path = tmp_path_factory.mktemp("warc") / "big.warc.gz"
    path.write_bytes(pages(n)[0])
    return path, n


def _wait_for_output(path: Path, proc: subprocess.Popen, lines: int = 200) -> None:
    deadline = time.monotonic() + HANG_GUARD_S
    while time.monotonic() < deadline and proc.poll() is None:
        if path.exists() and path.read_bytes().count(b"\n") >= lines:
            return
        time.sleep(0.05)
    raise AssertionError("no output from the run")


def test_a_killed_pool_child_costs_nothing(big, tmp_path):
    path, n = big
    out = tmp_path / "o.jsonl"
    proc = _popen(["warc", str(path), "--to", f"jsonl:{out}", "--workers", "2"])
    try:
        _wait_for_output(out, proc)
        kids = _children(proc.pid)
        assert len(kids) >= 2
        os.kill(kids[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=HANG_GUARD_S)
    finally:
        proc.kill()
    recs = _lines(out)
    urls = [r["url"] for r in recs]
    assert len(urls) == n and len(set(urls)) == n, err.decode()  # retried, none twice, none lost
    assert all(r["text"] for r in recs)
    assert proc.returncode == 0, err.decode()
    assert f"{n} records: {n} pages" in err.decode()


def _hostile_warc(tmp_path: Path, body: bytes) -> tuple[Path, int]:
    import io

    from ce_filter.crawler.warcgen import WarcBuilder

    data, offsets = pages(50)
    buf = io.BytesIO()
    WarcBuilder(buf).response("http://hostile.test/", body)
    path = tmp_path / "h.warc.gz"
    path.write_bytes(data[: offsets[25]] + buf.getvalue() + data[offsets[25]:])
    return path, 51


SLOW = b"<html><body>" + b"<div>" * 13_000 + b"<p>deep</p></body></html>"  # passes the scan, ~0.4 s
BIG = b"<html><body>" + b"<p>x" * 99_000 + b"</body></html>"  # passes the scan, ~150 MB


@pytest.mark.parametrize("stdin", [False, True])  # byte-range shards in children / pages sent to them
def test_a_page_past_its_time_budget_gets_a_record_and_the_run_goes_on(tmp_path, stdin):
    path, n = _hostile_warc(tmp_path, SLOW)
    out = tmp_path / "o.jsonl"
    args = ["warc", "-" if stdin else str(path), "--to", f"jsonl:{out}", "--page-budget", "0.05"]
    r = run_cli(args, input=path.read_bytes() if stdin else None)
    assert r.returncode == 0, r.stderr.decode()
    recs = {x["url"]: x for x in _lines(out)}
    assert len(recs) == n
    assert recs["http://hostile.test/"]["reason"] == "over budget: time (0.05 s)"
    assert sum(1 for x in recs.values() if x["text"]) == n - 1


def test_a_page_past_its_memory_budget_gets_a_record_and_the_run_goes_on(tmp_path):
    path, n = _hostile_warc(tmp_path, BIG)
    out = tmp_path / "o.jsonl"
    r = run_cli(["warc", str(path), "--to", f"jsonl:{out}", "--page-memory", "40", "--workers", "2"])
    assert r.returncode == 0, r.stderr.decode()
    recs = {x["url"]: x for x in _lines(out)}
    assert len(recs) == n and recs["http://hostile.test/"]["reason"] == "over budget: memory"
    assert sum(1 for x in recs.values() if x["text"]) == n - 1


def _signalled(args: list[str], ready, sig: int) -> tuple[subprocess.Popen, str]:
    """Run the CLI, wait for ``ready(proc)``, send ``sig``; the process (ended) and its stderr."""
    proc = _popen(args)
    try:
        ready(proc)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=HANG_GUARD_S)
    finally:
        proc.kill()
    return proc, err.decode()


def test_sigterm_writes_what_is_done_and_says_so(big, tmp_path):
    path, n = big
    out = tmp_path / "o.jsonl"
    proc, text = _signalled(["warc", str(path), "--to", f"jsonl:{out}", "--workers", "2"],
                            lambda p: _wait_for_output(out, p), signal.SIGTERM)
    assert proc.returncode == 143, text
    assert "interrupted by SIGTERM" in text
    written = len(_lines(out))  # every line whole
    assert 0 < written < n and f"jsonl:{out}: {written} delivered, 0 failed" in text


def test_a_closed_output_is_an_error_not_success(big):
    path, _ = big
    proc = _popen(["warc", str(path), "--to", "jsonl:-"], stdout=subprocess.PIPE)
    try:
        proc.stdout.read(100)
        proc.stdout.close()  # what `| head -c100` does
        _, err = proc.communicate(timeout=HANG_GUARD_S)
    finally:
        proc.kill()
    text = err.decode()
    assert proc.returncode == 1, text
    assert "ce-filter: error: jsonl:-: cannot write: Broken pipe" in text and "Traceback" not in text


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
def test_a_full_disk_is_one_clear_line():
    path = Path(__file__)  # any input: the error comes first
    data, _ = pages(20)
    r = run_cli(["warc", "-", "--to", "jsonl:/dev/full"], input=data)
    text = r.stderr.decode()
    assert r.returncode == 1 and "Traceback" not in text, text
    assert [x for x in text.splitlines() if x.startswith("ce-filter: error")] == [
        "ce-filter: error: jsonl:/dev/full: cannot write: No space left on device"]
    assert path.exists()


def test_one_and_many_workers_give_the_same_records_on_a_damaged_file(tmp_path):
    data, offsets = pages(400)
    for k, what in ((300, "crc"), (120, "absurd-length"), (40, "garbage")):
        data = damage(data, offsets, k, what)
    path = tmp_path / "bad.warc.gz"
    path.write_bytes(data)
    got = {}
    for workers in ("1", "3"):
        out, stats = tmp_path / f"o{workers}.jsonl", tmp_path / f"s{workers}.json"
        r = run_cli(["warc", str(path), "--to", f"jsonl:{out}", "--workers", workers, "--stats", str(stats)])
        assert r.returncode == 1, r.stderr.decode()  # broken input: exit 1, all else written
        s = json.loads(stats.read_text())
        got[workers] = (sorted(x["url"] for x in _lines(out)), s["records"], s["pages"], s["errors"])
    assert got["1"] == got["3"] and len(got["1"][0]) == 397


def test_errors_come_in_input_order_whichever_range_finishes_first(tmp_path):
    """The first of three byte ranges is slow (three ~0.4 s pages), so it finishes last; its
    damaged record must still be the first error, as with one reader."""
    import io

    from ce_filter.crawler.warcgen import WarcBuilder

    buf = io.BytesIO()
    for i in range(3):
        WarcBuilder(buf).response(f"http://slow.test/{i}", SLOW)
    data, offsets = pages(300)
    data = damage(damage(data, offsets, 280, "crc"), offsets, 20, "garbage")
    path = tmp_path / "order.warc.gz"
    path.write_bytes(buf.getvalue() + data)
    stats = tmp_path / "s.json"
    r = run_cli(["warc", str(path), "--to", f"jsonl:{tmp_path / 'o.jsonl'}", "--workers", "3",
                 "--stats", str(stats)])
    assert r.returncode == 1, r.stderr.decode()
    errors = json.loads(stats.read_text())["errors"]
    assert [e["kind"] for e in errors] == ["not-a-record", "crc"], errors


def test_a_stop_in_the_site_memorys_first_pass_ends_the_run(big, tmp_path):
    """SIGINT while the first pass's processes read the shards: they are told to stop, the run
    ends with what it has (nothing yet) and says so, instead of counting to the end or
    failing with a traceback from its pool."""
    path, n = big
    out = tmp_path / "o.jsonl"

    def pool_started(proc: subprocess.Popen) -> None:
        deadline = time.monotonic() + HANG_GUARD_S
        while not _children(proc.pid) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)  # the first pass's pool has started
        assert proc.poll() is None and not (out.exists() and out.read_bytes())

    proc, text = _signalled(["warc", str(path), "--to", f"jsonl:{out}", "--workers", "2"],
                            pool_started, signal.SIGINT)
    assert proc.returncode == 130, text
    assert "interrupted by SIGINT" in text and "Traceback" not in text
    assert "first pass lost" not in text  # its processes stopped, not killed by the signal
    assert len(_lines(out)) < n
