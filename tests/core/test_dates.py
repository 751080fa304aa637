"""Dates in the page's languages: month names by language, numeric and CJK forms; English
always, another language's names only where the page is in it."""

from __future__ import annotations

import pytest

from ce_filter import extract
from ce_filter.keep.dates import ENGLISH, MONTH_NAMES, months_for, normalise_date


@pytest.mark.parametrize("lang, raw, want", [
    ("de", "Veröffentlicht am 2. November 2023", "2023-11-02"),
    ("de", "2. März 2024", "2024-03-02"),
    ("de", "Dienstag, 5. Mär. 2024, 10:00 Uhr", "2024-03-05"),
    ("fr", "Publié le 5 mars 2024", "2024-03-05"),
    ("fr", "le 1er févr. 2024 à 10h", "2024-02-01"),
    ("es", "Publicado el 5 de marzo de 2024", "2024-03-05"),
    ("it", "5 maggio 2024", "2024-05-05"),
    ("pt", "5 de março de 2024", "2024-03-05"),
    ("nl", "5 maart 2024", "2024-03-05"),
    ("pl", "5 marca 2024 r.", "2024-03-05"),
    ("cs", "5. března 2024", "2024-03-05"),
    ("hr", "5. listopada 2024.", "2024-10-05"),  # October in Croatian ...
    ("pl", "5 listopada 2024", "2024-11-05"),  # ... November in Polish
    ("fi", "5. maaliskuuta 2024", "2024-03-05"),
    ("ru", "5 марта 2024 г.", "2024-03-05"),
    ("uk", "5 березня 2024", "2024-03-05"),
    ("tr", "5 Şubat 2024", "2024-02-05"),
    ("hu", "2024. március 5.", "2024-03-05"),
    ("sv", "5 maj 2024", "2024-05-05"),
    ("el", "5 Μαρτίου 2024", "2024-03-05"),
    ("id", "5 Agustus 2024", "2024-08-05"),
    ("ca", "5 d'abril de 2024", "2024-04-05"),
])
def test_month_names_by_language(lang: str, raw: str, want: str) -> None:
    assert normalise_date(raw, months_for((lang,))) == want
    if not any(w.strip(".,").lower() in ENGLISH for w in raw.split()):
        assert normalise_date(raw) == ""  # not read as English


@pytest.mark.parametrize("raw, want", [
    ("2024年3月5日 10:00", "2024-03-05"), ("发布时间：2018年05月22日", "2018-05-22"),
    ("2024년 3월 5일", "2024-03-05"), ("2024. 3. 5.", "2024-03-05"),
    ("ngày 5 tháng 3 năm 2024", "2024-03-05"), ("2. November 2023", "2023-11-02"),
    ("1er March 2024", "2024-03-01"),
])
def test_numeric_and_cjk_forms_in_every_language(raw: str, want: str) -> None:
    assert normalise_date(raw) == want


def test_tables_are_whole_and_english_is_always_read() -> None:
    assert all(len(t) == 12 for t in MONTH_NAMES.values())
    de = months_for(("de",))
    assert de["märz"] == 3 and de["march"] == 3 and ENGLISH.get("märz") is None
    # a word that is no month in the page's languages does not stop the search
    assert normalise_date("Version 2 Release 2024, 5 mars 2024", months_for(("fr",))) == "2024-03-05"
    assert normalise_date("5 Apfel 2024", de) == "" and normalise_date("31. Februar 2024", de) == ""


def page(lang: str, dateline: str, body: str) -> str:
    return (f"<html lang='{lang}'><head><title>Bericht</title></head><body><article><h1>Bericht</h1>"
            f"<p>{dateline}</p><p>{body * 6}</p></article></body></html>")


def test_extraction_reads_dates_in_the_page_language() -> None:
    de = "Die Fischereiflotte der Stadt kehrte am Donnerstag mit ihrem größten Fang seit zehn Jahren zurück. "
    fr = "La flotte de pêche de la ville est rentrée jeudi avec sa plus grosse prise depuis dix ans. "
    assert extract(page("de", "Veröffentlicht am 2. März 2024", de)).date == "2024-03-02"
    assert extract(page("fr", "Publié le 5 mars 2024", fr)).date == "2024-03-05"
    # the identified language counts where the page declares none (or the wrong one)
    assert extract(page("en", "Veröffentlicht am 2. März 2024", de)).date == "2024-03-02"
    # an English page does not read German month names
    en = "The town's fishing fleet returned on Thursday with its largest catch in a decade. "
    assert extract(page("en", "2. Juni 2024", en)).date == ""


@pytest.mark.parametrize("line, langs, want", [
    ("Updated March 5, 2024 | Published March 1, 2024", (),
     [("updated", "2024-03-05"), ("published", "2024-03-01")]),
    ("March 1, 2024", (), [("", "2024-03-01")]),
    ("Posted on 2024-03-01, last modified 2024-03-05", (),
     [("published", "2024-03-01"), ("updated", "2024-03-05")]),
    ("Veröffentlicht am 1. März 2024, aktualisiert am 5. März 2024", ("de",),
     [("published", "2024-03-01"), ("updated", "2024-03-05")]),
    ("Publié le 1 mars 2024 · Mis à jour le 5 mars 2024", ("fr",),
     [("published", "2024-03-01"), ("updated", "2024-03-05")]),
    ("Actualizado 05/03/2024 - Publicado 01/03/2024", ("es",),
     [("updated", "2024-05-03"), ("published", "2024-01-03")]),
    ("Aggiornato il 5 marzo 2024", ("it",), [("updated", "2024-03-05")]),
    ("Gepubliceerd op 1 maart 2024", ("nl",), [("published", "2024-03-01")]),
    ("Обновлено 05.03.2024, опубликовано 01.03.2024", ("ru",),
     [("updated", "2024-03-05"), ("published", "2024-03-01")]),
    ("发布时间：2024-03-01 更新时间：2024-03-05", ("zh",),
     [("published", "2024-03-01"), ("updated", "2024-03-05")]),
    ("公開日：2024年3月1日 更新日：2024年3月5日", ("ja",),
     [("published", "2024-03-01"), ("updated", "2024-03-05")]),
    ("Republished 2024-03-01", (), [("", "2024-03-01")]),  # a label is a whole word
])
def test_labelled_dates_say_which_date_is_which(line, langs, want) -> None:
    from ce_filter.keep.dates import labelled_dates, months_for

    assert labelled_dates(line, months_for(langs)) == want
