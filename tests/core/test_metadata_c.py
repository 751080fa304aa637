"""The metadata C part (keep/_metadata.c) against its Python oracle (tests/oracles/metadata_python.py),
which it must equal: each function on random and odd inputs (other scripts, case folds, combining
marks, full-width and spacing characters), hypothesis's Unicode strings, whole pages' metadata with
the oracle in the C part's place, and every call the rules make on every corpus page."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ce_filter.api import h1_positions, metadata_rules
from ce_filter.keep import dates as D
from ce_filter.keep import metadata as M
from ce_filter.keep import result as R
from ce_filter.read.page import read
from ce_filter.read.segment import TAG_H1
from tests.oracles import metadata_python as O

C = M._C
PY = O.PythonPart()


def _pieces(rng: random.Random, pieces: list[str], most: int) -> str:
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, most)))


def test_head_is_the_oracles() -> None:
    """Random head items, keys and markers in odd cases and scripts: the same PageHead and first
    values as the oracle's loop."""
    c = C
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
        ref = O.page_head(items, "T")
        assert M.PageHead("T", lang, metas, links, jsonld, times, bylines) == ref, items
        assert first == M._first_values(ref), items
        keys = tuple(dict.fromkeys([k for k, _ in metas] + ["none"]))
        for at in range(len(keys)):
            assert c.first_meta(first, keys[at:]) == O.first_meta(first, keys[at:]), items


def test_first_meta_collapses_whitespace_as_split_join() -> None:
    c = C
    rng = random.Random(1)
    pieces = [" ", "\t", "a", "Bc", "\u2003", "\u00a0", "\x1c", "\u00e9", "  ", "\n"]
    for _ in range(20000):
        v = _pieces(rng, pieces, 6)
        first = {"k": v} if v else {}
        assert c.first_meta(first, ("x", "k")) == O.first_meta(first, ("x", "k")), repr(v)


def test_terms_are_the_oracles() -> None:
    """Tags and categories from a string or a list of strings: separators, character references,
    case-blind repeats (casefold: "Straße" and "STRASSE"), overlong terms, the cap on their number;
    JSON-LD objects in a list read as text first."""
    c = C
    rng = random.Random(9)
    pieces = [" ", ",", ";", "\u3001", "\uff0c", "a", "A", "Bc", "\u2003", "\u00e9", "\u00c9", "&amp;", "&",
              "\u00df", "SS", "\u212a", "k", "&#65;", "x" * 30]
    for _ in range(20000):
        v = _pieces(rng, pieces, 14)
        assert c.terms(v, M.MAX_TERMS, M.MAX_TERM_CHARS) == O.split_terms(v), repr(v)
        many = v.split(" ") * 9
        assert c.terms(many, M.MAX_TERMS, M.MAX_TERM_CHARS) == O.split_terms(many), repr(many)
        assert M.split_terms(v) == O.split_terms(v)
    odd: list[object] = [{"name": "x"}, "y", 3, 2.5, True, None, ["z", {"@value": "w"}], {"name": ["X"]}]
    assert M.split_terms(odd) == O.split_terms(odd) == ["x", "y", "3", "2.5", "z"]
    assert M.split_terms(None) == M.split_terms(5) == M.split_terms({"a": "b"}) == []


def test_marks_are_the_label_regex() -> None:
    """Where the date labels stand: the C scan is LABEL's finditer (and search), in any script:
    the case folds re.IGNORECASE knows (the dotted and dotless I, the long s, the old Cyrillic
    letter forms), letters of any script before and after, CJK before."""
    c = D._c_part()
    rng = random.Random(7)
    pieces = ["Published", "published", "PUBLISHED", "posted", "Updated", "last updated", "first ",
              "modified", "edited", "Mis en ligne", "paru", "erstellt", "x", "_", "1", " ", ":", "-",
              "un", "re", "s", "d", "\t", "aktualisiert", "ed", "Posted2024", "Veröffentlicht",
              "VERÖFFENTLICHT", "mis à jour", "MIS À JOUR", "опубликовано", "ОПУБЛИКОВАНО", "обн\u1c82влено",
              "发布时间", "更新", "公開日", "\u4e2d", "ä", "\u0130", "\u0131", "\u017f", "\u212a", "\u1c84",
              "\u00a0", "é", "\u0662", "po\u017fted", "ed\u0131ted", "\u3042"]
    for _ in range(20000):
        s = _pieces(rng, pieces, 8)
        for first in (False, True):
            assert c.marks(s, first) == O.label_marks(s, first), s
    assert D.label_marks("Veröffentlicht am 5. März") == [(0, "published")]


def test_marks_know_the_case_folds_of_this_python() -> None:
    """Each letter of every label, written as each character re.IGNORECASE takes for it on this
    Python (its upper case, and re._casefix's other forms): the C scan finds what LABEL finds."""
    casefix = pytest.importorskip("re._casefix", reason="re._casefix is Python 3.11's and later's")
    extra: dict[int, tuple[int, ...]] = casefix._EXTRA_CASES
    c = D._c_part()
    for label, _kind in D.LABELS:
        for j, q in enumerate(label):
            forms = {q.upper(), q.lower(), *(chr(o) for o in extra.get(ord(q.lower()), ()))}
            for f in forms:
                if len(f) != 1:
                    continue
                s = "x " + label[:j] + f + label[j + 1:] + " 2024"
                assert c.marks(s, False) == O.label_marks(s), (label, f)


def _date_text(rng: random.Random) -> str:
    """A text near the date forms: numeric ones, named months before or after the day or after
    the year, with their ordinals, dots, commas, "of" and "de", glued on or cut short."""
    def opt(*xs: str) -> str:
        return rng.choice(("", *xs))
    mon = rng.choice(["March", "Mar", "mar", "MAY", "Sept", "sep", "Dezember", "dic", "Abcd", "xy", "janvier",
                      "of", "de", "Decemberrrrrrrrrrrrrrrrrr", "März", "ab_c",
                      "\u0420\u041c\u0410\u0420\u0422\u0410",
                      "марта", "\u017fept", "\u0130ocak", "ma\u0130", "Şubat", "\u212aasım", "t\u0307"])
    day = rng.choice(["1", "5", "05", "12", "13", "29", "30", "31", "0", "123", "00", "\u0665",
                      "\uff11\uff12"])
    day2 = rng.choice(["1", "5", "05", "12", "13", "29", "31", "0", "123"])
    year = rng.choice(["2024", "1999", "1989", "2030", "2026", "0000", "20245", "202", "2000",
                       "\u0662\u0660\u0662\u0664", "\uff12\uff10\uff12\uff14"])
    sp = rng.choice([" ", "  ", "", "\t", "\x1c", "\n", "\u00a0", "\u3000"])
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


def test_dates_are_the_oracles() -> None:
    """The C part's dates (every numeric form, month names in several languages' tables,
    look-alikes, cut and glued forms, padding, several dates in one text, other scripts'
    digits and spaces, CJK and Vietnamese forms, RFC 2822 dates) are the regexes'."""
    rng = random.Random(11)
    tables = [D.ENGLISH, D.months_for(("de",)), D.months_for(("fr", "es")), D.months_for(("it", "pt")),
              D.months_for(("ru", "tr"))]
    fill = ["", " ", "on ", "Posted ", "by Jane ", "_", "a", "1", "x", "|", ", ", " 10:00", " GMT", "é ", "-",
            "/", ".", "\u00a0", "\u3000", "\u0662", "\u4e2d", "\u0130", "\u017f", "\u00b2"]
    top = D._this_year() + 1
    read = 0
    for _ in range(30000):
        joined = rng.choice(fill).join(_date_text(rng) for _ in range(rng.randint(1, 3)))
        s = rng.choice(fill) + joined + rng.choice(fill)
        months = rng.choice(tables)
        want = O.normalise_date(s, months)
        assert C.normalise_date(s, months, top) == want, (s, want)
        assert D.normalise_date(s, months) == want, s
        read += bool(want)
    assert read > 500
    huge = ["x" * 100000, "2024-03-05" * 50000, "March 5, 2024 " * 20000, "5 " * 100000 + "2024",
            "\u00e9" * 100000 + " 2024"]
    for s in ["", " \t ", *huge]:
        assert C.normalise_date(s, D.ENGLISH, top) == O.normalise_date(s), s[:40]
    for s in ["Tue, 05 Mar 2024 10:00:00 GMT", "Tue, 32 Mar 2024 10:00:00 GMT", "5 M\u00e4rz 2024 10:00",
              "2024\u5e743\u670805\u65e5", "2024\ub144 3\uc6d4 5\uc77c", "5 th\u00e1ng 3 n\u0103m 2024",
              "05 TH\u00c1NG 03, 2024", "\u0665 March \u0662\u0660\u0662\u0664", "\uff15 March 2024"]:
        for months in tables:
            assert C.normalise_date(s, months, top) == O.normalise_date(s, months), s
    with pytest.raises(TypeError):
        C.normalise_date("March 5, 2024", {"march": "3"}, top)  # a table of other values
    with pytest.raises(TypeError):
        C.normalise_date("March 5, 2024", dict(D.ENGLISH).items(), top)  # type: ignore[arg-type]


def test_title_split_and_words_are_the_oracles() -> None:
    rng = random.Random(11)
    pieces = [" ", "\t", "|", "-", "\u2013", "\u2014", "\u00b7", "\u2022", "\u00bb", ":", "::", "~", "/", "a",
              "Story", "\u2003", "x_1", "\u00c9", "\x1f", "Z9", "\u0130", "\u00df", "\u212a",
              "e\u0301", "\u4e2d",
              "\uff21\uff42", "\u00a0", "\u05d0", "\u0627", "\u2167", "\u00b2", "\ufb01"]
    for _ in range(30000):
        s = _pieces(rng, pieces, 10)
        assert C.split_title(s) == O.SEPS.split(s) == O.split_title(s), s
        assert C.norm_text(s) == O.norm_text(s), s


def test_block_scans_are_the_oracles() -> None:
    """The byline and date line scans over the blocks: the C part finds, in a list of texts
    ("\\n" in them or not) or in the walk's one string, the blocks a regex per block finds."""
    rng = random.Random(3)
    pieces = ["19", "20", "1", "9", "2", "0", "\u0662", "x", " ", "By ", "by", "Written", "\n", "posted ",
              "1999", "WR\u0130TTEN", "au\u212aored", "Po\u017fted", "reviewed", "PUBLISHED", "\u00a0",
              "\uff11\uff19"]
    for _ in range(20000):
        texts = [_pieces(rng, pieces, 5) for _ in range(rng.randint(0, 6))]
        one = not any("\n" in t for t in texts)  # the walk's texts hold none
        joined = "\n".join(texts)
        for most in (1 << 40, 6, 0):
            assert C.with_year(texts, most) == O.with_year(texts, most), texts
            assert not one or C.with_year(joined, most) == O.with_year(texts, most), texts
        for pattern, words in O.START_WORDS.items():
            starts = O.starting(texts, pattern)
            assert C.starting(texts, words) == starts, texts
            assert not one or C.starting(joined, words) == starts, texts
            assert M._Joined(texts).starting(words) == starts, texts


def test_positions_are_numpys() -> None:
    rng = np.random.default_rng(2)
    for n in (0, 1, 7, 500):
        tag = rng.integers(TAG_H1 - 3, TAG_H1 + 3, n).astype(np.int64)
        want = np.flatnonzero(tag == TAG_H1).tolist()
        assert C.positions(tag, TAG_H1) == O.h1_positions(tag) == want
        assert C.positions(tag[::3], TAG_H1) == O.h1_positions(tag[::3])  # strided
        assert C.positions(tag[::-1], TAG_H1) == O.h1_positions(tag[::-1])
        assert C.positions(tag.tolist(), TAG_H1) == want  # the Python walk's lists
    assert C.positions([TAG_H1, 1 << 70, True, TAG_H1], TAG_H1) == [0, 3]
    for bad in (np.arange(6, dtype=np.int32), np.zeros((2, 2), np.int64), [1.0], ["x"], 5):
        with pytest.raises(TypeError):
            C.positions(bad, 1)


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


def _with_oracle(monkeypatch: pytest.MonkeyPatch) -> None:
    """The oracle in the C part's place (and the caches of its values cleared)."""
    monkeypatch.setattr(M, "_C", PY)
    monkeypatch.setattr(R, "_positions_part", lambda: PY)
    monkeypatch.setattr(D, "_c_part", lambda: PY)
    M.norm_text.cache_clear()
    M._title_parts.cache_clear()


@pytest.mark.parametrize("data", EDGE_PAGES)
@pytest.mark.parametrize("url", [None, "https://www.site.example/2024/03/05/story"])
def test_pages_metadata_with_the_c_part_and_the_oracle(data: bytes, url: str | None,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Every field of a page's metadata is the same with the C part and with the oracle."""
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
    with monkeypatch.context() as mp:
        _with_oracle(mp)
        assert fields() == with_c
    M.norm_text.cache_clear()
    M._title_parts.cache_clear()


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


def test_cut_at_is_the_cut_regex() -> None:
    """Where a byline's name ends: the C scan finds the start of CUT's first match (every
    branch: the separators and words after a space, a label or month glued onto the name, a
    month and day after a comma, a bar after spaces, a number before a word), in any script
    (the case folds re.IGNORECASE knows, other scripts' digits and spaces)."""
    rng = random.Random(13)
    pieces = ["Jane", "Doe", "jane", "doeP", "Published", "published", "PUBLISHED", "Updated", "updated",
              "Posted", "posted", "Last", "last", "on", "On", "ON", "March", "march", "Mar", "Mar.", "Sept",
              "Sept.", "September", "Sep", "May", "may", "Marching", "Staff", "Senior", "Former",
              "Contributing", "Reviewed", " ", "  ", "\t", "\x1c", ",", ", ", "|", " |", "-", " - ", "5",
              "12", "123", "5th", "1st", "2ND", "x", "_", "a", ".", "Jun5", "é", "•", "\u0130", "\u0131",
              "\u017f", "\u212a", "\u00a0", "\u3000", "\u0662", "\u22c5", "\u2219", "\u00bb", "\u2014",
              "\u00b7", "\u4e2d", "\u00b2", "\u017fept", "\u017ftaff", "la\u017ft", "upda\u0131ed"]
    for _ in range(30000):
        s = _pieces(rng, pieces, 10)
        want = O.cut_at(s)
        assert C.cut_at(s, M._CUT_MONTHS, M._CUT_CAPS) == want, s
        assert M.cut_at(s) == want, s
    for s in ["", " " * 3000, "Jane Doe " * 20000, "x" * 100000 + " | y", "\u00e9" * 100000 + " 5"]:
        assert C.cut_at(s, M._CUT_MONTHS, M._CUT_CAPS) == O.cut_at(s)


def test_date_values_are_the_date_key_regexes() -> None:
    """The dating <meta>s' values: the C part's choice is is_date_key's (the regexes,
    case-blind: the dotted and dotless I, the long s count as i and s)."""
    rng = random.Random(17)
    pieces = ["date", "Date", "DATE", "time", "publish", "created", "modif", "updat", "expir", "valid",
              "start", "end", "event", "verif", "birth", "x", ":", "_", "dat", "e", "tim", "ſ", "K", "é", "",
              "Modif", "END", "\u0130", "\u0131", "t\u0131me", "publi\u017fh", "\u4e2d"]
    for _ in range(20000):
        metas = [(_pieces(rng, pieces, 4), str(i)) for i in range(rng.randint(0, 6))]
        want = [v for k, v in metas if O.is_date_key(k)]
        assert C.date_values(metas) == want, metas
        assert M.date_values(metas) == want
    assert C.date_values([("date" * 10000, "v")]) == ["v"]
    with pytest.raises(TypeError):
        C.date_values((("date", "v"),))
    with pytest.raises(TypeError):
        C.date_values([("date",)])


def test_host_is_the_oracles() -> None:
    """A URL's host: the C part's (schemes, users, ports, IPv6 brackets, "www.", padding,
    relative and odd URLs, hosts and schemes in other scripts, case folds) is the oracle's, and
    address.hostname (the site memory's) is the C part's."""
    from ce_filter.read.address import hostname

    rng = random.Random(19)
    pieces = ["http", "https", "HTTP", "+", "-", "+-", "a+b", ".", ":", "//", "/", "?", "#", "@", "[", "]",
              "::1", "www.", "WWW.", "Www.", "x", "Example", ".com", ":80", " ", "\t", "\x1c", "\n", "é",
              "user:pw", "a", "1", "_", "\u0130", "\u00a0", "\u3000", "\u4e2d", "\u212a", "W\u0130W.",
              "\u00b2", "\uff37\uff37\uff37.", "\u0662", "\u1e9e"]
    for _ in range(30000):
        url = _pieces(rng, pieces, 10)
        want = O.hostname(url)
        assert C.hostname(url) == want, url
        assert M.host(url) == hostname(url) == want, url
    for url in [None, "", "x" * 100000 + "//" + "A" * 100000 + ":1", "http://" + "a" * 300,
                "http://" + "\u00e9" * 300]:
        assert C.hostname(url) == O.hostname(url)
    with pytest.raises(TypeError):
        C.hostname(b"http://x.org/")


def test_clean_title_is_clean_parts() -> None:
    """A title without the site's name: the C part's choice of parts (the site's name or domain
    first, last, in the middle, inside a part, everywhere, nowhere; blank and repeated parts;
    other scripts, case folds and NFKC forms) is the oracle's."""
    rng = random.Random(23)
    pieces = ["Story", "story", "Example", "example", "News", "Daily", "Site", " | ", " - ", " :: ", " » ",
              "|", " ", "  ", "\t", "a", "The", "Ünï", "x-y", "Example News", "2024", "!", ".com", "STRASSE",
              "Straße", "\u0130stanbul", "\uff25xample", "\u4e2d\u6587", " \u2013 ", "\u00a0", "e\u0301"]
    sites = ["", "Site", "Example News", "example", "The Daily", "Ünï", "a", "strasse", "\u4e2d\u6587",
             "i\u0307stanbul"]
    urls = [None, "https://www.example.com/x", "http://news.example.co.uk/", "https://site.org",
                  "https://ünï.de/",
            "https://xn--strae-oqa.de/", "https://\u0130stanbul.tr/"]
    for _ in range(20000):
        title = " ".join(_pieces(rng, pieces, 10).split())
        sitename, url = rng.choice(sites), rng.choice(urls)
        parts = M._title_parts(title)
        site, dom = M.norm_text(sitename), M._domain_words(url)
        sq = M._squashed(dom)
        for part in (*parts, title):
            assert C.site_part(part, site, sq) == O.is_site_part(part, site, dom), (part, site, dom)
            assert M._is_site_part(part, site, dom) == O.is_site_part(part, site, dom)
        if len(parts) < 2:
            continue
        want = O.clean_parts(title, parts, site, dom)
        assert C.clean_title(title, parts, site, sq) == want, (title, sitename, url)
        assert M.clean_title(title, sitename, url) == want
    long = " | ".join([f"Part {i}" for i in range(5000)])
    parts = M._title_parts(long)
    assert C.clean_title(long, parts, "part 1", ()) == O.clean_parts(long, parts, "part 1", frozenset())
    with pytest.raises(ValueError):
        C.clean_title("", (), "", ())  # fewer than two parts: nothing to choose
    for part in ["", " ", "x" * 100000, "Site " * 20000, "\u00e9" * 100000]:
        assert C.site_part(part, "site", ("site",)) == O.is_site_part(part, "site", frozenset({"site"}))


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


# characters where str's Unicode rules and ASCII's part: case folds (İ ı ß K ſ), combining marks,
# CJK, full-width forms, NBSP and other spaces, right-to-left letters, other digits and numbers
ODD = ("\u0130", "\u0131", "\u00df", "\u212a", "\u017f", "e\u0301", "\u0345", "\u4e2d\u6587", "\uff21\uff11",
       "\u00a0", "\u3000", "\u2003", "\u200f", "\u05d0\u05d1", "\u0627\u0644", "\u0662\u0660\u0662\u0664",
       "\u2167", "\u00b2", "\ufb01", "\u1e9e", "\u03a3\u03c2", " | ", " - ", "::", "\u00bb", "\u2022", "\n",
       "By ", "Published ", "Updated ", "March 5, 2024", "2024-03-05", "date", "time", "_", ",", ";", "&amp;")
TEXT = st.lists(st.one_of(st.characters(blacklist_categories=("Cs",)), st.sampled_from(ODD)),
                max_size=12).map("".join)


@settings(max_examples=1500, deadline=None)
@given(TEXT, TEXT, TEXT)
def test_every_function_is_the_oracles_on_unicode_strings(a: str, b: str, c: str) -> None:
    """hypothesis's strings: each function of the C part gives the oracle's value."""
    for s in (a, b, c, a + b):
        assert C.norm_text(s) == O.norm_text(s)
        assert C.split_title(s) == O.split_title(s)
        assert C.cut_at(s, M._CUT_MONTHS, M._CUT_CAPS) == O.cut_at(s)
        assert C.terms(s, M.MAX_TERMS, M.MAX_TERM_CHARS) == O.split_terms(s)
        assert C.first_meta({"k": s}, ("k",)) == O.first_meta({"k": s}, ("k",))
        assert C.hostname(s) == O.hostname(s) and C.hostname("http://" + s) == O.hostname("http://" + s)
        for months in (D.ENGLISH, D.months_for(("de", "ru"))):
            assert C.normalise_date(s, months, D._this_year() + 1) == O.normalise_date(s, months)
        assert D._c_part().marks(s, False) == O.label_marks(s)
    texts = [a, b, c]
    assert C.with_year(texts, 1 << 40) == O.with_year(texts, 1 << 40)
    assert C.with_year(texts, M.MAX_DATE_LINE) == O.with_year(texts, M.MAX_DATE_LINE)
    for pattern, words in O.START_WORDS.items():
        assert C.starting(texts, words) == O.starting(texts, pattern)
    metas = [(a, "1"), (b, "2"), (c.lower(), "3")]
    assert C.date_values(metas) == PY.date_values(metas)
    assert C.terms(texts, M.MAX_TERMS, M.MAX_TERM_CHARS) == O.split_terms(texts)
    items: list[tuple[str, ...]] = [("meta", a, b), ("by", a, b, c, a, b), ("link", b, c),
                                    ("time", a, b, c, a), ("lang", c), ("ld", a)]
    limits = (M.MAX_BYLINES, M.MAX_BYLINE_CHARS)
    assert C.head(items, *limits) == PY.head(items, *limits)
    title = " ".join((a + " | " + b).split())
    parts = M._title_parts(title)
    site, dom = C.norm_text(c), frozenset((C.norm_text(b),))
    sq = tuple(d.replace(" ", "") for d in dom if d)
    for part in (*parts, a):
        assert C.site_part(part, site, sq) == O.is_site_part(part, site, dom)
    if len(parts) >= 2:
        assert C.clean_title(title, parts, site, sq) == O.clean_parts(title, parts, site, dom)


class _Checked:
    """A part whose every call is made on the C part and on the oracle: the calls counted, the
    ones that differ kept."""

    def __init__(self, c: object, oracle: object) -> None:
        self.c, self.oracle = c, oracle
        self.calls: Counter[str] = Counter()
        self.differ: list[tuple[str, Any, Any, Any]] = []

    def __getattr__(self, name: str) -> Callable[..., Any]:
        cf, of = getattr(self.c, name), getattr(self.oracle, name)

        def call(*args: Any) -> Any:
            got, want = cf(*args), of(*args)
            self.calls[name] += 1
            if got != want:
                self.differ.append((name, args, got, want))
            return got
        return call


@pytest.mark.corpus
def test_c_part_is_the_oracle_on_every_corpus_page(data_dir, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every page of every corpus extracted: each call the metadata rules make to the C part
    gives the oracle's value."""
    from ce_filter.api import Extractor

    from .corpus_pages import every_page

    checked = _Checked(C, PY)
    monkeypatch.setattr(M, "_C", checked)
    positions, dates = _Checked(R._positions_part(), PY), _Checked(D._c_part(), PY)
    monkeypatch.setattr(R, "_positions_part", lambda: positions)
    monkeypatch.setattr(D, "_c_part", lambda: dates)
    ex = Extractor()
    pages = 0
    for _corpus, doc, html, _b in every_page(data_dir):
        ex.extract(html, url=doc.url or None).to_dict()  # (the metadata is read on demand)
        pages += 1
    M.norm_text.cache_clear()
    M._title_parts.cache_clear()
    calls = checked.calls + positions.calls + dates.calls
    print(f"{pages} pages, {sum(calls.values())} calls compared: {dict(calls)}")
    assert pages > 3000 and sum(calls.values()) > 10 * pages
    differ = checked.differ + positions.differ + dates.differ
    assert not differ, differ[:5]
