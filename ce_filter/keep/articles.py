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
studies switch them one by one; ``tidy_reference`` also has "credits", the credit lines of
other languages, measured and not in force).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

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
    parse,
    segment,
    tag_id,
    token_matcher,
)
from ..read.texts import pick
from ..read.words import tokens

if TYPE_CHECKING:
    from types import ModuleType

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
AD_LABEL_SET = frozenset(AD_LABELS)
_LEAD = " -–—*|·•([<>:"
_LABEL_HEADS = frozenset(x[:3] for x in AD_LABELS)  # a label's first three characters
SHORT_LABEL_WORDS, SHORT_LABEL_CHARS = 8, 60  # a label of AD_LABELS is shorter than both
_NONWORD = re.compile(r"[\W_]+")
# (read on the lower-cased text)
_NEWSLETTER = re.compile(
    r"\b(?:sign(?:ing)?[ -]?up|subscribe|register|get|receive|join)\b.{0,60}\bnewsletters?\b"
    r"|\bnewsletters?\b.{0,40}\b(?:sign[ -]?up|subscribe|inbox)\b"
    r"|订阅|訂閱|newsletter abonnieren|inscrivez-vous|suscr[ií]bete")
NEWSLETTER_MARKERS = ("订阅", "訂閱")  # beside "newsletter" and "suscr": what a newsletter line holds
_MARKER_LIST = list(NEWSLETTER_MARKERS)  # (as the C part takes them)
MAX_LABEL_WORDS = 12  # a newsletter line longer than this is prose about newsletters

# Bylines, datelines and photo credits: short blocks only (read on the lower-cased text).
MAX_BYLINE_WORDS = 24
MAX_CREDIT_WORDS = 16
STORY_WORDS = 25  # a kept block this long is the story's prose: bylines stand before or after it
FLAG_FIGURE = 1 << FLAG_NAMES.index("figure")
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
# each branch starts with a digit or a month's first letter, so the search skips other text fast
_DATE = re.compile(
    rf"{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b|\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH},?\s+\d{{4}}\b"
    r"|\d{4}-\d{2}-\d{2}\b|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b|\d{1,2}:\d{2}\s*(?:[ap]\.?m\.?)?"
    r"|\d{4}年\d{1,2}月\d{1,2}日|\d+\s+(?:minutes?|hours?|days?|weeks?)\s+ago\b")
_BY_START = re.compile(r"\s*(?:written\s+|posted\s+|words\s+|story\s+|text\s+|report(?:ed|ing)\s+)?"
                       r"by(?:\s*[:\-]\s*|\s+)\S")
# what marks a date line as a dateline (substrings of the lower-cased text)
_DATELINE_WORDS = ("updated", "published", "posted", "modified", "by ", "comment", "|", "·", "•",
                   "作者", "记者", "来源", "发布时间", "编辑")
_CREDIT = re.compile(
    r"getty\s*images|\breuters\b|associated\s+press|\bap\s+photo\b|\bafp\b|shutterstock|istock"
    r"|\bepa\b|\bphoto(?:graph)?(?:s)?\s*(?:by|:|credit)|\bimage\s*(?:by|:|credit)|\bcredit\s*:"
    r"|\bpicture\s*:|\bfile\s+photo\b|\bcourtesy\s+(?:of\s+)?\w|©|\(c\)\s*\d{4}|/\s*ap\b"
    r"|\bpa\s+(?:wire|images)\b")
_CREDIT_WORDS = ("photo", "image", "getty", "credit", "reuters", "press", "courtesy", "©", "afp",
                 "stock", "epa", "picture", "(c)", "/ap", "pa ")
_DIGIT = re.compile(r"\d")

# The words of the tail rule and of the multilingual credit lines: boiler_words.tsv (role,
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
# credit lines in many languages (the rule "credits", measured and not in RULES: the corpora's
# gold keeps such lines as often as not; docs/research/MULTILINGUAL.md): a credit word and ":"
# or "/" at the start ("Foto: dpa", "Quelle: APA", "图片来源：新华社"), or a line that is an
# agency's name, or ends with "/" and one ("Max Muster/dpa")
_CREDIT_WORDS_ML = _phrases(_ROWS, "credit", False) + _phrases(_ROWS, "credit", True)
_AGENCIES = _phrases(_ROWS, "agency", False) + _phrases(_ROWS, "agency", True)
_ALT = "|".join(re.escape(w) for w in sorted(_CREDIT_WORDS_ML, key=len, reverse=True))
_AG = "|".join(re.escape(w) for w in sorted(_AGENCIES, key=len, reverse=True))
_CREDIT_ML = re.compile(rf"^[\s(\[]*(?:{_ALT})\s*[:/：]|^[\s(\[]*(?:{_AG})[\s)\]]*$"
                        rf"|/\s*(?:{_AG})[\s)\]]*$")


# Tables and lists inside the story: decided whole (``_units``).
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


# Author boxes without a heading (the rule "authorbox": _drop_author_box): an element whose
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
_AUTHOR_BYTES = (b"uthor", b"utor", b"uteur", b"sabox")  # a page without them names no box
AUTHOR_LEVELS = 4  # the box is the block's opener or one of its 4 nearest ancestors
MAX_BOX_WORDS = 60  # a block of the box is at most this long (a longer one may be the story's)


_PUNCT_CHARS = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~–—·•…»«|"
_PUNCT = str.maketrans({c: " " for c in _PUNCT_CHARS})


def _norm(low: str) -> str:
    return " ".join(low.translate(_PUNCT).split())


def is_label(text: str, words: float, low: str | None = None) -> bool:
    """Whether a block's whole text is an advertising or promo label, a newsletter sign-up
    line or a video player's label (``low``: the text lower-cased, where the caller has it)."""
    if words > MAX_LABEL_WORDS:
        return False
    low = text.lower() if low is None else low
    if (words <= SHORT_LABEL_WORDS and len(low) < SHORT_LABEL_CHARS
            and low.lstrip(_LEAD)[:3] in _LABEL_HEADS and _norm(low) in AD_LABEL_SET):
        return True
    return (("newsletter" in low or "suscr" in low or any(m in low for m in NEWSLETTER_MARKERS))
            and _NEWSLETTER.search(low) is not None)


def is_byline(text: str, words: float, low: str | None = None, credits: bool = False) -> bool:
    """Whether a short block is a byline, a dateline or a photo credit (``low``: the text
    lower-cased, where the caller has it; ``credits``: the credit lines of other languages
    too)."""
    if words > MAX_BYLINE_WORDS or not text or "(@" in text:  # "(@": a quoted post's signature
        return False
    low = text.lower() if low is None else low
    if words <= MAX_CREDIT_WORDS and (_BY_START.match(low) or (
            any(k in low for k in _CREDIT_WORDS) and _CREDIT.search(low))
            or (credits and _CREDIT_ML.search(low) is not None)):
        return True
    d = _DATE.search(low) if _DIGIT.search(low) else None
    if d is None:
        return False
    # a date with what marks a dateline (updated, posted, by, comments, separators), or a
    # line that is little more than the date
    return (any(k in low for k in _DATELINE_WORDS)
            or len(_norm(low[: d.start()] + " " + low[d.end():]).split()) <= 3)


def tidy(blocks: Blocks, scores: np.ndarray, keep: np.ndarray, kind: str | None, *,
         bylines: bool = False, comments: bool = False,
         rules: frozenset[str] | None = None) -> np.ndarray:
    """The cut's mask ``keep`` with the rules of this module applied (a new array; ``keep``
    is not changed). ``kind``: the page's estimated kind (the page-kind model's most probable;
    None without one): the label rule runs on every page, the comments rule on the kinds of
    ``COMMENT_KINDS``, the others on an article (a forum's replies quote the posts they answer,
    documentation repeats its steps in hidden tabs, a collection's carousel hides its cards);
    ``bylines``: keep bylines, datelines and credits; ``comments``: the comments are wanted
    (the comments model). The block arithmetic runs in C where ce_filter.keep._articles is
    built (the regular expressions stay here); ``tidy_reference`` gives the same mask."""
    if _c is None or (rules is not None and rules != RULES):
        return tidy_reference(blocks, scores, keep, kind, bylines=bylines, comments=comments, rules=rules)
    keep8 = keep.view(np.uint8)
    if not keep8.any():
        return keep
    article = kind == "article"
    out = keep.copy()
    texts = blocks.texts
    utf8, starts = blocks.text_column().c_args()
    counts = blocks.counts()
    n_words = counts[:, 1]
    flags = np.ascontiguousarray(blocks.flags, dtype=np.int64)
    plan = _c.tidy_plan(keep8, counts, flags, utf8, starts, article and not bylines, STORY_WORDS,
                        MAX_BYLINE_WORDS, MAX_LABEL_WORDS, FLAG_FIGURE, SHORT_LABEL_WORDS,
                        SHORT_LABEL_CHARS, _LEAD, _LABEL_HEADS, _MARKER_LIST)
    for c, t in zip(plan, pick(texts, [c >> 1 for c in plan])):
        i = c >> 1
        w = n_words[i]
        low = t.lower()
        if is_label(t, w, low) or (c & 1 and is_byline(t, w, low)):
            out[i] = False
    if kind in COMMENT_KINDS and not comments:
        _drop_comments(blocks, out, n_words)
    tag = np.ascontiguousarray(blocks.tag, dtype=np.int64)
    if article and not comments:
        _c.tidy_tail(keep8, out.view(np.uint8), counts, tag, utf8, starts, STORY_WORDS, MAX_LABEL_WORDS,
                     _LEVEL_BYTES, TAIL_SPACED, TAIL_UNSPACED, TAIL_SLACK, MAX_TAIL_CHARS, _PUNCT_CHARS)
        inside = None if bylines else author_box(blocks)
        if inside is not None:
            _c.tidy_author(keep8, out.view(np.uint8), counts, inside.view(np.uint8), STORY_WORDS,
                           MIN_STORY_WORDS, MAX_BOX_WORDS)
    if article and _c.tidy_finish(keep8, out.view(np.uint8), np.ascontiguousarray(scores, dtype=np.float64),
                                  tag,
                                  blocks.container_ids(), PATH_LEN, flags, counts, utf8, starts,
                                  FLAG_HIDDEN, TAG_TD, TAG_TH, TAG_LI, UNIT_CUT, MIN_REPEAT_WORDS,
                                  MIN_REPEAT_CHARS):
        _hidden_rules(blocks, scores, keep, out, RULES)  # some kept block is hidden
    return out


def tidy_reference(blocks: Blocks, scores: np.ndarray, keep: np.ndarray, kind: str | None, *,
                   bylines: bool = False, comments: bool = False,
                   rules: frozenset[str] | None = None) -> np.ndarray:
    """The reference of ``tidy`` (numpy and Python), with any subset of ``RULES``."""
    rules = RULES if rules is None else rules
    kept = np.flatnonzero(keep)
    if not len(kept):
        return keep
    article = kind == "article"
    out = keep.copy()
    texts = blocks.texts
    n_words = blocks.token_counts()
    w_kept = n_words[kept]
    labels = "labels" in rules
    by = article and not bylines and "bylines" in rules
    credits = "credits" in rules
    if labels or by:
        if by:  # bylines, datelines and credits: before or after the story's paragraphs, or in a figure
            body = np.flatnonzero(w_kept >= STORY_WORDS)
            edge = np.ones(len(kept), dtype=bool)
            if len(body):
                edge[body[0]:body[-1]] = False
            edge |= (np.asarray(blocks.flags, dtype=np.int64)[kept] & FLAG_FIGURE) != 0
        else:
            edge = np.zeros(len(kept), dtype=bool)
        edge &= w_kept <= MAX_BYLINE_WORDS
        cand = edge | (w_kept <= MAX_LABEL_WORDS) if labels else edge
        for j in np.flatnonzero(cand).tolist():
            i = int(kept[j])
            t, w = texts[i], n_words[i]
            low = t.lower()
            if (labels and is_label(t, w, low)) or (edge[j] and is_byline(t, w, low, credits)):
                out[i] = False
    if kind in COMMENT_KINDS and not comments and "comments" in rules:
        _drop_comments(blocks, out, n_words)
    if article and not comments and "tail" in rules:
        _tail(blocks, keep, out)
    if article and not comments and not bylines and "authorbox" in rules:
        _drop_author_box(blocks, keep, out)
    if article and "units" in rules:
        _units(blocks, scores, out)
    if article:
        _hidden_rules(blocks, scores, keep, out, rules)
    return out


def _hidden_rules(blocks: Blocks, scores: np.ndarray, keep: np.ndarray, out: np.ndarray,
                  rules: frozenset[str]) -> None:
    """An article's repeats and hidden rules (of ``rules``) on ``out``, in place."""
    kept = np.flatnonzero(keep)
    texts = blocks.texts
    w_kept = blocks.token_counts()[kept]
    hidden = (np.asarray(blocks.flags, dtype=np.int64)[kept] & FLAG_HIDDEN) != 0
    any_hidden = bool(hidden.any())
    if "repeats" in rules:
        # list items and table cells repeat by design (the same condition under each offer)
        tag = np.asarray(blocks.tag, dtype=np.int64)[kept]
        big = ((w_kept >= MIN_REPEAT_WORDS) | (blocks.counts()[kept, 0] >= MIN_REPEAT_CHARS)) & (
            (tag != TAG_LI) & (tag != TAG_TD) & (tag != TAG_TH) | hidden)
        _drop_repeats(texts, out, kept, big, hidden, any_hidden)
    if "hidden" in rules and any_hidden:
        # where the hidden text is a small part of what is kept (a page whose story is all
        # hidden until a script shows it keeps it)
        now = out[kept]
        if w_kept[hidden & now].sum() <= HIDDEN_SHARE * w_kept[~hidden & now].sum():
            for i in kept[hidden & now].tolist():
                if scores[i] < HIDDEN_CUT:
                    out[i] = False


def _drop_repeats(texts: Sequence[str], out: np.ndarray, kept: np.ndarray, big: np.ndarray,
                  hidden: np.ndarray, any_hidden: bool) -> None:
    """Drop each kept block (``big``: of ``MIN_REPEAT_WORDS`` words or ``MIN_REPEAT_CHARS``
    characters or more) whose text repeats the kept text read before it: a visible block that
    is the same text as an earlier kept block; a hidden block before or after the visible kept
    text that is any part of it (a schema.org articleBody, whole or by paragraphs), or the same
    text as an earlier hidden one."""
    vis_big = [i for i in kept[big & ~hidden].tolist() if out[i]]
    cand = [texts[i] for i in vis_big]
    seen: set[str] = set(cand)
    if len(seen) < len(cand):  # some text stands twice: keep its first copy
        seen = set()
        for i, t in zip(vis_big, cand):
            if t in seen:
                out[i] = False
            else:
                seen.add(t)
    if not any_hidden:
        return
    vis = [i for i in kept[~hidden].tolist() if out[i]]
    # a hidden copy stands outside the visible text (a tab panel between its paragraphs is
    # part of it)
    hid = [i for i in kept[big & hidden].tolist() if not vis or i < vis[0] or i > vis[-1]]
    if not hid:
        return
    joined = "\n".join([texts[i] for i in vis])
    grams: set[tuple[str, ...]] | None = None
    for i in hid:
        t = texts[i]
        if not out[i]:
            continue
        if t in joined or t in seen:
            out[i] = False
            continue
        seen.add(t)  # a second hidden copy of a hidden block
        if grams is None:
            grams = _grams(joined)
        g = _grams(t)
        if g and len(g & grams) >= REPEAT_COVER * len(g):
            out[i] = False


def _grams(text: str) -> set[tuple[str, ...]]:
    """The text's runs of ``GRAM`` consecutive tokens (words.tokens: a character a token in
    the scripts written without spaces)."""
    t = tokens(text.casefold())
    return {tuple(t[k:k + GRAM]) for k in range(len(t) - GRAM + 1)}


# (without their first letter: "Comment" and "comment" alike; a page whose class/id values
# hold none of them names no comments, and the per-block columns are not made)
_COMMENT_BYTES = (b"omment", b"isqus", b"iscussion", b"eplies")


def _drop_comments(blocks: Blocks, out: np.ndarray, n_words: np.ndarray) -> None:
    """Drop the kept blocks in a reader-comments container (``COMMENT_PATTERNS`` on the
    block's element or an ancestor) that follow the story: the kept blocks before the first
    one inside such a container, ``MIN_STORY_WORDS`` words or more (where the container holds
    the story too, nothing is dropped)."""
    if not blocks.may_name(_COMMENT_BYTES):  # most pages name no comments
        return
    kept = np.flatnonzero(out)
    cols = blocks.pattern_columns(COMMENT_PATTERNS, _COMMENT_MATCHER, 0, 1)  # own, ancestors
    inside = cols[kept].any(axis=1)
    if not inside.any():
        return
    first = int(np.argmax(inside))
    if n_words[kept[:first]].sum() < MIN_STORY_WORDS:
        return
    out[kept[inside]] = False


def author_box(blocks: Blocks) -> np.ndarray | None:
    """By block, whether its opener or one of its ``AUTHOR_LEVELS`` nearest ancestors is an
    author box by its class/id tokens (``AUTHOR_PATTERNS``: a token with "author" beside one with
    "bio", "box", "info", ..., or one such as "authorbox", "saboxplugin"); None where no block is."""
    if not blocks.may_name(_AUTHOR_BYTES):
        return None
    cols = blocks.pattern_columns(AUTHOR_PATTERNS, _AUTHOR_MATCHER, AUTHOR_LEVELS, 3)
    lv = cols[:, : 3 * (AUTHOR_LEVELS + 1)].reshape(len(blocks), AUTHOR_LEVELS + 1, 3) > 0
    inside = np.asarray(((lv[:, :, 0] & lv[:, :, 1]) | lv[:, :, 2]).any(axis=1))
    return inside if inside.any() else None


def _drop_author_box(blocks: Blocks, keep: np.ndarray, out: np.ndarray) -> None:
    """The author-box rule on ``out``, in place: after the last block of the cut's mask ``keep``
    of ``STORY_WORDS`` words or more that is not in an author box (``author_box``), with
    ``MIN_STORY_WORDS`` kept words outside boxes up to it, the kept blocks in an author box of at
    most ``MAX_BOX_WORDS`` words each are dropped: the author's name, bio and social links that
    follow a story whose byline the record has already."""
    inside = author_box(blocks)
    if inside is None:
        return
    w = blocks.counts()[:, 1]
    story = np.flatnonzero(keep & ~inside & (w >= STORY_WORDS))
    if not len(story):
        return
    end = int(story[-1])
    if w[: end + 1][keep[: end + 1] & ~inside[: end + 1]].sum() < MIN_STORY_WORDS:
        return
    tail = np.arange(end + 1, len(w))
    drop = tail[out[end + 1:] & inside[end + 1:] & (w[end + 1:] <= MAX_BOX_WORDS)]
    out[drop] = False


def tail_match(text: str) -> int:
    """Whether a line reads as the title of a section that is not the story, or a prompt: 0 no,
    1 it starts with a phrase of the tail words (at a word's end), 2 it is one (a title: the
    whole line, or an unspaced phrase with at most ``TAIL_SLACK`` characters more)."""
    if len(text) > 4 * MAX_TAIL_CHARS:
        return 0
    norm = _norm(text.lower())
    if not norm or len(norm) > MAX_TAIL_CHARS:
        return 0
    if norm in TAIL_SPACED:
        return 2
    for k, ch in enumerate(norm):
        if ch == " " and norm[:k] in TAIL_SPACED:
            return 1
    n = len(norm)
    for p in TAIL_UNSPACED:
        if n <= len(p) + TAIL_SLACK and p in norm:
            return 2
    return 0


def _tail(blocks: Blocks, keep: np.ndarray, out: np.ndarray) -> None:
    """The tail rule on ``out``, in place: after the last block of the cut's mask ``keep`` of
    ``STORY_WORDS`` words or more, a heading (h1-h6, kept or not) that ``tail_match``es drops
    the kept blocks up to the next heading of its level or above, itself among them; another
    kept block of at most ``MAX_LABEL_WORDS`` words that is a title or prompt (``tail_match``
    2: "Weiterlesen", "Teilen", "相关文章") is dropped alone."""
    w = blocks.counts()[:, 1]
    story = np.flatnonzero(keep & (w >= STORY_WORDS))
    if not len(story):
        return
    n, texts = len(w), blocks.texts
    level = [_level(t) for t in blocks.tag]
    i = int(story[-1]) + 1
    while i < n:
        if level[i]:
            if tail_match(texts[i]):
                j = i + 1
                while j < n and not 0 < level[j] <= level[i]:
                    j += 1
                out[i:j] = False
                i = j
                continue
        elif out[i] and w[i] <= MAX_LABEL_WORDS and tail_match(texts[i]) == 2:
            out[i] = False
        i += 1


def _level(tag: int) -> int:
    """A block's heading level by its tag (1-6; 0: not a heading)."""
    return _LEVELS[tag] if 0 <= tag < len(_LEVELS) else 0


def _units(blocks: Blocks, scores: np.ndarray, out: np.ndarray) -> None:
    """A table (its cells: td/th blocks under one table element) or a list (its li blocks under
    one list element) inside the kept span, of which the cut kept some blocks and dropped
    others, is kept whole where its mean probability is at least ``UNIT_CUT``, else dropped
    whole."""
    kept = np.flatnonzero(out)
    if len(kept) < 3:
        return
    lo, hi = int(kept[0]), int(kept[-1])
    tag = np.asarray(blocks.tag, dtype=np.int64)[lo:hi + 1]
    cell = (tag == TAG_TD) | (tag == TAG_TH)
    item = tag == TAG_LI
    span = out[lo:hi + 1]
    if not ((cell & ~span).any() or (item & ~span).any()):  # every cell and item kept
        return
    cont = blocks.container_ids()
    for mask, level in ((cell, 3), (item, 1)):
        idx = np.flatnonzero(mask) + lo
        if len(idx) < 2 or out[idx].all() or not out[idx].any():
            continue
        keys = cont[idx, level]
        for key in set(keys.tolist()) - {0}:
            members = idx[keys == key]
            k = out[members]
            if k.all() or not k.any() or members[0] <= lo or members[-1] >= hi:
                continue
            out[members] = scores[members].mean() >= UNIT_CUT


# a page with what the rules branch on: a byline and a label before the story, a repeated
# paragraph, a table and a list of mixed decisions inside the kept span, a figure's credit, the
# tail's headings (spaced, unspaced) and prompt after the story, an author box after the story
_PROBE = """<html><body><p>By Maria Lopez · Updated Nov 13, 2019</p><p>Advertisement</p>
<p>The first paragraph of the story has enough words to be the story's prose for the rule that
looks for it, and then some more words to be sure of it.</p><ul><li>one item of the list</li>
<li>another item</li><li>a third item here</li></ul><table><tr><td>cell one</td><td>cell two</td>
</tr><tr><td>cell three</td><td>cell four</td></tr></table><p>A paragraph said twice on the page,
long enough.</p><figure><figcaption>Photo: Getty Images</figcaption></figure><p>A paragraph said
twice on the page, long enough.</p><p>The last paragraph of the story has enough words to be the
story's prose for the rule that looks for it, and then some more words.</p>
<div class="author-bio"><p>Maria Lopez writes about parks.</p><p><a href="https://x.com/ml">X</a></p>
</div><p>Sign up for our newsletter</p><p>Weiterlesen</p><h2>Ähnliche Einträge</h2><ul><li><a href="/a">
Ein anderer Beitrag</a></li></ul><h3>相关文章推荐</h3><p>一篇文章</p><h2>Kommentare (2)</h2>
<p>Ein Kommentar</p></body></html>"""


class ArticlesC(Protocol):
    """The functions of the C part (keep/_articles.c) that Python calls: the blocks the label and
    byline rules read (block index << 1, | 1 where the byline rule reads it too), the tail and
    author-box rules into ``out``, and the units and repeats rules into ``out`` (True where some
    kept block is hidden)."""

    def tidy_plan(self, keep: np.ndarray, counts: np.ndarray, flags: np.ndarray, utf8: bytes,
                  starts: np.ndarray, bylines: bool, story_words: float, max_byline_words: float,
                  max_label_words: float, flag_figure: int, short_label_words: float,
                  short_label_chars: int, lead: str, label_heads: frozenset[str], markers: list[str], /
                  ) -> list[int]: ...

    def tidy_tail(self, keep: np.ndarray, out: np.ndarray, counts: np.ndarray, tag: np.ndarray,
                  utf8: bytes, starts: np.ndarray, story_words: float, max_label_words: float,
                  levels: bytes, spaced: frozenset[str], unspaced: tuple[str, ...], slack: int,
                  max_chars: int, punct: str, /) -> None: ...

    def tidy_author(self, keep: np.ndarray, out: np.ndarray, counts: np.ndarray, inside: np.ndarray,
                    story_words: float, min_story_words: float, max_box_words: float, /) -> None: ...

    def tidy_finish(self, keep: np.ndarray, out: np.ndarray, scores: np.ndarray, tag: np.ndarray,
                    cont: np.ndarray, path_len: int, flags: np.ndarray, counts: np.ndarray,
                    utf8: bytes, starts: np.ndarray, flag_hidden: int, tag_td: int, tag_th: int,
                    tag_li: int, unit_cut: float, min_repeat_words: float, min_repeat_chars: float, /
                    ) -> bool: ...


def _agrees(mod: ModuleType) -> bool:
    """Whether the C part's tidy gives the reference's masks on the probe page."""
    global _c
    blocks = segment(parse(_PROBE))
    n = len(blocks)
    masks = []
    for k in range(4):
        scores = (np.arange(n) * (0.37 + 0.11 * k)) % 1.0
        keep = scores >= 0.15
        for kind in ("article", "forum", None):
            for by in (False, True):
                _c = mod
                try:
                    got = tidy(blocks, scores, keep, kind, bylines=by)
                finally:
                    _c = None
                masks.append(np.array_equal(got, tidy_reference(blocks, scores, keep, kind, bylines=by)))
    return all(masks)


_c: ArticlesC | None = None
_c = native.probed("keep._articles", "the Python rules after the cut", _agrees)
