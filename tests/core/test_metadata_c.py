"""The metadata C part (keep/_metadata.c) against its Python references: each function on random
and odd inputs, and whole pages' metadata with the C part and without it (a page without a
head, one with many <meta>s, broken JSON-LD, text in other scripts and encodings)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ce_filter.api import h1_positions, metadata_rules
from ce_filter.keep import dates as D
from ce_filter.keep import metadata as M
from ce_filter.keep import result as R
from ce_filter.read.page import read
from ce_filter.read.segment import TAG_H1

needs_c = pytest.mark.skipif(M._head_part() is None, reason="ce_filter.keep._metadata not built (no C "
                             "compiler) or switched off: the references run")


def _pieces(rng: random.Random, pieces: list[str], most: int) -> str:
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, most)))


@needs_c
def test_head_is_page_head_reference() -> None:
    """Random head items, keys and markers in odd cases and scripts: the same PageHead and first
    values as the Python loop."""
    c = M._head_part()
    assert c is not None
    rng = random.Random(5)
    words = ["author", "AUTHOR", "byline", "Byl\u0130ne", "\u212a", "canonical", "Canonical", " ", "\u00a0",
             "\u3000", "x", "-", "co", "İ", "é", "og:Title", "DESCRIPTION", ""]
    kinds = ["meta", "by", "time", "link", "ld", "lang"]
    for _ in range(3000):
        items: list[tuple[str, ...]] = []
        for _ in range(rng.randint(0, 25)):
            kind = rng.choice(kinds)
            n = {"meta": 2, "by": 5, "time": 4, "link": 2, "ld": 1, "lang": 1}[kind]
            vals = [_pieces(rng, words, 4) for _ in range(n)]
            if kind == "by" and rng.random() < 0.1:
                vals[-1] = "y" * rng.choice((M.MAX_BYLINE_CHARS, M.MAX_BYLINE_CHARS + 1))
            items.append((kind, *vals))
        lang, metas, links, jsonld, times, bylines, first = c.head(items, M.MAX_BYLINES, M.MAX_BYLINE_CHARS)
        ref = M.page_head_reference(items, "T")
        assert M.PageHead("T", lang, metas, links, jsonld, times, bylines) == ref, items
        assert first == M._first_values(ref), items
        keys = tuple(dict.fromkeys([k for k, _ in metas] + ["none"]))
        for at in range(len(keys)):
            assert c.first_meta(first, keys[at:]) == M._first_meta_reference(first, keys[at:]), items


@needs_c
def test_first_meta_collapses_whitespace_as_split_join() -> None:
    c = M._head_part()
    assert c is not None
    rng = random.Random(1)
    pieces = [" ", "\t", "a", "Bc", "\u2003", "\u00a0", "\x1c", "\u00e9", "  ", "\n"]
    for _ in range(20000):
        v = _pieces(rng, pieces, 6)
        first = {"k": v} if v else {}
        assert c.first_meta(first, ("x", "k")) == M._first_meta_reference(first, ("x", "k")), repr(v)


@needs_c
def test_terms_are_split_terms_reference() -> None:
    """Tags and categories from a string or a list of strings: separators, character references,
    case-blind repeats (casefold: "Straße" and "STRASSE"), overlong terms, the cap on their number."""
    c = M._head_part()
    assert c is not None
    rng = random.Random(9)
    pieces = [" ", ",", ";", "\u3001", "\uff0c", "a", "A", "Bc", "\u2003", "\u00e9", "\u00c9", "&amp;", "&",
              "\u00df", "SS", "\u212a", "k", "&#65;", "x" * 30]
    for _ in range(20000):
        v = _pieces(rng, pieces, 14)
        assert c.terms(v, M.MAX_TERMS, M.MAX_TERM_CHARS) == M.split_terms_reference(v), repr(v)
        many = v.split(" ") * 9
        assert c.terms(many, M.MAX_TERMS, M.MAX_TERM_CHARS) == M.split_terms_reference(many), repr(many)
    assert c.terms([{"name": "x"}], M.MAX_TERMS, M.MAX_TERM_CHARS) is None  # JSON-LD objects: Python's
    assert M.split_terms([{"name": "x"}, "y"]) == ["x", "y"]


@needs_c
def test_marks_are_the_label_regex() -> None:
    """Where the date labels stand: the C scan on ASCII texts is the regex's finditer (and
    search), other texts are left to the regex."""
    c = D._c_part()
    assert c is not None
    rng = random.Random(7)
    pieces = ["Published", "published", "PUBLISHED", "posted", "Updated", "last updated", "first ",
              "modified", "edited", "Mis en ligne", "paru", "erstellt", "x", "_", "1", " ", ":", "-",
              "un", "re", "s", "d", "\t", "aktualisiert", "ed", "Posted2024"]
    for _ in range(20000):
        s = _pieces(rng, pieces, 8)
        for first in (False, True):
            assert c.marks(s, first) == D.label_marks_reference(s, first), s
    assert c.marks("Veröffentlicht am 5. März", False) is None
    assert D.label_marks("Veröffentlicht am 5. März") == [(0, "published")]


def _date_text(rng: random.Random) -> str:
    """A text near the date forms: numeric ones, named months before or after the day or after
    the year, with their ordinals, dots, commas, "of" and "de", glued on or cut short."""
    def opt(*xs: str) -> str:
        return rng.choice(("", *xs))
    mon = rng.choice(["March", "Mar", "mar", "MAY", "Sept", "sep", "Dezember", "dic", "Abcd", "xy", "janvier",
                      "of", "de", "Decemberrrrrrrrrrrrrrrrrr", "März", "ab_c"])
    day = rng.choice(["1", "5", "05", "12", "13", "29", "30", "31", "0", "123", "00"])
    day2 = rng.choice(["1", "5", "05", "12", "13", "29", "31", "0", "123"])
    year = rng.choice(["2024", "1999", "1989", "2030", "2026", "0000", "20245", "202", "2000"])
    sp = rng.choice([" ", "  ", "", "\t", "\x1c", "\n", "\u00a0"])
    sep = rng.choice(["-", "/", ".", ". ", ".\t"])
    return rng.choice([
        mon + opt(".") + sp + day + opt("st", "nd", "th", "rd", "TH") + opt(",") + sp + year,
        day + opt("st", "nd", "rd", "th", "er", ".", "º") + opt(" ", "  ")
        + opt("of ", "de ", "d'", "of", "de") + mon + opt(".") + opt(",") + sp
        + opt("de ", "del ", "r. ", "de", "r.") + year,
        year + opt(".") + sp + mon + opt(".") + sp + day,
        year + sep + day + rng.choice(["-", "/", ".", ". "]) + day2,
        day + rng.choice(["/", ".", "-"]) + day2 + rng.choice(["/", ".", "-"]) + year,
        year + rng.choice(["01", "12", "13", "1"]) + rng.choice(["05", "31", "1"]) + opt("T", "t", "Z", "\n"),
    ])


@needs_c
def test_dates_are_normalise_date_reference() -> None:
    """The C part's dates on ASCII texts (every numeric form, month names in several languages'
    tables, look-alikes, cut and glued forms, padding, several dates in one text) are the
    regexes'; other texts, other mappings and the texts only the RFC 2822 parser could read are
    left to Python (None)."""
    c = D._date_part()
    assert c is not None
    rng = random.Random(11)
    tables = [D.ENGLISH, D.months_for(("de",)), D.months_for(("fr", "es")), D.months_for(("it", "pt"))]
    fill = ["", " ", "on ", "Posted ", "by Jane ", "_", "a", "1", "x", "|", ", ", " 10:00", " GMT", "é ", "-",
            "/", "."]
    top = D._this_year() + 1
    read = 0
    for _ in range(30000):
        joined = rng.choice(fill).join(_date_text(rng) for _ in range(rng.randint(1, 3)))
        s = rng.choice(fill) + joined + rng.choice(fill)
        months = rng.choice(tables)
        got = c.date_ascii(s, months, top)
        want = D.normalise_date_reference(s, months)
        if got is not None:
            assert got == want, (s, got, want)
            read += bool(got)
        else:
            assert not s.isascii() or (":" in s and len(s.strip()) <= 40), s
        assert D.normalise_date(s, months) == want, s
    assert read > 500
    huge = ["x" * 100000, "2024-03-05" * 50000, "March 5, 2024 " * 20000, "5 " * 100000 + "2024"]
    for s in ["", " \t ", *huge]:
        assert c.date_ascii(s, D.ENGLISH, top) == D.normalise_date_reference(s), s[:40]
    assert c.date_ascii("5 März 2024", D.ENGLISH, top) is None
    assert c.date_ascii("Tue, 32 Mar 2024 10:00:00 GMT", D.ENGLISH, top) is None  # for email.utils
    assert c.date_ascii("March 5, 2024", {"march": "3"}, top) is None  # a table of other values
    assert c.date_ascii("March 5, 2024", dict(D.ENGLISH).items(), top) is None  # type: ignore[arg-type]


@needs_c
def test_title_split_and_words_are_the_references() -> None:
    c = M._titles_part()
    assert c is not None
    rng = random.Random(11)
    pieces = [" ", "\t", "|", "-", "\u2013", "\u2014", "\u00b7", "\u2022", "\u00bb", ":", "::", "~", "/", "a",
              "Story", "\u2003", "x_1", "\u00c9", "\x1f", "Z9"]
    for _ in range(30000):
        s = _pieces(rng, pieces, 10)
        assert c.split_title(s) == M._SEPS.split(s) == M.split_title_reference(s), s
        assert c.norm_ascii(s) == (M.norm_text_reference(s) if s.isascii() else None), s


@needs_c
def test_block_scans_are_the_joined_searches() -> None:
    """The byline and date line scans over the blocks: the C part finds the blocks the one-string
    searches (and a regex per block) find."""
    c = M._blocks_part()
    assert c is not None
    rng = random.Random(3)
    pieces = ["19", "20", "1", "9", "2", "0", "\u0662", "x", " ", "By ", "by", "Written", "\n", "posted ",
              "1999", "WR\u0130TTEN", "au\u212aored", "Po\u017fted", "reviewed", "PUBLISHED"]
    for _ in range(20000):
        texts = [_pieces(rng, pieces, 5) for _ in range(rng.randint(0, 6))]
        ref = M._Joined(texts, c=False)
        years = [k for k, t in enumerate(texts) if M._YEAR.search(t)]
        assert list(ref.with_year()) == years, texts
        # the C part reads the walk's texts, which hold no "\n", joined by one (TextColumn)
        one = not any("\n" in t for t in texts)
        joined = "\n".join(texts)
        assert not one or c.with_year(joined) == years, texts
        for pattern, words in M._START_WORDS.items():
            starts = [k for k, t in enumerate(texts) if pattern.match("\n" + t)]
            assert list(ref.starting(pattern)) == starts, texts
            assert not one or c.starting(joined, words) == starts, texts


@needs_c
def test_positions_are_numpys() -> None:
    c = R._positions_part()
    assert c is not None
    rng = np.random.default_rng(2)
    for n in (0, 1, 7, 500):
        tag = rng.integers(TAG_H1 - 3, TAG_H1 + 3, n).astype(np.int64)
        want = np.flatnonzero(tag == TAG_H1).tolist()
        assert c.positions(tag, TAG_H1) == R.h1_positions_reference(tag) == want
    assert c.positions([1, 2], 1) is None  # the Python walk's lists: the reference reads them
    assert c.positions(np.arange(6, dtype=np.int32), 1) is None
    assert c.positions(np.arange(6, dtype=np.int64)[::2], 2) is None


EDGE_PAGES = [
    b"",
    b"<html><head></head><body><h1>Only a heading</h1><p>Text of 2024 here.</p></body></html>",
    b"<html lang='de'><head><title>Story | Site</title>"
    + b"".join(b"<meta name='k%d' content='v%d, w%d'>" % (i % 40, i, i) for i in range(400))
    + b"<meta property='OG:TITLE' content='Story'><meta name='KEYWORDS' content='a;b;c'>"
    + b"<meta name='date' content='  '><meta name='article:published_time' content='2023-02-01'>"
    + "</head><body><h1>Story</h1><p class='byline'>Von Anna Muster</p><p>Veröffentlicht am 5. März 2024"
      "</p></body></html>".encode(),
    b"<html><head><title>Broken - News</title><script type='application/ld+json'>{\"@type\": \"NewsArticle\","
    b" \"headline\": \"Broken\", \"author\": {\"name\": \"A B\"},, </script>"
    b"<script type='application/ld+json'><!-- {\"@type\": \"Article\", \"datePublished\": \"2022-01-02\","
    b" \"author\": [\"C D\", {\"@id\": \"#x\"}],} --></script></head><body><h1>Broken</h1>"
    b"<p>Posted by Jo Lee | Updated March 3, 2021</p></body></html>",
    "<html><head><meta charset='gbk'><title>新闻标题_新浪网</title><meta name='author' content='张三'>"
    "</head><body><h1>新闻标题</h1><p>作者：李四 编辑：王五</p><p>发布时间：2019年5月6日</p>"
    "</body></html>".encode("gbk"),
    "<html><head><meta charset='windows-1251'><title>Заголовок — Сайт</title></head><body>"
    "<h1>Заголовок</h1><p>Текст: Иван Петров</p><p>Опубликовано 5 марта 2024</p>"
    "</body></html>".encode("cp1251"),
    b"<html><head><title>\xff\xfe bad \x80 bytes :: Site</title></head><body><h1>bad \x80 bytes</h1>"
    b"<time datetime='2020-05-06' class='updated'>x</time><time>Published 7 June 2020</time>"
    b"<div id='author-box'>WRITTEN BY\xa0Max</div></body></html>",
]


@needs_c
@pytest.mark.parametrize("data", EDGE_PAGES)
@pytest.mark.parametrize("url", [None, "https://www.site.example/2024/03/05/story"])
def test_pages_metadata_with_and_without_the_c_part(data: bytes, url: str | None,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Every field of a page's metadata is the same with the C part and with the references."""
    page = read(data)
    blocks = page.blocks
    if blocks is None:
        return
    page_head, extract_metadata, _, declared = metadata_rules()

    def fields() -> list[dict[str, object]]:
        out = []
        for langs in (("", "en"), ("it", "ru"), ("de", "zh")):
            head = page_head(blocks.head, blocks.title)
            h1 = h1_positions(blocks)
            md = extract_metadata(head, url, blocks.texts, h1, (declared(head.lang), *langs))
            out.append({**md.__dict__, "lang": head.lang})
        return out

    with_c = fields()
    for mod, name in ((M, "_head_part"), (M, "_blocks_part"), (M, "_titles_part"), (D, "_c_part"),
                      (D, "_date_part"), (M, "_cut_part"), (M, "_date_keys_part"), (M, "_host_part"),
                      (M, "_clean_part"), (R, "_positions_part")):
        monkeypatch.setattr(mod, name, lambda: None)
    M.norm_text.cache_clear()
    M._title_parts.cache_clear()
    assert fields() == with_c


def test_url_date_reads_urlsplits_path() -> None:
    """A URL's date: the same as _URL_DATE on urlsplit's path (the plain http(s) URLs' path is
    read off the string; tabs, line breaks, brackets, other schemes and non-ASCII hosts
    included, where urlsplit takes characters out or refuses the URL)."""
    from urllib.parse import urlsplit

    def reference(url: str) -> str:
        if not M._YEAR.search(url):
            return ""
        try:
            m = M._URL_DATE.search(urlsplit(url).path)
        except ValueError:
            return ""
        return M._ymd(int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else ""

    rng = random.Random(3)
    pieces = ["http://", "https://", "HTTP://", "ftp://", " http://", "//", "www.x.com", "x.com", "[::1]",
              "]", "[", "@", ":8080", "/", "/2024", "/2024/03/05", "-03", "/3", "-5", "?", "#",
              "?a=/2024/03/05/", "#/2024/03/05", "\t", "\n", "\r", "é", "ｘ", "/story", "-", "05", "2019",
              "index.html", "\u2100", " "]
    for _ in range(30000):
        url = _pieces(rng, pieces, 9)
        assert M._url_date(url) == reference(url), url


@needs_c
def test_cut_at_is_the_cut_regex() -> None:
    """Where a byline's name ends: the C scan on ASCII texts finds the start of _CUT's first match
    (every branch: the separators and words after a space, a label or month glued onto the name,
    a month and day after a comma, a bar after spaces, a number before a word); other texts are
    left to the regex."""
    c = M._cut_part()
    assert c is not None
    rng = random.Random(13)
    pieces = ["Jane", "Doe", "jane", "doeP", "Published", "published", "PUBLISHED", "Updated", "updated",
              "Posted", "posted", "Last", "last", "on", "On", "ON", "March", "march", "Mar", "Mar.", "Sept",
              "Sept.", "September", "Sep", "May", "may", "Marching", "Staff", "Senior", "Former",
              "Contributing", "Reviewed", " ", "  ", "\t", "\x1c", ",", ", ", "|", " |", "-", " - ", "5",
              "12", "123", "5th", "1st", "2ND", "x", "_", "a", ".", "Jun5", "é", "•"]
    for _ in range(30000):
        s = _pieces(rng, pieces, 10)
        want = M.cut_at_reference(s)
        assert c.cut_at(s, M._CUT_MONTHS, M._CUT_CAPS) == (want if s.isascii() else None), s
        assert M.cut_at(s) == want, s
    for s in ["", " " * 100000, "Jane Doe " * 20000, "x" * 100000 + " | y"]:
        assert c.cut_at(s, M._CUT_MONTHS, M._CUT_CAPS) == M.cut_at_reference(s)


@needs_c
def test_date_values_are_the_date_key_regexes() -> None:
    """The dating <meta>s' values: the C part's choice on ASCII keys is _is_date_key's (the
    regexes, case-blind); a non-ASCII key leaves the page to the regexes (None)."""
    c = M._date_keys_part()
    assert c is not None
    rng = random.Random(17)
    pieces = ["date", "Date", "DATE", "time", "publish", "created", "modif", "updat", "expir", "valid",
              "start", "end", "event", "verif", "birth", "x", ":", "_", "dat", "e", "tim", "ſ", "K", "é", "",
              "Modif", "END"]
    for _ in range(20000):
        metas = [(_pieces(rng, pieces, 4), str(i)) for i in range(rng.randint(0, 6))]
        want = [v for k, v in metas if M._is_date_key(k)]
        got = c.date_values(metas)
        assert got == (want if all(k.isascii() for k, _ in metas) else None), metas
        assert M.date_values(metas) == want
    assert c.date_values([("date" * 10000, "v")]) == ["v"]
    assert c.date_values((("date", "v"),)) is None  # type: ignore[arg-type]


@needs_c
def test_host_is_address_hostname() -> None:
    """A URL's host: the C part's on ASCII URLs (schemes, users, ports, IPv6 brackets, "www.",
    padding, relative and odd URLs) is address.hostname's; other URLs are left to it (None)."""
    from ce_filter.read.address import hostname

    c = M._host_part()
    assert c is not None
    rng = random.Random(19)
    pieces = ["http", "https", "HTTP", "+", "-", "+-", "a+b", ".", ":", "//", "/", "?", "#", "@", "[", "]",
              "::1", "www.", "WWW.", "Www.", "x", "Example", ".com", ":80", " ", "\t", "\x1c", "\n", "é",
              "user:pw", "a", "1", "_"]
    for _ in range(30000):
        url = _pieces(rng, pieces, 10)
        assert c.host_ascii(url) == (hostname(url) if url.isascii() else None), url
        assert M.host(url) == hostname(url), url
    for url in [None, "", "x" * 100000 + "//" + "A" * 100000 + ":1", "http://" + "a" * 300]:
        assert c.host_ascii(url) == hostname(url)


@needs_c
def test_clean_title_is_clean_parts() -> None:
    """A title without the site's name: the C part's choice of parts on ASCII titles (the site's
    name or domain first, last, in the middle, inside a part, everywhere, nowhere; blank and
    repeated parts) is _clean_parts'; other titles are left to it (None)."""
    c = M._clean_part()
    assert c is not None
    rng = random.Random(23)
    pieces = ["Story", "story", "Example", "example", "News", "Daily", "Site", " | ", " - ", " :: ", " » ",
              "|", " ", "  ", "\t", "a", "The", "Ünï", "x-y", "Example News", "2024", "!", ".com"]
    sites = ["", "Site", "Example News", "example", "The Daily", "Ünï", "a"]
    urls = [None, "https://www.example.com/x", "http://news.example.co.uk/", "https://site.org", "https://ünï.de/"]
    for _ in range(20000):
        title = " ".join(_pieces(rng, pieces, 10).split())
        sitename, url = rng.choice(sites), rng.choice(urls)
        parts = M._title_parts(title)
        if len(parts) < 2:
            continue
        site, dom = M.norm_text(sitename), M._domain_words(url)
        want = M._clean_parts(title, parts, site, dom)
        got = c.clean_title(title, parts, site, M._squashed(dom))
        ascii_in = title.isascii() and site.isascii() and all(d.isascii() for d in dom)
        assert got == (want if ascii_in else None), (title, sitename, url)
        assert M.clean_title(title, sitename, url) == want
        for part in (*parts, title):
            sq = M._squashed(dom)
            want_part = M._is_site_part_reference(part, site, dom)
            plain = part.isascii() and site.isascii() and all(d.isascii() for d in dom)
            assert c.site_part(part, site, sq) == (want_part if plain else None)
            assert M._is_site_part(part, site, dom) == want_part
    long = " | ".join([f"Part {i}" for i in range(5000)])
    parts = M._title_parts(long)
    assert c.clean_title(long, parts, "part 1", ()) == M._clean_parts(long, parts, "part 1", frozenset())
    assert c.clean_title("", (), "", ()) is None  # fewer than two parts: nothing to choose
    for part in ["", " ", "x" * 100000, "Site " * 20000]:
        want = M._is_site_part_reference(part, "site", frozenset({"site"}))
        assert c.site_part(part, "site", ("site",)) == want


def test_byline_patterns_skipped_only_where_they_cannot_match() -> None:
    """clean_author tries _LEADING_DATE, _AUTHOR_LABEL and _LABEL only where their first
    character (or a label's colon or slash) is there: where it is not, none of them matches,
    on any first character the case-blind regexes know."""
    rng = random.Random(29)
    starts = [chr(i) for i in range(0x3000)] + ["\u212a", "\u0130", "\u0131", "\u017f", "\uff1a", "\uff0f"]
    rest = ["an 5, 2024 Jane", "uthor: Jane", "ritten by Jane", "osted by Jo", "ec. 3, 2024", "5 March 2024",
            "024-03-05 x", ": Jane", "ext: Jane", " / Jane", "：李四", "/李四", ""]
    for c in starts:
        for _ in range(3):
            s = c + rng.choice(rest)
            if not (s[:1] in M._DATE_FIRST or s[:1].isspace() or s[:1].isdigit()):
                assert M._LEADING_DATE.match(s) is None, s
            if not (s[:1] in M._LABEL_FIRST or s[:1].isspace()):
                assert M._AUTHOR_LABEL.match(s) is None, s
    for s in ["Text: Jane", "作者：李四", "文/李四", "Autor | Jane", "Text Jane", "Jane Doe"]:
        has = any(ch in s for ch in ":/|：／｜")
        assert has or M._LABEL.match(s) is None, s
