"""The repeated-items group ``ritem`` (ce_filter/score/features/_dense.c's ``ritem``, its
definition) against its numpy oracle (tests/oracles/ritem_numpy.py) at ORACLE_RTOL /
ORACLE_ATOL: hand-made pages whose groups are known, random pages, and every corpus page."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ce_filter.read.segment import Blocks, parse, segment
from ce_filter.score.features import dense
from ce_filter.score.features.repitem import NAMES, ritem_columns
from tests.oracles.ritem_numpy import ORACLE_ATOL, ORACLE_RTOL, ritem_oracle

from .corpus_pages import every_page

CARDS = "".join(f'<div class="card"><h3><a href="/p{i}">Item {i}</a></h3><p>About item {i} for $1{i}.99'
                f"</p></div>" for i in range(6))
LISTING = f"<html><body><nav><a href=/>Home</a> <a href=/b>B</a></nav><main>{CARDS}</main></body></html>"


def _same(b: Blocks) -> np.ndarray:
    got, ref = dense.ritem(b), ritem_oracle(b)
    assert got.shape == ref.shape == (len(b), len(NAMES))
    assert np.allclose(got, ref, rtol=ORACLE_RTOL, atol=ORACLE_ATOL), np.argwhere(
        ~np.isclose(got, ref, rtol=ORACLE_RTOL, atol=ORACLE_ATOL))[:5]
    return got


def test_a_grid_of_cards_is_one_group():
    """Six cards of a heading link and a priced snippet: one group of six items, each with a
    heading and a price, part of its words in links; every card block carries its figures."""
    b = segment(parse(LISTING))
    x = _same(b)
    rows = [i for i, t in enumerate(b.texts) if t.startswith(("Item", "About"))]
    assert len(rows) == 12
    col = {n: x[rows, j] for j, n in enumerate(NAMES)}
    assert np.allclose(col["ri_items"], np.log1p(6.0))
    assert np.allclose(col["ri_head"], 1.0) and np.allclose(col["ri_price"], 1.0)
    assert 0.0 < col["ri_link"][0] < 1.0 and np.all(col["ri_link"] == col["ri_link"][0])
    heads = [i for i in rows if b.texts[i].startswith("Item")]
    assert np.all(x[heads, NAMES.index("ri_is_head")] == 1.0)
    assert ritem_columns(b)[0] == list(NAMES)


def test_no_group_below_three_items_and_empty_pages():
    b = segment(parse("<div><div><p>a b</p></div><div><p>c d</p></div></div>"))
    assert not _same(b).any()
    assert dense.ritem(Blocks()).shape == (0, len(NAMES))


@pytest.mark.parametrize("text,price", [("$5", 1), ("€ 12", 1), ("19,99 €", 1), ("100$", 1),
                                        ("US$ 5", 1), ("$ x", 0), ("5 $ ", 1), ("£", 0), ("5 x €", 0)])
def test_prices(text, price):
    """A currency sign with an ASCII digit next to it, on either side, or one space between."""
    html = "<ul>" + "".join(f"<li><p>{text}</p></li>" for _ in range(3)) + "</ul>"
    x = _same(segment(parse(f"<html><body><div>{html}</div></body></html>")))
    assert x[:, NAMES.index("ri_price")].max() == price


def test_random_pages_equal_oracle():
    rnd = random.Random(5)
    tags = ["div", "li", "section", "article", "ul", "span"]
    leaves = ["<p>{}</p>", "<a href=#>{}</a>", "<h3>{}</h3>", "{}", "<td>{}</td>"]
    for _ in range(80):
        html, depth = [], 0
        for _ in range(rnd.randrange(1, 150)):
            r = rnd.random()
            if r < 0.3 and depth < 20:
                html.append(f"<{rnd.choice(tags)}>")
                depth += 1
            elif r < 0.5 and depth:
                html.append("</div>")
                depth -= 1
            words = " ".join(rnd.choice(["w", "$5", "9 €", "x"]) for _ in range(rnd.randrange(0, 12)))
            html.append(rnd.choice(leaves).format(words))
        _same(segment(parse("".join(html))))


@pytest.mark.corpus
def test_c_ritem_equals_oracle_on_every_corpus_page(data_dir):
    pages, differ = 0, []
    for corpus, doc, _html, b in every_page(data_dir):
        pages += 1
        got, ref = dense.ritem(b), ritem_oracle(b)
        if got.shape != ref.shape or not np.allclose(got, ref, rtol=ORACLE_RTOL, atol=ORACLE_ATOL):
            differ.append(f"{corpus}/{doc.id}")
    assert pages > 3000 and not differ, (pages, differ[:10])
