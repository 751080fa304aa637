"""A mini corpus made in the test (4 pages with gold), so the harness is tested without
../shared/data; the tests that want the real corpora use the ``data_dir`` fixture."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

NAV = "<ul class='nav'>" + "".join(f"<li><a href='/s{i}'>Section {i}</a></li>" for i in range(12)) + "</ul>"
FOOT = "<div id='footer'><a href='/about'>About us</a> | <a href='/legal'>Legal notice</a> | © Example</div>"
TOPICS = ("harbour dredging", "library opening hours", "river water quality", "school bus routes")


def page(i: int, topic: str) -> tuple[str, str]:
    paras = [f"The council voted on {topic} on Tuesday evening after a long debate about costs, "
             f"timing and the views of residents who wrote in during the consultation number {i}. "
             f"Officials said the plan would be reviewed again next spring." for _ in range(1)]
    paras += [f"Paragraph {k} on {topic}: supporters argued that the change was overdue and that "
              f"neighbouring towns had done the same years ago, while critics asked for more detail."
              for k in range(2 + 3 * i)]
    title = f"Council decides on {topic}"
    html = (f"<html><head><title>{title}</title><meta charset='utf-8'></head><body>"
            f"<div id='header'>{NAV}</div><div class='main'><article><h1>{title}</h1>"
            + "".join(f"<p>{p}</p>" for p in paras)
            + f"</article></div><div class='sidebar'><h3>Most read</h3>{NAV}</div>{FOOT}</body></html>")
    return html, title + "\n\n" + "\n\n".join(paras)


@pytest.fixture
def mini_corpus(tmp_path):
    root = tmp_path / "mini"
    (root / "html").mkdir(parents=True)
    (root / "gold").mkdir()
    rows = []
    for i, topic in enumerate(TOPICS):
        html, gold = page(i, topic)
        (root / "html" / f"p{i}.html").write_text(html, encoding="utf-8")
        (root / "gold" / f"p{i}.txt").write_text(gold, encoding="utf-8")
        rows.append(f"p{i}\t{'test' if i else 'train'}")
    (root / "split.tsv").write_text("\n".join(rows) + "\n")
    return root


REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def py312() -> str:
    """The interpreter the bench measures rs-trafilatura in (its binding trafipy needs Python
    >= 3.12): the one ``peers.interpreter`` finds, else .venv312, made here by
    scripts/bench_py312.sh. Skips, saying why, only where no Python 3.12 can be had."""
    from ce_filter.bench import peers

    if not peers.foreign("rs-trafilatura"):
        pytest.skip("the tests run on Python >= 3.12 themselves: no other interpreter to route to")
    found = peers.interpreter("rs-trafilatura")
    if found is None:
        r = subprocess.run(["bash", str(REPO / "scripts" / "bench_py312.sh")], capture_output=True,
                           text=True, timeout=900)
        peers._probe_tool.cache_clear()
        found = peers.interpreter("rs-trafilatura")
        if found is None:
            tail = (r.stderr.strip().splitlines() or ["no output"])[-1]
            pytest.skip(f"no Python 3.12 with trafipy for rs-trafilatura: scripts/bench_py312.sh "
                        f"exited {r.returncode}: {tail}")
    return found
