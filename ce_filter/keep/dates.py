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
import email.utils
import functools
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from types import ModuleType
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


_ISO = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_ISO_COMPACT = re.compile(r"^(\d{4})(\d{2})(\d{2})(?:T|$)")
_SLASH = re.compile(r"\b(\d{4})[/.](\d{1,2})[/.](\d{1,2})\b")
_YMD_SPACED = re.compile(r"\b(\d{4})\.\s(\d{1,2})\.\s(\d{1,2})\b")  # 2024. 3. 5. (Korean, Hungarian)
_NUMERIC = re.compile(r"\b(\d{1,2})([/.])(\d{1,2})\2(\d{4})\b")
_CJK = re.compile(r"(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]\s*(\d{1,2})")  # 2024年3月5日, 2024년 3월 5일
_VI = re.compile(r"\b(\d{1,2})\s+tháng\s+(\d{1,2})\s*(?:năm|,|/)?\s*(\d{4})\b", re.I)
_NAME = r"([^\W\d_]{3,20})"  # a month's name: letters of any script
_MDY = re.compile(r"\b" + _NAME + r"\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b")
# the day, an ordinal's ending or a dot ("2." in German, Czech, Finnish...), "of" / "de" / "d'"
_DMY = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th|er|º|\.)?\s*(?:of\s+|de\s+|d')?" + _NAME +
                  r"\.?,?\s+(?:de\s+|del\s+|r\.\s+)?(\d{4})\b")
_YMD_NAME = re.compile(r"\b(\d{4})\.?\s+" + _NAME + r"\.?\s+(\d{1,2})\b")  # 2023 Jan 7, 2024. március 5.
YEAR = re.compile(r"(?:19|20)\d\d")
_WORDS = re.compile(r"[^\W\d_]{3,20}")


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


def _named(matches: Iterable[re.Match[str]], months: Mapping[str, int], name: int, day: int,
           year: int) -> str:
    """The first match whose group ``name`` is a month's name, as a date ('' if none is)."""
    for m in matches:
        month = months.get(m.group(name).lower())
        if month:
            return ymd(int(m.group(year)), month, int(m.group(day)))
    return ""


class DateC(Protocol):
    """The function of the C part (keep/_metadata.c) that reads dates."""

    def date_ascii(self, s: str, months: Mapping[str, int], max_year: int, /) -> str | None: ...


# texts the probe compares the C part's dates with normalise_date_reference's on (in English
# and with German's and French's month names too)
_PROBE_DATES = (
    "", "  ", "2024", "no year here", "2024-03-05T10:00:00Z", "posted 2024-3-5", "12024-03-05",
    "2024/03/05", "2024.3.5", "2024. 3. 5.", "2024/03/055", "20240305", "20240305T1000", "202403051",
    "05.03.2024", "3/5/2024", "23/07/2025", "7/23/2025", "5.13.2024", "March 5, 2024", "Mar. 5th, 2024",
    "march 05 2024", "Marchx 5 2024", "5 March 2024", "1st of March, 2024", "5. März 2024",
    "5 de mars de 2024", "2 d'octobre 2023", "5stuff 2024", "2024 Jan 7", "2024. Mai 7.",
    "Page 3 of 12, 2024 | March 5, 2024", "February 30, 2024", "May 5, 1989", "Dec 5, 2099",
    "Tue, 05 Mar 2024 10:00:00 GMT", "Posted at 10:00 on Monday 2024", "abc_5 March 2024", "Jan 5 2024_",
    "5 Mar 20245", "\x1c2024-03-05\x1f", "Decemberrrrrrrrrrrrrrrrrr 5, 2024", "2024年3月5日",
)


def _dates_agree(mod: ModuleType) -> bool:
    """Whether the C part reads the probe texts' dates as normalise_date_reference does."""
    top = _this_year() + 1
    for months in (ENGLISH, months_for(("de",)), months_for(("fr",))):
        for s in _PROBE_DATES:
            got = mod.date_ascii(s, months, top)
            if got is not None and got != normalise_date_reference(s, months):
                return False
    return True


@functools.cache
def _date_part() -> DateC | None:
    """The C part's dates, probed at first use (None: normalise_date_reference)."""
    return cast("DateC | None", native.probed("keep._metadata", "the Python normalise_date", _dates_agree))


def normalise_date(s: str, months: Mapping[str, int] = ENGLISH) -> str:
    """A date as YYYY-MM-DD from the forms in the module's doc, the month names of ``months``
    (``months_for``; English by default); '' when none of these. The C part reads ASCII texts
    (all but the RFC 2822 dates among them); normalise_date_reference is its reference."""
    c = _date_part()
    # (the year _this_year read, while it holds)
    top = _YEAR_AT[1] + 1 if time.monotonic() - _YEAR_AT[0] <= 3600 else _this_year() + 1
    got = c.date_ascii(s, months, int(top)) if c is not None else None
    return normalise_date_reference(s, months) if got is None else got


def normalise_date_reference(s: str, months: Mapping[str, int] = ENGLISH) -> str:
    """normalise_date in Python."""
    s = s.strip()
    if not YEAR.search(s):  # every accepted form has a 4-digit year: most texts stop here
        return ""
    # a pattern is tried only where the characters it needs are (- for _ISO, / or . for
    # _SLASH and _NUMERIC)
    sep = "/" in s or "." in s
    m = _ISO.search(s) if "-" in s else None
    if m is None and sep:
        m = _SLASH.search(s) or (_YMD_SPACED.search(s) if ". " in s else None)
    if m:
        return ymd(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    m = _ISO_COMPACT.match(s)
    if m:
        return ymd(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    m = _NUMERIC.search(s) if sep else None
    if m:
        a, b, y = int(m.group(1)), int(m.group(3)), int(m.group(4))
        # 23.07.2025 / 7/23/2025 decide themselves; otherwise dots are day-first (European),
        # slashes month-first (American)
        day_first = a > 12 or (b <= 12 and m.group(2) == ".")
        return ymd(y, b, a) if day_first else ymd(y, a, b)
    if not s.isascii():  # the forms with a 年, 년 or "tháng"
        m = _CJK.search(s) if "年" in s or "년" in s else None
        if m:
            return ymd(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        m = _VI.search(s) if "háng" in s else None
        if m:
            return ymd(int(m.group(3)), int(m.group(2)), int(m.group(1)))
    # every form left names its month: most texts with a year name none, and one look at their
    # words is cheaper than the patterns
    if not any(w in months for w in _WORDS.findall(s.lower())):
        return ""
    d = (_named(_MDY.finditer(s), months, 1, 2, 3) or _named(_DMY.finditer(s), months, 2, 1, 3)
         or _named(_YMD_NAME.finditer(s), months, 2, 3, 1))
    if d:
        return d
    if ":" not in s or len(s) > 40:  # RFC 2822 dates carry a time; a long text is not one
        return ""
    try:
        t = email.utils.parsedate_to_datetime(s)
    except (TypeError, ValueError, IndexError):
        return ""
    return ymd(t.year, t.month, t.day) if t else ""


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
_LABEL = re.compile(r"(?:(?<![^\W\d_])|(?<=[\u3000-\u9fff]))(?:(" + PUBLISHED_LABELS + r")|(" + UPDATED_LABELS
                    + r"))(?![^\W\d_])", re.I)


def label_marks_reference(s: str, first_only: bool = False) -> list[tuple[int, str]]:
    """(start, "published" or "updated") of each label in ``s`` (the first only where
    ``first_only``): the reference of the C part's ``marks``."""
    out = []
    for m in _LABEL.finditer(s):
        out.append((m.start(), "published" if m.group(1) else "updated"))
        if first_only:
            break
    return out


class MarksC(Protocol):
    """The functions of the C part (keep/_metadata.c) the date labels use."""

    def configure(self, labels: Sequence[tuple[str, str]], /) -> None: ...

    def marks(self, s: str, first_only: bool, /) -> list[tuple[int, str]] | None: ...


# The labels the C part scans for: the ASCII ones, lower-case, in the regex's order (no other
# label can match an ASCII text; the C part leaves the other texts to the regex)
_ASCII_LABELS = tuple((w, kind) for kind, labels in (("published", PUBLISHED_LABELS),
                                                     ("updated", UPDATED_LABELS))
                      for w in labels.split("|") if w.isascii())
# texts the probe compares the C part's marks with the regex's on
_PROBE_TEXTS = (
    "", "Published", "published: March 5, 2024 | Updated March 6, 2024", "Last updated 2024-03-05",
    "unpublished republished Republished2024 xPosted posted. POSTED", "first published, 2024",
    "Mis en ligne le 5 mars 2024, mise a jour", "erstellt: 5.3.2024 aktualisiertx aktualisiert",
    "Veröffentlicht am 5. März 2024", "2024年3月5日 发布时间", "edited_by editedby edited1 _edited",
    "Updated\tMarch 5 ; modified/revised-last revised", "paru parution posted-on", "upd", "s",
)


def _marks_agree(mod: ModuleType) -> bool:
    """Whether the C part finds the regex's labels on the probe texts (configured here)."""
    mod.configure(_ASCII_LABELS)
    return all(mod.marks(t, first) == (label_marks_reference(t, first) if t.isascii() else None)
               for t in _PROBE_TEXTS for first in (False, True))


@functools.cache
def _c_part() -> MarksC | None:
    """The C part's marks, probed at first use (None: the regex alone)."""
    return cast("MarksC | None", native.probed("keep._metadata", "the date labels' regex", _marks_agree))


def label_marks(s: str, first_only: bool = False) -> list[tuple[int, str]]:
    """(start, "published" or "updated") of each label in ``s``, in order (the first only where
    ``first_only``): the C part's scan on ASCII texts (most date lines; the regex tries each
    position against every label), else the regex."""
    c = _c_part()
    got = c.marks(s, first_only) if c is not None else None
    return label_marks_reference(s, first_only) if got is None else got


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
