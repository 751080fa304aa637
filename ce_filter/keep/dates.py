"""Dates as a page writes them, to ISO 8601 (YYYY-MM-DD), in the page's languages.

Numeric forms are read in every language (ISO 8601, 2024/03/05, 05.03.2024, 3/5/2024, RFC 2822,
2024年3月5日, 2024년 3월 5일, 2024. 3. 5., "5 tháng 3 năm 2024"). Month names are read in
English always and in the languages given (``months_for``: the page's identified and declared
languages), from the tables below: full, genitive ("5 marca 2024", "5 марта 2024") and
abbreviated forms ("5 févr. 2024", "2. Mär. 2024"), day first ("2. März 2024", "5 de marzo de
2024", "le 5 mars 2024"), month first ("March 5, 2024") or year first ("2024. március 5.").
A table per language, not one for all: the same word is October in Croatian and November in
Polish and Czech (``listopad``).
"""

from __future__ import annotations

import datetime as _dt
import functools
import re
import time
from collections.abc import Mapping, Sequence
from typing import Protocol, cast

from .. import native

# One string per month, January first: the forms of its name, lower case, space-separated.
MONTH_NAMES: dict[str, tuple[str, ...]] = {
    "en": ("jan january", "feb february", "mar march", "apr april", "may", "jun june", "jul july",
           "aug august", "sep sept september", "oct october", "nov november", "dec december"),
    "de": ("januar jänner jan", "februar feber feb", "märz maerz mär mrz", "april apr", "mai",
           "juni jun", "juli jul", "august aug", "september sept sep", "oktober okt", "november nov",
           "dezember dez"),
    "fr": ("janvier janv jan", "février fevrier févr fevr fév", "mars mar", "avril avr", "mai",
           "juin", "juillet juil", "août aout", "septembre sept sep", "octobre oct", "novembre nov",
           "décembre decembre déc dec"),
    "es": ("enero ene", "febrero feb", "marzo mar", "abril abr", "mayo may", "junio jun", "julio jul",
           "agosto ago", "septiembre setiembre sept sep set", "octubre oct", "noviembre nov",
           "diciembre dic"),
    "it": ("gennaio gen", "febbraio feb", "marzo mar", "aprile apr", "maggio mag", "giugno giu",
           "luglio lug", "agosto ago", "settembre sett set", "ottobre ott", "novembre nov",
           "dicembre dic"),
    "pt": ("janeiro jan", "fevereiro fev", "março marco mar", "abril abr", "maio mai", "junho jun",
           "julho jul", "agosto ago", "setembro set", "outubro out", "novembro nov", "dezembro dez"),
    "ca": ("gener gen", "febrer febr", "març marc", "abril abr", "maig", "juny", "juliol jul",
           "agost ag", "setembre set", "octubre oct", "novembre nov", "desembre des"),
    "nl": ("januari jan", "februari feb", "maart mrt mar", "april apr", "mei", "juni jun", "juli jul",
           "augustus aug", "september sept sep", "oktober okt", "november nov", "december dec"),
    "sv": ("januari jan", "februari feb", "mars mar", "april apr", "maj", "juni jun", "juli jul",
           "augusti aug", "september sept sep", "oktober okt", "november nov", "december dec"),
    "da": ("januar jan", "februar feb", "marts mar", "april apr", "maj", "juni jun", "juli jul",
           "august aug", "september sept sep", "oktober okt", "november nov", "december dec"),
    "no": ("januar jan", "februar feb", "mars mar", "april apr", "mai", "juni jun", "juli jul",
           "august aug", "september sept sep", "oktober okt", "november nov", "desember des"),
    "fi": ("tammikuu tammikuuta tammi", "helmikuu helmikuuta helmi", "maaliskuu maaliskuuta maalis",
           "huhtikuu huhtikuuta huhti", "toukokuu toukokuuta touko", "kesäkuu kesäkuuta kesä",
           "heinäkuu heinäkuuta heinä", "elokuu elokuuta elo", "syyskuu syyskuuta syys",
           "lokakuu lokakuuta loka", "marraskuu marraskuuta marras", "joulukuu joulukuuta joulu"),
    "pl": ("styczeń stycznia sty", "luty lutego lut", "marzec marca mar", "kwiecień kwietnia kwi",
           "maj maja", "czerwiec czerwca cze", "lipiec lipca lip", "sierpień sierpnia sie",
           "wrzesień września wrz", "październik października paź", "listopad listopada lis",
           "grudzień grudnia gru"),
    "cs": ("leden ledna", "únor února", "březen března", "duben dubna", "květen května",
           "červen června", "červenec července", "srpen srpna", "září", "říjen října",
           "listopad listopadu", "prosinec prosince"),
    "sk": ("január januára", "február februára", "marec marca", "apríl apríla", "máj mája",
           "jún júna", "júl júla", "august augusta", "september septembra", "október októbra",
           "november novembra", "december decembra"),
    "hr": ("siječanj siječnja", "veljača veljače", "ožujak ožujka", "travanj travnja",
           "svibanj svibnja", "lipanj lipnja", "srpanj srpnja", "kolovoz kolovoza", "rujan rujna",
           "listopad listopada", "studeni studenoga studenog", "prosinac prosinca"),
    "sl": ("januar januarja", "februar februarja", "marec marca", "april aprila", "maj maja",
           "junij junija", "julij julija", "avgust avgusta", "september septembra",
           "oktober oktobra", "november novembra", "december decembra"),
    "hu": ("január jan", "február febr", "március márc", "április ápr", "május máj", "június jún",
           "július júl", "augusztus aug", "szeptember szept", "október okt", "november nov",
           "december dec"),
    "ro": ("ianuarie ian", "februarie feb", "martie mar", "aprilie apr", "mai", "iunie iun",
           "iulie iul", "august aug", "septembrie sept sep", "octombrie oct", "noiembrie nov",
           "decembrie dec"),
    "tr": ("ocak oca", "şubat subat şub", "mart mar", "nisan nis", "mayıs mayis may", "haziran haz",
           "temmuz tem", "ağustos agustos ağu", "eylül eylul eyl", "ekim eki", "kasım kasim kas",
           "aralık aralik ara"),
    "id": ("januari jan", "februari feb", "maret mar", "april apr", "mei", "juni jun", "juli jul",
           "agustus agu agt", "september sep", "oktober okt", "november nov", "desember des"),
    "ms": ("januari jan", "februari feb", "mac", "april apr", "mei", "jun", "julai", "ogos",
           "september sep", "oktober okt", "november nov", "disember dis"),
    "ru": ("январь января янв", "февраль февраля фев", "март марта мар", "апрель апреля апр",
           "май мая", "июнь июня июн", "июль июля июл", "август августа авг",
           "сентябрь сентября сен сент", "октябрь октября окт", "ноябрь ноября ноя",
           "декабрь декабря дек"),
    "uk": ("січень січня", "лютий лютого", "березень березня", "квітень квітня", "травень травня",
           "червень червня", "липень липня", "серпень серпня", "вересень вересня", "жовтень жовтня",
           "листопад листопада", "грудень грудня"),
    "bg": ("януари", "февруари", "март", "април", "май", "юни", "юли", "август", "септември",
           "октомври", "ноември", "декември"),
    "el": ("ιανουαρίου ιανουάριος", "φεβρουαρίου φεβρουάριος", "μαρτίου μάρτιος",
           "απριλίου απρίλιος", "μαΐου μάιος", "ιουνίου ιούνιος", "ιουλίου ιούλιος",
           "αυγούστου αύγουστος", "σεπτεμβρίου σεπτέμβριος", "οκτωβρίου οκτώβριος",
           "νοεμβρίου νοέμβριος", "δεκεμβρίου δεκέμβριος"),
}
MONTH_NAMES["nb"] = MONTH_NAMES["nn"] = MONTH_NAMES["no"]


def _table(lang: str) -> dict[str, int]:
    return {name: i for i, names in enumerate(MONTH_NAMES.get(lang, ()), start=1) for name in names.split()}


ENGLISH = _table("en")


@functools.lru_cache(maxsize=128)
def months_for(langs: tuple[str, ...]) -> Mapping[str, int]:
    """The month names read on a page in ``langs`` (ISO 639-1): English's and theirs (the
    later language's where two disagree)."""
    out = dict(ENGLISH)
    for lang in langs:
        out.update(_table(lang))
    return out


# The forms read (the C part's normalise_date; tests/oracles/metadata_python.py has them as
# regular expressions): ISO 8601, 2024/03/05 and 2024. 3. 5., 20240305, 05.03.2024 and
# 3/5/2024 (day first where the day cannot be a month or the separator is a dot), 2024年3月5日
# and 2024년 3월 5일, "5 tháng 3 năm 2024", then a month's name (letters of any script, 3 to
# 20) before the day and year, after the day, or between the year and the day, then an RFC
# 2822 date (by email.utils) in a short text with a time.
YEAR = re.compile(r"(?:19|20)\d\d")


def _this_year() -> int:
    """The current year, read from the clock at most once an hour (a service runs for months)."""
    now = time.monotonic()
    if now - _YEAR_AT[0] > 3600:
        _YEAR_AT[:] = [now, _dt.date.today().year]
    return int(_YEAR_AT[1])


_YEAR_AT = [-1e9, 0.0]


def ymd(y: int, m: int, d: int) -> str:
    """YYYY-MM-DD of a real day from 1990 to next year, else ''."""
    try:
        day = _dt.date(y, m, d)
    except ValueError:
        return ""
    if not 1990 <= y <= _this_year() + 1:
        return ""
    return day.isoformat()


class DatesC(Protocol):
    """The functions of the C part (keep/_metadata.c) the dates use: normalise_date, and the
    date labels' scan (configured with the labels once)."""

    def normalise_date(self, s: str, months: dict[str, int], max_year: int, /) -> str: ...

    def configure(self, labels: Sequence[tuple[str, str]], /) -> None: ...

    def marks(self, s: str, first_only: bool, /) -> list[tuple[int, str]]: ...


def normalise_date(s: str, months: Mapping[str, int] = ENGLISH) -> str:
    """A date as YYYY-MM-DD from the forms in the module's doc, the month names of ``months``
    (``months_for``; English by default); '' when none of these (the C part's normalise_date)."""
    # (the year _this_year read, while it holds)
    top = _YEAR_AT[1] + 1 if time.monotonic() - _YEAR_AT[0] <= 3600 else _this_year() + 1
    return _c_part().normalise_date(s, cast("dict[str, int]", months), int(top))


# What a date line says its date is, in the languages of the month tables' most common pages:
# the publication ("Published", "Veröffentlicht", "Publié le", "Publicado", "Pubblicato",
# "Gepubliceerd", "Опубликовано", "发布时间", "公開日") or a later update ("Updated",
# "Aktualisiert", "Mis à jour", "Actualizado", "Aggiornato", "Atualizado", "Bijgewerkt",
# "Обновлено", "更新", "更新日").
PUBLISHED_LABELS = (
    "published|first published|originally published|posted|publication date|date published|"
    "veröffentlicht|erschienen|publiziert|erstellt|"
    "publié|publiée|publie|mis en ligne|paru|"
    "publicado|publicada|publicación|"
    "pubblicato|pubblicata|pubblicazione|"
    "publicação|"
    "gepubliceerd|geplaatst|"
    "опубликовано|опубликован|опубликована|дата публикации|размещено|"
    "发布时间|发布于|发布日期|发表时间|发表于|發佈時間|發布時間|發表時間|公開日|投稿日|掲載日|公開")
UPDATED_LABELS = (
    "updated|last updated|modified|last modified|revised|last revised|edited|"
    "aktualisiert|zuletzt aktualisiert|geändert|aktualisierung|"
    "mis à jour|mise à jour|modifié|modifiée|actualisé|"
    "actualizado|actualizada|actualización|modificado|"
    "aggiornato|aggiornata|aggiornamento|ultimo aggiornamento|modificato|"
    "atualizado|atualizada|atualização|"
    "bijgewerkt|laatst bijgewerkt|gewijzigd|"
    "обновлено|обновлен|обновлён|обновлена|изменено|"
    "更新时间|更新於|更新于|更新時間|更新日|最終更新|更新")


# The labels the C part scans for, lower-case, in the regex's order (the published ones first)
LABELS = tuple((w, kind) for kind, labels in (("published", PUBLISHED_LABELS), ("updated", UPDATED_LABELS))
               for w in labels.split("|"))


@functools.cache
def _c_part() -> DatesC:
    """The C part (loaded, and given the labels, at first use)."""
    c = cast("DatesC", native.required("keep._metadata"))
    c.configure(LABELS)
    return c


def label_marks(s: str, first_only: bool = False) -> list[tuple[int, str]]:
    """(start, "published" or "updated") of each label in ``s``, in order (the first only where
    ``first_only``): where no letter stands before it (or a character of U+3000 to U+9FFF
    does), the first of the labels, case-blind, with no letter after it (the C part's scan)."""
    return _c_part().marks(s, first_only)


def date_label(s: str) -> str:
    """What the first label in ``s`` says its date is: "published", "updated", or ""."""
    marks = label_marks(s, True)
    return marks[0][1] if marks else ""


def labelled_dates(s: str, months: Mapping[str, int] = ENGLISH) -> list[tuple[str, str]]:
    """(kind, date) of each date in a date line, in its order: kind "published" or "updated"
    where a label before the date says so, "" where none does. "Updated March 5, 2024 |
    Published March 1, 2024" -> [("updated", "2024-03-05"), ("published", "2024-03-01")]."""
    marks = label_marks(s)
    if not marks:
        d = normalise_date(s, months)
        return [("", d)] if d else []
    out = []
    d = normalise_date(s[:marks[0][0]], months)
    if d:
        out.append(("", d))
    for k, (at, kind) in enumerate(marks):
        end = marks[k + 1][0] if k + 1 < len(marks) else len(s)
        d = normalise_date(s[at:end], months)
        if d:
            out.append((kind, d))
    return out
