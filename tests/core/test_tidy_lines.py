"""The label and byline rules' matchers in C (ce_filter/keep/_articles.c: ``line_kinds``, which
``tidy`` applies) decide as the Python oracle's regular expressions (``is_label``,
``is_byline``) on every block of every corpus page (every block, whatever its length: the
matchers alone, the word limits set aside, and again with the blocks' own word counts), on
hand-written edge cases and on random strings.

Tolerance: none; every decision must be equal. The C part reads the classes of Python's re
(``\\w``, ``\\s``, ``\\d``) and ``str.lower`` through CPython's own Unicode tables, and lower-cases
"İ" (U+0130) to "i̇" as ``str.lower`` does. Its one known difference from ``str.lower`` is the
final sigma: "Σ" at a word's end is "σ" in C and "ς" in Python; no word of the rules (labels,
markers, tail words) holds a σ or ς except "διαφήμιση", where it stands before a letter (σ in
both), so no decision differs (``test_final_sigma_changes_no_decision``; the tail rule, which
lower-cases the same way, by test_tidy_c.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ce_filter.keep import articles as A
from ce_filter.read.texts import TextColumn
from tests.oracles.tidy_python import is_byline, is_label

from .corpus_pages import every_page


def _c_kinds(texts: list[str], words: np.ndarray) -> list[int]:
    utf8, starts = TextColumn.of(texts).c_args()
    return list(A._c.line_kinds(utf8, starts, np.ascontiguousarray(words, dtype=np.float64)))


def _py_kinds(texts: list[str], words: np.ndarray) -> list[int]:
    return [int(is_label(t, w)) | int(is_byline(t, w)) << 1 for t, w in zip(texts, words.tolist())]


def _differ(texts: list[str], words: np.ndarray) -> list[tuple[str, float, int, int]]:
    c, py = _c_kinds(texts, words), _py_kinds(texts, words)
    return [(t, w, a, b) for t, w, a, b in zip(texts, words.tolist(), c, py) if a != b]


def test_lower_is_str_lower_on_every_code_point():
    """Each code point alone (between NULs): the C lower-casing is ``str.lower``'s, "İ" too."""
    chars = [chr(c) for c in range(1, 0x110000)]
    s = "\0".join(chars)
    got = A._c.lower(s.encode("utf-8", "surrogatepass")).split("\0")
    want = s.lower().split("\0")
    assert len(got) == len(want) == len(chars)
    bad = [hex(ord(ch)) for ch, g, w in zip(chars, got, want) if g != w]
    assert not bad, bad[:20]
    assert A._c.lower("İSTANBUL".encode()) == "i̇stanbul"


def test_final_sigma_changes_no_decision():
    """The one difference from str.lower (the final sigma), and that no decision turns on it."""
    assert A._c.lower("ΑΣ".encode()) == "ασ" and "ΑΣ".lower() == "ας"
    texts = ["ΔΙΑΦΉΜΙΣΗ", "διαφήμιση", "ΔΙΑΦΉΜΙΣ", "ΔΙΑΦΉΜΙΣΗΣ", "Σ", "ΣΑΣ newsletter sign up",
             "ΑΣ: by ΣΑΣ", "ΔΙΑΦΉΜΙΣΗ Σ"]
    for w in (0, 1, 9, 13, 20):
        assert not _differ(texts, np.full(len(texts), float(w)))


EDGE = [
    # labels: case, punctuation, white space, non-ASCII letters next to them
    "Advertisement", "ADVERTISEMENT", " - Advertisement - ", "(Advertisement)", "#ad", "ad", "Ad:",
    "\u00a0Advertisement", "Advertisement\u00a0", "·Anzeige", "Publicité", "PUBLICITÉ", "éadvertisement",
    "advertisementé", "Advertisement_", "_Advertisement", "Story continues below advertisement",
    "Story   continues\tbelow — advertisement", "広告", "【広告】", "광고", "РЕКЛАМА", "ΔΙΑΦΉΜΙΣΗ",
    "İklan", "IKLAN", "Watch Video", "watch-video", "vidéo", "Video ▶", "ads ads",
    # newsletters
    "Sign up for our newsletter", "Signing-up to the newsletters", "signup newsletter",
    "Get our newsletter", "getnewsletter", "forget the newsletter", "Subscribe to the Newsletter!",
    "Newsletter: sign up", "newsletters inbox", "newsletter inboxes", "newslettersinbox",
    "Newsletter abonnieren", "Inscrivez-vous à la newsletter", "inscrivez-vous", "¡Suscríbete!",
    "suscribete ya", "订阅", "訂閱我們", "订 阅", "The newsletter", "join " + "x" * 60 + " newsletter",
    "join " + "x" * 55 + " newsletter", "newsletter" + " y" * 20 + " subscribe",
    "sign up é newsletter", "newsletterß sign up", "ßnewsletter subscribe", "sign up\u2028newsletter",
    # bylines
    "By Maria Lopez · Updated Nov 13, 2019", "by:maria", "by -maria", "by - ", "by", "by ", "bye now",
    "Bypass surgery", "  Written   by  Anna", "Reporting by Anna", "reportedby anna", "By\u00a0Anna",
    "BY ANNA", "by\u3000anna", "written by", "Text: by x",
    # credits
    "Photo: Getty Images", "GettyImages", "getty  images", "Reuters", "Reuters/", "xreuters",
    "Associated Press", "associated  press", "AP Photo/Evan Vucci", "ap photos", "AFP", "afp.com",
    "EPA-EFE", "Photographs by Anna", "photography: x", "photos : x", "Photograph credit x",
    "Image by x", "Image: x", "imagery by", "Credit : x", "Picture: x", "File photo", "filephoto",
    "Courtesy of the artist", "courtesy (x)", "courtesy é", "© Anna", "(c) 2019 x", "(c)２０１９",
    "(c)  201", "Anna / AP", "Anna /APx", "PA Wire", "pa images", "pa   wireless", "Shutterstock",
    "iStock", "istockphoto", "Photo：Getty", "Foto: dpa", "Sanjeev Verma/Hindustan Times/Getty Images",
    "(@anna) Photo: x",
    # dates
    "March 3, 2020", "mar. 3 2020", "Sept. 3rd, 2020", "sept 3rd,2020", "3rd September, 2020",
    "3 sept. 2020", "12 May 2020x", "2020-01-02", "2020-01-023", "2020-01-02é", "1/2/20", "01.02.2020",
    "1/2/2020²", "12/05/20201", "10:28am EST", "10:28 a.m.", "10:28 p.m", "10:28 a.x", "1:2",
    "١٠:٢٨", "٢٠٢٠-٠١-٠٢", "２０２０年１月２日", "2020年1月2日", "2020年12月31日 编辑", "3 hours ago",
    "3 hours agony", "3hours ago", "1 week  ago", "Posted on March 3, 2020", "March 3, 2020 | News",
    "The council met on Nov 13, 2019 and voted to expand the park.", "Nov 13, 2019 in the park today",
    "October 15, 2018 / 0 Comments / in News / by admin", "summer 3, 2020", "decimal 12, 2020",
    "Updated 5 minutes ago", "作者：张三 2020-01-02", "²⁰ 12:30", "12:30\u00a0pm", "on 12:30 x y z w",
    "İ 12:30", "12:30 İ", "Jan 2, 2020 İİ x y",
]


def test_edge_cases_decide_as_the_oracle():
    """Hand-written texts that touch each pattern's edges (non-ASCII letters next to the words,
    Unicode digits, "İ", NBSP and other white space, the CJK markers), at several word counts."""
    for w in (0.0, 3.0, 8.0, 9.0, 12.0, 13.0, 16.0, 17.0, 24.0, 25.0):
        assert not _differ(EDGE, np.full(len(EDGE), w)), w
    c = _c_kinds(EDGE, np.full(len(EDGE), 3.0))
    assert sum(k & 1 for k in c) > 30 and sum(k >> 1 for k in c) > 60  # both rules do fire


FRAGMENTS = ["advertisement", "ad", "newsletter", "newsletters", "sign", "up", "signing", "subscribe",
             "inbox", "get", "join", "by", "written", "photo", "graph", "s", "credit", "image",
             "getty", "images", "reuters", "ap", "afp", "epa", "courtesy", "of", "file", "pa", "wire",
             "jan", "uary", "sept", "ember", "may", "st", "th", "ago", "hours", "minute", "am", "p.m.",
             "(c)", "©", "年", "月", "日", "订阅", "suscr", "íbete", "updated", "|", "·", ":", "-", "/",
             ".", ",", " ", "  ", "\u00a0", "\t", "İ", "é", "ß", "_", "1", "12", "2020", "٣", "２",
             "²", "(@", "Σ", "Advertisement", "BY", "Photo", "News", "x"]


def test_no_rule_word_turns_on_the_final_sigma():
    """The ground of the one tolerance above: the words the C part compares lower-cased text
    with hold no σ or ς but the label "διαφήμιση", whose σ stands before a letter."""
    words = [*A.AD_LABELS, *A.NEWSLETTER_MARKERS, *A._DATELINE_WORDS, *A._CREDIT_WORDS,
             *A.TAIL_SPACED, *A.TAIL_UNSPACED]
    assert [w for w in words if "σ" in w or "ς" in w] == ["διαφήμιση"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.lists(st.sampled_from(FRAGMENTS) | st.characters(blacklist_characters="\n"),
                         max_size=14).map("".join), min_size=1, max_size=8),
       st.sampled_from([0.0, 5.0, 8.0, 12.0, 16.0, 20.0, 24.0, 30.0]))
def test_random_strings_decide_as_the_oracle(texts, w):
    assert not _differ(texts, np.full(len(texts), w))


@pytest.mark.corpus
def test_every_corpus_block_decides_as_the_oracle(data_dir):
    """Every block of every corpus page: the matchers alone (word count 0: every text is read
    by both rules) and with the block's own word count."""
    blocks = labels = bylines = 0
    differ: list[tuple[str, float, int, int]] = []
    for _corpus, _doc, _html, b in every_page(data_dir):
        if not len(b):
            continue
        texts = list(b.texts)
        words = b.counts()[:, 1]
        blocks += len(texts)
        for w in (np.zeros(len(texts)), words):
            c = _c_kinds(texts, w)
            differ += _differ(texts, w) if c != _py_kinds(texts, w) else []
            labels += sum(k & 1 for k in c)
            bylines += sum(k >> 1 for k in c)
    assert blocks > 100_000 and labels > 100 and bylines > 1000, (blocks, labels, bylines)
    assert not differ, (len(differ), differ[:20])
