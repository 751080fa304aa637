"""The walk (ce_filter/read/_segment.c) gives the same blocks as its oracle, the Python walk of
tests/oracles/walk_python.py. The corpus-wide check is in test_quality.py."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ce_filter.api import Extractor
from ce_filter.read import segment as S
from ce_filter.read.decode import decode_html
from ce_filter.score.features import page_features, stage2_inputs
from tests.oracles import walk_python as W

SITE = Path(__file__).parents[1] / "pipeline" / "site"
WS = "".join(chr(c) for c in range(0x110000) if chr(c).isspace())

PAGES = [
    W.PROBE_PAGE,
    f"<p>a{WS}b{WS}</p><div>{WS}</div><p>\u200b zero-width is not space\u2060</p>",
    "<p>lone \ud800 surrogate</p><p>nul \x00 char</p>",
    "<my-widget class='promoBox'><x-y id=z>custom tags</x-y></my-widget><p>after</p>",
    "<div>" * 3000 + "deep" + "</div>" * 3000,
    "<title>first</title><title>second</title><body><br><br>x<br><br><br>y<a><br>z</a>",
    "<html><head><title></title></head><body><title> later </title><p>p</p></body></html>",
    "<table><tr><td>unclosed<td>cells<tr><td>rows",
    "<head><noscript><link rel=x><style>p{}</style></noscript></head><body><p>a <noscript>Enable "
    "<b>JS</b></noscript> b</p><noscript data-path=/t><div class=post><p>post</p></div></noscript>"
    "<noscript><iframe src=x></iframe><img src=p></noscript>tail",
    "<html lang=en><head><meta name=author content='A B'><meta property=og:x><link rel='Canonical' "
    "href=/c><script type='application/LD+JSON'>{\"a\": 1}</script><title>t</title></head><body "
    "class=AUTHOR-page><time datetime=2020-01-02>Jan <b>2</b></time><a rel=author href=/u>U</a>"
    "<span itemprop=author>" + "x " * 1500 + "</span><i class=byline>By <!-- c -->Me</i>"
    "<script type=application/ld+json>[]</script></body></html>",
    "",
    "plain text, no tags at all",
] + [decode_html(p.read_bytes())[0] for p in sorted(SITE.glob("*.html"))]


@pytest.mark.parametrize("html", PAGES, ids=range(len(PAGES)))
def test_c_walk_equals_python_walk(html):
    c = S.segment(S.parse(html))
    py = W.walk(html)
    assert c.same_as(py), (c.texts, py.texts)
    assert c.texts == py.texts and c.title == py.title and c.head == py.head


def test_c_walk_counts_match_python_counting():
    b = S.segment(S.parse(PAGES[1] + "<a href=x> two  links </a>"))
    fresh = S.Blocks(b.texts, b.anchor_texts)
    assert np.array_equal(b.counts(), fresh.counts())


@pytest.mark.parametrize("walk", ["c", "oracle"])
def test_unknown_tags_get_one_id(walk):
    """Lexbor numbers an unknown tag by an address, another in each process: the blocks record
    one fixed id instead, so features and runs are reproducible."""
    html = "<x-a>one<div>in</div>tail</x-a><x-b><div>b</div>tail b</x-b>"
    b = S.segment(S.parse(html)) if walk == "c" else W.walk(html)
    assert b.texts == ["one", "in", "tail", "b", "tail b"]
    assert b.tag[1] == S.tag_id("div") and b.tag[2] == b.tag[4] == S.UNKNOWN_TAG


def test_sparse_scores_equal_dense_matrix():
    ex = Extractor()
    m = ex.model
    for html in PAGES:
        b = S.segment(S.parse(html))
        if not len(b):
            continue
        dense = m.predict_proba(page_features(b, m.spec), *stage2_inputs(b))
        assert np.allclose(m.block_scores(b), dense, rtol=0, atol=1e-12)


def test_compiled_parts_are_built_where_a_compiler_is():
    """The extensions are optional at install time, so a C error would only show as a slower
    filter: where gcc/cc exists (CI does have one), they must have been built and be in use."""
    import shutil

    from ce_filter.keep import articles, metadata, render
    from ce_filter.read import mojibake, precheck
    from ce_filter.score import blockmodel, pagekind
    from ce_filter.score.blockmodel import load_default
    from ce_filter.score.features import dense, leaves
    from ce_filter.score.site import memory, stage

    if not sys.platform.startswith("linux") or not (shutil.which("gcc") or shutil.which("cc")):
        pytest.skip("no C compiler here: the pure-Python versions are expected")
    # built, and agreeing with their references on their probes (else set aside: None)
    parts = {"read._segment": S._c, "read._precheck": precheck._c, "read._mojibake": mojibake._c,
             "_pass": (dense._C if dense._C is blockmodel._c is pagekind._c is articles._c is render._c
                       else None),
             "score.features._leaves": leaves._c,
             "score.site._memory": memory._c,
             "score.site._stage": stage._c, "keep._metadata": metadata._C}
    missing = [f"ce_filter.{name}" for name, c in parts.items() if c is None]
    assert not missing, f"did not build (see pip's output) or disagreed on their probes: {missing}"
    assert all(dense.handles(m.spec) for m in (load_default("content"), load_default("comments")))
    assert S._c.direct(), "the layout probe failed: Lexbor's node struct is not as expected"


def test_walk_through_lexbor_functions_only_gives_the_same_blocks():
    """CE_FILTER_WALK_NO_DIRECT=1: every node field through Lexbor's accessor functions (what
    runs if the layout probe fails): same blocks as the direct reads."""
    import json

    code = ("import sys, json, ce_filter.read.segment as s;"
            "assert not s._c.direct();"
            "pages = json.load(sys.stdin);"
            "print(json.dumps([[list(b.texts), list(b.anchor_texts), list(map(int, b.tag)), b.title,"
            " b.counts().tolist()]"
            " for b in (s.segment(s.parse(p)) for p in pages)]))")
    env = {**os.environ, "CE_FILTER_WALK_NO_DIRECT": "1"}
    out = subprocess.run([sys.executable, "-c", code], input=json.dumps(PAGES), env=env,
                         capture_output=True, text=True, check=True)
    want = [[list(b.texts), list(b.anchor_texts), list(map(int, b.tag)), b.title, b.counts().tolist()]
            for b in (S.segment(S.parse(p)) for p in PAGES)]
    assert json.loads(out.stdout) == want


# Class/id values that probe every rule of name_tokens: camelCase cuts, letter/digit cuts,
# separators, 1- and 30-character tokens, all-digit tokens, repeats, and non-ASCII values
# (the Kelvin sign lower-cases to an ASCII "k"; those go through name_tokens itself).
NAMES = ["postBody main-col2", "aB2c 6a x", "XMLHttp2Request", "entry-content entry", "a" * 29,
         "b" * 30, "123 45a a45 4_5", "__--", "caf\u00e9 na\u00efve", "\u212aelvin wor\u212a",
         "MiXeD_CaSe", "nav nav NAV", "", "q", "x9Y8z", "tab\tsep\nline"]


def _names_page(names: list[str]) -> str:
    """Each name as class and id of nested elements, so own and ancestor tokens both vary."""
    inner = "<p>leaf text</p>"
    for i, n in enumerate(names):
        q = n.replace("&", "&amp;").replace("'", "&#39;")
        inner = f"<div class='{q}' id='{q if i % 3 == 0 else ''}'>text {i}{inner}</div>"
    return f"<html><body class='pageWrap'>{inner}<section id='s1'>tail</section></body></html>"


@pytest.mark.parametrize("ancestors", [False, True])
def test_c_token_sums_equal_python_sums(ancestors):
    """The C tokeniser and weight sums (serving) give the bit-identical sums of name_tokens'
    tokens (training): weights 2**-k make every token set's sum unique."""
    from ce_filter.score.features.tokens import token_weight_sums

    b = S.segment(S.parse(_names_page(NAMES)))
    rows = b.anc_tokens if ancestors else b.own_tokens
    assert isinstance(rows, S.ElementTokens)
    vocab_list = sorted({t for n in NAMES + ["pageWrap"] for t in S.name_tokens(n)} | {"zz", "b" * 30})
    vocab = {t: i for i, t in enumerate(vocab_list)}
    weights = [2.0 ** -(i % 50) * (-1) ** i for i in range(len(vocab_list))]
    table = S.vocab_table(vocab_list, weights)
    fast = token_weight_sums(rows, vocab, weights, table)
    slow = token_weight_sums(list(rows), vocab, weights)
    assert np.array_equal(fast, slow)
    assert np.count_nonzero(slow) > len(NAMES) // 2  # the test sums something


def test_c_tokeniser_equals_name_tokens_on_random_values():
    """Fuzz: random class values over letters, digits, separators and a few non-ASCII
    characters; one vocabulary token per case, so a sum says which tokens were found."""
    import random

    from ce_filter.score.features.tokens import token_weight_sums

    rng = random.Random(7)
    alphabet = "aBcDzZ09_- .\u00e9\u212a"
    names = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14))) for _ in range(400)]
    for chunk in range(0, len(names), 40):
        part = names[chunk:chunk + 40]
        # each value twice: the second time from the C side's per-page cache of values
        b = S.segment(S.parse(_names_page(part + part[::-1])))
        vocab_list = sorted({t for n in part for t in S.name_tokens(n)})
        vocab = {t: i for i, t in enumerate(vocab_list)}
        weights = [2.0 ** -(i % 50) for i in range(len(vocab_list))]
        table = S.vocab_table(vocab_list, weights)
        for rows in (b.own_tokens, b.anc_tokens):
            assert np.array_equal(token_weight_sums(rows, vocab, weights, table),
                                  token_weight_sums(list(rows), vocab, weights)), part


def test_packed_elements_reject_bad_bytes():
    b = S.segment(S.parse(W.PROBE_PAGE))
    src = b.own_tokens._src
    table = S.vocab_table(["story"], [1.0])
    assert src.weight_sums(True, table).shape == (len(b),)
    for bad in (b"", src.packed[:-3], b"\xff" * 16):
        with pytest.raises(ValueError):
            S._c.elem_list(bad)
        with pytest.raises(ValueError):
            S._c.page_tokens(bad, S.name_tokens)
    for args in ((src.page_tokens(), src.openers, "not a table", False),
                 (table, src.openers, table, False)):  # a vocabulary is not a page's tokens
        with pytest.raises(ValueError):
            S._c.ic_sums(*args)


def test_page_tokens_serve_every_call():
    """One tokenisation of the page serves the own and ancestors' sums and the flags, in any
    order, with the values of a fresh tokenisation for each."""
    from ce_filter.score.features import RX

    html = _names_page(NAMES)
    vocab_list = sorted({t for n in NAMES + ["pageWrap"] for t in S.name_tokens(n)})
    table = S.vocab_table(vocab_list, [2.0 ** -(i % 50) for i in range(len(vocab_list))])
    m = S.token_matcher(RX)
    calls = [lambda s: s.weight_sums(False, table), lambda s: s.weight_sums(True, table),
             lambda s: s.flag_columns(m, 4, 3)]
    fresh = [c(S.segment(S.parse(html)).own_tokens._src) for c in calls]
    shared = S.segment(S.parse(html)).own_tokens._src
    for c, f in reversed(list(zip(calls, fresh))):
        assert np.array_equal(c(shared), f)
    assert all(np.count_nonzero(f) for f in fresh)


def test_c_pattern_flags_equal_python_flags():
    """features.RX through the C walk's flag_columns and through token_pattern_flags (the
    reference, used for the Python walk) give the same columns, on the names page and on random
    class values."""
    import random

    from ce_filter.score.features import FeatureSpec, page_features

    spec = FeatureSpec(groups=("rx",))
    rng = random.Random(3)
    words = ["ad", "hid", "telecom", "comx", "Related", "entryContent", "x-ad-y", "hidden2",
             "postBody", "\u212aomment", "share_bar", "meta", "q"]
    pages = [_names_page(NAMES)] + [
        _names_page([" ".join(rng.choice(words) for _ in range(rng.randint(0, 3))) for _ in range(12)])
        for _ in range(20)]
    hits = 0
    for html in pages:
        c = page_features(S.segment(S.parse(html)), spec)
        py = page_features(W.walk(html), spec)
        assert np.array_equal(c, py)
        hits += int(c.sum())
    assert hits > 100


def test_token_pattern_kinds():
    pats = ((0, S.KIND_CONTAINS, "foot"), (1, S.KIND_EQUALS, "ad"), (2, S.KIND_ENDS, "com"))
    assert S.token_pattern_flags(("pagefooter",), pats) == 1
    assert S.token_pattern_flags(("ad",), pats) == 2 and S.token_pattern_flags(("ads",), pats) == 0
    assert S.token_pattern_flags(("telecom", "x"), pats) == 4
    assert S.token_pattern_flags(("comx",), pats) == 0
    assert S.token_pattern_flags((), pats) == 0


def test_token_matcher_rejects_bad_patterns():
    for bad in ([(32, 0, "x")], [(0, 3, "x")], [(0, 0, "")], [("a", 0, "x")], "not a list"):
        with pytest.raises((ValueError, TypeError)):
            S._c.token_matcher(bad)


def test_flag_columns_reject_bad_input():
    from ce_filter.score.features import RX

    b = S.segment(S.parse(W.PROBE_PAGE))
    src = b.own_tokens._src
    m = S.token_matcher(RX)
    assert src.flag_columns(m, 4, 3).shape == (len(b), 18)
    tok = src.page_tokens()
    for args in ((tok, src.openers, m, -1, 3), (tok, src.openers, m, 4, 33),
                 (src.packed, src.openers, m, 4, 3), (tok, src.openers, "no matcher", 4, 3)):
        with pytest.raises(ValueError):
            S._c.flag_columns(*args)


@pytest.mark.parametrize("html", PAGES + [
    "<p>a <a href=/x>b <i>c</i></a></p><img alt=' x ' data-src=i.png><pre> a\n b<br>c</pre>"
    "<img alt=\" \"><ol><li>1<ul><li>in</li></ul>tail</li><li><p>2</p></li></ol><menu><li>m</li></menu>"],
    ids=range(len(PAGES) + 1))
def test_c_walk_extras_equal_python_walk(html):
    c = S.segment(S.parse(html), True)
    py = W.walk(html, True)
    assert c.extras == py.extras and c.same_as(py)
    assert S.segment(S.parse(html)).extras is None


def test_reused_documents_parse_as_new_ones():
    """Parsed documents are reused (a pool in _walk.c); the quirks mode a page leaves is not
    the next page's: in quirks mode <table> does not close an open <p>, in no-quirks it does."""
    quirks = "<p>a<table><tr><td>b</td></tr></table>c"
    standard = "<!DOCTYPE html>" + quirks
    limited = ('<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" '
               '"http://www.w3.org/TR/html4/loose.dtd">' + quirks)
    fresh = {p: W.walk(p) for p in (quirks, standard, limited)}
    assert fresh[quirks].depth != fresh[standard].depth  # the modes do give other trees
    for order in ((quirks, standard, limited), (standard, quirks, limited), (limited, standard, quirks)):
        for _ in range(3):
            for p in order:
                tree = S.parse(p)
                assert S.segment(tree).same_as(fresh[p]), (order, p)
                del tree  # the document goes back to the pool for the next page
