"""The repeated-items group ``ritem`` (ce_filter/score/features/_dense.c's ``ritem``, its
definition) against its numpy oracle (tests/oracles/ritem_numpy.py) at ORACLE_RTOL /
ORACLE_ATOL: hand-made pages whose groups are known, random pages, and every corpus page."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ce_filter.read.segment import Blocks, parse, segment
from ce_filter.score.features import (
    TOKEN_PREFIXES,
    FeatureSpec,
    dense,
    feature_names,
    page_features,
    page_inputs,
)
from ce_filter.score.features.repitem import LC_NAMES, NAMES, ritem_columns
from ce_filter.score.pagekind import KINDS
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


LC_SPEC = FeatureSpec(groups=("st", "cetr", "ic", "dom", "rx", "head", "kind", "shop", "ritemlc"),
                      ic_own=["card", "x"], ic_anc=["main", "y"], shop_min_p=0.05, ritem_min_p=0.5)


def _kind(listing: float, collection: float) -> np.ndarray:
    k = np.zeros(len(KINDS))
    k[KINDS.index("listing")], k[KINDS.index("collection")] = listing, collection
    k[KINDS.index("article")] = 1.0 - listing - collection
    return k


@pytest.mark.parametrize("listing,collection,min_p,weight", [
    (0.4, 0.2, 0.5, 0.6), (0.5, 0.0, 0.5, 0.5), (0.2, 0.1, 0.3, 0.3), (0.3, 0.1, 0.5, 0.0),
    (0.0, 0.29, 0.3, 0.0), (0.1, 0.1, 0.0, 0.2), (0.0, 0.0, 0.0, 0.0)])
def test_ritemlc_is_ritem_times_listing_collection_over_the_gate(listing, collection, min_p, weight):
    """Group ``ritemlc``: ritem times P(listing) + P(collection) where that sum is at least
    FeatureSpec.ritem_min_p, zeros under it; the serving path (C part + appended columns) and
    the general path give the same values, and the other columns do not change."""
    from dataclasses import replace

    b = segment(parse(LISTING))
    spec = replace(LC_SPEC, ritem_min_p=min_p)
    kind = _kind(listing, collection)
    names = feature_names(spec)
    assert names[-len(LC_NAMES):] == list(LC_NAMES) == [f"{n}*lc" for n in NAMES]
    tok = np.array([n.startswith(TOKEN_PREFIXES) for n in names])
    served, general = page_inputs(b, spec, kind)[0], page_features(b, spec, kind)
    assert np.array_equal(served, general[:, ~tok])
    want = dense.ritem(b) * weight
    assert dense.ritem(b).any()
    for x in (served, general):
        assert np.allclose(x[:, -len(LC_NAMES):], want, rtol=1e-15, atol=0.0)
        if weight == 0.0:
            assert not x[:, -len(LC_NAMES):].any()
    base = replace(spec, groups=spec.groups[:-1], ritem_min_p=0.0)
    assert np.array_equal(served[:, :-len(LC_NAMES)], page_inputs(b, base, kind)[0])
    assert not page_inputs(b, spec, None)[0][:, -len(LC_NAMES):].any()  # no kind estimate: zeros


def test_ritemlc_gate_survives_the_spec_file_and_a_bad_one_is_refused():
    from dataclasses import replace

    from ce_filter.learn.configs import CONFIGS
    from ce_filter.score.blockmodel import Model, ModelError, load_default

    assert "ritem_min_p" not in replace(LC_SPEC, ritem_min_p=0.0).to_json()  # unset: bytes kept
    d = LC_SPEC.to_json()
    assert d["ritem_min_p"] == 0.5 and FeatureSpec.from_json(d) == LC_SPEC
    m = load_default().to_json()
    assert "ritem_min_p" not in m["features"]["spec"]
    for bad in (-0.1, 2, "0.1", True):
        m["features"]["spec"]["ritem_min_p"] = bad
        with pytest.raises(ModelError, match="ritem_min_p"):
            Model.from_json(m)
    thin = CONFIGS["best+kind+pn.5+w1+shop05+ic30+thin"]
    for t, p in (("03", 0.3), ("05", 0.5)):
        cfg = CONFIGS[f"best+kind+pn.5+w1+shop05+ic30+thin+ritemlc{t}"]
        assert cfg == replace(thin, groups=thin.groups + ("ritemlc",), ritem_min_p=p)
    assert CONFIGS["best+kind+pn.5+w1+shop05+ic30+thin+ritemlck05"].kind_mix == LC_NAMES


@pytest.mark.corpus
def test_c_ritem_equals_oracle_on_every_corpus_page(data_dir):
    pages, differ = 0, []
    for corpus, doc, _html, b in every_page(data_dir):
        pages += 1
        got, ref = dense.ritem(b), ritem_oracle(b)
        if got.shape != ref.shape or not np.allclose(got, ref, rtol=ORACLE_RTOL, atol=ORACLE_ATOL):
            differ.append(f"{corpus}/{doc.id}")
    assert pages > 3000 and not differ, (pages, differ[:10])
