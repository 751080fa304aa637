"""Markdown and HTML from the kept blocks: one fixture per construct."""

from __future__ import annotations

import numpy as np
from selectolax.lexbor import LexborHTMLParser

from ce_filter.render import Extras, to_html, to_markdown
from ce_filter.segment import segment_tree


def blocks_of(body: str):  # type: ignore[no-untyped-def]
    b = segment_tree(LexborHTMLParser(f"<html><body>{body}</body></html>"))
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
