"""Metadata rules on small hand-made inputs: JSON-LD (lists, @graph, nested and referenced
authors), OpenGraph / <meta>, <time>, bylines, title cleaning, dates."""

from __future__ import annotations

import json

import pytest

from ce_filter.keep.metadata import (
    PageHead,
    clean_author,
    clean_title,
    extract_metadata,
    jsonld_fields,
    normalise_date,
    page_head,
)
from ce_filter.read import segment as S
from tests.oracles import walk_python


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
    ("Cureus. 2023 Jan 7;15(1):e33475", "2023-01-07"),
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
    ("Brian Becker7 min read", "Brian Becker"), ("Chris Carroll30 Sep", "Chris Carroll"),
    ("jsteinhardt18th Dec", "jsteinhardt"), ("user42", "user42"),
    ("amondale (Amondale)", "amondale"), ("Jo Lee (Editor)", "Jo Lee"),
    ("Guide by Will Judd", "Will Judd"), ("Authored by Bo Li | 2020", "Bo Li"), ("Author: Bo Li", "Bo Li"),
    ("https://www.facebook.com/someone", ""),
    ("Sat, 20 Dec, 2025", ""),
    ("Author", ""), ("Name *", ""), ("Ann Bell, MD*", "Ann Bell, MD"), ("undefined", ""),
    ("The X University ©", ""),
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


@pytest.mark.parametrize("walk", ["c", "python"])
def test_walk_collects_every_kind(walk: str) -> None:
    page = """<html lang="de-AT"><head><title> Der  Titel | Seite </title>
    <meta property="og:title" content="Der Titel"><meta name="Description" content="Worum es geht">
    <link rel="canonical" href="https://ex.at/a">
    <script type="application/ld+json">{"@type":"Article"}</script>
    </head><body><a rel="author" href="/jo">Jo Maier</a><span class="post-author">Jo Maier</span>
    <time datetime="2024-05-06" class="published">6. Mai</time>
    <meta itemprop="datePublished" content="2024-05-06">
    </body></html>"""
    b = S.segment(S.parse(page)) if walk == "c" else walk_python.walk(page)
    h = page_head(b.head, b.title)
    assert h.title == "Der Titel | Seite" and h.lang == "de-AT"
    assert ("og:title", "Der Titel") in h.metas and ("description", "Worum es geht") in h.metas
    assert ("datepublished", "2024-05-06") in h.metas
    assert ("canonical", "https://ex.at/a") in h.links and ("author", "/jo") in h.links
    assert h.jsonld == ['{"@type":"Article"}']
    assert h.times == [("2024-05-06", "published", "6. Mai")]
    assert [t for _, t in h.bylines] == ["Jo Maier", "Jo Maier"]


@pytest.mark.parametrize("walk", ["c", "python"])
def test_walk_gathers_body_scripts_and_skips_long_author_sections(walk: str) -> None:
    """JSON-LD in the body counts; an element whose class says author but holds a whole
    section is not a byline (its text is not even gathered); rel=nofollow is no link."""
    page = ("<html><body class='single author-7'><p>" + "word " * 1000 + "</p>"
            "<a rel=nofollow href=/x>x</a><div class=entry-author><a href=/a>Ann Lee</a></div>"
            '<script type="application/ld+json">{"@type":"NewsArticle","author":{"name":"Ann Lee"},'
            '"datePublished":"2023-02-01"}</script></body></html>')
    b = S.segment(S.parse(page)) if walk == "c" else walk_python.walk(page)
    by = [it for it in b.head if it[0] == "by"]
    assert by[0][1] == "single author-7" and by[0][5] == ""
    assert not [it for it in b.head if it[0] == "link"]
    h = page_head(b.head, b.title)
    assert h.bylines == [("entry-author", "Ann Lee")]
    md = extract_metadata(h)
    assert (md.author, md.date) == ("Ann Lee", "2023-02-01")


def test_one_meta_per_author_and_url_date_first() -> None:
    """citation_author (one <meta> per author, as on journal pages) gives all of them, in
    order; a /y/m/d/ URL path is the publication date before any <meta>."""
    head = PageHead(metas=[("citation_author", "Ann Lee"), ("citation_author", "Bo Chen"),
                           ("citation_author", "Ann Lee"), ("article:published_time", "2020-01-09")])
    md = extract_metadata(head, "https://ex.org/2020/01/08/story")
    assert md.author == "Ann Lee, Bo Chen" and md.date == "2020-01-08"
    assert extract_metadata(head, "https://ex.org/story").date == "2020-01-09"


def test_written_by_line_anywhere_on_the_page() -> None:
    texts = ["Menu", "Story text " * 5] + ["x"] * 100 + ["written by " + "x" * 200, "Written by Jane Roe"]
    assert extract_metadata(PageHead(), texts=texts).author == "Jane Roe"
    assert extract_metadata(PageHead(), texts=texts[:-1] + ["Written by", "Eliz"]).author == "Eliz"


# ---------------------------------------------------------------- the cheaper forms of the rules


def test_split_title_is_the_separator_regex() -> None:
    """split_title finds the separators from their characters; it must split exactly as
    the SEPS regex does, whitespace of every kind and "::" included."""
    import random

    from ce_filter.keep.metadata import split_title
    from tests.oracles.metadata_python import SEPS

    rng = random.Random(7)
    alphabet = list("ab ::|-–—·•»~/\t\u00a0\u2003") + [" | ", " - ", " :: ", "  "]
    for _ in range(20000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        assert split_title(s) == SEPS.split(s), s
    assert split_title("Story | Site") == ["Story", "Site"]
    assert split_title("e-mail a:b Story::x - Site") == ["e-mail a:b Story::x", "Site"]


def test_norm_text_ascii_shortcut_is_the_general_rule() -> None:
    """ASCII text skips NFKC and the word regex: the same words come out."""
    import re
    import unicodedata

    from ce_filter.keep.metadata import norm_text

    def general(s: str) -> str:
        return " ".join(re.findall(r"\w+", unicodedata.normalize("NFKC", s).casefold()))

    texts = ["".join(chr(c) for c in range(128)), "The Story_of 2024: a-b\x1fc!", "  ", "ÉTÉ à Paris",
             "ﬁve Ⅻ"]
    for s in texts:
        assert norm_text(s) == general(s), s


def test_block_start_patterns_know_every_ignorecase_letter() -> None:
    """The one-search byline scan finds a block wherever the case-blind rule would: every
    character that re.IGNORECASE matches to an ASCII letter is in IGNORECASE_ALSO (the oracle's
    patterns; the C part's loose_is knows the same characters)."""
    import re

    from tests.oracles.metadata_python import IGNORECASE_ALSO

    everything = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    for letter in "abcdefghijklmnopqrstuvwxyz":
        found = set(re.findall(letter, everything, re.I)) - {letter, letter.upper()}
        assert found == set(IGNORECASE_ALSO.get(letter, "")), letter


def test_byline_and_date_line_scans_across_odd_blocks() -> None:
    """Blocks found by one search over the joined texts: a "\\n" inside a text is no block
    start, an uppercase dotted I still opens a "Written by" (re.IGNORECASE matches it), a
    year is not made of two blocks' digits, a long block is no date line."""
    texts = ["Menu", "Top story", "intro\nBy nobody here", "WRİTTEN BY Ann Lee"]
    assert extract_metadata(PageHead(), texts=texts).author == "Ann Lee"
    assert extract_metadata(PageHead(), texts=["Title", "page 19", "99 bottles"]).date == ""
    assert extract_metadata(PageHead(), texts=["Title", "x" * 200 + " 2020-01-02", "Posted 2021-03-04"]
                            ).date == "2021-03-04"


def test_joined_search_finds_the_blocks_a_loop_would() -> None:
    """_Joined's scans give the blocks a regex per block gives: years (also with other
    scripts' digits, and across block ends), block starts, texts holding "\\n"."""
    import random

    from ce_filter.keep.metadata import _BYLINE_START, _YEAR, _Joined
    from tests.oracles.metadata_python import BYLINE_START

    rng = random.Random(3)
    pieces = ["19", "20", "1", "9", "2", "0", "٢", "x", " ", "By ", "by", "Written", "\n", "posted ", "1999"]
    for _ in range(20000):
        texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 5)))
                 for _ in range(rng.randint(0, 6))]
        j = _Joined(texts)
        assert list(j.with_year(1 << 40)) == [k for k, t in enumerate(texts) if _YEAR.search(t)], texts
        assert list(j.with_year(4)) == [k for k, t in enumerate(texts) if len(t) < 4 and _YEAR.search(t)]
        assert list(j.starting(_BYLINE_START)) == [k for k, t in enumerate(texts)
                                                   if BYLINE_START.match("\n" + t)], texts


# ---------------------------------------------------------------- image, tags, categories, hostname


def test_image_tags_categories_hostname() -> None:
    from ce_filter.keep.metadata import split_terms
    from ce_filter.read.address import hostname

    head = PageHead(title="Story | Site", metas=[
        ("og:image", "/img/a.jpg"), ("twitter:image", "https://cdn.ex.org/b.jpg"),
        ("article:tag", "Fishing"), ("article:tag", "Harbour, Boats"), ("article:tag", "fishing"),
        ("keywords", "not, these"), ("article:section", "Local")])
    md = extract_metadata(head, "https://www.ex.org:8080/news/story")
    assert md.image == "https://www.ex.org:8080/img/a.jpg"  # resolved against the page's URL
    assert md.tags == ["Fishing", "Harbour", "Boats"]  # one <meta> per tag, split, repeats dropped
    assert md.categories == ["Local"]
    assert md.hostname == "ex.org"
    # JSON-LD where the <meta>s say nothing; the canonical URL's host where the page has no URL
    article = {"@type": "NewsArticle", "headline": "Story", "keywords": ["a", "b"], "articleSection": "World",
               "image": {"@type": "ImageObject", "url": "https://ex.org/c.jpg"}}
    head = PageHead(jsonld=[ld(article)], links=[("canonical", "https://news.ex.org/story")],
                    metas=[("keywords", "x；y")])
    md = extract_metadata(head)
    assert (md.image, md.tags, md.categories, md.hostname) == (
        "https://ex.org/c.jpg", ["x；y"], ["World"], "news.ex.org")
    assert extract_metadata(PageHead()).to_dict()["tags"] is None
    assert split_terms("新闻、财经") == ["新闻", "财经"] and split_terms("a; b;") == ["a", "b"]
    assert split_terms(["x" * 101, " ", "ok"]) == ["ok"] and split_terms(None) == []
    assert hostname("/relative/path") == "" and hostname("http://[bad") == "" and hostname(None) == ""


def test_record_carries_the_new_fields() -> None:
    from ce_filter import extract
    from ce_filter.record import make_record, validate

    html = ("<html><head><title>Story</title><meta property='og:image' content='https://ex.org/a.jpg'>"
            "<meta name='keywords' content='fish, boats'></head><body><article><h1>Story</h1><p>"
            + "The town's fishing fleet returned on Thursday with its largest catch in a decade. " * 5
            + "</p></article></body></html>")
    r = extract(html, "https://www.ex.org/story")
    assert (r.image, r.tags, r.categories, r.hostname) == (
        "https://ex.org/a.jpg", ["fish", "boats"], [], "ex.org")
    rec = make_record({"url": "https://www.ex.org/story", "body": html.encode()}, r, None)
    assert rec["tags"] == ["fish", "boats"] and rec["categories"] is None and rec["hostname"] == "ex.org"
    assert validate(rec) == []


def test_hostname_is_urlsplits() -> None:
    import random
    from urllib.parse import urlsplit

    from ce_filter.read.address import hostname

    rng = random.Random(3)

    def pick(*xs: str) -> str:
        return rng.choice(xs)

    for _ in range(3000):
        u = (pick("https://", "http://", "//", "ftp://", "HTTPS://", " https://") + pick("", "user:pw@", "a@")
             + pick("www.", "WWW.", "", "news.") + pick("Ex", "ex-ample", "xn--bcher-kva", "127.0.0.1")
             + pick(".org", ".co.uk", "") + pick("", ":8080", ":") + pick("", "/", "/p/2024/03/05/", "?q=a/b",
                                                                        "#f", "/a?b#c"))
        assert hostname(u) == (urlsplit(u.strip()).hostname or "").removeprefix("www."), u
    for u in ("/relative/path", "x//y", "", None, "mailto:a@b.org"):
        assert hostname(u) == ""
    assert hostname("http://[::1]:8080/a") == "::1"


@pytest.mark.parametrize("raw, langs, want", [
    # job titles after the name, also of more than one word and behind a separator
    ("By Matthew Richardson \u22c5 Review Editor \u22c5 Updated November 18, 2025", (), "Matthew Richardson"),
    ("Matthew Richardson Review Editor", (), "Matthew Richardson"),
    ("Jane Doe, Senior Staff Writer", (), "Jane Doe"),
    ("Jane Doe Foreign Correspondent", (), "Jane Doe"),
    ("Max Müller, Redakteur", ("de",), "Max Müller"),
    ("Claire Martin, Journaliste", ("fr",), "Claire Martin"),
    ("Иван Петров, корреспондент", ("ru",), "Иван Петров"),
    # labels before the name
    ("Text: Anna Schmidt", (), "Anna Schmidt"),
    ("Autor: Max Müller", ("de",), "Max Müller"),
    ("Autorin: Eva Braun-Klein", ("de",), "Eva Braun-Klein"),
    ("Par Jean Dupont", ("fr",), "Jean Dupont"),
    ("Texte : Jean Dupont", ("fr",), "Jean Dupont"),
    ("Por María López", ("es",), "María López"),
    ("Texto: María López", ("pt",), "María López"),
    ("Di Mario Rossi", ("it",), "Mario Rossi"),
    ("Testo: Mario Rossi", ("it",), "Mario Rossi"),
    ("Door Jan de Vries", ("nl",), "Jan de Vries"),
    ("Tekst: Jan de Vries", ("nl",), "Jan de Vries"),
    ("Текст: Венера Ерофеева", ("ru",), "Венера Ерофеева"),
    ("Автор: Иван Петров", ("ru",), "Иван Петров"),
    ("作者：张三", ("zh",), "张三"),
    ("作者：张三 编辑：李四", ("zh",), "张三"),
    ("文/李四", ("zh",), "李四"),
    ("文・写真：山田太郎", ("ja",), "山田太郎"),
    # what may be a name's own stays
    ("Di Caprio Leonardo", (), "Di Caprio Leonardo"),
    ("Text Hansen", (), "Text Hansen"),
])
def test_clean_author_takes_off_labels_and_job_titles_in_the_pages_language(raw, langs, want) -> None:
    assert clean_author(raw, langs) == want


def test_labelled_authors_from_every_source_and_the_pages_language() -> None:
    head = PageHead(metas=[("author", "Текст: Венера Ерофеева")])
    assert extract_metadata(head, languages=("ru",)).author == "Венера Ерофеева"
    ld = json.dumps({"@type": "NewsArticle", "author": {"@type": "Person", "name": "Autor: Max Müller"}})
    assert extract_metadata(PageHead(jsonld=[ld])).author == "Max Müller"
    # a JSON-LD name with its job title is the page's own statement: it stays
    ld = json.dumps({"@type": "NewsArticle",
                     "author": {"@type": "Person", "name": "Lance Ryan (Content Manager)"}})
    assert extract_metadata(PageHead(jsonld=[ld])).author == "Lance Ryan (Content Manager)"
    head = PageHead(bylines=[("byline", "Di Mario Rossi")])
    assert extract_metadata(head, languages=("it",)).author == "Mario Rossi"
    assert extract_metadata(head, languages=("en",)).author == "Di Mario Rossi"


def test_published_date_line_before_an_updated_one() -> None:
    """A date line marked as an update gives way to one marked as the publication, in the
    same block or a later one, and to JSON-LD datePublished; alone it is still the date."""
    texts = ["Menu", "The Story", "Updated March 5, 2024", "Published March 1, 2024", "Body."]
    assert extract_metadata(PageHead(), texts=texts, h1_at=[1]).date == "2024-03-01"
    texts = ["The Story", "Updated: March 5, 2024 | Published: March 1, 2024"]
    assert extract_metadata(PageHead(), texts=texts, h1_at=[0]).date == "2024-03-01"
    texts = ["Die Geschichte", "Aktualisiert am 5. März 2024", "Veröffentlicht am 1. März 2024"]
    assert extract_metadata(PageHead(), texts=texts, h1_at=[0], languages=("de",)).date == "2024-03-01"
    texts = ["История", "Обновлено 05.03.2024, опубликовано 01.03.2024"]
    assert extract_metadata(PageHead(), texts=texts, h1_at=[0], languages=("ru",)).date == "2024-03-01"
    ld = json.dumps({"@type": "NewsArticle", "datePublished": "2024-02-28"})
    texts = ["The Story", "Updated March 5, 2024"]
    assert extract_metadata(PageHead(jsonld=[ld]), texts=texts, h1_at=[0]).date == "2024-02-28"
    assert extract_metadata(PageHead(), texts=texts, h1_at=[0]).date == "2024-03-05"  # the only one
    texts = ["The Story", "March 1, 2024 \u00b7 Updated March 5, 2024"]
    assert extract_metadata(PageHead(), texts=texts, h1_at=[0]).date == "2024-03-01"


def test_time_whose_text_says_updated_is_not_the_publication() -> None:
    head = PageHead(times=[("2024-03-05", "", "Updated March 5, 2024"), ("2024-03-01", "", "March 1, 2024")])
    assert extract_metadata(head).date == "2024-03-01"
    head = PageHead(times=[("2024-03-05", "", "Mis à jour le 5 mars 2024"),
                           ("2024-03-01", "", "Publié le 1 mars")])
    assert extract_metadata(head).date == "2024-03-01"
