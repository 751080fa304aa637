"""The page signals in C (ce_filter/score/_pagekind.c) are the Python reference's
(tests/oracles/pagekind_signals.py), bit for bit: the page-kind model was fitted on the
reference's values, so the C part must not move them by an ulp; the model's probabilities in
one C call (kind_proba) are the numpy reference's to 1e-12, with the same most probable kind.
Hand-made edge cases, hostile pages, odd and random URLs, the character classes the C matchers
use on every code point, and every corpus page."""

from __future__ import annotations

import random
import re
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ce_filter.read.segment import Blocks, parse, segment
from ce_filter.score import pagekind as P
from ce_filter.score.blockmodel import load_default
from tests.oracles import pagekind_signals as oracle
from tests.oracles import walk_python

from .corpus_pages import every_page

URL = "https://shop.example.com/products/blue-kettle-1-7l?ref=x"


_KIND = load_default("content").pagekind


def _same_kind(blocks: Blocks, html: str, url: str | None) -> bool:
    """The page-kind model's probabilities in one C call (page_proba) are the numpy reference's
    over the reference signals to 1e-12, with the same most probable kind."""
    assert _KIND is not None
    got, ref = _KIND.page_proba(blocks, html, url), _KIND.proba(oracle.page_signals(blocks, html, url))
    return bool(np.allclose(got, ref, rtol=0, atol=1e-12) and np.argmax(got) == np.argmax(ref))


def _same(blocks: Blocks, html: str) -> None:
    for url in (None, "", URL):
        c = P.page_signals(blocks, html, url)
        py = oracle.page_signals(blocks, html, url)
        assert c.dtype == py.dtype == np.float64 and c.shape == py.shape == (P.N_FEATURES,)
        differ = [(P.feature_names()[i], c[i], py[i]) for i in np.flatnonzero(c != py)]
        assert np.array_equal(c, py), (url, differ)
        assert _same_kind(blocks, html, url), url


def _page(html: str) -> None:
    _same(segment(parse(html)), html)
    _same(walk_python.walk(html), html)  # the oracle walk: lists, not arrays


# a page with some of every signal
PROBE = """<html><head><link rel="canonical" href="https://example.com/blog/2024/a-post.html">
<meta property="og:type" content="Article"><script type="application/ld+json">
{"@type": ["NewsArticle", "https://schema.org/BreadcrumbList"]}</script></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/shop">Shop</a></li><li>Cart</li>
<li>Reply</li></ul></nav><main><article itemtype="http://schema.org/Product"><h1>A post</h1>
<p>Price $19.99, in stock: 3 items, ² free SHIPPING with the \u212aelvin STOC\u212a api.</p>
<pre>def f(): return 1</pre><table><tr><td>Default</td><td>€5</td></tr></table></article></main>
</body></html>"""
LD = '<script type="application/ld+json">{}</script>'
EDGE_PAGES = {
    "empty": "",
    "bare": "<html></html>",
    "one word": "<p>x</p>",
    "probe": PROBE,
    "type array": LD.format('{"@type" :\n [ "https://schema.org/Product", "Offer"], "x": 1}'),
    "type forms": LD.format('{"@type":"http://schema.org/NewsArticle"} {"@type": "Https://schema.org/QAPage"}'
                            ' {"@type"\t:\u3000"FAQPage"} {"@type": "https://schema.org/"} {"@type": "http"}'
                            ' {"@type": ""} {"@type": "Recipe\\n"} {"@type" "Product"} {"@type":["",'),
    "type overlap": LD.format('"@type"@type": "Product"'),
    "type at end": '<p>a</p>"@type": "Produc',
    "itemtype": '<div itemscope itemtype="https://schema.org/Product"><p itemtype=http://SCHEMA.ORG/offer>'
                "x</p><p itemtype='HTTPS://schema.org/ItemList'>y</p><p ITEMTYPE=https://schema.org/Event>"
                "z</p><p itemtype=https://schema.org/Person/x>w</p><p itemtype=\"schema.org/Product\">v</p>"
                "<p itemtype=http://\u017fchema.org/\u212aitchen>u</p><p itemtype=\"https://schema.org/"
                "Bl\u0131ogPosting\">t</p><p itemtype=https://schema.org/BLOGPOSTING\u0130>s</p></div>",
    "og upper": '<META PROPERTY="OG:TYPE" CONTENT="Product"><meta property="og:type" content="article">',
    "og forms": "<meta name=og:type content='video.movie'><p>og:type</p>",
    "og content first": '<meta content="article" property="og:type"><p>og:type</p>',
    "og no value": '<meta property="og:type" content=""><meta property="og:type" content="website">',
    "og gt": '<meta property="og:type" > content="product"><meta property="og:type" content=Product>',
    "og unicode": '<meta property="og:type" content="\u0130nstagram:profile"><meta property="og:type">',
    "og digits": '<meta property="og:type" content="\u0663article">',
    "og quote only": "<meta property='og:type' content='>' content=book>",
    "og 80": '<meta' + " " * 80 + 'property="og:type"' + "x" * 80 + 'content="product">',
    "og 81": '<meta' + " " * 81 + 'property="og:type"' + "x" * 80 + 'content="product">'
             '<meta property="og:type"' + "x" * 81 + 'content="article">',
    "og 81 quote": '<meta property="og:type"' + "x" * 80 + 'content="product">',
    "og many metas": "<meta name=a>" * 300 + '<meta property="og:type" content="profile">',
    "canonical": '<LINK REL=canonical HREF=/blog/2021/x-y-z.html><p>words</p>',
    "canonical dotless": '<l\u0130nk rel="CANON\u0131CAL" href="https://x.org/docs/api/">',
    "canonical kelvin": '<lin\u212a rel=canonical href=\'https://x.org/forum/t/12345\'>',
    "canonical stops": '<link rel=canonical href=https://x.org/a\u3000b><link rel=canonical href=/c>',
    "canonical none": '<link rel=canonical href=""><link rel="canonical" href=">',
    "canonical 80": '<link' + "x" * 80 + 'rel=canonical' + "y" * 80 + 'href=/p/1>',
    "canonical 81": '<link' + "x" * 81 + 'rel=canonical href=/p/1>',
    "words": "<p>Reply QUOTE quote Quote replies Stock STOC\u212a \u212aook bo\u212aok book. Book</p>"
             "<p>cart\u00a0sku\u2003price\u3000page\u2028all\x1cmore\x85view\u180eload</p>",
    "currency and digits": "<p>$5 €3 £ ¥100 $ ² ③ ٣ 7th ⅷ ¼ ＄9 x$ ０ \U0001d7ce \U0001f100</p>",
    "non-ascii text": "<p>Ελληνικά ΣΟΦΟΣ ΣΑΣ İstanbul ß ﬃ 東京 emoji 😀 ok</p>",
    "nul and controls": "<p>a\x00b price\x00 \x01cart\x7f</p>\x00<meta property=og:type content=article\x00>",
    "lists and tables": "<ul>" + "<li><a href=/x>item</a> text</li>" * 40 + "</ul><table>"
                        + "<tr><td>k</td><td>v</td></tr>" * 30 + "</table><pre>code\n" * 5 + "</pre>"
                        "<h1>a</h1><h2>b</h2><h1>c</h1><form><label>x</label></form><dl><dt>t</dt></dl>",
    "nav and main": "<header><nav><a href=/>Home</a></nav></header><main><article><h3>T</h3>"
                    "<blockquote>q</blockquote></article></main><aside>s</aside><footer>f</footer>",
}


@pytest.mark.parametrize("name", list(EDGE_PAGES))
def test_c_signals_equal_python_on_edge_cases(name):
    _page(EDGE_PAGES[name])


def test_no_blocks_and_a_page_without_html():
    _same(Blocks(), "")
    _same(Blocks(), EDGE_PAGES["type array"] + EDGE_PAGES["og forms"])
    b = segment(parse("<p>Price $5</p>"))
    _same(b, "")


def test_past_the_scan_bounds():
    """Declared types, og:type and canonical link read only the first _SCAN_CHARS characters,
    the words only the first _TEXT_SCAN characters of the text: across and past both bounds."""
    pad = P._SCAN_CHARS - 40
    body = "<p>" + "x" * pad + "</p>"
    for tail in ('"@type": "Product"', '<meta property="og:type" content="product">',
                 '<link rel=canonical href=/products/x>', 'itemtype="https://schema.org/Product"',
                 '"@type": "Product"' + " " * 60 + '"@type": "Offer"'):
        for shift in (-30, -10, -1, 0, 1, 10, 30):
            html = body[: len(body) + shift] + tail
            _same(Blocks(), html)
    # the words: a lexicon word straddling the 20,000th character, in one text and across texts
    for cut in range(P._TEXT_SCAN - 8, P._TEXT_SCAN + 3):
        words = "a " * ((cut - 6) // 2)
        text = words + (" " if cut % 2 else "") + "warranty $5 ²"
        b = Blocks(texts=[text])
        b.__dict__["_counts"] = np.zeros((1, 3))
        b.__dict__["_container_ids"] = np.zeros((1, 10), dtype=np.int64)
        b.flags, b.tag = [0], [0]
        _same(b, "")
        b2 = Blocks(texts=[words[: cut - 4], "price", "cart"])
        b2.__dict__["_counts"] = np.ones((3, 3))
        b2.__dict__["_container_ids"] = np.zeros((3, 10), dtype=np.int64)
        b2.flags, b2.tag = [0, 0, 0], [1, 2, 3]
        _same(b2, "")


def test_hostile_pages():
    """Megabytes, deep nesting, NUL bytes, lone surrogates: the same values, no crash."""
    big = "<html><body>" + "".join(f"<div class=c{i % 7}><p>item {i} $5 price</p></div>"
                                   for i in range(60_000))
    _same(segment(parse(big)), big)
    deep = "<div>" * 20_000 + "<p>deep text here</p>" + "</div>" * 20_000
    _same(segment(parse(deep)), deep)
    sur = '<meta property="og:type" content="a\ud800rticle">"@type": "\udfffProduct" <p>x\ud800 $\udc00</p>'
    b = Blocks(texts=["x\ud800 $5 \udc00cart", "\x00price"])
    b.__dict__["_counts"] = np.ones((2, 3))
    b.__dict__["_container_ids"] = np.arange(20, dtype=np.int64).reshape(2, 10)
    b.flags, b.tag = [1, 2], [3, 4]
    _same(b, sur)
    nul = "\x00" * 1000 + '"@type":"Product"' + "\x00<meta property=og:type content=article>"
    _same(segment(parse(nul)), nul)
    many = '"@type":"Product",' * 100_000
    _same(Blocks(), many)


_N_URL = 8 + len(P._URL_WORDS)  # url_known .. url_html, then the word groups


def _c_url(u: str) -> np.ndarray:
    """The URL's signals in C (head_signals of no HTML, with numpy's log1p as page_signals)."""
    assert P._c is not None
    x = np.array(P._c.head_signals("", u, P._SCAN_CHARS))
    x[P._HEAD_LOG1P] = np.log1p(x[P._HEAD_LOG1P])
    return x[-_N_URL:]


def _same_url(u: str) -> None:
    """The C URL signals are the reference's (urlsplit's); where urlsplit raises on the netloc,
    C reads the URL like any other: its path and query as with a well-formed netloc."""
    got = _c_url(u)
    try:
        ref = np.array(oracle.url_signals(u))
    except ValueError:
        ref = np.array(oracle.url_signals_unchecked(u))
    names = P.feature_names()[P._N_HEAD - _N_URL:P._N_HEAD]
    assert np.array_equal(got, ref), (u, [(names[i], got[i], ref[i]) for i in np.flatnonzero(got != ref)])


ODD_URLS = [
    "http://x.com/2019/a-b-c.HTML", "HTTP://X.COM/BLOG/Some-Post.HTM", "https://x.com/blog/2021/07/",
    "http://[::1]/blog/2019/a-b", "http://[::1/docs/x", "http://[v1.fe]/docs/", "http://]x/forum/t/1",
    "http://[zz]/p/123", "http://a\uff03b/x", "http://\u2100/shop/", "example.com/blog/a-b", "//host/p/12345",
    "//host", "///a/b", "/", "", "?", "#", "?q=1", "#/blog/2019/", "http://x.com/a#/blog/2019/x",
    "http://x.com/?q=1", "http://x.com/a?", "http://x.com/a?#f", "http://x.com/a#f?q=1",
    "http://x.com/%62log/a%2Db.html", "http://x.com/\u30d6\u30ed\u30b0/2020/\u8a18\u4e8b",
    "http://x.com/\u212ab/s\u212au", "http://x.com/\u0130/a.HTM\u0130", "http://x.com/\u0130l/x.php",
    "http://x.com/" + "a-" * 5000, "http://x.com" + "/a" * 5000, "/" + "1" * 3000,
    "\x00 \thttp://x.com/blog", "http://x.com/bl\tog/ne\nws/\r", " \x1f//x/docs", "\x7fhttp://x.com/blog",
    "mailto:a@b.c", "a:b/blog", "1http:/x/blog", "+x:/blog", "javascript:void(0)", "http:", "http://", ":",
    "http:/2019/", "/123", "/12-", "/1234-a", "/123_", "/123a", "/\u0661\u0662\u0663/", "/20\u0662\u0663/",
    "/\u00b2\u00b3\u00b9/", "/2019", "/1999/x", "/2100/x", "tags/", "/C/", "/p", "/what-we-do/",
    "/WHAT-WE-DO", "/what_we_do", "http://x.com/ap\u0131/", "/\ud800/blog", "/blog\U0001f600/",
    "http://x.com:80/docs/api?x#y", "http://user:pw@x.com/forum/", "s3://b/k/t", "HtTp://X/S/",
    "http://x.com/a.html/", "/a.html?x", "/a.aspx#x", "/.php", "/a.php5", "http://x.com/a/b/c/d/e/f/g",
]


@pytest.mark.parametrize("url", ODD_URLS)
def test_url_signals_equal_python_on_odd_urls(url):
    _same_url(url)


_URL_PIECES = ["http", "HTTPS", ":", "//", "/", "?", "#", "[", "]", "::1", "x.com", "2019", "20", "19", "123",
               "1234", "-", "_", ".", "+", ".html", ".HTML", ".htm", ".php", "aspx", "blog", "News", "p", "t",
               "what-we-do", "\u212ab", "sku", "\t", "\n", "\r", " ", "\x00", "\x1f", "%20", "\u00e9",
               "\u0130", "\u0663\u0664\u0665", "@", "user:pw", "mailto:", "1a:", "+x:", "\ud800",
               "\U0001f600", "\u2028", "\x7f", "\uff03"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_URL_PIECES) | st.text(max_size=4), max_size=16).map("".join))
def test_url_signals_equal_python_on_random_urls(url):
    _same_url(url)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_url_signals_equal_python_on_any_text(url):
    _same_url(url)


def test_the_url_in_page_signals_and_the_kind_model():
    """The URL given, else the canonical link, through page_signals and kind_proba."""
    html = '<link rel=canonical href="HTTP://x.com/Blog/2019/a-b.HTML?x"><p>Price $5 cart</p>'
    blocks = segment(parse(html))
    for url in (None, "", "http://x.com/p/12345", " \t", "http://[::1]/docs/api", "/" + "a/" * 5000):
        assert np.array_equal(P.page_signals(blocks, html, url), oracle.page_signals(blocks, html, url)), url
        assert _same_kind(blocks, html, url), url


def test_a_malformed_canonical_link_does_not_fail_the_page():
    """urlsplit raises ValueError on an unclosed IPv6 bracket; the page's kind reads it anyway."""
    from ce_filter import extract

    html = "<link rel=canonical href=http://[x/blog/><p>Some words of text in a paragraph here.</p>"
    assert "Some words" in extract(html).text
    assert "Some words" in extract(html.replace("[x/blog/", "x.com/"), "http://[::1/x").text


def test_random_pages():
    """Pages stitched at random from the pieces the matchers care about."""
    rng = random.Random(14)
    pieces = ['"@type"', ":", " ", "[", '"', "https://schema.org/", "http://", "Product", "itemtype=",
              "'", "<meta", " property=", "og:type", " content=", "article", ">", "<link", " rel=",
              "canonical", " href=", "/blog/x", "<p>", "</p>", "Price $5 ", "² ", "cart ", "\u212a",
              "\u0130", "\u00a0", "<li>", "<a href=/x>", "</a>", "<h2>", "x" * 90, "\u3000", "ſ",
              "<pre>", "<table><tr><td>", "NAME=", "Og:Type", "\x00", "é"]
    for _ in range(300):
        html = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 120)))
        _page(html)


def test_bad_arguments_raise_instead_of_crashing():
    c = P._c
    i8, f8 = np.zeros(3, dtype=np.int64), np.zeros(9)
    with pytest.raises(ValueError):
        c.block_signals(f8, i8, i8, np.zeros(29, dtype=np.int64))  # cont too short
    with pytest.raises(ValueError):
        c.block_signals(np.zeros(9, dtype=np.float32), i8, i8, np.zeros(30, dtype=np.int64))
    with pytest.raises(ValueError):
        c.block_signals(f8, i8.astype(np.float64), i8, np.zeros(30, dtype=np.int64))
    with pytest.raises(ValueError):
        c.block_signals(f8[::2], i8, i8, np.zeros(30, dtype=np.int64))
    with pytest.raises(TypeError):
        c.text_signals(["a", 1], 100)
    with pytest.raises(TypeError):
        c.scan_html(b"<html>", 10, True)
    assert c.scan_html("<html>", -5, True) == (0, None, None)
    k = _KIND
    assert k is not None
    good = ("<html>", None, 100, f8, i8, i8, np.zeros(30, dtype=np.int64), "a\nb\nc", 100, P._C_LOG1P,
            k.mean, k.scale, k.coef, k.intercept, np.empty(len(k.kinds)))
    c.kind_proba(*good)
    assert np.isclose(good[-1].sum(), 1.0)
    with pytest.raises(ValueError):  # the signals' width does not add up to the model's
        c.kind_proba(*good[:10], k.mean[1:], *good[11:])
    with pytest.raises(ValueError):
        c.kind_proba(*good[:9], np.array([10_000]), *good[10:])  # log1p past the signals
    with pytest.raises(TypeError):
        c.kind_proba(*good[:7], ["a", 1, "c"], *good[8:])
    with pytest.raises(TypeError):
        c.kind_proba(good[0], b"http://x.com/", *good[2:])  # the URL: str or None
    with pytest.raises(TypeError):
        c.head_signals("<html>", 5, 100)
    assert c.head_signals("<html>", "", -1) == c.head_signals("", None, 100) == (0.0,) * P._N_HEAD
    assert c.text_signals("", 20_000)[:3] == (0, 0, 0)


def _all_chars() -> str:
    return "".join(map(chr, range(sys.maxunicode + 1)))


def _matches(rx: str, s: str, flags: int = 0) -> np.ndarray:
    out = np.zeros(len(s), dtype=bool)
    out[[m.start() for m in re.finditer(rx, s, flags)]] = True
    return out


def test_character_classes_are_pythons_on_every_code_point():
    """What the C matchers take a character for is what Python's re and str take it for."""
    s = _all_chars()
    raw, folds = P._c.charclass(s)
    cls = np.frombuffer(raw, dtype=np.uint8)
    fold = np.frombuffer(folds, dtype=np.uint8)
    bits = {1: _matches(r"\s", s), 2: _matches(r"[\w.:-]", s, re.I), 4: _matches(r"[^\"'\s>]", s, re.I),
            8: _matches("[A-Za-z]", s, re.I), 32: np.isin(np.arange(len(s)), [ord(c) for c in P._CURRENCY])}
    bits[16] = np.zeros(len(s), dtype=bool)
    bits[16][[m.start() // 2 for m in oracle.DIGIT_START.finditer(" " + " ".join(s))]] = True
    for bit, want in bits.items():
        got = (cls & bit) != 0
        assert np.array_equal(got, want), (bit, [hex(i) for i in np.flatnonzero(got != want)[:10]])
    assert np.array_equal((cls & 1) != 0, np.array([c.isspace() for c in s]))  # str.split's spaces
    for letter in sorted(set("httpsschemaorgmetapropertynamecontentlinkrelcanonicalhref")):
        want = _matches(re.escape(letter), s, re.I)
        assert np.array_equal(fold == ord(letter), want), letter


URL_DELIMS = set("/-_.+:?#\t\r\n")


def test_lower_case_facts_the_c_word_count_relies_on():
    """The C count does not lower-case: it relies on these (true of Python's str.lower on every
    code point; a new Unicode version could break one, and then this test says so)."""
    s = _all_chars()
    lowered_ascii = [hex(i) for i, c in enumerate(s) if i > 127 and c.lower().isascii()]
    assert lowered_ascii == ["0x212a"] and "\u212a".lower() == "k"
    assert all(c.lower() == c for c in map(chr, range(32, 127)) if not c.isupper())
    for i, c in enumerate(s):
        low = c.lower()
        assert low, hex(i)
        if c.isspace() or any(ch.isspace() for ch in low):
            assert low == c, hex(i)
        if low[0] != c:
            assert not oracle.DIGIT_START.match(" " + low[0]) and not oracle.DIGIT_START.match(" " + c)
            assert low[0] not in P._CURRENCY and c not in P._CURRENCY
        # the URL's signals (head_signals): only U+0130 becomes two characters, and no
        # character lower-cases to or from a separator, an urlsplit delimiter or a decimal digit
        if len(low) != 1:
            assert c == "\u0130" and low == "i\u0307", hex(i)
        if low != c:
            assert not set(low + c) & URL_DELIMS and not any(ch.isdecimal() for ch in low + c), hex(i)


@pytest.mark.corpus
def test_c_signals_equal_python_on_every_corpus_page(data_dir):
    """Every page of every corpus, without and with its URL: the C vector is the reference's."""
    pages, differ = 0, []
    for corpus, doc, html, blocks in every_page(data_dir):
        pages += 1
        for url in {None, doc.url or None}:
            c, py = P.page_signals(blocks, html, url), oracle.page_signals(blocks, html, url)
            if not (np.array_equal(c, py) and _same_kind(blocks, html, url)):
                differ.append(f"{corpus}/{doc.id} url={url}")
    assert pages > 3000 and not differ, (pages, differ[:10])


@pytest.mark.parametrize("signals", [P.page_signals, oracle.page_signals], ids=["page_signals", "reference"])
def test_edge_cases_read_what_they_should(signals):
    """What the matchers find in a few edge cases (both paths), beside their being equal."""
    want = {"type array": {"ld_product", "ld_any"},
            "itemtype": {"ld_product", "ld_list", "ld_person", "ld_any"},
            "og upper": {"og_product"}, "og 80": {"og_product"}, "og 81": set(),
            "og 81 quote": {"og_product"}, "og quote only": set(),
            "canonical 80": {"url_known", "url_product"}, "canonical 81": set(),
            "canonical kelvin": {"url_known", "url_forum"}}
    named = {k for k in P.feature_names() if k.startswith(("ld_", "og_", "url_known"))}
    for name, on in want.items():
        html = EDGE_PAGES[name]
        x = dict(zip(P.feature_names(), signals(segment(parse(html)), html, None)))
        got = {k for k, v in x.items() if v and k.startswith(("ld_", "og_", "url_"))}
        assert on <= got and not (got - on) & named, name
    x = dict(zip(P.feature_names(), signals(segment(parse(EDGE_PAGES["words"])), "", None)))
    assert x["w_product"] > 0 and x["w_service"] > 0  # STOC\u212a and \u212aook count as stock and book


def test_the_log1p_table_is_numpys_scalar_log1p():
    """kind_proba reads the URL's counts' log1p from this table: np.log1p's values, which page_signals
    and the reference take (numpy's SIMD log1p is not libm's, bit for bit)."""
    assert P._LOG1P_TABLE == [float(np.log1p(k)) for k in range(len(P._LOG1P_TABLE))]
    assert [oracle.log1p_count(k) for k in range(100)] == P._LOG1P_TABLE[:100]
