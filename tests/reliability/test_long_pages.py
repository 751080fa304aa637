"""Long pages never stall the page runner. A page and its result cross a pipe each way; a
parent that blocks writing the next page while its child blocks writing the last result waits
for ever (both pipes full, neither side reading). Whatever the sizes of pages and results (up to
the page limit), however many are in flight and however many children, every caller's run
ends, with every page's result, in order: the property tests below draw those sizes, depths
and counts (bounded, so that they run in CI), on the runner itself and on each caller's path.
A run stopped by a signal with full pipes ends without a traceback."""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from ce_filter.crawler.warcgen import WarcBuilder
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pipeline.conftest import REPO, cli_env, unique

from ce_filter.read.page import MAX_BYTES
from ce_filter.run.bounded import BoundedExtractor
from ce_filter.run.budget import Budget
from ce_filter.run.pool import Handler, Pool

HANG_S = 60  # a run not ended by then is stuck (a hang guard, not a timing assertion: ~1 s)
SMALL = st.integers(0, 4096)
LARGE = st.integers(64 << 10, MAX_BYTES)  # larger than any pipe's buffer, up to the page limit
SIZE = st.one_of(SMALL, LARGE)
SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large]
WORDS = ("the committee met on tuesday to discuss the plan for the new library which residents "
         "had asked about for many months and the mayor said it would open next spring ")


def _finishes(run: Callable[[], Any], on_stuck: Callable[[], None]) -> Any:
    """``run()``'s value; a run still going after HANG_S is stuck: ``on_stuck()`` (kill the
    children, which unblocks it) and fail."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = run()
        except BaseException as e:  # noqa: BLE001 - raised again below
            box["error"] = e

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(HANG_S)
    if t.is_alive():
        on_stuck()
        t.join(10)
        raise AssertionError(f"the run did not end within {HANG_S} s: the runner is stuck")
    if "error" in box:
        raise box["error"]
    return box["value"]


# ---------------------------------------------------------------- the runner itself


class _Sized(Handler):
    """A task (payload, n): the payload crosses the pipe one way, an answer of n bytes the
    other."""

    info = ("sized",)

    def run(self, work: Any) -> Any:
        payload, n = work
        return (len(payload), b"r" * n)


class _SizedUnits(Handler):
    """A multi-unit task (payload, [n, ...]) (a WARC byte range): one answer of n bytes a unit."""

    multi = True

    def units(self, task: Any) -> Iterator[tuple[Any, Any]]:
        payload, sizes = task
        yield from enumerate(sizes)

    def run(self, work: Any) -> Any:
        return b"r" * work

    def finish(self, task: Any) -> Any:
        return len(task[1])


def _sized() -> Handler:
    return _Sized()


def _sized_units() -> Handler:
    return _SizedUnits()


def _kill_all() -> None:
    for p in multiprocessing.active_children():
        p.kill()


@pytest.fixture(scope="module")
def pools() -> Iterator[dict[tuple[bool, int], Pool]]:
    """Pools kept across examples (a child takes a while to start), made on first use."""
    made: dict[tuple[bool, int], Pool] = {}
    yield made
    for p in made.values():
        p.close()


def _pool(pools: dict[tuple[bool, int], Pool], multi: bool, workers: int) -> Pool:
    if (multi, workers) not in pools:
        pools[multi, workers] = Pool(_sized_units if multi else _sized, workers, Budget(0, 0),
                                     wait_ready=True)
    return pools[multi, workers]


@settings(max_examples=30, deadline=None, suppress_health_check=SLOW)
@given(sizes=st.lists(st.tuples(SIZE, SIZE), min_size=1, max_size=6), workers=st.integers(1, 3),
       depth=st.integers(1, 3), ordered=st.booleans(), keyed=st.booleans(),
       read_ahead=st.sampled_from([0, 2]))
def test_no_page_or_result_size_stalls_the_runner(pools, sizes, workers, depth, ordered, keyed,
                                                  read_ahead) -> None:
    pool = _pool(pools, False, workers)
    pool.depth = depth
    tasks = [(b"p" * a, b) for a, b in sizes]
    key = (lambda t: len(t[0])) if keyed else None

    def run() -> list[Any]:
        return list(pool.run(tasks, ordered=ordered, read_ahead=read_ahead, key=key))

    try:
        got = _finishes(run, _kill_all)
    except AssertionError:
        pools.pop((False, workers)).close()
        raise
    assert sorted(r.index for r in got) == list(range(len(tasks)))
    if ordered:
        assert [r.index for r in got] == list(range(len(tasks)))
    for r in got:
        assert not r.failed, r.failed
        assert r.value[0] == sizes[r.index][0] and len(r.value[1]) == sizes[r.index][1]


@settings(max_examples=15, deadline=None, suppress_health_check=SLOW)
@given(tasks=st.lists(st.lists(SIZE, max_size=4), min_size=1, max_size=4), workers=st.integers(1, 3),
       depth=st.integers(1, 2), ordered=st.booleans())
def test_no_unit_size_stalls_a_multi_unit_run(pools, tasks, workers, depth, ordered) -> None:
    """The byte-range tasks of ``warc FILE --workers N`` and of the site memory's first pass."""
    pool = _pool(pools, True, workers)
    pool.depth = depth
    work = [(b"range", sizes) for sizes in tasks]
    try:
        got = _finishes(lambda: list(pool.run(work, ordered=ordered)), _kill_all)
    except AssertionError:
        pools.pop((True, workers)).close()
        raise
    for i, sizes in enumerate(tasks):
        mine = [r for r in got if r.index == i]
        assert [len(r.value) for r in mine if not r.end] == sizes
        assert [r.value for r in mine if r.end] == [len(sizes)]


# ---------------------------------------------------------------- BoundedExtractor (worker, crawler, Spark)


def _html(i: int, size: int) -> str:
    """A page whose one paragraph holds ``size`` characters of text (the text the filter keeps,
    so the result is as long as the page)."""
    text = (WORDS * (size // len(WORDS) + 1))[:size]
    return (f"<html><head><title>Long page {i}</title></head><body><article><h1>Long page {i}</h1>"
            f"<p>{text}</p></article></body></html>")


@pytest.fixture(scope="module")
def bounded() -> Iterator[dict[int, BoundedExtractor]]:
    made: dict[int, BoundedExtractor] = {}
    yield made
    for b in made.values():
        b.close()


@settings(max_examples=12, deadline=None, suppress_health_check=SLOW)
@given(sizes=st.lists(st.one_of(SMALL, st.integers(64 << 10, 2 << 20)), min_size=1, max_size=6),
       in_flight=st.integers(1, 4), workers=st.sampled_from([1, 2]))
def test_no_page_size_stalls_the_bounded_extractor(bounded, sizes, in_flight, workers) -> None:
    """The Kafka worker's page path (``--filters 1`` and ``2``), the crawler's and the Spark
    job's: pages of hosts spread over the children, up to ``in_flight`` in each one's pipe."""
    if workers not in bounded:
        bounded[workers] = BoundedExtractor(Budget(30, 0), workers=workers)
    ex = bounded[workers]
    pages = [(_html(i, n), f"http://host{i % 3}.test/{i}", None) for i, n in enumerate(sizes)]

    try:
        got = _finishes(lambda: list(ex.extract_many(pages, in_flight=in_flight)), _kill_all)
    except AssertionError:
        bounded.pop(workers).close()
        raise
    assert [r.title for r in got] == [f"Long page {i}" for i in range(len(sizes))]
    for r, n in zip(got, sizes):
        assert not r.reason or n < 100, r.reason
        assert n < 100 or len(r.text) >= n - 1  # (its last space stripped)


# ---------------------------------------------------------------- the command line


def _warc(path: Path, sizes: list[int]) -> Path:
    buf = io.BytesIO()
    w = WarcBuilder(buf)
    for i, n in enumerate(sizes):
        w.response(f"http://site{i % 2}.test/{i}", _html(i, n).encode())
    path.write_bytes(buf.getvalue())
    return path


def _cli(args: list[str], stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run([sys.executable, "-m", "ce_filter.cli", *args], cwd=REPO, env=cli_env(),
                              input=stdin, capture_output=True, timeout=HANG_S)
    except subprocess.TimeoutExpired as e:  # (subprocess.run has killed it)
        raise AssertionError(f"ce-filter {' '.join(args)} did not end within {HANG_S} s") from e


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


PATHS = ["extract", "warc", "warc-no-site-memory", "warc-stdin", "warc-ranges"]


def _run_path(path: str, tmp: Path, sizes: list[int], workers: int) -> None:
    """Run ``sizes``' pages through one caller's path of the CLI; every page has its record."""
    if path == "extract":
        pages = tmp / "pages"
        pages.mkdir()
        for i, n in enumerate(sizes):
            (pages / f"p{i:02d}.html").write_text(_html(i, n), encoding="utf-8")
        r = _cli(["extract", str(pages), "--workers", str(workers), "--format", "jsonl"])
        assert r.returncode == 0, r.stderr.decode()[-2000:]
        recs = [json.loads(x) for x in r.stdout.decode().splitlines()]
    else:
        warc = _warc(tmp / "long.warc.gz", sizes)
        out = tmp / "o.jsonl"
        args = ["warc", "-" if path == "warc-stdin" else str(warc), "--to", f"jsonl:{out}", "-q"]
        # a file with one worker: pages handed to a child; with two: byte ranges the children
        # read themselves; stdin: pages handed out whatever the count
        args += ["--workers", "2" if path in ("warc-stdin", "warc-ranges") else "1"]
        if path == "warc-no-site-memory":
            args.append("--no-site-memory")
        r = _cli(args, stdin=warc.read_bytes() if path == "warc-stdin" else None)
        assert r.returncode == 0, r.stderr.decode()[-2000:]
        recs = _records(out)
    assert len(recs) == len(sizes)
    for rec in recs:
        i = int(rec["title"].split()[-1])
        assert sizes[i] < 100 or len(rec["text"]) >= sizes[i] - 1, rec["reason"]  # (a last space)


@pytest.mark.parametrize("path", PATHS)
def test_the_pages_that_stalled_each_caller_now_pass(path, tmp_path) -> None:
    """Eight pages of 600 KB of text each (the sizes a book or a legal code reaches), two workers."""
    _run_path(path, tmp_path, [600_000] * 8, 2)


@settings(max_examples=8, deadline=None, suppress_health_check=SLOW + [HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(PATHS), workers=st.integers(1, 2),
       sizes=st.lists(st.one_of(SMALL, st.integers(64 << 10, 3 << 20)), min_size=1, max_size=6))
def test_no_page_size_stalls_a_command(tmp_path_factory, path, workers, sizes) -> None:
    _run_path(path, tmp_path_factory.mktemp("long"), sizes, workers)


# ---------------------------------------------------------------- a stop with full pipes


def _stopped(args: list[str], out: Path | None, group: bool) -> tuple[int, str]:
    """Start the CLI on long pages, SIGTERM it (or its whole process group) once it is under
    way; its exit code and stderr."""
    proc = subprocess.Popen([sys.executable, "-m", "ce_filter.cli", *args], cwd=REPO, env=cli_env(),
                            stdout=subprocess.PIPE if out is None else subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + HANG_S
        while time.monotonic() < deadline and proc.poll() is None:
            if out is None or (out.exists() and out.stat().st_size > 0):
                break
            time.sleep(0.02)
        time.sleep(0.3)  # pages in flight both ways
        if group:
            os.killpg(proc.pid, signal.SIGTERM)
        else:
            proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=HANG_S)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # nothing of the run is left behind
        except ProcessLookupError:
            pass
        proc.wait()
    return proc.returncode, err.decode()


@pytest.mark.parametrize("group", [False, True], ids=["process", "group"])
@pytest.mark.parametrize("cmd", ["warc", "warc-ranges", "extract"])
def test_a_stopped_run_prints_no_traceback_with_full_pipes(cmd, group, tmp_path) -> None:
    sizes = [600_000] * 60
    if cmd == "extract":
        pages = tmp_path / "pages"
        pages.mkdir()
        for i, n in enumerate(sizes):
            (pages / f"p{i:02d}.html").write_text(_html(i, n), encoding="utf-8")
        code, err = _stopped(["extract", str(pages), "--workers", "2", "--format", "jsonl"], None, group)
        assert code in (-signal.SIGTERM, 143), err[-2000:]
    else:
        warc = _warc(tmp_path / "long.warc.gz", sizes)
        out = tmp_path / "o.jsonl"
        code, err = _stopped(["warc", str(warc), "--to", f"jsonl:{out}", "--workers",
                              "2" if cmd == "warc-ranges" else "1"], out, group)
        assert code == 143, err[-2000:]
        assert "interrupted by SIGTERM" in err
        _records(out)  # every line whole
    assert "Traceback" not in err, err[-3000:]


# ---------------------------------------------------------------- the Kafka worker


@pytest.mark.kafka
def test_the_worker_filters_two_long_pages_in_one_batch(kafka) -> None:
    from ce_filter.pipelines.kafka_io import ensure_topics, read_topic
    from pipeline.test_worker import worker_args
    from pipeline.test_worker_overlap import committed, produce

    src, out, group = unique("raw"), unique("clean"), unique("group")
    ensure_topics(kafka, [src, out])
    sizes = [360_000, 360_000, 200]
    msgs = [(0, f"http://long.test/{i}".encode(), _html(i, n).encode()) for i, n in enumerate(sizes)]
    produce(kafka, src, msgs)
    args = worker_args(kafka, src, out, group, "--idle-exit", "2", "--max-poll-interval-ms", "10000",
                       "--max-poll-records", "3")
    r = subprocess.run([sys.executable, "-m", "ce_filter.cli", *args], cwd=REPO, env=cli_env(),
                       capture_output=True, timeout=HANG_S * 3)
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    recs = [json.loads(m.value) for m in read_topic(kafka, out)]
    assert [x["url"] for x in recs] == [k.decode() for _, k, _ in msgs]
    assert [len(x["text"]) >= n - 1 for x, n in zip(recs, sizes)] == [True, True, True]
    assert committed(kafka, group, src, 1) == [len(msgs)]
