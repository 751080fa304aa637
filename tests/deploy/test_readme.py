"""The README's quick starts, run as written: each use case's commands and code in a scratch
directory, with the local broker for ``kafka:9092`` and sample WARC files for ``crawl/``.
(The Scrapy quick start is run in tests/pipeline/test_scrapy_project.py, in a throwaway
Scrapy project.)"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO, unique

SAMPLE = REPO / "samples" / "sample.warc.gz"
TIMEOUT = 300  # a hang guard, not a timing assertion


def quick_start(title: str) -> list[tuple[str, str]]:
    """(language, code) of each fenced block under the README heading ``### title``."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split(f"\n### {title}\n", 1)[1].split("\n#", 1)[0]
    return re.findall(r"```(\w+)\n(.*?)```", section, flags=re.S)


def commands(code: str) -> list[list[str]]:
    """The shell commands of a bash block, ``pip install`` lines left out (the test venv has
    the extras)."""
    return [shlex.split(ln) for ln in code.splitlines() if ln.strip() and not ln.startswith("pip install")]


def env() -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("CE_FILTER_")}
    e["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), e.get("PYTHONPATH", "")) if p)
    e["PYSPARK_PYTHON"] = e["PYSPARK_DRIVER_PYTHON"] = sys.executable
    # the README's `ce-filter` and `python` are this environment's
    e["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), e.get("PATH", "")])
    return e


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    if argv[0] == "python":
        argv = [sys.executable, *argv[1:]]
    return subprocess.run(argv, cwd=cwd, env=env(), capture_output=True, text=True, timeout=TIMEOUT)


def crawl_dir(tmp_path: Path, n: int = 2) -> int:
    """``crawl/`` with ``n`` WARC files; returns the HTML pages in them."""
    (tmp_path / "crawl").mkdir()
    for i in range(n):
        shutil.copy(SAMPLE, tmp_path / "crawl" / f"part-{i}.warc.gz")
    from ce_filter.crawler.warc import WarcStats, iter_pages

    return sum(1 for _ in iter_pages(str(tmp_path / "crawl" / "*.warc.gz"), WarcStats()))


def test_clean_a_warc_archive(tmp_path):
    (lang, code), = quick_start("Clean a WARC archive")
    pages = crawl_dir(tmp_path)
    for argv in commands(code):
        r = run(argv, tmp_path)
        assert r.returncode == 0, r.stderr
    records = [json.loads(ln) for ln in (tmp_path / "clean.jsonl").read_text().splitlines()]
    assert len(records) == pages > 0 and sum(bool(r["text"]) for r in records) >= pages // 2
    import warcio

    with open(tmp_path / "clean.wet.gz", "rb") as fh:
        wet = [r for r in warcio.ArchiveIterator(fh) if r.rec_type == "conversion"]
    assert len(wet) == sum(bool(r["text"]) for r in records)
    assert "records" in r.stderr  # the summary


@pytest.mark.kafka
def test_feed_an_indexer_from_kafka(kafka, tmp_path):
    from ce_filter.crawler.warc import WarcStats, iter_pages
    from ce_filter.pipelines.kafka_io import ensure_topics, make_producer

    (_, shell), (_, indexer) = quick_start("Feed an indexer from Kafka")
    raw, clean, group = unique("pages.raw"), unique("pages.clean"), unique("indexer")
    ensure_topics(kafka, [raw], partitions=1)
    pages = list(iter_pages(str(SAMPLE), WarcStats()))
    producer = make_producer(kafka)
    for p in pages:  # the value is the HTML as fetched and the key its URL
        producer.send(raw, value=p.body, key=p.url.encode())
    producer.flush(30)
    producer.close()

    def ours(code: str) -> str:  # the local broker and this test's topics and group
        return (code.replace("kafka:9092", kafka.bootstrap_servers).replace("pages.raw", raw)
                .replace("pages.clean", clean).replace('group_id="indexer"', f'group_id="{group}"'))

    (argv,) = commands(ours(shell))
    # Tansu completes a group join only after the rebalance timeout: keep it short here
    worker = subprocess.Popen([*argv, "--max-poll-interval-ms", "3000", "--idle-exit", "2"],
                              cwd=tmp_path, env=env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
    try:
        out, _ = worker.communicate(timeout=TIMEOUT)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    assert worker.returncode == 0, out

    indexed: list[tuple[str, str, str]] = []
    # Tansu again: short group timeouts; and the loop ends once the records stop coming
    code = ours(indexer).replace('auto_offset_reset="earliest")', 'auto_offset_reset="earliest", '
                                 "max_poll_interval_ms=3000, session_timeout_ms=3000, "
                                 "heartbeat_interval_ms=1000, consumer_timeout_ms=8000)")
    assert code != ours(indexer)
    import ce_filter

    want = [(p.url, r.title, r.text) for p in pages if (r := ce_filter.extract(p.body, p.url)).text]

    class Done(Exception):
        pass

    def index(*a: str) -> None:  # the loop ends once every record is in (or none came for 8 s)
        indexed.append(a)
        if len(indexed) == len(want):
            raise Done

    ns: dict[str, object] = {"index": index}
    try:
        exec(compile(code, "README.md", "exec"), ns)
    except Done:
        pass
    finally:
        if "consumer" in ns:
            ns["consumer"].close()  # type: ignore[attr-defined]
    assert sorted(indexed) == sorted(want) and want


def test_batch_on_spark(tmp_path):
    pytest.importorskip("pyspark", reason="pyspark not installed (pip install 'ce-filter[spark]')")
    import pyarrow as pa
    import pyarrow.parquet as pq
    from ce_filter.crawler.warc import WarcStats, iter_pages

    (_, shell), (_, job) = quick_start("Batch on Spark")
    n = crawl_dir(tmp_path)
    for argv in commands(shell):
        r = run(argv, tmp_path)
        assert r.returncode == 0, r.stderr
    assert pq.read_table(tmp_path / "clean").num_rows == n

    # the Extractor pickled into a UDF: the same text as extract() here
    pages = list(iter_pages(str(SAMPLE), WarcStats()))
    pq.write_table(pa.table({"url": [p.url for p in pages], "html": [p.body.decode("utf-8", "replace")
                                                                       for p in pages]}),
                   tmp_path / "pages.parquet")
    (tmp_path / "job.py").write_text(job)
    r = run(["python", "job.py"], tmp_path)
    assert r.returncode == 0, r.stderr
    import ce_filter

    got = {row["url"]: row["text"] for row in pq.read_table(tmp_path / "clean.parquet").to_pylist()}
    assert got == {p.url: ce_filter.extract(p.body.decode("utf-8", "replace"), p.url).text for p in pages}
    assert any(got.values())
