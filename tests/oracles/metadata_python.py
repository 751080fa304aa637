"""The metadata rules' steps in Python: the test oracle of their C part (ce_filter/keep/_metadata.c),
which must give the same values (equal: the same str, list, bool or int) on every input. The head
items sorted by a loop, tags split by str.split, the dating <meta> keys, the byline starts and
the title separators found by regular expressions, a text's words by unicodedata, str.casefold
and ``\\w``, the site's name taken off a title by str.find."""

from __future__ import annotations

import email.utils
import functools
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from ce_filter.keep.dates import ENGLISH, PUBLISHED_LABELS, UPDATED_LABELS, YEAR, ymd
from ce_filter.keep.metadata import (
    _CUT_CAPS,
    _CUT_MONTHS,
    _CUT_WORDS,
    _MONTH_ALT,
    MAX_BYLINE_CHARS,
    MAX_BYLINES,
    MAX_TERM_CHARS,
    MAX_TERMS,
    PageHead,
    _first_values,
    _text,
    clean_ld_text,
)
from ce_filter.read.segment import TAG_H1

# A <meta> whose key says it dates the page (not its update, an event or a validity)
_DATE_KEY = re.compile(r"date|time|publish|created", re.I)
_NOT_DATE_KEY = re.compile(r"modif|updat|expir|valid|start|end|event|verif|birth", re.I)
SEPS = re.compile(r"\s+[|\-–—·•»:~/]\s+|\s+::\s+|\s*[|·•»]\s*")  # split_title is SEPS.split
_SEP_CHAR = re.compile(r"[|\-–—·•»:~/]")  # every SEPS match holds one of these
_BARE_SEPS = frozenset("|·•»")  # the ones that separate without spaces around them


def byline_marker(cls: str | None, idv: str | None, rel: str | None, itemprop: str | None) -> str:
    """The attribute value that makes an element a byline candidate, or ''."""
    for v in (rel, itemprop):
        if v and "author" in v.lower().split():
            return v
    for v in (cls, idv):
        if v:
            low = v.lower()
            if "author" in low or "byline" in low:
                return v
    return ""


def page_head(items: Sequence[tuple[str, ...]], title: str = "") -> PageHead:
    """metadata.page_head by a loop: the oracle of the C part's ``head``."""
    head = PageHead(title=title)
    metas, bylines, times, links, jsonld = head.metas, head.bylines, head.times, head.links, head.jsonld
    for it in items:
        kind = it[0]
        if kind == "meta":
            metas.append((it[1].lower(), it[2]))
        elif kind == "by":
            if len(bylines) < MAX_BYLINES:
                text = it[5]
                if text and len(text) <= MAX_BYLINE_CHARS:
                    m = byline_marker(it[1], it[2], it[3], it[4])
                    if m:
                        bylines.append((m, text))
        elif kind == "time":
            times.append((it[1], f"{it[2]} {it[3]}".strip(), it[4]))
        elif kind == "link":
            rel = it[1].lower()
            words = rel.split()
            if "canonical" in words or "author" in words:
                links.append((rel, it[2]))
        elif kind == "ld":
            jsonld.append(it[1])
        elif kind == "lang" and not head.lang:
            head.lang = it[1]
    return head


def split_terms(v: object) -> list[str]:
    """split_terms in Python."""
    if isinstance(v, str):
        sep = "," if "," in v else ";" if ";" in v else "、" if "、" in v else "，" if "，" in v else None
        items: Sequence[object] = v.split(sep) if sep else [v]
    elif isinstance(v, list):
        items = v
    else:
        return []
    out: dict[str, str] = {}
    for x in items:
        t = clean_ld_text(x) if isinstance(x, str) else clean_ld_text(_text(x))
        if t and len(t) <= MAX_TERM_CHARS and t.casefold() not in out:
            out[t.casefold()] = t
            if len(out) >= MAX_TERMS:
                break
    return list(out.values())


def first_meta(first: Mapping[str, str], keys: Sequence[str]) -> str:
    """_first_meta in Python, from the page's first values."""
    for k in keys:
        found = first.get(k)
        if found:
            return " ".join(found.split())
    return ""


@functools.lru_cache(maxsize=1024)
def is_date_key(key: str) -> bool:
    """A <meta> key that dates the page (the same few keys recur on every page: memoized)."""
    return bool(_DATE_KEY.search(key)) and not _NOT_DATE_KEY.search(key)


# What re.IGNORECASE lets match an ASCII letter besides its two cases (İ and ı for i, the
# Kelvin sign for k, the long s for s; tests/core/test_metadata.py checks the list is whole).
IGNORECASE_ALSO = {"i": "\u0130\u0131", "k": "\u212a", "s": "\u017f"}


def block_start(*words: str) -> re.Pattern[str]:
    """A block (after the "\n" that joins it to the one before) starting with one of ``words``,
    in any case, as loosely as re.IGNORECASE would: every block one of the rules' case-blind
    regexes matches at its start is found, and a few more (the rule itself then decides)."""
    def loose(w: str) -> str:
        return "".join(f"[{c}{c.upper()}{IGNORECASE_ALSO.get(c, '')}]" for c in w)
    pattern = re.compile("\n(?:" + "|".join(loose(w) for w in words) + ")")
    START_WORDS[pattern] = words
    return pattern


START_WORDS: dict[re.Pattern[str], tuple[str, ...]] = {}  # each block_start pattern's words


# the blocks _BY_BLOCK or _WRITTEN_BY can match, and those _WRITTEN_BY can
BYLINE_START = block_start("by", "posted", "reviewed", "published", "written", "authored")
WRITTEN_START = block_start("written", "authored")


def split_title(title: str) -> list[str]:
    """``SEPS.split(title)``, found from the separator characters: a regex tried at every
    position of the title costs more than the rest of the title rules together.

    A match of SEPS starts at a separator character ``c`` that is one of _BARE_SEPS, or at
    the start of the run of whitespace right before ``c`` when ``c`` is followed by whitespace
    (or is "::" followed by whitespace) or is one of _BARE_SEPS; it takes the whitespace
    after it. tests/core/test_metadata.py compares the two on many random titles."""
    out: list[str] = []
    n = len(title)
    start = at = 0  # the current part's start; where the next match may start
    while True:
        m = _SEP_CHAR.search(title, at)
        if m is None:
            break
        q = m.start()
        p = q
        while p > at and title[p - 1].isspace():  # \s is str.isspace()
            p -= 1
        c = title[q]
        if p < q and q + 1 < n and title[q + 1].isspace():
            end = q + 1
        elif p < q and title.startswith("::", q) and q + 2 < n and title[q + 2].isspace():
            end = q + 2
        elif c in _BARE_SEPS:
            end = q + 1
        else:
            at = q + 1
            continue
        while end < n and title[end].isspace():
            end += 1
        out.append(title[start:p])
        start = at = end
    out.append(title[start:])
    return out


_WORD = re.compile(r"\w+")
# ASCII text is its own NFKC form, its casefold is its lower(), and its \w is [A-Za-z0-9_]:
# there the words are what is left when every other character is made a space
_ASCII_NOT_WORD = {i: " " for i in range(128) if not (chr(i).isalnum() or chr(i) == "_")}


def norm_text(s: str) -> str:
    """metadata.norm_text by unicodedata, str.casefold and ``\\w`` (ASCII text by str.translate):
    the oracle of the C part's norm_text."""
    if s.isascii():
        return " ".join(s.lower().translate(_ASCII_NOT_WORD).split())
    return " ".join(_WORD.findall(unicodedata.normalize("NFKC", s).casefold()))


def is_site_part(part: str, site: str, domain: frozenset[str]) -> bool:
    """_is_site_part in Python."""
    n = norm_text(part)
    if not n:
        return True
    if site and (n == site or n in site or (site in n and len(n) <= len(site) + 12)):
        return True
    squashed = n.replace(" ", "")
    return any(d and (squashed == d.replace(" ", "") or squashed.startswith(d.replace(" ", "")))
               for d in domain)


def clean_parts(title: str, parts: tuple[str, ...], site: str, dom: frozenset[str]) -> str:
    """_clean_title's choice of the title's parts in Python: the oracle of the C part's
    clean_title."""
    keep = [p for p in parts if not is_site_part(p, site, dom)]
    if not keep:
        return title
    if len(keep) == len(parts):
        # nothing looks like the site: drop only a short last part (the usual suffix)
        last = parts[-1]
        if len(parts) >= 2 and len(last.split()) <= 4 and len(last) < len(" ".join(parts[:-1])):
            return title[: title.rfind(last)].rstrip(" |-–—·•»:~/")
        return title
    # the kept parts as they stand in the title (separators inside the story's own title stay)
    start = title.find(keep[0])
    end = title.rfind(keep[-1]) + len(keep[-1])
    return title[start:end].strip()


def starting(texts: Sequence[str], pattern: re.Pattern[str]) -> list[int]:
    """The indices of the texts a block_start pattern matches at the start of (led by "\\n")."""
    return [k for k, t in enumerate(texts) if pattern.match("\n" + t)]


def with_year(texts: Sequence[str], max_len: int) -> list[int]:
    """The indices of the texts shorter than ``max_len`` where dates.YEAR matches."""
    return [k for k, t in enumerate(texts) if len(t) < max_len and YEAR.search(t)]


def h1_positions(tag: Sequence[int] | np.ndarray) -> list[int]:
    """The indices of a tag column's <h1> blocks, by numpy."""
    return (np.asarray(tag, dtype=np.int64) == TAG_H1).nonzero()[0].tolist()


# Where a byline's name ends: a separator, "on <date>", a glued-on label or month, a number, a
# date, a bar (metadata._CUT_WORDS and the branches after it)
CUT = re.compile(_CUT_WORDS + r"|\s\d"
                 r"|\s*(?:,\s*)?\b(?:" + _MONTH_ALT + r")\.?\s+\d{1,2}\b"
                 r"|\s*[•·⋅∙|»]"
                 r"|(?<=[a-z])(?=\d+(?:st|nd|rd|th)?\s+[A-Za-z])", re.I)


def cut_at(s: str) -> int:
    """The start of CUT's first match in ``s``, -1 for none."""
    m = CUT.search(s)
    return m.start() if m else -1


@functools.cache
def _start_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    for pattern, w in START_WORDS.items():
        if w == words:
            return pattern
    return block_start(*words)


class PythonPart:
    """The C part's functions (metadata.MetadataC, dates.DatesC, result.PositionsC) by the oracle's,
    with the same arguments: what a test puts in the C part's place."""

    def head(self, items: list[tuple[str, ...]], max_bylines: int, max_byline_chars: int,
             ) -> tuple[str, list[tuple[str, str]], list[tuple[str, str]], list[str],
                        list[tuple[str, str, str]], list[tuple[str, str]], dict[str, str]]:
        assert (max_bylines, max_byline_chars) == (MAX_BYLINES, MAX_BYLINE_CHARS)
        h = page_head(items)
        return h.lang, h.metas, h.links, h.jsonld, h.times, h.bylines, _first_values(h)

    def first_meta(self, first: dict[str, str], keys: tuple[str, ...]) -> str:
        return first_meta(first, keys)

    def terms(self, v: str | list[str], max_terms: int, max_chars: int) -> list[str]:
        assert (max_terms, max_chars) == (MAX_TERMS, MAX_TERM_CHARS)
        return split_terms(v)

    def date_values(self, metas: list[tuple[str, str]]) -> list[str]:
        return [v for k, v in metas if is_date_key(k)]

    def starting(self, texts: str | list[str], words: tuple[str, ...]) -> list[int]:
        return starting(texts.split("\n") if isinstance(texts, str) else texts, _start_pattern(words))

    def with_year(self, texts: str | list[str], max_len: int) -> list[int]:
        return with_year(texts.split("\n") if isinstance(texts, str) else texts, max_len)

    def split_title(self, title: str) -> list[str]:
        return split_title(title)

    def norm_text(self, s: str) -> str:
        return norm_text(s)

    def clean_title(self, title: str, parts: tuple[str, ...], site: str, dom: tuple[str, ...]) -> str:
        return clean_parts(title, parts, site, frozenset(dom))

    def site_part(self, part: str, site: str, dom: tuple[str, ...]) -> bool:
        return is_site_part(part, site, frozenset(dom))

    def cut_at(self, s: str, months: tuple[str, ...], caps: tuple[str, ...]) -> int:
        assert (months, caps) == (_CUT_MONTHS, _CUT_CAPS)
        return cut_at(s)

    def positions(self, column: Sequence[int] | np.ndarray, value: int) -> list[int]:
        assert value == TAG_H1
        return h1_positions(column)

    def hostname(self, url: str | None) -> str:
        return hostname(url)

    def normalise_date(self, s: str, months: dict[str, int], max_year: int) -> str:
        return normalise_date(s, months)

    def configure(self, labels: Sequence[tuple[str, str]]) -> None:
        pass

    def marks(self, s: str, first_only: bool) -> list[tuple[int, str]]:
        return label_marks(s, first_only)


# ---------------------------------------------------------------- dates

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
_WORDS = re.compile(r"[^\W\d_]{3,20}")


def _named(matches: Iterable[re.Match[str]], months: Mapping[str, int], name: int, day: int,
           year: int) -> str:
    """The first match whose group ``name`` is a month's name, as a date ('' if none is)."""
    for m in matches:
        month = months.get(m.group(name).lower())
        if month:
            return ymd(int(m.group(year)), month, int(m.group(day)))
    return ""


def normalise_date(s: str, months: Mapping[str, int] = ENGLISH) -> str:
    """dates.normalise_date by regular expressions (and email.utils for RFC 2822 dates)."""
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


LABEL = re.compile(r"(?:(?<![^\W\d_])|(?<=[\u3000-\u9fff]))(?:(" + PUBLISHED_LABELS + r")|(" + UPDATED_LABELS
                   + r"))(?![^\W\d_])", re.I)


def label_marks(s: str, first_only: bool = False) -> list[tuple[int, str]]:
    """(start, "published" or "updated") of each label in ``s`` (the first only where
    ``first_only``): LABEL's finditer."""
    out = []
    for m in LABEL.finditer(s):
        out.append((m.start(), "published" if m.group(1) else "updated"))
        if first_only:
            break
    return out


# ---------------------------------------------------------------- hosts

def hostname(url: str | None) -> str:
    """address.hostname by str's methods: the host of ``url``, lower case, without "www." and
    port ('' for none or a relative URL)."""
    url = (url or "").strip()
    at = url.find("//")
    scheme = url[:at - 1] if at > 0 and url[at - 1] == ":" else None if at else ""
    if at < 0 or scheme is None or not (scheme == "" or scheme.replace("+", "").replace("-", "").isalnum()):
        return ""  # no "//", or something other than a scheme before it
    rest = url[at + 2:]
    end = len(rest)
    for c in "/?#":
        i = rest.find(c)
        if 0 <= i < end:
            end = i
    host = rest[:end].rpartition("@")[2]
    if host.startswith("["):  # an IPv6 literal
        host = host[1:host.find("]")] if "]" in host else ""
    else:
        host = host.partition(":")[0]
    return host.strip().lower().removeprefix("www.")
