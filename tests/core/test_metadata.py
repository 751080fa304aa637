"""Metadata rules on small hand-made inputs: JSON-LD (lists, @graph, nested and referenced
authors), OpenGraph / <meta>, <time>, bylines, title cleaning, dates."""

from __future__ import annotations

import json

import pytest
from selectolax.lexbor import LexborHTMLParser

from ce_filter.metadata import (
    PageHead,
    clean_author,
    clean_title,
    extract_metadata,
    head_from_tree,
    jsonld_fields,
    normalise_date,
)


def ld(obj: object) -> str:
    return json.dumps(obj)


def test_jsonld_graph_with_referenced_author_and_publisher() -> None:
    graph = {"@context": "https://schema.org", "@graph": [
        {"@type": "WebSite", "@id": "https://ex.org/#site", "name": "Example News"},
        {"@type": "Person", "@id": "https://ex.org/#jane", "name": "Jane Doe"},
        {"@type": "WebPage", "@id": "https://ex.org/a", "name": "Story | Example News"},
        {"@type": "NewsArticle", "headline": "The Story", "author": {"@id": "https://ex.org/#jane"},
         "datePublished": "2024-03-05T10:00:00+01:00", "publisher": {"@id": "https://ex.org/#org"},
         "description": "What happened."},
    ]}
    f = jsonld_fields([ld(graph)])
    assert (f.title, f.author, f.date, f.sitename, f.description) == (
        "The Story", "Jane Doe", "2024-03-05", "Example News", "What happened.")


def test_jsonld_list_nested_authors_org_and_broken_scripts() -> None:
    article = [{"@type": ["BlogPosting"], "headline": "Tips &amp; tricks",
                "author": [{"@type": "Person", "name": "Ann Lee"}, {"@type": "Person", "givenName": "Bo",
                                                                      "familyName": "Chan"}, "Cy Dee"],
                "dateCreated": "March 5, 2024"}]
    broken = '{"@type": "Article", "headline": "x",'  # cut short: skipped, not an error
    trailing = '<!-- {"@type": "Organization", "name": "Org Inc",} -->'
    f = jsonld_fields([broken, ld(article), trailing])
    assert f.title == "Tips & tricks"
    assert f.author == "Ann Lee, Bo Chan, and Cy Dee"
    assert f.date == "2024-03-05"
    assert f.sitename == "Org Inc"
    org = jsonld_fields([ld({"@type": "Article", "author": {"@type": "Organization", "name": "ACME"}})])
    assert org.author == "ACME" and org.author_is_org


def test_faq_questions_are_not_the_title() -> None:
    faq = {"@type": "FAQPage", "mainEntity": [{"@type": "Question", "name": "What is it?"}]}
    assert jsonld_fields([ld(faq)]).title == ""


@pytest.mark.parametrize("raw, want", [
    ("2024-03-05T10:00:00Z", "2024-03-05"), ("2024/3/5", "2024-03-05"), ("20240305", "2024-03-05"),
    ("Tue, 05 Mar 2024 10:00:00 GMT", "2024-03-05"), ("March 5th, 2024", "2024-03-05"),
    ("5 March 2024", "2024-03-05"), ("Published on Mar. 5, 2024", "2024-03-05"),
    ("23.07.2025", "2025-07-23"), ("7/23/2025", "2025-07-23"), ("05.03.2024", "2024-03-05"),
    ("2024-02-30", ""), ("1850-01-01", ""), ("yesterday", ""), ("", ""),
])
def test_normalise_date(raw: str, want: str) -> None:
    assert normalise_date(raw) == want


@pytest.mark.parametrize("raw, want", [
    ("By Jane Doe | March 3, 2024", "Jane Doe"),
    ("Written byAAA Travel Editor, SMT", "AAA Travel Editor, SMT"),
    ("Reyan PerumalPublished on July 18, 2025", "Reyan Perumal"),
    ("Dec 17, 2025Julian K. Arni", "Julian K. Arni"),
    ("16 December 2025 by Sam O'Brien", "Sam O'Brien"),
    ("Keith Barry Senior Autos Reporter", "Keith Barry"),
    ("Isaiah Shelton", "Isaiah Shelton"),
    ("Post by galitsyn »", "galitsyn"),
    ("https://www.facebook.com/someone", ""),
    ("Sat, 20 Dec, 2025", ""),
    ("Author", ""),
    ("This is a whole sentence about the writer of the piece and more.", ""),
])
def test_clean_author(raw: str, want: str) -> None:
    assert clean_author(raw) == want


@pytest.mark.parametrize("title, site, url, want", [
    ("What is Cloud Computing? | Google Cloud", "Google Cloud", None, "What is Cloud Computing?"),
    ("Example News - The Story", "", "https://www.examplenews.com/x", "The Story"),
    ("Story: a subtitle – Site", "", None, "Story: a subtitle"),
    ("Plain title", "", None, "Plain title"),
    ("Fish & Chips - A Long Story About Fish - Site Name", "Site Name", None,
     "Fish & Chips - A Long Story About Fish"),
])
def test_clean_title(title: str, site: str, url: str | None, want: str) -> None:
    assert clean_title(title, site, url) == want


def test_visible_heading_agreeing_with_declared_title_wins() -> None:
    head = PageHead(title="The Real Story of the Day | Site", metas=[("og:site_name", "Site")])
    texts = ["Site", "Menu", "The Real Story of the Day", "By Jane Doe", "Body text here."]
    md = extract_metadata(head, "https://site.example/a", texts, [0, 2])
    assert md.title == "The Real Story of the Day"  # not the logo h1 "Site"
    assert md.sitename == "Site"
    assert md.author == "Jane Doe"  # the "By" line near the title
    assert md.html_title == "The Real Story of the Day | Site"


def test_declared_title_cleaned_when_no_heading_matches() -> None:
    head = PageHead(title="A Headline - Example", metas=[("og:title", "A Headline")])
    md = extract_metadata(head, None, ["Something else"], [0])
    assert md.title == "A Headline"


def test_meta_fields_and_priorities() -> None:
    head = PageHead(
        title="T",
        metas=[("description", "Short summary."), ("article:published_time", "2023-01-02T03:04:05Z"),
               ("author", "https://facebook.com/x"), ("article:author", "Jo Smith"),
               ("og:url", "https://ex.org/og"), ("article:modified_time", "2024-01-01")],
        links=[("canonical", "/canonical-path")],
        times=[("2022-12-31", "updated", "Dec 31")],
    )
    md = extract_metadata(head, "https://ex.org/page?x=1")
    assert md.date == "2023-01-02"  # the dating <meta> before the <time> and the modification
    assert md.author == "Jo Smith"  # the URL-valued author meta is skipped
    assert md.description == "Short summary."
    assert md.canonical_url == "https://ex.org/canonical-path"  # resolved against the page URL


def test_date_from_time_marked_published_then_url() -> None:
    head = PageHead(times=[("2020-05-01", "updated", ""), ("", "published", "May 3, 2020")])
    assert extract_metadata(head).date == "2020-05-03"
    assert extract_metadata(PageHead(), "https://ex.org/2019/07/04/story").date == "2019-07-04"
    assert extract_metadata(PageHead()).date == ""


def test_byline_elements() -> None:
    head = PageHead(bylines=[("author-avatar", "Photo of Jane"), ("byline", "By Jane Doe · 5 min read")])
    assert extract_metadata(head).author == "Jane Doe"


def test_head_from_tree_collects_every_kind() -> None:
    page = """<html lang="de-AT"><head><title> Der  Titel | Seite </title>
    <meta property="og:title" content="Der Titel"><meta name="Description" content="Worum es geht">
    <link rel="canonical" href="https://ex.at/a">
    <script type="application/ld+json">{"@type":"Article"}</script>
    </head><body><a rel="author" href="/jo">Jo Maier</a><span class="post-author">Jo Maier</span>
    <time datetime="2024-05-06" class="published">6. Mai</time>
    <meta itemprop="datePublished" content="2024-05-06">
    </body></html>"""
    h = head_from_tree(LexborHTMLParser(page))
    assert h.title == "Der Titel | Seite" and h.lang == "de-AT"
    assert ("og:title", "Der Titel") in h.metas and ("description", "Worum es geht") in h.metas
    assert ("datepublished", "2024-05-06") in h.metas
    assert ("canonical", "https://ex.at/a") in h.links and ("author", "/jo") in h.links
    assert h.jsonld == ['{"@type":"Article"}']
    assert h.times == [("2024-05-06", "published", "6. Mai")]
    assert [t for _, t in h.bylines] == ["Jo Maier", "Jo Maier"]
