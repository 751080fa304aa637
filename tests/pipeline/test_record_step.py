"""Every stage makes a page's record with the one record step (``ce_filter.record.make_record``):
the same pages (an article, a page with no text, a binary body labelled HTML) through every
stage give the same record, field by field.

The stages: ``ce-filter extract --format jsonl``, ``ce-filter warc`` (a WARC made here), the
Spark job's ``filter_file`` (what makes a task's records; the rows are these records in the
table's order), the Scrapy ``FilterPipeline.process_item``, the Kafka worker's
``Worker.record_of`` (a batch's steps for one message, no broker), ``ce-filter serve``'s WSGI
app (``POST /extract``) and the datatrove step ``CEFilter`` (documents, not records: their text
and metadata must be the record's).

The fields that differ by source, checked against what each source says rather than left out:
``source`` (where the page came from), ``fetch_time``, ``status`` and ``content_type`` (the
HTTP response's where the source kept one: the WARC record's, the Kafka envelope's, the Scrapy
item's; a local file has none, so null; a page posted to the service has the request's
Content-Type, no status and the time of the request). ``processed_at`` is when the record was
made. Every other field must be the same from every stage.

Legitimately no record: the worker sends a binary body to the dead-letter topic (reason
``undecodable``) instead of a record (docs/PIPELINE.md, dead letters)."""

from __future__ import annotations

import ast
import io
import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ce_filter.read.rawpage import RawPage
from ce_filter.record import schema

from .conftest import REPO, run_cli
from .helpers import paras

FETCH_TIME = "2024-01-01T00:00:00Z"  # the WARC builder's WARC-Date, given to every source that has one
HTML = "text/html; charset=utf-8"

ARTICLE = (
    '<html lang="en"><head><meta charset="utf-8"><title>Rivers of the north | Town News</title>'
    '<meta name="author" content="Ada Lovelace">'
    '<meta property="article:published_time" content="2024-04-30T08:00:00Z">'
    '<meta name="description" content="The committee on rivers met on Tuesday.">'
    '<meta property="og:site_name" content="Town News">'
    '<meta property="og:image" content="/img/river.jpg">'
    '<meta name="keywords" content="rivers, town">'
    '<link rel="canonical" href="http://article.test/2024/04/rivers.html">'
    "</head><body><div id=\"header\"><ul class=\"nav\">"
    + "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(12))
    + '</ul></div><div id="content"><div class="article"><h1>Rivers of the north</h1>'
    + "".join(f"<p>{p}</p>" for p in paras("rivers"))
    + '</div></div><div id="footer"><a href="/privacy">Privacy</a> | Copyright 2024</div></body></html>'
).encode("utf-8")
EMPTY = b'<html><head><meta charset="utf-8"><title>Nothing here</title></head><body><div></div></body></html>'
BINARY = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8  # an image served as text/html

# name -> the page as fetched (one host each: no page meets another's site memory)
PAGES = {
    "article": RawPage("http://article.test/2024/04/rivers.html", ARTICLE, FETCH_TIME, 200, {}, HTML),
    "empty": RawPage("http://empty.test/nothing.html", EMPTY, FETCH_TIME, 200, {}, HTML),
    "binary": RawPage("http://binary.test/blob.html", BINARY, FETCH_TIME, 200, {}, "text/html"),
}
SOURCE_FIELDS = ("source", "fetch_time", "status", "content_type")  # checked per stage: expected()
MADE_AT = "processed_at"
SAME_FIELDS = [k for k in schema()["properties"] if k not in (*SOURCE_FIELDS, MADE_AT)]
STAGES = ("extract", "warc", "spark", "scrapy", "worker", "serve")


# ------------------------------------------------------------------ each stage's records


def extract_records(tmp_path: Path, capsys: Any) -> dict[str, dict[str, Any]]:
    """``ce-filter extract --format jsonl --url URL FILE``, a saved copy of each page."""
    from ce_filter.cli import main

    out = {}
    for name, page in PAGES.items():
        f = tmp_path / f"{name}.html"
        f.write_bytes(page.body)
        assert main(["extract", "--format", "jsonl", "--url", page.url, str(f)]) == 0
        (line,) = capsys.readouterr().out.splitlines()
        out[name] = json.loads(line)
    return out


def warc_file(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The pages as a crawl archives them; returns the file and each page's WARC-Record-ID."""
    from ce_filter.crawler.warcgen import WarcBuilder

    buf = io.BytesIO()
    w = WarcBuilder(buf, date=FETCH_TIME)
    ids = {name: w.response(p.url, p.body, content_type=p.content_type, status=p.status)
           for name, p in PAGES.items()}
    path = tmp_path / "pages.warc.gz"
    path.write_bytes(buf.getvalue())
    return path, ids


def _by_url(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    urls = {p.url: name for name, p in PAGES.items()}
    assert sorted(r["url"] for r in records) == sorted(urls)
    return {urls[r["url"]]: r for r in records}


def warc_records(path: Path, tmp_path: Path) -> dict[str, dict[str, Any]]:
    out = tmp_path / "warc.jsonl"
    r = run_cli(["warc", str(path), "--to", f"jsonl:{out}", "-q"])
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    return _by_url([json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()])


def spark_records(path: Path, monkeypatch: Any) -> dict[str, dict[str, Any]]:
    """A Spark task's records of one file (``filter_file``: its own filter process under the
    page budget, as on an executor)."""
    from ce_filter.pipelines import spark_job

    monkeypatch.setattr(spark_job, "_extractor", None)  # the process's filter: this test's own
    try:
        records, summary = spark_job.filter_file(str(path), None)
    finally:
        if spark_job._extractor is not None:
            spark_job._extractor.close()
    assert summary["pages"] == len(PAGES) and not summary["errors"], summary
    return _by_url(records)


def scrapy_records(monkeypatch: Any) -> dict[str, dict[str, Any]]:
    """Items of one's own (dicts with the response's fields) through FilterPipeline.process_item;
    the reactor's thread pool is this thread (deferToThread runs the call at once)."""
    pytest.importorskip("scrapy")
    import scrapy.utils.defer
    import twisted.internet.threads
    from ce_filter.pipelines.scrapy_pipelines import FilterPipeline
    from twisted.internet import defer

    monkeypatch.setattr(twisted.internet.threads, "deferToThread", defer.maybeDeferred)
    monkeypatch.setattr(scrapy.utils.defer, "maybe_deferred_to_future", lambda d: d)
    pipe = FilterPipeline()  # the default budget: each page in a filter process
    out = {}
    try:
        for name, p in PAGES.items():
            item = {"url": p.url, "body": p.body, "status": p.status, "fetch_time": p.fetch_time,
                    "headers": {"Content-Type": p.content_type}, "depth": 1}
            done: list[Any] = []
            defer.ensureDeferred(pipe.process_item(item)).addBoth(done.append)
            (got,) = done
            assert got is item and got["depth"] == 1, got  # the user's item, with its record
            out[name] = got["ce_filter"]
    finally:
        pipe.close_spider()
    return out


def worker_records() -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """Kafka messages (the crawl's envelopes, key = URL) through ``Worker.record_of``; returns
    the records and the dead letters' PoisonMessages, by page."""
    from ce_filter.pipelines.worker import PoisonMessage, Worker, WorkerConfig, envelope

    w = Worker(WorkerConfig("raw", "clean"))  # the default: a filter process under the budget
    out, dead = {}, {}
    try:
        for offset, (name, p) in enumerate(PAGES.items()):
            msg = SimpleNamespace(topic="raw", partition=3, offset=offset, key=p.url.encode(),
                                  value=envelope(p), headers=[])
            try:
                key, value = w.record_of(msg)
            except PoisonMessage as e:
                dead[name] = e
                continue
            assert key == p.url.encode()
            out[name] = json.loads(value)
    finally:
        w._close_extractor()
    return out, dead


def serve_records() -> dict[str, dict[str, Any]]:
    """``POST /extract?url=URL`` with the page as the body, through the service's WSGI app."""
    import urllib.parse

    from ce_filter.service.serve import App

    app = App()
    out = {}
    for name, p in PAGES.items():
        environ = {"REQUEST_METHOD": "POST", "PATH_INFO": "/extract",
                   "QUERY_STRING": urllib.parse.urlencode({"url": p.url}), "CONTENT_TYPE": p.content_type,
                   "CONTENT_LENGTH": str(len(p.body)), "wsgi.input": io.BytesIO(p.body)}
        status: list[str] = []
        body = b"".join(app(environ, lambda s, headers, status=status: status.append(s)))
        assert status == ["200 OK"], (status, body[:300])
        out[name] = json.loads(body)
    return out


def datatrove_documents(path: Path) -> dict[str, Any]:
    """ce-filter's datatrove WarcReader -> CEFilter (pages without text kept, to compare them)."""
    pytest.importorskip("datatrove", reason="needs the datatrove extra")
    from ce_filter.integrations.datatrove import CEFilter, WarcReader

    docs = list(CEFilter(keep_empty=True).run(WarcReader(str(path.parent), glob_pattern=path.name).run()))
    urls = {p.url: name for name, p in PAGES.items()}
    return {urls[d.metadata["url"]]: d for d in docs}


# ------------------------------------------------------------------ what differs by source


def expected(stage: str, name: str, ids: dict[str, str], path: Path, tmp_path: Path) -> dict[str, Any]:
    """The fields of page ``name``'s record that come from the source, as ``stage``'s source
    gives them."""
    p = PAGES[name]
    http = {"fetch_time": p.fetch_time, "status": p.status, "content_type": p.content_type}
    if stage == "extract":  # a saved file: no HTTP response
        return {"source": {"type": "file", "name": str(tmp_path / f"{name}.html"), "record_id": None},
                "fetch_time": None, "status": None, "content_type": None}
    if stage in ("warc", "spark"):
        return {"source": {"type": "warc", "name": str(path), "record_id": ids[name]}, **http}
    if stage == "scrapy":  # the item's fields; a user's item names no source
        return {"source": {"type": "crawl", "name": None, "record_id": None}, **http}
    if stage == "worker":
        offset = list(PAGES).index(name)
        return {"source": {"type": "kafka", "name": f"raw/3/{offset}", "record_id": None}, **http}
    assert stage == "serve"  # a posted page: the request's Content-Type, fetched now (checked apart)
    return {"source": {"type": "serve", "name": None, "record_id": None}, "status": None,
            "content_type": p.content_type}


# ------------------------------------------------------------------ the test


def test_every_stage_makes_the_same_record(tmp_path, capsys, monkeypatch):
    path, ids = warc_file(tmp_path)
    by_stage = {
        "extract": extract_records(tmp_path, capsys),
        "warc": warc_records(path, tmp_path),
        "spark": spark_records(path, monkeypatch),
        "scrapy": scrapy_records(monkeypatch),
        "serve": serve_records(),
    }
    by_stage["worker"], dead = worker_records()
    assert set(dead) == {"binary"} and dead["binary"].reason == "undecodable"  # a dead letter, no record

    for name in PAGES:
        recs = {stage: got[name] for stage, got in by_stage.items() if name in got}
        assert len(recs) == len(STAGES) - (name in dead), (name, sorted(recs))
        for field in SAME_FIELDS:  # one value from every stage
            values = {stage: json.dumps(r[field], sort_keys=True) for stage, r in recs.items()}
            assert len(set(values.values())) == 1, f"{name}: {field} differs by stage: {values}"
        for stage, r in recs.items():
            assert list(r) == list(schema()["properties"]), (name, stage)
            want = expected(stage, name, ids, path, tmp_path)
            assert {k: r[k] for k in want} == want, (name, stage)
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", recs["serve"]["fetch_time"])

    # what the pages are: so that an agreement on nothing (every stage failing alike) fails too
    article, empty, binary = (by_stage["warc"][n] for n in PAGES)
    assert paras("rivers")[0] in article["text"] and article["reason"] is None
    assert article["title"] == "Rivers of the north" and article["author"] == "Ada Lovelace"
    assert article["date"] == "2024-04-30" and article["language"] == "en"
    assert article["stats"]["bytes_in"] == len(ARTICLE) and article["encoding"] == "utf-8"
    assert empty["text"] == "" and empty["reason"] == "no text in page"
    assert empty["html_title"] == "Nothing here"
    assert binary["text"] == "" and binary["reason"] == "binary content"

    # datatrove: the documents' text and metadata are the record's
    from ce_filter.integrations.datatrove import METADATA_KEYS

    docs = datatrove_documents(path)
    assert set(docs) == set(PAGES)
    for name, doc in docs.items():
        rec = by_stage["warc"][name]
        assert doc.text == rec["text"], name
        assert doc.id == rec["source"]["record_id"] and doc.metadata["date"] == rec["fetch_time"]
        meta = {k: doc.metadata[k] for k in (*METADATA_KEYS, "reason") if k in doc.metadata}
        want = {k: rec[f] for k, f in (*METADATA_KEYS.items(), ("reason", "reason")) if rec[f] is not None}
        assert meta == want, name


# ------------------------------------------------------------------ no record made elsewhere

PRODUCT = [*(REPO / "ce_filter").rglob("*.py"), *(REPO / "pipelines").glob("*.py"),
           *(REPO / "crawler").rglob("*.py")]
RECORD_STEP = REPO / "ce_filter" / "record.py"
# every module that makes records (or documents from them), and so must call the record step
STAGE_MODULES = ["ce_filter/cli.py", "pipelines/offline.py", "pipelines/spark_job.py",
                 "pipelines/scrapy_pipelines.py", "pipelines/worker.py", "ce_filter/service/serve.py",
                 "ce_filter/integrations/datatrove.py"]
STEP = {"make_record", "filter_page"}  # ce_filter.record's record step (filter_page: extract + it)
RECORD_ONLY_KEYS = {"text_sha256", "processed_at"}  # keys no other dict of the product has


def _calls(tree: ast.AST) -> set[str]:
    return {n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
            for n in ast.walk(tree) if isinstance(n, ast.Call)}


def _root(node: ast.AST) -> str:
    """``rec`` of ``rec["stats"]["bytes_in"]``."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _edits(scope: ast.AST) -> list[int]:
    """Lines in ``scope`` (a function, a module) that change a record the step made there: a
    name bound to the step's result, then an item of it set, deleted or updated."""
    records = {t.id for n in ast.walk(scope) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
               and _calls(n.value) & STEP for t in n.targets if isinstance(t, ast.Name)}
    lines = []
    for n in ast.walk(scope):
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.Delete)):
            targets = n.targets if isinstance(n, (ast.Assign, ast.Delete)) else [n.target]
            if any(isinstance(t, ast.Subscript) and _root(t) in records for t in targets):
                lines.append(n.lineno)
        elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and _root(n.func.value) in records
              and n.func.attr in ("update", "setdefault", "pop", "popitem", "clear", "__setitem__")):
            lines.append(n.lineno)
    return lines


def test_every_stage_calls_the_record_step():
    for rel in STAGE_MODULES:
        tree = ast.parse((REPO / rel).read_text(encoding="utf-8"))
        assert _calls(tree) & STEP, f"{rel} makes no record with ce_filter.record"


def test_no_record_is_built_or_edited_outside_the_record_step():
    """No dict with a record's own keys is written outside ce_filter/record.py, and no record is
    changed after the step made it (``rec["stats"]["bytes_in"] = ...``): what a stage adds is an
    argument of the step."""
    problems = []
    for path in PRODUCT:
        if path == RECORD_STEP:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = path.relative_to(REPO)
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict) and RECORD_ONLY_KEYS & {k.value for k in node.keys
                                                                 if isinstance(k, ast.Constant)}:
                problems.append(f"{where}:{node.lineno}: a record's keys in a dict")
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                problems += [f"{where}:{line}: a record changed after the step" for line in _edits(node)]
    assert not problems, "records built or edited outside ce_filter/record.py:\n" + "\n".join(problems)
