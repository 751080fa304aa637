"""Rules after the cut for the story's text: each sentence once, and no line that is not the
story (docs/research/ARTICLE_CLEANUP.md).

The block model decides; these rules only take back kept blocks that are, by what they say
or where they sit, not new content of the page's main text:

- **repeats**: a kept block (of ``MIN_REPEAT_WORDS`` words or more) whose text already stands
  in the kept text before it: the hidden schema.org copy of the article, a standfirst printed
  twice. Visible blocks are read first, so the copy that goes is the hidden one.
- **hidden**: a block inside an element hidden from the reader (``segment.FLAG_HIDDEN``:
  ``hidden``, ``aria-hidden="true"``, ``display: none``) is kept only at ``HIDDEN_CUT`` or more.
- **labels**: a kept block that is only an advertising label ("Advertisement", "Anzeige",
  "广告", …), a newsletter sign-up line or a video player's label.
- **bylines** (``bylines=False``, the default): on a page read as an article, a short kept
  block that is a byline, a dateline or a photo credit ("By Maria Lopez · Updated Nov 13,
  2019", "Sanjeev Verma/Hindustan Times/Getty Images"): they belong to the record's author and
  date fields, not to the text.
- **comments** (not with the comments model): on a page read as an article, the kept blocks
  inside a reader-comments container (class/id tokens ``comment``, ``disqus``, …) after the
  story, where the story itself is not inside such a container.
- **tail** (not with the comments model): on a page read as an article, after the story's last
  long paragraph, a heading that titles a section which is not the story ("Related posts",
  "Ähnliche Einträge", "Comentarios", "相关文章", "About the author", …) with the blocks it
  governs, and a short line that is such a title or a prompt as a whole ("Weiterlesen",
  "Teilen", "Kommentar schreiben"). The words, in 15 languages, are ``boiler_words.tsv``'s
  (each with the translation catalogue that states it).
- **authorbox** (not with the comments model, not with ``bylines=True``): on a page read as an
  article, after the story's last long paragraph outside it, the short kept blocks inside an
  author box without a title, known by its class/id tokens ("author-bio", "author-box",
  "about-author", "saboxplugin-wrap", …): the author's name, bio and social links.

``tidy`` applies them in that order to the cut's mask; ``RULES`` names the ones in force (the
studies switch them one by one; the Python oracle, tests/oracles/tidy_python.py, also has
"credits", the credit lines of other languages, measured and not in force).
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Protocol, cast

import numpy as np

from .. import native
from ..read.segment import (
    FLAG_HIDDEN,
    FLAG_NAMES,
    HEADINGS,
    KIND_CONTAINS,
    KIND_EQUALS,
    PATH_LEN,
    Blocks,
    Patterns,
    tag_id,
    token_matcher,
)

RULES: frozenset[str] = frozenset({"repeats", "hidden", "labels", "bylines", "comments", "tail",
                                   "authorbox", "units"})

MIN_REPEAT_WORDS = 6  # shorter repeats (table cells, "Share", "Yes") are left alone
MIN_REPEAT_CHARS = 24
GRAM = 5  # a hidden block is a copy where REPEAT_COVER of its 5-token runs are in the kept text
REPEAT_COVER = 0.8
HIDDEN_CUT = 0.9  # the probability a hidden block needs to be kept
HIDDEN_SHARE = 0.25  # ... where the kept hidden words are at most this share of the visible ones

# Whole-block labels, compared lower-cased with every run of non-word characters one space.
AD_LABELS = (
    "advertisement", "advertisements", "advertising", "advert", "ad", "ads", "sponsored",
    "sponsored content", "paid content", "promoted", "promoted content", "partner content",
    "sponsored links", "sponsored stories", "adchoices", "ad choices", "advertise with us",
    "story continues below advertisement", "article continues below advertisement",
    "story continues below", "article continues below", "continue reading below",
    "continue reading below ad", "advertisement continue reading below",
    "advertisement scroll to continue", "advertisement story continues below",
    "advertisement article continues below", "skip advertisement", "scroll to continue with content",
    "content continues below ad", "advertiser content", "anzeige", "werbung", "publicité",
    "publicite", "publicidad", "publicidade", "pubblicità", "pubblicita", "advertentie", "reklama",
    "reklame", "reklam", "mainos", "annonse", "annons", "hirdetés", "διαφήμιση", "реклама",
    "広告", "广告", "廣告", "광고", "โฆษณา", "iklan",
    "video", "watch video", "play video", "watch now", "video player", "watch the video",
)
_LEAD = " -–—*|·•([<>:"  # stripped before a label's first three characters, which must be a label's
SHORT_LABEL_WORDS, SHORT_LABEL_CHARS = 8, 60  # a label of AD_LABELS is shorter than both
# A newsletter sign-up line (the C part's newsletter pattern: a verb such as "sign up" before
# "newsletter", "newsletter" before "sign up", "subscribe" or "inbox", or "Newsletter
# abonnieren", "inscrivez-vous", "suscríbete", "订阅")
NEWSLETTER_MARKERS = ("订阅", "訂閱")  # beside "newsletter" and "suscr": what a newsletter line holds
MAX_LABEL_WORDS = 12  # a newsletter line longer than this is prose about newsletters

# Bylines, datelines and photo credits: short blocks only (read on the lower-cased text by the
# C part's patterns: a line starting "By ..." or "Written by ...", a photo credit such as
# "Getty Images", "Photo: ...", "© ...", "(c) 2019", or a date with a dateline word or little
# else).
MAX_BYLINE_WORDS = 24
MAX_CREDIT_WORDS = 16
STORY_WORDS = 25  # a kept block this long is the story's prose: bylines stand before or after it
FLAG_FIGURE = 1 << FLAG_NAMES.index("figure")
# what marks a date line as a dateline (substrings of the lower-cased text)
_DATELINE_WORDS = ("updated", "published", "posted", "modified", "by ", "comment", "|", "·", "•",
                   "作者", "记者", "来源", "发布时间", "编辑")
# what a credit line holds (substrings; where none is there, the credit patterns are not read)
_CREDIT_WORDS = ("photo", "image", "getty", "credit", "reuters", "press", "courtesy", "©", "afp",
                 "stock", "epa", "picture", "(c)", "/ap", "pa ")

# The words of the tail rule (and of the oracle's multilingual credit lines): boiler_words.tsv (role,
# language, phrase, English, source, file; made by research/boiler_headings.py --roles)
WORDS_FILE = Path(__file__).with_name("boiler_words.tsv")
UNSPACED = frozenset({"ja", "zh", "ko"})  # written without spaces: a phrase is a substring


def load_words(path: Path = WORDS_FILE) -> list[dict[str, str]]:
    """The rows of the words file, each with its source."""
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def _phrases(rows: list[dict[str, str]], role: str, unspaced: bool) -> tuple[str, ...]:
    return tuple(dict.fromkeys(r["phrase"] for r in rows if r["role"] == role
                               and (r["language"] in UNSPACED) == unspaced))


_ROWS = load_words()
TAIL_SPACED = frozenset(_phrases(_ROWS, "tail", False))  # a line starting with one, at a word end
TAIL_UNSPACED = _phrases(_ROWS, "tail", True)  # a line holding one, at most TAIL_SLACK more
TAIL_SLACK = 6
MAX_TAIL_CHARS = 60  # a title or prompt line is shorter (normalised)
TAG_HEADING = {tag_id(f"h{k}"): k for k in range(1, 7)}  # heading tag -> level
assert set(TAG_HEADING) == set(HEADINGS)
_LEVELS = [0] * (max(TAG_HEADING) + 1)
for _t, _k in TAG_HEADING.items():
    _LEVELS[_t] = _k
_LEVEL_BYTES = bytes(_LEVELS)  # (as the C part takes them)

# Tables and lists inside the story: decided whole (the rule "units").
TAG_TD, TAG_TH, TAG_LI = tag_id("td"), tag_id("th"), tag_id("li")
UNIT_CUT = 0.2  # a table or list of mixed decisions inside the kept span is kept whole at this mean

# Reader comments: class/id tokens of the container (one pattern bit; segment.Patterns).
COMMENT_PATTERNS: Patterns = tuple(
    [(0, KIND_CONTAINS, w) for w in ("disqus", "livefyre", "talkback")]
    + [(0, KIND_EQUALS, w) for w in ("comment", "comments", "commentlist", "commentslist",
                                     "usercomments", "respond", "replies", "discussion")])
_COMMENT_MATCHER = token_matcher(COMMENT_PATTERNS)
MIN_STORY_WORDS = 50
# the page kinds (the page-kind model's most probable) whose reader comments are left out
COMMENT_KINDS = frozenset({"article"})


# Author boxes without a heading (the rule "authorbox"): an element whose
# class/id tokens say author (bit 0: "author" in a token, or the German, Spanish, French or
# Italian word as a token) beside a token that says what of the author (bit 1: bio, box, info,
# ...), or one token that says both (bit 2). The names are the standard markup of WordPress
# themes and plugins: "author-info", "author-avatar", "author-description", "author-bio" (the
# default themes' author templates), "author-box" (Genesis), "about-author", "saboxplugin-wrap"
# (the Simple Author Box plugin).
AUTHOR_PATTERNS: Patterns = tuple(
    [(0, KIND_CONTAINS, "author")]
    + [(0, KIND_EQUALS, w) for w in ("autor", "auteur", "autore")]
    + [(1, KIND_EQUALS, w) for w in ("bio", "box", "info", "about", "profile", "card", "details",
                                     "description", "avatar", "biography")]
    + [(2, KIND_CONTAINS, w) for w in ("authorbox", "authorbio", "authorinfo", "aboutauthor",
                                       "abouttheauthor", "authorprofile", "authordescription",
                                       "authorcard", "saboxplugin")])
_AUTHOR_MATCHER = token_matcher(AUTHOR_PATTERNS)
_AUTHOR_BYTES = (b"uthor", b"utor", b"uteur", b"abox")  # a page without them names no box
AUTHOR_LEVELS = 4  # the box is the block's opener or one of its 4 nearest ancestors
MAX_BOX_WORDS = 60  # a block of the box is at most this long (a longer one may be the story's)

# the characters read as spaces where a line is compared with words (labels, tail words), beside
# white space
_PUNCT_CHARS = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~–—·•…»«|"
# the rules as the C part takes them (a bitmask)
_RULE_BITS = {r: 1 << k for k, r in enumerate(("labels", "bylines", "comments", "tail", "authorbox",
                                                "units", "repeats", "hidden"))}
assert set(_RULE_BITS) == RULES


def tidy(blocks: Blocks, scores: np.ndarray, keep: np.ndarray, kind: str | None, *,
         bylines: bool = False, comments: bool = False,
         rules: frozenset[str] | None = None) -> np.ndarray:
    """The cut's mask ``keep`` with the rules of this module applied (a new array; ``keep``
    is not changed). ``kind``: the page's estimated kind (the page-kind model's most probable;
    None without one): the label rule runs on every page, the comments rule on the kinds of
    ``COMMENT_KINDS``, the others on an article (a forum's replies quote the posts they answer,
    documentation repeats its steps in hidden tabs, a collection's carousel hides its cards);
    ``bylines``: keep bylines, datelines and credits; ``comments``: the comments are wanted
    (the comments model); ``rules``: a subset of ``RULES`` (the studies'; None: ``RULES`` as
    it stands). The rules run in one call of the C part (keep/_articles.c, in the pass's module
    ce_filter._pass: ``tidy``), which takes the comment and author-box class/id columns that the
    walk's C part makes where the page may name such containers; their Python oracle is
    tests/oracles/tidy_python.py. The pass runs the same C on the cut in its own call
    (``pass_rules``)."""
    rules = RULES if rules is None else rules
    if not rules <= _RULE_BITS.keys():
        raise ValueError(f"rules not among RULES: {sorted(rules - _RULE_BITS.keys())}")
    keep8 = keep.view(np.uint8)
    if not keep8.any():
        return keep
    article = kind == "article"
    comment_kind = kind in COMMENT_KINDS
    out = keep.copy()
    # the class/id columns (made by the walk's C part) where a block may be in such a container
    ccols = acols = None
    if comment_kind and not comments and "comments" in rules and blocks.may_name(_COMMENT_BYTES):
        ccols = np.ascontiguousarray(blocks.pattern_columns(COMMENT_PATTERNS, _COMMENT_MATCHER, 0, 1),
                                     dtype=np.float64)  # own, ancestors
    if (article and not comments and not bylines and "authorbox" in rules
            and blocks.may_name(_AUTHOR_BYTES)):
        acols = np.ascontiguousarray(blocks.pattern_columns(AUTHOR_PATTERNS, _AUTHOR_MATCHER,
                                                            AUTHOR_LEVELS, 3), dtype=np.float64)
    utf8, starts = blocks.text_column().c_args()
    _c.tidy(keep8, out.view(np.uint8), np.ascontiguousarray(scores, dtype=np.float64), blocks.counts(),
            np.ascontiguousarray(blocks.flags, dtype=np.int64),
            np.ascontiguousarray(blocks.tag, dtype=np.int64), blocks.container_ids(), utf8, starts,
            ccols, acols, article, comment_kind, bylines, comments, sum(_RULE_BITS[r] for r in rules))
    return out


def pass_rules(blocks: Blocks, *, bylines: bool = False, comments: bool = False
               ) -> tuple[object, ...]:
    """What the pass after the walk (ce_filter/_pass.c: page_scores, Extractor.page_run) reads
    of the rules in force (``RULES``) for a page: their bits, ``bylines``, ``comments``, the
    comment and author-box matchers where the options leave those rules in (else None), and
    what ``Blocks.may_name`` looks in and for: the page's class/id values (None: look in
    nothing, the page may name anything) and the pieces of each. The pass makes the columns
    of a rule where the page's kind needs them and the page may name its containers, as
    ``tidy`` does."""
    return (sum(_RULE_BITS[r] for r in RULES), bylines, comments,
            None if comments else _COMMENT_MATCHER,
            None if comments or bylines else _AUTHOR_MATCHER,
            blocks.class_values(), _COMMENT_BYTES, _AUTHOR_BYTES)


# (without their first letter: "Comment" and "comment" alike; a page whose class/id values
# hold none of them names no comments, and the per-block columns are not made)
_COMMENT_BYTES = (b"omment", b"isqus", b"iscussion", b"eplies", b"ivefyre", b"alkback", b"espond")
# (each pattern of COMMENT_PATTERNS holds one of them, as each author-box pattern that names the
# author holds one of _AUTHOR_BYTES: tests/core/test_articles.py)


class ArticlesC(Protocol):
    """The functions of the C part (keep/_articles.c) that Python calls: the words and limits of
    the rules (once), the rules (``tidy``: on ``out``, in place), and for the tests the label and
    byline matchers alone and their lower-casing."""

    def configure_lines(self, labels: tuple[str, ...], lead: str, punct: str, markers: tuple[str, ...],
                  dateline_words: tuple[str, ...], credit_words: tuple[str, ...],
                  short_label_words: float, short_label_chars: int, max_label_words: float,
                  max_byline_words: float, max_credit_words: float, /) -> None: ...

    def configure_rules(self, story_words: float, flag_figure: int, flag_hidden: int, tag_td: int,
                        tag_th: int, tag_li: int, path_len: int, unit_cut: float,
                        min_repeat_words: float, min_repeat_chars: float, gram: int,
                        repeat_cover: float, hidden_cut: float, hidden_share: float,
                        min_story_words: float, max_box_words: float, author_levels: int,
                        levels: bytes, tail_spaced: frozenset[str], tail_unspaced: tuple[str, ...],
                        tail_slack: int, max_tail_chars: int, /) -> None: ...

    def tidy(self, keep: np.ndarray, out: np.ndarray, scores: np.ndarray, counts: np.ndarray,
             flags: np.ndarray, tag: np.ndarray, cont: np.ndarray, utf8: bytes, starts: np.ndarray,
             comment_cols: np.ndarray | None, author_cols: np.ndarray | None, article: bool,
             comment_kind: bool, bylines: bool, comments: bool, rules: int, /) -> None: ...

    def line_kinds(self, utf8: bytes, starts: np.ndarray, words: np.ndarray, /) -> bytes: ...

    def lower(self, utf8: bytes, /) -> str: ...


_c = cast(ArticlesC, native.required("_pass"))
_c.configure_lines(AD_LABELS, _LEAD, _PUNCT_CHARS, NEWSLETTER_MARKERS, _DATELINE_WORDS, _CREDIT_WORDS,
             SHORT_LABEL_WORDS, SHORT_LABEL_CHARS, MAX_LABEL_WORDS, MAX_BYLINE_WORDS, MAX_CREDIT_WORDS)
_c.configure_rules(STORY_WORDS, FLAG_FIGURE, FLAG_HIDDEN, TAG_TD, TAG_TH, TAG_LI, PATH_LEN, UNIT_CUT,
                   MIN_REPEAT_WORDS, MIN_REPEAT_CHARS, GRAM, REPEAT_COVER, HIDDEN_CUT, HIDDEN_SHARE,
                   MIN_STORY_WORDS, MAX_BOX_WORDS, AUTHOR_LEVELS, _LEVEL_BYTES, TAIL_SPACED, TAIL_UNSPACED,
                   TAIL_SLACK, MAX_TAIL_CHARS)
