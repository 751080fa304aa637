"""The peers added beside the others: turbohtml (in-process like them) and rs-trafilatura, whose
binding trafipy needs Python >= 3.12 and so is measured in another interpreter (.venv312, made by
scripts/bench_py312.sh): the routing there, what the tables say where it cannot run, and the
script's own way of saying there is no Python 3.12."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from ce_filter.bench import measure, peers, quality

from ce_filter.cli import main

from .conftest import REPO, TOPICS, page

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # the peers' own, on import

RS = "rs-trafilatura"


@pytest.fixture
def no_py312(monkeypatch):
    """As on a machine with no Python 3.12 (or none with trafipy)."""
    peers._probe_tool.cache_clear()
    monkeypatch.setattr(peers, "candidates", lambda need: [])
    yield
    peers._probe_tool.cache_clear()


def test_both_are_listed_with_their_calls():
    assert {"turbohtml", RS} <= set(peers.PEERS)
    assert "turbohtml.parse(html).article().text" in peers.TOOLS["turbohtml"].how
    assert "trafipy.extract(" in peers.TOOLS[RS].how and "include_comments=False" in peers.TOOLS[RS].how
    assert peers.TOOLS[RS].python == (3, 12) and peers.TOOLS["turbohtml"].python is None


def test_turbohtml_takes_the_raw_bytes():
    if not peers.available("turbohtml"):
        pytest.skip("turbohtml not installed (pip install -e '.[bench]')")
    fn = peers.make("turbohtml")
    html = page(2, TOPICS[2])[0].replace("<meta charset='utf-8'>", "<meta charset='windows-1252'>")
    text = fn(html.replace("council", "café council").encode("cp1252"))  # its own charset sniffing
    assert fn.errors == 0 and "café council" in text and "Legal notice" not in text
    assert fn(b"") == ""


def test_rs_trafilatura_runs_in_the_newer_python(py312, tmp_path):
    htmls = [(page(i, t)[0].encode(), f"https://example.org/news/{i}") for i, t in enumerate(TOPICS)]
    r = measure.tool_outputs(RS, htmls + [(b"", None)], timeout=300)
    assert r["ok"], r
    assert tuple(map(int, r["python"].split(".")[:2])) >= (3, 12) and r["errors"] == 0
    assert all("supporters argued" in t for t in r["outputs"][:4]) and r["outputs"][4] == ""
    assert peers.version(RS) not in ("", "?")
    # that process sees the standard library, the harness and the tool: no ce_filter
    env, cwd, module = measure.foreign_child(tmp_path)
    probe = "import importlib.util as u, benchmarks.peers; print(u.find_spec('ce_filter') is None)"
    out = subprocess.run([py312, "-c", probe], env=env, cwd=cwd, capture_output=True, text=True)
    assert out.stdout.strip() == "True", out.stderr


def test_the_interpreter_is_found_past_one_without_the_tool(py312, monkeypatch):
    monkeypatch.setenv("CE_FILTER_BENCH_PY312", sys.executable)  # a Python, but 3.11 and no trafipy
    peers._probe_tool.cache_clear()
    try:
        assert peers.candidates((3, 12))[0] == sys.executable
        assert peers.interpreter(RS) not in (None, sys.executable)
    finally:
        peers._probe_tool.cache_clear()


def test_speed_and_quality_tables_show_both(py312, mini_corpus, tmp_path, capsys):
    tools = ["ce-filter", RS] + [t for t in ("turbohtml",) if peers.available(t)]
    raw = tmp_path / "raw.json"
    assert main(["bench", str(mini_corpus), "--repeat", "1", "--tools", ",".join(tools), "--sections",
                 "speed", "--no-write", "--json", str(raw)]) == 0
    out = capsys.readouterr().out
    res = json.loads(raw.read_text())["tools"]
    for t in tools:
        assert res[t]["ok"] and res[t]["pages"] == 4 and res[t]["f1"] > 0.5, (t, res[t].get("error"))
        assert f"| {t} | {res[t]['version']} | " in out and f"| {t} | `" in out  # its row, its call
    assert res[RS]["python"] != res["ce-filter"]["python"]
    q = quality.measure(tools, [str(mini_corpus)], limit=None, jobs=2)
    assert all(r.get("pages") == 4 and r["mean_f1"] > 0.5 for r in q), q
    md = quality.quality_tables(q, [str(mini_corpus)], tools)
    assert all(f"| {t} | " in md for t in tools)


def test_without_a_newer_python_it_is_reported_not_available(no_py312, mini_corpus, capsys, tmp_path):
    assert peers.foreign(RS) and not peers.available(RS) and peers.interpreter(RS) is None
    r = measure.run_child({"kind": "tool", "tool": RS, "pages_file": "unused", "repeat": 1})
    assert not r["ok"] and r["missing"] and "no Python ≥ 3.12 with trafipy" in r["error"]
    assert main(["bench", str(mini_corpus), "--repeat", "1", "--tools", f"ce-filter,{RS}", "--sections",
                 "speed", "--no-write"]) == 0
    out = capsys.readouterr().out
    assert f"| {RS} | — | not available: no Python ≥ 3.12 with trafipy" in out
    q = quality.measure(["ce-filter", RS], [str(mini_corpus)], limit=None, jobs=1)
    assert q[0]["pages"] == 4 and "scripts/bench_py312.sh" in q[1]["error"]
    assert "not available" in quality.quality_tables(q, [str(mini_corpus)], ["ce-filter", RS])


def test_turbohtml_not_installed_is_reported(monkeypatch, mini_corpus, capsys):
    t = peers.TOOLS["turbohtml"]
    absent = peers.Tool(t.name, "no_such_module_for_bench", t.dist, t.how)
    monkeypatch.setitem(peers.TOOLS, "turbohtml", absent)
    assert main(["bench", str(mini_corpus), "--repeat", "1", "--tools", "ce-filter,turbohtml", "--sections",
                 "speed", "--no-write"]) == 0
    assert "| turbohtml | — | not installed" in capsys.readouterr().out


def test_the_setup_script_says_when_there_is_no_python_3_12(tmp_path):
    """No $CE_FILTER_BENCH_PY312, no python3.12 on PATH, no pyenv: exit 3, a reason, nothing made."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(REPO / "scripts" / "bench_py312.sh", tmp_path / "scripts")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("dirname", "flock", "find", "sort", "rm"):
        if shutil.which(tool):
            (bin_dir / tool).symlink_to(shutil.which(tool))
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path), "PYENV_ROOT": str(tmp_path / "no-pyenv")}
    bash = shutil.which("bash") or "/bin/bash"
    r = subprocess.run([bash, str(tmp_path / "scripts" / "bench_py312.sh")], env=env, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 3, r.stderr
    assert "no Python 3.12 found" in r.stderr and not (tmp_path / ".venv312").exists()
