"""The rules after the cut in Python, numpy and regular expressions: the test oracle of the C part
that runs them (ce_filter/keep/_articles.c's ``tidy``, through ``articles.tidy``), which must give
the same masks (tests/core/test_tidy_c.py) and the same label and byline decisions on every
block (tests/core/test_tidy_lines.py). ``tidy_reference``
also has the rule "credits" (the credit lines of other languages: measured, not in force;
docs/research/MULTILINGUAL.md), which the product does not."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from ce_filter.keep import articles as A
from ce_filter.keep.articles import (
    _AUTHOR_BYTES,
    _AUTHOR_MATCHER,
    _COMMENT_BYTES,
    _COMMENT_MATCHER,
    _CREDIT_WORDS,
    _DATELINE_WORDS,
    _LEAD,
    _LEVELS,
    _PUNCT_CHARS,
    AD_LABELS,
    AUTHOR_LEVELS,
    AUTHOR_PATTERNS,
    COMMENT_KINDS,
    COMMENT_PATTERNS,
    FLAG_FIGURE,
    GRAM,
    HIDDEN_CUT,
    HIDDEN_SHARE,
    MAX_BOX_WORDS,
    MAX_BYLINE_WORDS,
    MAX_CREDIT_WORDS,
    MAX_LABEL_WORDS,
    MAX_TAIL_CHARS,
    MIN_REPEAT_CHARS,
    MIN_REPEAT_WORDS,
    MIN_STORY_WORDS,
    NEWSLETTER_MARKERS,
    REPEAT_COVER,
    SHORT_LABEL_CHARS,
    SHORT_LABEL_WORDS,
    STORY_WORDS,
    TAG_LI,
    TAG_TD,
    TAG_TH,
    TAIL_SLACK,
    TAIL_SPACED,
    TAIL_UNSPACED,
    UNIT_CUT,
    _phrases,
    load_words,
)
from ce_filter.read.segment import FLAG_HIDDEN, Blocks
from ce_filter.read.words import tokens

AD_LABEL_SET = frozenset(AD_LABELS)
_LABEL_HEADS = frozenset(x[:3] for x in AD_LABELS)  # a label's first three characters
# (read on the lower-cased text)
_NEWSLETTER = re.compile(
    r"\b(?:sign(?:ing)?[ -]?up|subscribe|register|get|receive|join)\b.{0,60}\bnewsletters?\b"
    r"|\bnewsletters?\b.{0,40}\b(?:sign[ -]?up|subscribe|inbox)\b"
    r"|订阅|訂閱|newsletter abonnieren|inscrivez-vous|suscr[ií]bete")
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
_CREDIT = re.compile(
    r"getty\s*images|\breuters\b|associated\s+press|\bap\s+photo\b|\bafp\b|shutterstock|istock"
    r"|\bepa\b|\bphoto(?:graph)?(?:s)?\s*(?:by|:|credit)|\bimage\s*(?:by|:|credit)|\bcredit\s*:"
    r"|\bpicture\s*:|\bfile\s+photo\b|\bcourtesy\s+(?:of\s+)?\w|©|\(c\)\s*\d{4}|/\s*ap\b"
    r"|\bpa\s+(?:wire|images)\b")
_DIGIT = re.compile(r"\d")
# credit lines in many languages (the rule "credits", measured and not in RULES: the corpora's
# gold keeps such lines as often as not; docs/research/MULTILINGUAL.md): a credit word and ":"
# or "/" at the start ("Foto: dpa", "Quelle: APA", "图片来源：新华社"), or a line that is an
# agency's name, or ends with "/" and one ("Max Muster/dpa")
_ROWS = load_words()
_CREDIT_WORDS_ML = _phrases(_ROWS, "credit", False) + _phrases(_ROWS, "credit", True)
_AGENCIES = _phrases(_ROWS, "agency", False) + _phrases(_ROWS, "agency", True)
_ALT = "|".join(re.escape(w) for w in sorted(_CREDIT_WORDS_ML, key=len, reverse=True))
_AG = "|".join(re.escape(w) for w in sorted(_AGENCIES, key=len, reverse=True))
_CREDIT_ML = re.compile(rf"^[\s(\[]*(?:{_ALT})\s*[:/：]|^[\s(\[]*(?:{_AG})[\s)\]]*$"
                        rf"|/\s*(?:{_AG})[\s)\]]*$")


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


def tidy_reference(blocks: Blocks, scores: np.ndarray, keep: np.ndarray, kind: str | None, *,
                   bylines: bool = False, comments: bool = False,
                   rules: frozenset[str] | None = None) -> np.ndarray:
    """The reference of ``tidy`` (numpy and Python), with any subset of ``RULES``."""
    rules = A.RULES if rules is None else rules
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
