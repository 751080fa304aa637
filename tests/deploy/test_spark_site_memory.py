"""The Spark job's site memory (on by default, per task = per WARC file): a first pass counts
the file's hosts' blocks, so the records equal `ce-filter warc` on that file page for page,
whatever the order of its records; ``--no-site-memory`` equals `ce-filter warc
--no-site-memory`. The per-file function runs without Spark here; one local[1] run checks the
job end to end."""

from __future__ import annotations

import functools
import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ce_filter.crawler.warcgen import WarcBuilder
from pipeline.helpers import article, paras

from .conftest import REPO

TIMEOUT = 300  # a hang guard, not a timing assertion
PROMO = ("Sign up for our morning briefing to get the most important stories of the day sent to "
         "your inbox before breakfast, free of charge.")
TOPICS = ["parks", "buses", "schools", "libraries", "bridges", "markets"]


def _pages() -> list[tuple[str, bytes]]:
    """Six pages of one host sharing its nav, footer and a promo line; two of another host;
    one host with a single page."""
    out = []
    for t in TOPICS:
        p = paras(t)
        body = article(f"News about {t}", p[:2] + [PROMO] + p[2:]).encode()
        out.append((f"http://city.test/{t}.html", body))
    for t in ("ferries", "tunnels"):
        out.append((f"http://port.test/{t}.html", article(f"Port {t}", paras(t) + [PROMO]).encode()))
    out.append(("http://other.test/alone.html", article("Alone", paras("alone") + [PROMO]).encode()))
    return out


def _warc(path: Path, seed: int | None = None, padding: int = 0) -> Path:
    """The pages (shuffled when ``seed`` is given) among skipped records; ``padding`` bytes of
    an incompressible image record first (a file bigger than a buffer cap)."""
    pages = _pages()
    if seed is not None:
        random.Random(seed).shuffle(pages)
    buf = io.BytesIO()
    w = WarcBuilder(buf, gzip=True)
    w.warcinfo({"software": "ce-filter tests"})
    if padding:
        w.response("http://city.test/big.png", random.Random(0).randbytes(padding), content_type="image/png")
    for url, body in pages:
        w.response(url, body)
    path.write_bytes(buf.getvalue())
    return path


def _env() -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("CE_FILTER_")}
    e["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), e.get("PYTHONPATH", "")) if p)
    e["PYSPARK_PYTHON"] = e["PYSPARK_DRIVER_PYTHON"] = sys.executable
    return e


def _cli_warc(path: Path, out: Path, *opts: str) -> list[dict[str, Any]]:
    cmd = [sys.executable, "-m", "ce_filter.cli", "warc", str(path), "--to", f"jsonl:{out}", "-q", *opts]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, env=_env(), cwd=REPO)
    assert r.returncode == 0, r.stderr
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def _by_url(records: list[dict[str, Any]], source: bool = True) -> dict[str, dict[str, Any]]:
    """Records by URL, without processed_at (and without ``source``, which holds the record's
    offset in its file, when ``source`` is False)."""
    out = {}
    for r in records:
        r = {k: v for k, v in r.items() if k != "processed_at" and (source or k != "source")}
        if "source" in r:
            r["source"] = {k: v for k, v in r["source"].items() if not (k == "revisit_of" and v is None)}
        assert r["url"] not in out
        out[r["url"]] = r
    return out


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> dict[str, Any]:
    """The WARC, a shuffled copy, and `ce-filter warc`'s records of each, with and without
    the memory."""
    d = tmp_path_factory.mktemp("site")
    a, b = _warc(d / "a.warc.gz"), _warc(d / "b.warc.gz", seed=3)
    return {"a": a, "b": b, "memory": _cli_warc(a, d / "m.jsonl"),
            "alone": _cli_warc(a, d / "n.jsonl", "--no-site-memory"),
            "b_memory": _cli_warc(b, d / "bm.jsonl")}


def test_filter_file_equals_warc_cli_and_ignores_record_order(site):
    from ce_filter.pipelines.spark_job import TWO_PASSES, filter_file

    memory, alone = _by_url(site["memory"]), _by_url(site["alone"])
    # the memory changes what is kept: the promo on every page of city.test goes
    for t in TOPICS:
        url = f"http://city.test/{t}.html"
        assert PROMO in alone[url]["text"] and PROMO not in memory[url]["text"]
        assert paras(t)[2] in memory[url]["text"]
    assert memory["http://other.test/alone.html"] == alone["http://other.test/alone.html"]

    # under the per-page budget: the counts travel to the filter's child process
    records, summary = filter_file(str(site["a"]), None)
    assert _by_url(records) == memory and summary["site_memory"] == TWO_PASSES
    records, summary = filter_file(str(site["a"]), None, site_memory=False, budget=(0, 0))
    assert _by_url(records) == alone and summary["site_memory"] == "off"
    # in this process, on the shuffled copy: the same records but for where each sits
    records, _ = filter_file(str(site["b"]), None, budget=(0, 0))
    assert _by_url(records) == _by_url(site["b_memory"])
    assert _by_url(records, source=False) == _by_url(site["memory"], source=False)


class _Stream:
    """A stream that cannot seek (as urllib's and pyarrow's are), with an HTTP Content-Length."""

    def __init__(self, data: bytes, length: int | None = None) -> None:
        self.fh, self.reads = io.BytesIO(data), 0
        self.headers = {} if length is None else {"Content-Length": str(length)}

    def read(self, size: int = -1) -> bytes:
        self.reads += 1
        return self.fh.read(size)

    def seekable(self) -> bool:
        return False

    def close(self) -> None:
        self.fh.close()


def test_a_streamed_file_is_held_in_memory_up_to_the_cap(site, tmp_path):
    from ce_filter.pipelines import spark_job
    from ce_filter.pipelines.spark_job import IN_MEMORY, filter_file

    memory, alone = _by_url(site["memory"], False), _by_url(site["alone"], False)
    data = site["a"].read_bytes()
    records, summary = filter_file("http://x.test/a.warc.gz", _Stream(data), budget=(0, 0))
    assert summary["site_memory"] == IN_MEMORY and _by_url(records, False) == memory

    # over the cap: filtered from where the stream is (nothing read twice), without the memory
    big = _warc(tmp_path / "big.warc.gz", padding=(1 << 20) + 4096).read_bytes()
    records, summary = filter_file("http://x.test/big.warc.gz", _Stream(big), budget=(0, 0), buffer_mib=1)
    assert summary["site_memory"] == "off: a streamed file over 1 MiB" and not summary["errors"]
    assert _by_url(records, False) == alone and summary["pages"] == len(alone)
    # a declared length over the cap: not buffered at all; a cap of 0: never
    declared = _Stream(big, length=len(big))
    assert spark_job.two_pass_source(declared, 1)[0] is declared and declared.reads == 0
    for stream, cap in ((declared, 1), (_Stream(data), 0)):
        records, summary = filter_file("http://x.test/c.warc.gz", stream, budget=(0, 0), buffer_mib=cap)
        assert summary["site_memory"].startswith("off: ") and _by_url(records, False).keys() == alone.keys()


def test_the_flag_and_its_variable(monkeypatch):
    from ce_filter.pipelines import spark_job

    assert spark_job.build_parser().parse_args(["--input", "x", "--output", "y"]).no_site_memory is False
    a = spark_job.build_parser().parse_args(["--input", "x", "--output", "y", "--no-site-memory"])
    assert a.no_site_memory is True and a.site_memory_buffer == spark_job.BUFFER_MIB
    monkeypatch.setenv("CE_FILTER_NO_SITE_MEMORY", "1")
    assert spark_job.build_parser().parse_args(["--input", "x", "--output", "y"]).no_site_memory is True


def test_main_hands_the_choice_to_the_run(monkeypatch):
    """The flag reaches ``run`` (the Spark session and the run replaced here)."""
    sql = pytest.importorskip("pyspark.sql", reason="pyspark not installed")
    from ce_filter.pipelines import spark_job

    class Session:
        def appName(self, name: str) -> Session:  # noqa: N802 - pyspark's names
            return self

        def master(self, url: str) -> Session:
            return self

        def getOrCreate(self) -> Session:  # noqa: N802
            return self

        def stop(self) -> None:
            pass

    seen: list[dict[str, Any]] = []
    monkeypatch.setattr(sql.SparkSession, "builder", Session())
    monkeypatch.setattr(spark_job, "run", lambda *a, **kw: seen.append(kw) or [])
    assert spark_job.main(["--input", "x", "--output", "y"]) == 0
    assert spark_job.main(["--input", "x", "--output", "y", "--no-site-memory",
                           "--site-memory-buffer", "0"]) == 0
    got = [(kw["site_memory"], kw["buffer_mib"]) for kw in seen]
    assert got == [(True, spark_job.BUFFER_MIB), (False, 0)]


def test_spark_local_run_equals_warc_cli_per_file(site, tmp_path):
    """One Spark run over the WARC and its shuffled copy: each file's records are `ce-filter
    warc`'s on that file, and the two files give the same records but for their offsets."""
    pytest.importorskip("pyspark", reason="pyspark not installed: the Spark run is skipped")
    out, summary = tmp_path / "out", tmp_path / "s.json"
    r = subprocess.run([sys.executable, "-m", "ce_filter.pipelines.spark_job", "--master", "local[1]",
                        "--format", "json", "--input", str(site["a"]), "--input", str(site["b"]),
                        "--output", str(out), "--summary", str(summary)],
                       capture_output=True, text=True, timeout=TIMEOUT, env=_env(), cwd=REPO)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "site memory: two passes" in r.stderr
    rows = [json.loads(line) for f in sorted(out.glob("part-*.json"))
            for line in f.read_text(encoding="utf-8").splitlines()]
    a, b = str(site["a"]), str(site["b"])
    assert _by_url([x for x in rows if x["source"]["name"] == a]) == _by_url(site["memory"])
    assert _by_url([x for x in rows if x["source"]["name"] == b]) == _by_url(site["b_memory"])
    assert len(rows) == 2 * len(site["memory"])
    files = json.loads(summary.read_text())["files"]
    assert [f["site_memory"] for f in files] == ["two passes", "two passes"]


def test_the_http_and_arrow_readers_hold_the_file_as_stored(site):
    """The real readers: urllib's response from a server on 127.0.0.1 (Content-Length known) and
    pyarrow.fs: each file is read once into memory, gzipped as stored, and the records are the
    ones of the file read twice from disk."""
    import http.server
    import threading

    from ce_filter.pipelines import spark_job

    want = _by_url(site["memory"], False)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site["a"].parent))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/{site['a'].name}"
        stream = spark_job.open_stream(url, "auto")
        try:
            assert spark_job._declared_size(stream) == site["a"].stat().st_size
            records, summary = spark_job.filter_file(url, stream, budget=(0, 0))
        finally:
            stream.close()
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
    assert summary["site_memory"] == spark_job.IN_MEMORY and _by_url(records, False) == want

    pytest.importorskip("pyarrow")
    name = f"file://{site['a']}"
    stream = spark_job.open_stream(name, "arrow")
    try:
        held, how = spark_job.two_pass_source(stream)
    finally:
        stream.close()
    assert how == spark_job.IN_MEMORY and held.getvalue() == site["a"].read_bytes()
    stream = spark_job.open_stream(name, "arrow")
    try:
        records, summary = spark_job.filter_file(name, stream, budget=(0, 0))
    finally:
        stream.close()
    assert summary["site_memory"] == spark_job.IN_MEMORY and _by_url(records, False) == want
