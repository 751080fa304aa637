"""Words in every script: CJK, Thai, Lao, Khmer, Myanmar, Tibetan … are written without spaces
between words, so a whitespace split (or a ``\\w+`` run) makes a whole sentence one word there.
In those scripts every character counts as a word; elsewhere a word is a run of non-space
characters. The C walk (``count_words`` in ``_walk.c``) counts with the same ranges, so the
densities, the thin-page rule, the labels and the evaluation metric agree on what a word is.
"""

from __future__ import annotations

import re

# Scripts without spaces between words: one character, one word (code point ranges, inclusive).
CONTINUA_RANGES: tuple[tuple[int, int], ...] = (
    (0x0E00, 0x0FFF),  # Thai, Lao, Tibetan
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x1980, 0x19FF),  # New Tai Lue, Khmer symbols
    (0x1A20, 0x1AAF),  # Tai Tham
    (0x3040, 0x312F),  # Hiragana, Katakana, Bopomofo
    (0x31A0, 0x31BF),  # Bopomofo extended
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA9E0, 0xA9FF),  # Myanmar extended B
    (0xAA60, 0xAA7F),  # Myanmar extended A
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # half-width Katakana
    (0x20000, 0x323AF),  # CJK extensions B-H
)
# CJK punctuation and full-width punctuation: they end a word and are none themselves.
SEPARATOR_RANGES: tuple[tuple[int, int], ...] = (
    (0x3000, 0x303F), (0xFF01, 0xFF0F), (0xFF1A, 0xFF20), (0xFF3B, 0xFF40), (0xFF5B, 0xFF65),
)


def _cls(ranges: tuple[tuple[int, int], ...]) -> str:
    return "".join(f"{chr(a)}-{chr(b)}" for a, b in ranges)


_C = _cls(CONTINUA_RANGES)
_S = _cls(SEPARATOR_RANGES)
# a word for counting: one continua character, or a run of anything else that is not a space
_COUNT = re.compile(rf"[{_C}]|[^\s{_C}{_S}]+")
# a token for labels and the metric: one continua letter, or a \w run of other letters
_TOKEN = re.compile(rf"(?=\w)[{_C}]|[^\W{_C}]+")


def count_words(text: str) -> int:
    """Words in ``text``: ``len(text.split())`` for text outside the continua scripts, plus one
    per character of those scripts (CJK punctuation separates and is not counted)."""
    if text.isascii():
        return len(text.split())
    return len(_COUNT.findall(text))


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens for labels and the metric: ``\\w+`` runs, with every character of
    the continua scripts a token of its own (a ``\\w+`` run there is a whole sentence)."""
    return _TOKEN.findall(text.lower())
