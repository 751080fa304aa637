"""ce_filter.pipelines.spark_job on Spark local[2]: records equal what `ce-filter warc` makes of the same
WARC files (same URLs, texts, text hashes, every field but processed_at), summaries per file."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ce_filter.record import validate

from .conftest import REPO
from .warcs import write_warc

pyspark = pytest.importorskip("pyspark", reason="pyspark not installed (pip install 'ce-filter[spark]'): "
                              "Spark job tests skipped")  # fmt: skip
TIMEOUT = 300  # a hang guard, not a timing assertion


def env(**extra: str) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("CE_FILTER_")}
    e["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), e.get("PYTHONPATH", "")) if p)
    e["PYSPARK_PYTHON"] = e["PYSPARK_DRIVER_PYTHON"] = sys.executable
    e.update(extra)
    return e


def spark_submit() -> str:
    path = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    if not path.exists():
        pytest.skip(f"no spark-submit in the pyspark package ({path})")
    return str(path)


def run(args: list[str], **extra_env: str) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT, env=env(**extra_env),
                          cwd=REPO)


def cli_warc(inputs: list[str], out: Path, *opts: str, **extra_env: str) -> list[dict[str, Any]]:
    r = run([sys.executable, "-m", "ce_filter.cli", "warc", *inputs, "--to", f"jsonl:{out}", "-q", *opts],
            **extra_env)
    assert r.returncode in (0, 1), r.stderr
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def plain_source(src: dict[str, Any]) -> dict[str, Any]:
    """A table has every column: an optional field a JSON record leaves out is null there."""
    return {k: v for k, v in src.items() if not (k == "revisit_of" and v is None)}


def comparable(records: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    out = {}
    for r in records:
        r = dict(r)
        r.pop("processed_at")
        r["source"] = plain_source(r["source"])
        key = (r["source"]["name"], r["url"])
        assert key not in out, f"duplicate record {key}"
        out[key] = r
    return out


@pytest.fixture(scope="module")
def warcs(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("warcs")
    for i in range(3):
        write_warc(d / f"part-{i}.warc.gz", 4 + 2 * i, seed=i)
    return d


def test_spark_submit_parquet_matches_cli(warcs, tmp_path):
    import pyarrow.parquet as pq

    out = tmp_path / "out"
    job = REPO / "pipelines" / "spark_job.py"
    r = run([spark_submit(), "--master", "local[2]", "--conf", "spark.ui.enabled=false", str(job),
             "--input", f"{warcs}/*.warc.gz", "--output", str(out),
             "--summary", str(tmp_path / "s.json")])  # fmt: skip
    assert r.returncode == 0, r.stderr[-3000:]

    rows = pq.read_table(out).to_pylist()  # _summary/ and _SUCCESS are not part of the dataset
    expected = cli_warc([f"{warcs}/*.warc.gz"], tmp_path / "cli.jsonl")
    assert len(rows) == len(expected) == 4 + 6 + 8
    got, want = comparable(rows), comparable(expected)
    assert got.keys() == want.keys()
    for k in want:
        assert got[k] == want[k], k
    assert sum(1 for r in rows if r["text"]) == 15
    assert {r["text_sha256"] for r in rows} == {r["text_sha256"] for r in expected}

    summary = json.loads((tmp_path / "s.json").read_text())
    files = {Path(s["file"]).name: s for s in summary["files"]}
    assert sorted(files) == ["part-0.warc.gz", "part-1.warc.gz", "part-2.warc.gz"]
    assert [(files[f"part-{i}.warc.gz"]["pages"], files[f"part-{i}.warc.gz"]["kept"]) for i in range(3)] == [
        (4, 3), (6, 5), (8, 7)
    ]  # fmt: skip
    assert summary["totals"] == {"records": 18 + 12, "pages": 18, "kept": 15, "empty": 3, "failed": 0,
                                 "skipped": 12, "files": 3, "files_with_errors": 0}  # fmt: skip
    parts = sorted((out / "_summary").glob("part-*.json"))
    written = [json.loads(x) for f in parts for x in f.read_text().splitlines()]
    assert sorted(s["file"] for s in written) == sorted(s["file"] for s in summary["files"])


def test_python_m_json_list_file_broken_and_missing_inputs(warcs, tmp_path):
    good = [str(warcs / "part-0.warc.gz"), str(warcs / "part-2.warc.gz")]
    data = (warcs / "part-1.warc.gz").read_bytes()
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(data[: int(len(data) * 0.6)])
    missing = str(tmp_path / "gone.warc.gz")
    listing = tmp_path / "paths.txt.gz"
    text = f"# a list file, as Common Crawl ships them\n{good[1]}\n{missing}\n"
    listing.write_bytes(gzip.compress(text.encode()))
    out = tmp_path / "out"
    r = run([sys.executable, "-m", "ce_filter.pipelines.spark_job", "--master", "local[2]",
             "--format", "json",
             "--input", f"{good[0]},{cut}", "--input", f"@{listing}", "--output", str(out),
             "--summary", str(tmp_path / "s.json")])  # fmt: skip
    assert r.returncode == 1, r.stderr[-3000:]  # a broken and a missing file: reported, not fatal
    assert "cannot read" in r.stderr and "truncated" in r.stderr

    parts = sorted(out.glob("part-*.json"))
    lines = [line for f in parts for line in f.read_text(encoding="utf-8").splitlines()]
    rows = [json.loads(line) for line in lines]
    expected = cli_warc([good[0], str(cut), good[1]], tmp_path / "cli.jsonl")
    assert comparable(rows) == comparable(expected)  # nulls kept, nesting as in the Kafka record
    assert all(list(r) == list(expected[0]) for r in rows), "the record's field order"

    files = {s["file"]: s for s in json.loads((tmp_path / "s.json").read_text())["files"]}
    assert list(files) == [good[0], str(cut), good[1], missing]  # input order
    assert files[missing]["pages"] == 0 and "cannot read" in files[missing]["errors"][0]
    assert files[str(cut)]["errors"] and 0 < files[str(cut)]["pages"] < 6
    assert not files[good[0]]["errors"] and files[good[0]]["pages"] == 4


def test_hadoop_reader_binary_files(warcs, tmp_path):
    """--reader hadoop: the Hadoop file system expands the glob and Spark's binaryFiles reads
    the files (the path of s3a://, hdfs://, ... inputs, here on a local ``file://`` glob);
    records and the summary name their source by the URI Hadoop gives."""
    import pyarrow.parquet as pq

    out = tmp_path / "out"
    # [^0] is Hadoop's negated class: parts 1 and 2. Python's glob (the local expansion) reads
    # it as the characters ^ and 0 and would give part 0 alone.
    r = run([sys.executable, "-m", "ce_filter.pipelines.spark_job", "--master", "local[2]",
             "--reader", "hadoop",
             "--input", f"file://{warcs}/part-[^0].warc.gz", "--output", str(out),
             "--summary", str(tmp_path / "s.json")])  # fmt: skip
    assert r.returncode == 0, r.stderr[-3000:]
    rows = pq.read_table(out).to_pylist()
    expected = cli_warc([f"{warcs}/part-1.warc.gz", f"{warcs}/part-2.warc.gz"], tmp_path / "cli.jsonl")

    def by_url(recs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
        out = {}
        for rec in recs:
            rec = {k: v for k, v in rec.items() if k != "processed_at"}
            rec["source"] = {k: v for k, v in plain_source(rec["source"]).items() if k != "name"}
            out[rec["url"]] = rec
        return out

    assert by_url(rows) == by_url(expected) and len(rows) == len(expected) == 14
    assert all(r["source"]["name"].startswith("file:") for r in rows)
    summary = json.loads((tmp_path / "s.json").read_text())
    assert [s["file"] for s in summary["files"]] == [f"file:{warcs}/part-{i}.warc.gz" for i in (1, 2)]
    assert summary["totals"]["pages"] == 14 and summary["totals"]["files_with_errors"] == 0


def test_arrow_reader_streams_without_spark(warcs):
    """The executor side alone: --reader arrow opens a URI through pyarrow.fs and streams it."""
    pytest.importorskip("pyarrow")
    from ce_filter.pipelines.spark_job import filter_file, open_stream, scheme

    name = f"file://{warcs}/part-1.warc.gz"
    assert scheme(name) == "file" and scheme("C:/x.warc") == ""
    stream = open_stream(name, "arrow")
    try:
        records, summary = filter_file(name, stream)
    finally:
        stream.close()
    assert summary["pages"] == 6 and summary["kept"] == 5 and not summary["errors"]
    assert {r["source"]["name"] for r in records} == {name}
    with pytest.raises(ValueError):
        open_stream("s3a://bucket/x.warc.gz", "local")


def _json_rows(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for f in sorted(out.glob("part-*.json"))
            for line in f.read_text(encoding="utf-8").splitlines()]


def _kept_directly(path: Path, **kw: Any) -> dict[str, int]:
    """url -> blocks kept, by an Extractor made here with ``kw``, given the page's URL and
    encoding as the pipelines give them (the URL is a page-kind signal, so it moves scores)."""
    from ce_filter.crawler.warc import iter_pages

    from ce_filter import Extractor

    ex = Extractor(**kw)
    return {p.url: ex.extract(p.body, p.url or None, encoding=p.encoding).blocks_kept
            for p in iter_pages(str(path))}


def test_extraction_options_reach_the_job(tmp_path, custom_model):
    """CE_FILTER_MODEL / CE_FILTER_THRESHOLD under spark-submit, --comments / --precise under
    python -m, on the sample WARC's real pages (where each option changes what is kept): the
    records are what an Extractor with those options makes, equal `ce-filter warc`'s with the
    same options, and validate against the record schema."""
    from ce_filter.score.blockmodel import Model

    job, inp = str(REPO / "pipelines" / "spark_job.py"), REPO / "samples" / "sample.warc.gz"
    opts = {"CE_FILTER_MODEL": str(custom_model), "CE_FILTER_THRESHOLD": "0.9"}
    r = run([spark_submit(), "--master", "local[1]", "--conf", "spark.ui.enabled=false", job,
             "--input", str(inp), "--output", str(tmp_path / "a"), "--format", "json"], **opts)  # fmt: skip
    assert r.returncode == 0, r.stderr[-3000:]
    rows = _json_rows(tmp_path / "a")
    assert comparable(rows) == comparable(cli_warc([str(inp)], tmp_path / "a.jsonl", **opts))
    assert {r["url"]: r["stats"]["blocks_kept"] for r in rows} == _kept_directly(
        inp, model=Model.load(custom_model), threshold=0.9) != _kept_directly(inp)
    assert {r["model"].split("@")[0] for r in rows} == {"custom"} and len(rows) == 5
    assert all(validate(r) == [] for r in rows)

    r = run([sys.executable, "-m", "ce_filter.pipelines.spark_job", "--master", "local[1]",
             "--format", "json", "--input", str(inp), "--output", str(tmp_path / "b"),
             "--comments", "--precise"])  # fmt: skip
    assert r.returncode == 0, r.stderr[-3000:]
    rows = _json_rows(tmp_path / "b")
    expected = cli_warc([str(inp)], tmp_path / "b.jsonl", "--comments", "--precise")
    assert comparable(rows) == comparable(expected)
    assert {r["url"]: r["stats"]["blocks_kept"] for r in rows} == _kept_directly(
        inp, comments=True, precise=True) != _kept_directly(inp, comments=True)
    assert {r["model"].split("@")[0] for r in rows} == {"comments"}


def test_bad_options_are_one_line(tmp_path):
    r = run([sys.executable, "-m", "ce_filter.pipelines.spark_job", "--input", "x", "--output", "y",
             "--threshold", "nan"])
    assert r.returncode == 2 and r.stderr.strip().splitlines() == [
        "ce_filter.pipelines.spark_job: error: argument --threshold: 'nan' is not a number in [0, 1]"]
    r = run([sys.executable, "-m", "ce_filter.pipelines.spark_job", "--input", "x", "--output", "y"],
            CE_FILTER_MODEL=str(tmp_path / "none.json"))
    assert r.returncode == 2 and "no such model file (from CE_FILTER_MODEL)" in r.stderr
