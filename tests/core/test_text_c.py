"""The kept text joined in C (render.to_text through ce_filter.keep._render's text) is the
oracle's (tests/oracles/render_text.py), to the character: tables a row per line, code blocks
as written, paragraphs; random masks over every corpus page and over pages made of tables and code."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ce_filter.keep import render as R
from ce_filter.learn.corpus import load_corpus
from ce_filter.read.decode import decode_html
from ce_filter.read.segment import parse, segment
from tests.oracles import render_text as oracle


def _check(html: str, rnd: random.Random, masks: int = 4) -> int:
    """C text == reference for ``masks`` random masks of the page's blocks (extras given, and
    given as a function); the number of masks whose text has a table row or a code line."""
    b = segment(parse(html), extras=True)
    n = len(b)
    if not n:
        return 0
    ex = R.Extras(pre=dict(b.extras[0])) if b.extras else R.Extras()
    shaped = 0
    for _ in range(masks):
        keep = np.array([rnd.random() < rnd.choice([0.3, 0.7, 1.0]) for _ in range(n)], dtype=bool)
        ref = oracle.to_text(b, keep, ex)
        assert R.to_text(b, keep, ex) == ref
        assert R.to_text(b, keep, lambda: ex) == ref
        shaped += " | " in ref or any(keep[i] for i in ex.pre)
    return shaped


def test_c_text_equals_the_reference_on_tables_and_code():
    rnd = random.Random(3)
    cells = ["a", "bb", "x" * 400, "", "cell"]
    shaped = 0
    for _ in range(300):
        parts = []
        for _ in range(rnd.randrange(1, 8)):
            k = rnd.random()
            if k < 0.4:
                rows = "".join(
                    "<tr>" + "".join(f"<td>{rnd.choice(cells)}</td>" for _ in range(rnd.randrange(1, 4)))
                    + "</tr>" for _ in range(rnd.randrange(1, 4)))
                parts.append(f"<table>{rows}</table>")
            elif k < 0.6:
                parts.append("<pre>line one\n  line two\n</pre>")
            elif k < 0.7:
                parts.append("<code>x = 1</code>")
            else:
                parts.append(f"<p>paragraph {rnd.random()}</p>")
        shaped += _check("<html><body>" + "".join(parts) + "</body></html>", rnd)
    assert shaped > 300


@pytest.mark.corpus
def test_c_text_equals_the_reference_on_every_corpus_page(data_dir):
    rnd = random.Random(5)
    pages = shaped = 0
    for corpus in sorted(p for p in data_dir.iterdir() if (p / "html").is_dir()):
        for doc in load_corpus(corpus):
            pages += 1
            shaped += _check(decode_html(doc.html)[0], rnd, 2)
    assert pages > 3000 and shaped > 500, (pages, shaped)
