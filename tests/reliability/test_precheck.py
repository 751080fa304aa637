"""The pre-parse scan: hostile shapes get an empty result with a reason (or are cut), quickly
and in little memory; normal pages never trip it; the C scan and its Python reference agree."""

from __future__ import annotations

import gzip
import random
import subprocess
import sys
import textwrap
import time

import pytest

import ce_filter
from ce_filter.read import precheck
from ce_filter.read.precheck import DEFAULT_LIMITS, Limits, check, scan
from tests.oracles.precheck_scan import scan as oracle_scan

from .hostile import shapes

CAPS = (DEFAULT_LIMITS.max_elements, DEFAULT_LIMITS.max_attr_work, DEFAULT_LIMITS.max_nesting_work,
        DEFAULT_LIMITS.max_reconstructed)
NO_CAPS = (1 << 62,) * 4
c_scan = precheck._c.scan


def test_every_hostile_shape_is_refused_or_cut():
    for name, page in shapes().items():
        at, why = check(page)
        assert why.startswith("too costly to parse") or at < len(page), name
        r = ce_filter.extract(page)
        assert (r.reason.startswith("too costly to parse") and not r.text) or r.truncated, name


def test_hostile_shapes_finish_within_a_memory_limit():
    """Unguarded, the formatting shape alone peaks at 3.4 GB: in a child with a 1 GiB address
    space every shape must finish (a timeout here is a hang guard, not a timing test)."""
    code = textwrap.dedent("""
        import resource
        import ce_filter
        from tests.reliability.hostile import shapes
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        for name, page in shapes().items():
            r = ce_filter.extract(page)
            print(name, "|", r.reason, "|", r.truncated, flush=True)
    """)
    # `python -c` has its working directory (the checkout's root) on its path: tests.* imports
    root = __import__("pathlib").Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=root)
    assert out.returncode == 0, out.stderr[-2000:]
    assert len(out.stdout.splitlines()) == len(shapes())


def test_normal_pages_pass_untouched():
    page = b"<html><body><div class=a><p>Some <b>bold</b> and <i>it</i> text.</p></div></body></html>"
    s = scan(page)
    assert s.over == precheck.OVER_NONE and s.stop == len(page) and s.elements == 6
    assert check(page) == (len(page), "")


def test_too_many_elements_cuts_the_page_there():
    page = b"<p>Para graph words here.</p>" * 300
    r = ce_filter.Extractor(limits=Limits(max_elements=100)).extract(page)
    assert r.truncated and not r.reason
    assert r.text.count("Para graph") in range(90, 130)
    assert not ce_filter.Extractor().extract(page).truncated


def test_each_cap_has_its_reason():
    ex = ce_filter.Extractor(limits=Limits(max_attr_work=100, max_nesting_work=1000,
                                           max_reconstructed=10))
    assert "attributes" in ex.extract(b"<p " + b" ".join(b"a%d" % i for i in range(20)) + b">x").reason
    assert "nesting" in ex.extract(b"<div>" * 100 + b"x").reason
    assert "formatting" in ex.extract(
        b"<div>" + b"".join(b"<b c=%d>" % i for i in range(20)) + b"</div>" + b"<p>x</p>" * 20).reason


def test_utf16_pages_and_str_input_are_scanned_too():
    hostile = "<div>" * 100_000 + "x"
    for data in (b"\xff\xfe" + hostile.encode("utf-16-le"), hostile):
        assert ce_filter.extract(data).reason == "too costly to parse: nesting too deep"


def test_ebcdic_is_not_a_page_charset():
    """EBCDIC's '<' is not 0x3C: the raw-byte scan would not see its tags."""
    page = b'<meta charset="cp500">' + "<div>".encode("cp500") * 100_000
    r = ce_filter.Extractor().extract(page, encoding="cp500")
    assert r.encoding != "cp500"


def _random_pages(n: int, seed: int):
    rng = random.Random(seed)
    alphabet = [b"<", b">", b"/", b"!", b"-", b'"', b"'", b"=", b" ", b"\n", b"a", b"b", b"div",
                b"p", b"td", b"table", b"script", b"</script", b"x", b"B", b"font", b"<b>", b"</b>",
                b"<a>", b"<td>", b"<!--", b"-->", b"\x00", b"\xff", b"li", b"/>", b"nobr", b"TITLE",
                b"plaintext", b"<i x=1>", b"</i>", b"<div>", b"</div>", b"caption", b"?", b"<select>",
                b"</select>", b"<option>", b"<OPTION x=1>", b"option", b"<input>", b"<optgroup>"]
    for _ in range(n):
        yield b"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300)))


def test_c_scan_equals_the_python_oracle():
    rng = random.Random(7)
    for page in _random_pages(5000, 3):
        caps = (rng.randint(0, 60), rng.randint(0, 60), rng.randint(0, 300), rng.randint(0, 30),
                rng.randint(0, 3))
        assert c_scan(page, *NO_CAPS) == oracle_scan(page, *NO_CAPS), page[:200]
        assert c_scan(page, *caps) == oracle_scan(page, *caps), (page[:200], caps)
    for name, page in shapes().items():  # with the caps: uncapped they are quadratic by design
        assert c_scan(page, *CAPS) == oracle_scan(page, *CAPS), name


@pytest.mark.corpus
def test_no_corpus_page_trips_the_caps(data_dir):
    """The caps sit far above every labelled page (fuzz/corpus_margins.py prints the margins);
    the C scan and its Python oracle agree on a sample of them."""
    n = 0
    for html in sorted(data_dir.glob("*/html")):
        for i, f in enumerate(sorted(html.iterdir())):
            page = f.read_bytes()
            page = gzip.decompress(page) if f.suffix == ".gz" else page
            assert check(page) == (len(page), ""), f
            if i % 50 == 0:
                assert c_scan(page, *CAPS) == oracle_scan(page, *CAPS), f
            n += 1
    assert n > 3000


def test_a_select_past_its_option_cap_has_the_rest_renamed():
    """Options past the cap in one select are renamed ``<source`` (same length); options of
    another select, or after the select was closed, are left alone."""
    lim = Limits(max_select_options=2)
    page = (b"<select><option>a<OPTION x=1>b<option>c<optgroup><option>d</select><option>e"
            b"<select><option>f<option>g<input><option>h<select><option>i<option>j<select><option>k")
    s = scan(page, lim)
    assert s.options_max == 4 and s.calmed == 2
    assert s.page == page.replace(b"<option>c", b"<source>c").replace(b"<option>d", b"<source>d")
    assert len(s.page) == len(page)
    assert scan(page).page is None  # the default cap: nothing renamed
    for cap in range(0, 6):
        assert c_scan(page, *NO_CAPS, cap) == oracle_scan(page, *NO_CAPS, cap), cap


def test_a_flood_of_options_parses_quickly_with_the_same_text():
    """Lexbor inserts the options of one select in quadratic time (50,000: seconds to a
    minute); past the cap they are not parsed as options, and the text is the same."""
    prose = b"A sentence of plain prose for the page. " * 30
    article = b"<article><h1>A title</h1><p>" + prose + b"</p></article>"
    small = (b"<html><body>" + article + b"<form><select>" + b"<option value=1>x" * 10
             + b"</select></form></body></html>")
    flood = small.replace(b"<option value=1>x" * 10, b"<option value=1>x" * 60_000)
    ex = ce_filter.Extractor()
    t0 = time.process_time()
    r = ex.extract(flood)
    took = time.process_time() - t0
    assert r.text and r.text == ex.extract(small).text and not r.reason
    assert took < 3.0, took  # unguarded: 3 s to a minute on one core


def test_the_scan_is_bounded_by_its_caps():
    """A page far past a cap stops the scan early: ``stop`` is near where the cap was passed."""
    page = b"<div>" * 1_000_000
    s = scan(page)
    assert s.over == precheck.OVER_NESTING and s.stop < len(page) // 10


def test_token_cache_is_bounded_by_characters():
    from ce_filter.read import segment

    for k in range(40):  # 40 pages of 2,000 unique class values of ~60 characters
        page = "".join(f'<div class="gen-{k}-{i}-{"x" * 50}">t</div>' for i in range(2000))
        ce_filter.extract(page.encode())
        assert segment._token_cache_chars <= segment.TOKEN_CACHE_CHARS + 2 * 256 + 64
        assert sum(2 * len(v) + 64 for v in segment._token_cache) == segment._token_cache_chars
    long_value = "y" * 10_000
    segment.name_tokens(long_value)
    assert long_value not in segment._token_cache
