"""The README's command-line and HTTP-service quick starts, run as written (in a scratch
directory with a few pages and a local URL list; the service on a free port in place of 8080,
stopped at the end)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
import urllib.request

import pytest

from ce_filter.record import validate

from .test_readme import TIMEOUT, commands, env, quick_start, run

PARAS = [f"Paragraph {k} of the story: the harbour council met again on Tuesday to discuss the plan, "
         f"which residents have debated for {k + 3} months, and agreed to publish a timetable soon."
         for k in range(4)]
NAV = "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(12))
PAGE = (f"<html><head><title>Harbour plan</title></head><body><ul class=nav>{NAV}</ul>"
        "<div class=article><h1>Harbour plan</h1>" + "".join(f"<p>{p}</p>" for p in PARAS)
        + "</div><div id=footer>Privacy | Terms | Copyright</div></body></html>")


def test_clean_pages_on_the_command_line(tmp_path):
    (code,) = [c for lang, c in quick_start("Clean pages on the command line") if lang == "bash"]
    (tmp_path / "page.html").write_text(PAGE)
    (tmp_path / "other.html").write_text(PAGE.replace("Harbour", "Bridge"))
    (tmp_path / "urls.txt").write_text("page.html\nother.html\n")  # paths stand in for URLs here
    outs = []
    for argv in commands(code):
        r = run(argv, tmp_path)
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout)
    assert PARAS[0] in outs[0] and "Section 3" not in outs[0]
    assert outs[1].startswith("# Harbour plan")
    recs = {p.name: json.loads(p.read_text()) for p in (tmp_path / "out").iterdir()}
    assert sorted(recs) == ["other.jsonl", "page.jsonl"]
    assert all(r["text"] and r["language"] == "en" and validate(r) == [] for r in recs.values())


def test_serve_the_filter_over_http(tmp_path):
    pytest.importorskip("gunicorn", reason="gunicorn not installed (pip install 'ce-filter[serve]')")
    if shutil.which("curl") is None:
        pytest.skip("curl not installed: the README's client command cannot run as written")
    (_, start), (_, client) = quick_start("Serve the filter over HTTP")
    from pipeline.conftest import listening_ports

    (argv,) = commands(start.replace("8080", "0"))  # port 0: the kernel's choice, read back below
    (tmp_path / "page.html").write_text(PAGE)
    proc = subprocess.Popen(argv, cwd=tmp_path, env=env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        port = ""
        while True:
            assert proc.poll() is None, proc.stdout.read().decode(errors="replace")[-2000:]
            try:
                port = port or str(min(listening_ports(proc.pid), default=""))
                if not port:
                    raise OSError("not listening yet")
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                assert time.monotonic() < deadline, "the service did not answer /healthz in 60 s"
                time.sleep(0.3)
        (cmd,) = commands(client.replace("8080", port))
        r = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=TIMEOUT)
        assert r.returncode == 0, r.stderr
        rec = json.loads(r.stdout)
        assert rec["url"] == "https://example.org/a" and PARAS[0] in rec["text"] and validate(rec) == []
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        proc.stdout.close()


def test_build_a_training_corpus_with_datatrove(tmp_path):
    """The datatrove quick start as written, on two copies of the sample WARC in ``crawl/``:
    every document written has the text ``ce-filter warc`` gives its page."""
    for mod in ("datatrove", "warcio", "cchardet", "magic", "orjson"):
        pytest.importorskip(mod, reason="needs the datatrove extra: pip install 'ce-filter[datatrove]'")
    import gzip

    from ce_filter.crawler.warc import WarcStats, iter_pages

    import ce_filter

    from .test_readme import SAMPLE, crawl_dir

    (_, shell), (_, code) = quick_start("Build a training corpus with datatrove")
    assert commands(shell) == []  # only the install line
    crawl_dir(tmp_path)
    (tmp_path / "build.py").write_text(code)
    r = run(["python", "build.py"], tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    docs = [json.loads(line) for f in sorted((tmp_path / "corpus").glob("*.jsonl.gz"))
            for line in gzip.open(f, "rt", encoding="utf-8")]
    ex = ce_filter.Extractor()
    want = {p.url: ex.extract(p.body, p.url, encoding=p.encoding).text
            for p in iter_pages(str(SAMPLE), WarcStats())}
    # the reader picks HTML by libmagic on this WARC (no payload-type header): some of its pages
    assert docs and {d["metadata"]["url"] for d in docs} <= set(want)
    assert all(d["text"] == want[d["metadata"]["url"]] and d["metadata"]["title"] for d in docs)
