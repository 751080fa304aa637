"""Text, Markdown, HTML, XML, JSON and CSV from the kept blocks: one fixture per construct."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ce_filter.keep.render import (
    CSV_COLUMNS,
    FORMATS,
    Extras,
    absolute,
    base_url,
    front_matter,
    render_extraction,
    to_csv,
    to_html,
    to_json,
    to_markdown,
    to_text,
    to_xml,
)
from tests.oracles import walk_python


def blocks_of(body: str):  # type: ignore[no-untyped-def]
    b = walk_python.walk(f"<html><body>{body}</body></html>")
    return b, np.ones(len(b), dtype=bool)


def test_headings_and_paragraphs() -> None:
    b, keep = blocks_of("<h1>Title</h1><p>First para.</p><h3>Sub *part*</h3><p># not a heading</p>")
    assert to_markdown(b, keep) == "# Title\n\nFirst para.\n\n### Sub \\*part\\*\n\n\\# not a heading\n"


def test_lists_bulleted_numbered_and_separate() -> None:
    b, keep = blocks_of("<ul><li>one</li><li>two</li></ul><ol><li>first</li><li>second</li></ol>"
                        "<ul><li>again</li></ul>")
    ordered = {i for i, t in enumerate(b.texts) if t in ("first", "second")}
    md = to_markdown(b, keep, Extras(ordered=ordered))
    assert md == "- one\n- two\n\n1. first\n2. second\n\n- again\n"
    h = to_html(b, keep, Extras(ordered=ordered))
    assert "<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n<ol>\n<li>first</li>\n<li>second</li>\n</ol>\n<ul>" in h


def test_code_block_keeps_its_lines_and_fence_outgrows_backticks() -> None:
    code = 'fetch("/data.json")\n  .then(r => r.json())  // ```'
    b, keep = blocks_of(f"<p>Before.</p><pre>{code}</pre>")
    i = b.texts.index('fetch("/data.json") .then(r => r.json()) // ```')
    md = to_markdown(b, keep, Extras(pre={i: code}))
    assert md == f"Before.\n\n````\n{code}\n````\n"
    assert f"<pre><code>{code.replace('>', '&gt;')}</code></pre>" in to_html(b, keep, Extras(pre={i: code}))
    # without the walk's raw text, the block's own (normalised) text still comes out fenced
    assert "```\nfetch(" in to_markdown(b, keep)


def test_table() -> None:
    b, keep = blocks_of("<table><tr><th>Name</th><th>Value</th></tr><tr><td>a|b</td><td>1</td></tr>"
                        "<tr><td>c</td></tr></table><p>After.</p>")
    md = to_markdown(b, keep)
    assert md == "| Name | Value |\n|---|---|\n| a\\|b | 1 |\n| c |  |\n\nAfter.\n"
    assert "<tr><th>Name</th><th>Value</th></tr>" in to_html(b, keep)


def test_layout_table_cells_become_paragraphs() -> None:
    long = "word " * 80
    b, keep = blocks_of(f"<table><tr><td>{long}</td><td>{long}x</td></tr></table>")
    assert "|" not in to_markdown(b, keep)


def test_links_images_and_quotes_optional() -> None:
    b, keep = blocks_of('<p>See <a href="/docs (v2)">the docs</a> and <a href="https://x.org">x</a>.</p>'
                        "<blockquote>Quoted words</blockquote>")
    ex = Extras(links=[(0, "the docs", "/docs (v2)"), (0, "x", "https://x.org")],
                images=[(0, "A chart", "c.png")])
    assert to_markdown(b, keep, ex) == "See the docs and x.\n\n> Quoted words\n"
    md = to_markdown(b, keep, ex, links=True, images=True)
    assert md == ("See [the docs](</docs (v2)>) and [x](https://x.org).\n\n![A chart](c.png)\n\n"
                  "> Quoted words\n")
    h = to_html(b, keep, ex, links=True, images=True)
    assert '<a href="/docs (v2)">the docs</a>' in h and '<img src="c.png" alt="A chart">' in h


def test_only_kept_blocks_and_escaping() -> None:
    b, keep = blocks_of("<p>Menu</p><p>Body &lt;script&gt; text</p>")
    keep[0] = False
    assert to_markdown(b, keep) == "Body \\<script\\> text\n"
    h = to_html(b, keep, title="T <x>", lang="en")
    assert "Menu" not in h and "&lt;script&gt;" in h
    assert "<title>T &lt;x&gt;</title>" in h and 'lang="en"' in h
    assert to_markdown(b, np.zeros(len(b), dtype=bool)) == ""


def test_walk_records_the_extras_end_to_end() -> None:
    """From the page to Markdown through Extractor: the walk records a code block's lines,
    numbered lists, link targets and image alt text (every block kept: threshold 0)."""
    from ce_filter.api import Extractor

    page = ("<html><body><h2>Install</h2><p>Read <a href='/guide'>the guide</a> first.</p>"
            "<img src='shot.png' alt='A  screenshot'><ol><li>Download</li><li>Run</li></ol>"
            "<pre>fetch(\"/data.json\")\n  .then(r =&gt; r.json())</pre>"
            "<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table></body></html>")
    r = Extractor(threshold=0.0).extract(page)
    md = r.to_markdown(links=True, images=True)
    assert md == ("## Install\n\nRead [the guide](/guide) first.\n\n![A screenshot](shot.png)\n\n"
                  "1. Download\n2. Run\n\n```\nfetch(\"/data.json\")\n  .then(r => r.json())\n```\n\n"
                  "| k | v |\n|---|---|\n| a | 1 |\n")
    plain = r.to_markdown()
    assert "[the guide]" not in plain and "![" not in plain and "Read the guide first." in plain
    h = r.to_html(links=True, images=True)
    assert '<a href="/guide">the guide</a>' in h and '<ol>\n<li>Download</li>' in h
    assert '<pre><code>fetch("/data.json")\n  .then(r =&gt; r.json())</code></pre>' in h


# ------------------------------------------------------------------ plain text


def test_text_keeps_a_table_row_per_line() -> None:
    b, keep = blocks_of("<p>Before.</p><table><tr><th>Member</th><th>Vote</th></tr>"
                        "<tr><td>Alvarez</td><td>Yes</td></tr><tr><td>Chen</td><td>No</td></tr></table>"
                        "<p>After.</p>")
    assert to_text(b, keep) == "Before.\n\nMember | Vote\nAlvarez | Yes\nChen | No\n\nAfter."


def test_text_tables_apart_and_layout_cells_as_paragraphs() -> None:
    long = " ".join(["word"] * 80)
    b, keep = blocks_of("<table><tr><td>a</td><td>1</td></tr></table><table><tr><td>b</td></tr></table>"
                        f"<table><tr><td>{long}</td><td>{long} x</td></tr></table>")
    assert to_text(b, keep) == f"a | 1\n\nb\n\n{long}\n\n{long} x"
    # a dropped cell leaves its row's kept cells together
    b, keep = blocks_of("<table><tr><td>a</td><td>menu</td><td>1</td></tr></table>")
    keep[1] = False
    assert to_text(b, keep) == "a | 1"


def test_text_keeps_code_lines_from_the_extras_and_calls_for_them_only_with_code() -> None:
    code = "def f():\n    return 1\n"
    b, keep = blocks_of(f"<p>Before.</p><pre>{code}</pre><p>After.</p>")
    asked: list[int] = []

    def extras() -> Extras:
        asked.append(1)
        return Extras(pre={1: code})

    assert to_text(b, keep, extras) == "Before.\n\ndef f():\n    return 1\n\nAfter."
    assert asked == [1]
    keep[1] = False
    assert to_text(b, keep, extras) == "Before.\n\nAfter." and asked == [1]  # no code kept: no call
    keep[1] = True
    assert to_text(b, keep) == "Before.\n\ndef f(): return 1\n\nAfter."  # no extras: the block's text


def test_text_without_tables_or_code_is_the_blocks_joined() -> None:
    b, keep = blocks_of("<h1>T</h1><p>One.</p><ul><li>a</li><li>b</li></ul><blockquote>q</blockquote>")
    assert to_text(b, keep) == "\n\n".join(b.texts)
    assert to_text(b, np.zeros(len(b), dtype=bool)) == ""


# ------------------------------------------------------------------ links made absolute


@pytest.mark.parametrize(("page", "url", "base"), [
    ("<p>x</p>", "https://e.org/a/b.html", "https://e.org/a/b.html"),
    ("<p>x</p>", None, ""),  # nothing to resolve against: links stay as written
    ("<p>x</p>", "page.html", ""),
    ("<head><base href='/static/'></head>", "https://e.org/a/b.html", "https://e.org/static/"),
    ('<head><BASE target=_blank HREF="https://cdn.org/x/"></head>', None, "https://cdn.org/x/"),
    ("<head><base href='/static/'></head>", None, ""),  # a relative base and no url
    ("<head><base data-href='/no/'><base href='first/'><base href='/second/'></head>",
     "https://e.org/a/", "https://e.org/a/first/"),
    ("<head><base target=_top></head>", "https://e.org/a", "https://e.org/a"),
    ("<head><base href='/q?a=1&amp;b=2'></head>", "https://e.org/a", "https://e.org/q?a=1&b=2"),
    ("<p>x</p>", "http://[bad", ""),
])
def test_base_url(page: str, url: str | None, base: str) -> None:
    assert base_url(page, url) == base


def test_links_and_images_resolved_against_the_base() -> None:
    ex = Extras(links=[(0, "a", "/authors/maria"), (0, "b", "petition.html"), (0, "c", "mailto:x@e.org"),
                       (0, "d", "#top"), (0, "e", "http://[bad")],
                images=[(0, "i", "../img/m.jpg"), (0, "j", "//cdn.org/k.png")])
    r = ex.resolved("https://e.org/news/2024/story.html")
    assert [h for _, _, h in r.links] == ["https://e.org/authors/maria", "https://e.org/news/2024/petition.html",
                                          "mailto:x@e.org", "https://e.org/news/2024/story.html#top",
                                          "http://[bad"]
    assert [s for _, _, s in r.images] == ["https://e.org/news/img/m.jpg", "https://cdn.org/k.png"]
    assert ex.resolved("") is ex and absolute("https://e.org/", "  a b ") == "https://e.org/a b"


# ------------------------------------------------------------------ XML


def test_xml_is_trafilatura_shaped_and_well_formed() -> None:
    import xml.etree.ElementTree as ET

    b, keep = blocks_of("<h2>Vote &amp; count</h2><p>Read <a href='/g'>the guide</a>\x01 now.</p>"
                        "<ol><li>one</li><li>two</li></ol><table><tr><th>k</th><th>v</th></tr>"
                        "<tr><td>a</td><td>1</td></tr></table><pre>x = 1\ny = 2</pre>"
                        "<blockquote>Quoted</blockquote>")
    i_pre = b.texts.index("x = 1 y = 2")
    ex = Extras(pre={i_pre: "x = 1\ny = 2"}, ordered={2, 3}, links=[(1, "the guide", "/g")],
                images=[(1, "A <chart>", "c.png")])
    doc = to_xml(b, keep, ex, links=True, images=True,
                 meta={"title": 'A "quoted" & <odd> title', "author": "", "date": "2024-03-05"})
    root = ET.fromstring(doc)
    assert root.tag == "doc" and root.attrib == {"title": 'A "quoted" & <odd> title', "date": "2024-03-05"}
    main, comments = list(root)
    assert main.tag == "main" and comments.tag == "comments" and len(comments) == 0
    assert [e.tag for e in main] == ["head", "p", "graphic", "list", "table", "code", "quote"]
    head, p, graphic, lst, table, code, quote = main
    assert head.attrib == {"rend": "h2"} and head.text == "Vote & count"
    assert p.text == "Read " and p[0].tag == "ref" and p[0].attrib == {"target": "/g"}
    assert p[0].text == "the guide" and p[0].tail == " now."  # the control character is dropped
    assert graphic.attrib == {"src": "c.png", "alt": "A <chart>"}
    assert lst.attrib == {"rend": "ol"} and [e.text for e in lst] == ["one", "two"]
    assert [[(c.text, c.get("role")) for c in row] for row in table] == [
        [("k", "head"), ("v", "head")], [("a", None), ("1", None)]]
    assert code.text == "x = 1\ny = 2" and quote[0].tag == "p" and quote[0].text == "Quoted"
    # without links the anchors are text; nothing kept: an empty <main/>
    assert "<ref" not in to_xml(b, keep, ex)
    assert ET.fromstring(to_xml(b, np.zeros(len(b), dtype=bool))).find("main") is not None


# ------------------------------------------------------------------ metadata in trafilatura's names


def page(**kw: object) -> SimpleNamespace:
    """What the formats read of an Extraction."""
    base: dict[str, object] = dict(
        url="", canonical_url="", title="", author="", description="", sitename="", date="", language="",
        page_type="", page_type_prob=None, html_title="", reason="", text="")
    return SimpleNamespace(**{**base, **kw})


def test_json_uses_trafilaturas_names_and_null_where_none() -> None:
    r = page(url="https://www.e.org/a", canonical_url="https://e.org/a", title="T", sitename="Site",
             description="D", page_type="article", page_type_prob=0.9, text="Body", language="en")
    d = json.loads(to_json(r))
    assert d["source"] == "https://www.e.org/a" and d["source-hostname"] == "Site" and d["excerpt"] == "D"
    assert d["hostname"] == "www.e.org" and d["pagetype"] == "article" and d["text"] == "Body"
    assert d["author"] is None and d["comments"] is None and d["reason"] is None
    assert d["canonical_url"] == "https://e.org/a" and "\n" not in to_json(r)
    # an empty page: text '' and why; no url given: the canonical one is the source
    d = json.loads(to_json(page(canonical_url="https://e.org/c", reason="no text in page")))
    assert d["text"] == "" and d["reason"] == "no text in page" and d["source"] == "https://e.org/c"
    # fields other parts may add (image, tags, categories, hostname) are read where present
    d = json.loads(to_json(page(image="https://e.org/i.jpg", tags=["a", "b"], categories="c",
                                hostname="e.org")))
    assert (d["image"], d["tags"], d["categories"], d["hostname"]) == ("https://e.org/i.jpg", "a;b", "c",
                                                                       "e.org")


def test_csv_is_trafilaturas_tab_separated_columns() -> None:
    import csv
    import io

    r = page(url="https://e.org/a", title="T", date="2024-03-05", page_type="forum",
             text='Line "one"\tand\nline two')
    row = to_csv(r)
    assert row.endswith("\r\n")
    [cells] = list(csv.reader(io.StringIO(row), delimiter="\t"))
    assert dict(zip(CSV_COLUMNS, cells)) == {
        "url": "https://e.org/a", "id": "null", "fingerprint": "null", "hostname": "e.org", "title": "T",
        "image": "null", "date": "2024-03-05", "text": 'Line "one"\tand\nline two', "comments": "null",
        "license": "null", "pagetype": "forum"}


def test_front_matter_reads_back_as_the_same_values() -> None:
    yaml = pytest.importorskip("yaml")
    r = page(url="https://e.org/a?b=c#d", title="Yes: a title #1", author="no", date="2024-03-05",
             sitename="Café", tags=["x", "y: z"], language="en")
    fm = front_matter(r)
    assert fm.startswith("---\n") and fm.endswith("\n---\n")
    assert yaml.safe_load(fm.strip("-\n")) == {
        "title": "Yes: a title #1", "author": "no", "url": "https://e.org/a?b=c#d", "hostname": "e.org",
        "sitename": "Café", "date": "2024-03-05", "tags": ["x", "y: z"], "language": "en"}
    assert front_matter(page()) == "---\n---\n"


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_title_survives_the_front_matter(title: str) -> None:
    yaml = pytest.importorskip("yaml")
    fm = front_matter(page(title=title))
    assert fm.startswith("---\n") and fm.endswith("\n---\n"), fm
    loaded = yaml.safe_load(fm[len("---\n"):-len("---\n")]) or {}
    assert loaded.get("title", "") == title


def test_render_extraction_dispatches_and_refuses_unknown_formats() -> None:
    r = page(text="Body", title="T")
    assert render_extraction(r, "text") == "Body\n"
    assert render_extraction(r, "text", with_metadata=True) == "---\ntitle: T\n---\nBody\n"
    assert render_extraction(page(), "text") == ""
    assert json.loads(render_extraction(r, "json"))["text"] == "Body"
    with pytest.raises(ValueError, match="format must be one of text, markdown, html, json, xml, csv"):
        render_extraction(r, "jsonl")
    assert FORMATS == ("text", "markdown", "html", "json", "xml", "csv", "jsonl")


def test_the_walk_gives_the_code_blocks_as_written_to_the_text() -> None:
    """The C walk's code column holds each code block's raw text (what the extras' walk gives
    it: the same str), so the text writes code lines without walking the page again."""
    from ce_filter.read.segment import FLAG_PRE, parse, segment

    html = ("<html><body><p>Before.</p><pre>\n\ndef f():\n    return 'é'\n\n</pre><p>Mid.</p>"
            "<pre><code>a  =  1\nb = 2</code></pre><p>After.</p></body></html>")
    b = segment(parse(html))
    code = b.code_column()
    assert code is not None
    u, at = code
    assert len(at) == len(b) + 1 and at[0] == 0 and at[-1] == len(u)
    pre = segment(parse(html), extras=True).extras[0]
    flags = np.asarray(b.flags)
    for i in range(len(b)):
        raw = u[at[i]:at[i + 1]].decode("utf-8")
        assert raw == (pre[i] if flags[i] & FLAG_PRE else ""), i
    keep = np.ones(len(b), dtype=bool)
    assert to_text(b, keep) == "Before.\n\ndef f():\n    return 'é'\n\nMid.\n\na  =  1\nb = 2\n\nAfter."
    plain = segment(parse("<html><body><p>No code here.</p></body></html>"))
    u, at = plain.code_column() or (None, None)
    assert u == b"" and at is not None and not at.any() and len(at) == len(plain) + 1
