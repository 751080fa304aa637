"""The multilingual boilerplate-heading lexicon, a variant measured and not adopted
(docs/research/MULTILINGUAL.md): the same section titles as features/headings.py's BOILER_WORDS
in other languages, each row taken from a translation catalogue that states it
(boiler_headings.tsv: language, phrase, English string, package@version, file; made by
research/boiler_headings.py)."""

from __future__ import annotations

import csv
import functools
import re
from pathlib import Path

from ce_filter.score.features.headings import BOILER_WORDS
from tests.oracles.headings_regex import boiler_heading

LEXICON_FILE = Path(__file__).with_name("boiler_headings.tsv")
UNSPACED = frozenset({"ja", "zh", "ko"})  # no word boundary around a word: a substring match
# an unspaced heading matches only when at most this many characters stand on either side of the
# phrase: "相关文章" or "热门评论" title a section, a 20-character headline that holds "评论" does not
UNSPACED_SLACK = 6


def load_lexicon(path: Path = LEXICON_FILE) -> list[dict[str, str]]:
    """The multilingual rows (each with its source), as the file has them."""
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def lexicon_phrases(rows: list[dict[str, str]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The distinct phrases of ``rows``: those matched between word boundaries, and those of
    the unspaced scripts (ja, zh, ko) matched as substrings of a short heading."""
    spaced = dict.fromkeys(r["phrase"] for r in rows if r["language"] not in UNSPACED)
    unspaced = dict.fromkeys(r["phrase"] for r in rows if r["language"] in UNSPACED)
    return tuple(spaced), tuple(unspaced)


def multilingual_phrases() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """BOILER_WORDS and every phrase of the lexicon file: (those between word boundaries, the
    unspaced ones), as the C part's phrases take them (with ``UNSPACED_SLACK``)."""
    spaced, unspaced = lexicon_phrases(load_lexicon())
    return BOILER_WORDS + tuple(w for w in spaced if w not in BOILER_WORDS), unspaced


@functools.cache
def multilingual_heading() -> re.Pattern[str]:
    """BOILER_WORDS and every phrase of the lexicon file, as one head_lex regex: the spaced
    phrases between word boundaries, an unspaced one with at most UNSPACED_SLACK characters
    around it."""
    words, unspaced = multilingual_phrases()
    around = r".{0," + str(UNSPACED_SLACK) + "}"
    alt = "|".join(re.escape(w) for w in sorted(unspaced, key=len, reverse=True))
    return re.compile(boiler_heading(words).pattern
                      + r"|(?s:^\s*" + around + "(?:" + alt + ")" + around + r"\s*$)")
