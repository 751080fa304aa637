"""Code blocks inside the kept text are kept, whatever their score (api.select)."""

from __future__ import annotations

import numpy as np

from ce_filter.api import Extractor, select

ARTICLE = """<html><body><nav><a href="/">Home</a> <a href="/docs">Docs</a> <a href="/blog">Blog</a></nav>
<main><h1>Loading data</h1>
<p>To load the data, call fetch on the JSON file and parse the response body; the promise resolves
with the parsed object once the whole body has arrived from the server.</p>
<pre>fetch("/data.json")
  .then(r =&gt; r.json())
  .then(show)</pre>
<p>The show function receives the parsed object and draws one row of the table for each record,
in the order the server sent them, so the table matches the file.</p></main>
<footer><pre>v1.2.3 build 4567</pre><p>Copyright 2024 Example Corp.</p></footer></body></html>"""


def test_select_keeps_code_only_inside_the_kept_span() -> None:
    scores = np.array([0.9, 0.1, 0.8, 0.1, 0.1])
    code = np.array([False, True, False, False, True])
    assert select(scores, 0.5, code).tolist() == [True, True, True, False, False]
    assert select(scores, 0.5).tolist() == [True, False, True, False, False]
    assert select(np.zeros(0), 0.5, np.zeros(0, dtype=bool)).tolist() == []


def test_code_block_of_a_documentation_page_survives() -> None:
    r = Extractor().extract(ARTICLE.encode())
    assert 'fetch("/data.json")' in r.text
    assert "v1.2.3 build" not in r.text  # code after the last kept block is not pulled in


def test_the_c_cut_keeps_the_blocks_the_reference_keeps() -> None:
    """blockmodel.select_c (the C cut the Extractor runs) and blockmodel.select against the
    numpy oracle's cut (tests/oracles/blockmodel_numpy.py) on random pages: cuts above every
    score (the fallback), code blocks inside, before and after
    the kept span, ties at the cut, empty pages."""
    from ce_filter.read.segment import FLAG_PRE
    from ce_filter.score.blockmodel import FALLBACK_REL, select_c
    from tests.oracles.blockmodel_numpy import select as oracle_select
    rng = np.random.default_rng(7)
    for n in [0, 1, 2, 3, 5, 8, 40, 300] * 40:
        scores = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], n) if rng.random() < 0.3 else rng.random(n)
        flags = rng.integers(0, 4, n, dtype=np.int64) * (FLAG_PRE // 2) | rng.integers(0, 2, n)
        code = (flags & FLAG_PRE) != 0
        for t in (0.0, 0.25, 0.5, 0.9, 1.0, 1.5):
            want = oracle_select(scores, t, code)
            assert np.array_equal(select_c(scores, t, flags, FLAG_PRE, FALLBACK_REL), want)
            assert np.array_equal(select(scores, t, code), want)
            assert np.array_equal(select_c(scores, t, None, FLAG_PRE, FALLBACK_REL),
                                  oracle_select(scores, t))
