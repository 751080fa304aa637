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
