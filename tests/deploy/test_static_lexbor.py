"""The walk's build with Lexbor compiled in (setup.py with CE_FILTER_LEXBOR_SRC: the build the
Windows wheels get) gives the same blocks as the default build, which calls the Lexbor inside
selectolax's module. Here (Linux, macOS) the walk alone is built that way into a temporary
directory from the checkout's setup.py (its Extension, its compiler flags), loaded in place of
the installed one in a fresh interpreter, and its blocks, head items, renderers' items and
extracted texts on fixture pages compared with the default build's. Needs Lexbor's source:
CE_FILTER_LEXBOR_SRC set to a directory holding source/lexbor/ (``python
scripts/lexbor_source.py DIR`` fetches selectolax 1.0.2's); skipped, saying so, without it. The
build takes about 15 s of one core: marked ``slow``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import REPO
from .test_wheel import TIMEOUT

LEXBOR_SRC = os.environ.get("CE_FILTER_LEXBOR_SRC", "")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not LEXBOR_SRC, reason="CE_FILTER_LEXBOR_SRC is not set (a directory holding "
                       "Lexbor's source/lexbor/: python scripts/lexbor_source.py DIR fetches it)"),
]

# Builds setup.py's walk alone (argv: build_lib, build_temp), run from the source tree: setup()
# is caught, so the walk is the Extension and the build_ext command setup.py itself gives.
BUILD = """
import sys
import setuptools
from setuptools.dist import Distribution

given = {}
setuptools.setup = lambda **kw: given.update(kw)
exec(compile(open("setup.py", encoding="utf-8").read(), "setup.py", "exec"),
     {"__name__": "__main__", "__file__": "setup.py"})
(walk,) = [e for e in given["ext_modules"] if e.name == "ce_filter.read._segment"]
assert ("CE_FILTER_STATIC_LEXBOR", None) in walk.define_macros, walk.define_macros
cmd = Distribution({"ext_modules": [walk], "cmdclass": given["cmdclass"]}).get_command_obj("build_ext")
cmd.build_lib, cmd.build_temp = sys.argv[1], sys.argv[2]
cmd.ensure_finalized()
cmd.run()
"""

# Prints, as JSON, what the walk gives on the pages read from stdin: with argv[1], the walk
# module at that path is loaded first as ce_filter.read._segment (before ce_filter imports it).
DUMP = """
import importlib.util, json, sys
if len(sys.argv) > 1:
    spec = importlib.util.spec_from_file_location("ce_filter.read._segment", sys.argv[1])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    sys.modules["ce_filter.read._segment"] = mod
import ce_filter
from ce_filter.read import segment as S

def blocks(html):
    b = S.segment(S.parse(html), True)
    pre, ordered, links, images = b.extras
    return [list(b.texts), list(b.anchor_texts), b.n_tags.tolist(), b.tag.tolist(), b.depth.tolist(),
            b.flags.tolist(), b.container_ids().tolist(), [list(t) for t in b.own_tokens],
            [list(t) for t in b.anc_tokens], b.title, b.n_nodes, [list(h) for h in b.head],
            sorted(pre.items()), sorted(ordered), links, images, b.counts().tolist()]

pages = json.load(sys.stdin)
print(json.dumps({"lexbor": S._c.LEXBOR, "direct": S._c.direct(), "reuse": S._c.reuse(),
                  "module": S._c.__file__, "blocks": [blocks(p) for p in pages],
                  "texts": [ce_filter.extract(p).text for p in pages]}))
"""

SITE = REPO / "tests" / "pipeline" / "site"


def pages() -> list[str]:
    from ce_filter.read.decode import decode_html
    from tests.oracles.walk_python import PROBE_PAGE

    return [PROBE_PAGE,
            "<table><tr><td>unclosed<td>cells<tr><td>rows",
            "<my-widget class='promoBox'><x-y id=z>custom tags</x-y></my-widget><p>after</p>",
            "<div>" * 3000 + "deep" + "</div>" * 3000,
            "<html lang=en><head><meta name=author content='A B'><link rel=canonical href=/c>"
            "<script type=application/ld+json>{\"a\": 1}</script></head><body class=byline>"
            "<ol><li>one<li>two</ol><pre> code\n  kept </pre><img src=i alt='an  image'></body></html>",
            "", "plain text, no tags at all",
            ] + [decode_html(p.read_bytes())[0] for p in sorted(SITE.glob("*.html"))]


def _dump(pages_: list[str], *module: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "CE_FILTER_LEXBOR_SRC"}
    r = subprocess.run([sys.executable, "-c", DUMP, *module], input=json.dumps(pages_), cwd=REPO,
                       env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def static_walk(tmp_path_factory) -> Path:
    lib, tmp = tmp_path_factory.mktemp("lib"), tmp_path_factory.mktemp("build")
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-c", BUILD, str(lib), str(tmp)], cwd=REPO,
                       env={**os.environ, "CE_FILTER_LEXBOR_SRC": LEXBOR_SRC},
                       capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    print(f"the walk with Lexbor compiled in: built in {time.monotonic() - t0:.1f} s")
    (built,) = lib.glob("ce_filter/read/_segment*")
    return built


def test_the_static_walk_gives_the_default_builds_blocks(static_walk):
    given = pages()
    static, default = _dump(given, str(static_walk)), _dump(given)
    assert static["module"] == str(static_walk) and static["lexbor"] == "linked"
    assert default["lexbor"] == "selectolax"
    # the probes of Lexbor's node layout and document reuse pass on the linked Lexbor as well
    assert static["direct"] and static["reuse"]
    for i, (s, d) in enumerate(zip(static["blocks"], default["blocks"])):
        assert s == d, f"page {i}: the static walk's blocks differ"
    assert static["texts"] == default["texts"]


def test_the_static_walk_exports_only_its_init(static_walk):
    """Lexbor's names stay inside the module (-fvisibility=hidden): nothing can bind them to
    selectolax's copy, or the other way round."""
    if not sys.platform.startswith("linux") or shutil.which("nm") is None:
        pytest.skip("reads the ELF dynamic symbol table with nm -D (Linux, binutils)")
    r = subprocess.run(["nm", "-D", "--defined-only", str(static_walk)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"nm: {r.stderr.strip()[:200]}")
    names = [line.split()[-1] for line in r.stdout.splitlines() if line.split()[1:2] == ["T"]]
    assert names == ["PyInit__segment"], names
