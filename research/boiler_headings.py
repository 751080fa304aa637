"""Builds research/boiler_headings.tsv: translations of boilerplate section titles
("Comments", "Related Posts", "Tags", "Share", "Subscribe", "See also" ...) taken from the
translation catalogues that blog, docs and comment packages ship, so every phrase has a stated
source (package, version, file, English string) instead of being guessed.

    mkdir -p /tmp/lex && cd /tmp/lex
    pip download --no-deps sphinx==9.0.4 mkdocs-material==9.8.2 ablog==0.11.13 \\
        django-contrib-comments==2.2.0
    npm pack hexo-theme-icarus@6.1.1
    python -m research.boiler_headings /tmp/lex > research/boiler_headings.tsv

The words of the rules after the cut (ce_filter/keep/boiler_words.tsv: each row with its role,
docs/research/MULTILINGUAL.md) come from the same archives and three more, with the English
strings themselves and the credit and agency words of ``STANDARD``:

    pip download --no-deps mezzanine==6.1.1 django-blog-zinnia==0.20 djangocms-blog==2.0.10 \\
        nikola==8.3.3
    npm pack hexo-theme-butterfly@5.7.0
    python -m research.boiler_headings --roles /tmp/lex > ce_filter/keep/boiler_words.tsv

Each archive is read in place (wheels are zip files, npm packs are gzipped tars). Only sources
under permissive licences (BSD, MIT) are read: hexo-theme-next's catalogue (AGPL-3.0) has the
same kind of strings ("Related Posts") and the reader for it is kept, but its rows are not in
the shipped file (pass its pack too to measure with it).
"""

from __future__ import annotations

import ast
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
# the rules' words read two more spellings (European Portuguese's catalogues among them)
ROLE_ALIAS = {**_ALIAS, "pt_pt": "pt", "id_id": "id"}

# English strings that title a section which is not the article (the concepts of
# features/headings.py's BOILER_WORDS), per source: key or msgid -> English
GETTEXT = {
    "sphinx": ("sphinx/locale/{lang}/LC_MESSAGES/sphinx.mo",
               ("See also", "Navigation", "Quick search")),
    "ablog": ("ablog/locales/{lang}/LC_MESSAGES/sphinx.mo",
              ("Recent Posts", "Tags", "Categories", "Archives", "Read more ...")),
    "django-contrib-comments": ("django_comments/locale/{lang}/LC_MESSAGES/django.mo",
                                ("comments", "Post your comment")),
    # ({app}: any of the package's apps)
    "mezzanine": ("mezzanine/{app}/locale/{lang}/LC_MESSAGES/django.mo",
                  ("Related posts", "Comments", "Recent Comments", "Share on Facebook",
                   "Share on Twitter", "read more")),
    "djangocms-blog": ("djangocms_blog/locale/{lang}/LC_MESSAGES/django.mo",
                       ("Related Posts", "read more", "Latest Blog Articles")),
    "django-blog-zinnia": ("zinnia/locale/{lang}/LC_MESSAGES/django.mo",
                           ("Related entries", "Similar entries", "Popular entries",
                            "Recent comments", "Comments", "Post your comment",
                            "Previous entry", "Next entry")),
}
MKDOCS_KEYS = {"meta.comments": "Comments", "search.share": "Share",
               "blog.references": "Related links", "blog.categories": "Categories",
               "blog.archive": "Archive", "blog.continue": "Continue reading"}
ICARUS_KEYS = {"article.comments": "Comments", "widget.follow": "Follow",
               "widget.subscribe": "Subscribe", "widget.subscribe_email": "Subscribe for updates",
               "widget.adsense": "Advertisement", "article.more": "Read more",
               "common.tag.other": "Tags", "common.category.other": "Categories",
               "common.archive.other": "Archives", "widget.recents": "Recents"}
BUTTERFLY_KEYS = {"post.recommend": "Related Articles", "post.comments": "Comments",
                  "aside.card_recent_post": "Recent Posts",
                  "aside.card_newest_comments.headline": "Latest Comments", "donate": "Sponsor",
                  "share": "Share", "post.back_to_home": "Back to Home"}
NEXT_KEYS = {"post.related_posts": "Related Posts", "menu.tags": "Tags",
             "menu.categories": "Categories", "menu.archives": "Archives",
             "post.read_more": "Read more", "reward.donate": "Donate"}


# translations that are also common English words: the lexicon is matched on every page whatever
# its language, and the English behaviour stays as it was ("tag" it/id, "son" tr "Recents",
# "labels" nl, "archive" de plural; "dela", Swedish "Share", is Portuguese "hers")
NOT_ENGLISH = frozenset({"tag", "son", "labels", "archive", "dela"})


# Nikola's theme messages (nikola/data/themes/base/messages/messages_LANG.py: a dict literal)
NIKOLA_KEYS = ("Comments", "Next post", "Previous post", "Read more", "Older posts",
               "Newer posts", "More posts about %s")


def _nikola(z: zipfile.ZipFile) -> Iterator[tuple[str, str, dict]]:
    for name in sorted(z.namelist()):
        m = re.search(r"nikola/data/themes/base/messages/messages_([^/]+)\.py$", name)
        if not m:
            continue
        tree = ast.parse(z.read(name).decode("utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "MESSAGES":
                yield name, m.group(1), ast.literal_eval(node.value)


# strings ending in a placeholder whose words before it start a title, and how they are listed
PREFIXES = {"More posts about %s": "More posts about"}
HEXO_KEYS = {"hexo-theme-icarus": ICARUS_KEYS, "hexo-theme-next": NEXT_KEYS,
             "hexo-theme-butterfly": BUTTERFLY_KEYS}


def _lang(code: str, alias: dict[str, str] = _ALIAS) -> str | None:
    c = code.lower()
    c = alias.get(c, c)
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


def _gettext(z: zipfile.ZipFile, pkg: str, alias: dict[str, str]
             ) -> Iterator[tuple[str, str, str, str]]:
    pattern, msgids = GETTEXT[pkg]
    rx = re.compile(re.escape(pattern).replace(re.escape("{app}"), "[^/]+")
                    .replace(re.escape("{lang}"), "([^/]+)") + "$")
    for name in sorted(z.namelist()):
        m = rx.search(name)
        lang = _lang(m.group(1), alias) if m else None
        if lang is None:
            continue
        cat = gettext.GNUTranslations(io.BytesIO(z.read(name)))
        for msgid in msgids:
            got = cat.gettext(msgid)
            if got != msgid:
                yield lang, got, msgid, name


def _keyed(files: Iterator[tuple[str, str, dict]], keys: dict[str, str], alias: dict[str, str]
           ) -> Iterator[tuple[str, str, str, str]]:
    for name, code, d in files:
        lang = _lang(code, alias)
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


def rows(folder: Path, alias: dict[str, str] = _ALIAS) -> list[tuple[str, str, str, str, str]]:
    """(language, phrase, English, package@version, file) for every archive in ``folder``
    (``alias``: the catalogues' language codes read as one of LANGS)."""
    out: list[tuple[str, str, str, str, str]] = []
    for path in sorted(folder.iterdir()):
        name = path.name
        m = re.match(r"(.+?)-(\d[\w.]*?)(?:-py\d.*\.whl|\.tgz)$", name)
        if not m:
            continue
        pkg, ver = m.group(1).replace("_", "-").lower(), m.group(2)
        found: Iterator[tuple[str, str, str, str]]
        if pkg in GETTEXT:
            found = _gettext(zipfile.ZipFile(path), pkg, alias)
        elif pkg == "nikola":
            found = _keyed(_nikola(zipfile.ZipFile(path)), {k: k for k in NIKOLA_KEYS}, alias)
        elif pkg == "mkdocs-material":
            found = _keyed(_mkdocs(zipfile.ZipFile(path)), MKDOCS_KEYS, alias)
        elif pkg in HEXO_KEYS:
            found = _keyed(_hexo(tarfile.open(path)), HEXO_KEYS[pkg], alias)
        else:
            continue
        for lang, got, en, file in found:
            if en in PREFIXES:  # "Weitere Einträge über %s": the words before the name
                got = re.sub(r"\s*%s\s*$", "", got) if got.rstrip().endswith("%s") else ""
                en = PREFIXES[en]
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


# The roles of the words in the rules after the cut (ce_filter/keep/articles.py): "tail", a
# heading or short line after the story that titles or is a section that is not the story
# (related, comments, share, author, back/next); "credit", the first word of a photo credit or
# source line ("Foto: ..."); "agency", a news or photo agency's name (a credit line's whole
# text, or after a "/"). English strings of the catalogues not listed are not used.
ROLES = {
    "See also": "tail", "Recent Posts": "tail", "Tags": "tail", "Categories": "tail",
    "Archives": "tail", "Archive": "tail", "comments": "tail", "Comments": "tail",
    "Related links": "tail", "Related Posts": "tail", "Related posts": "tail",
    "Related entries": "tail", "Similar entries": "tail", "Popular entries": "tail",
    "Recent comments": "tail", "Recent Comments": "tail", "Latest Comments": "tail",
    "Related Articles": "tail", "Recents": "tail", "Follow": "tail", "Subscribe": "tail",
    "Subscribe for updates": "tail", "Share": "tail", "Share on Facebook": "tail",
    "Share on Twitter": "tail", "Read more": "tail", "Read more ...": "tail", "read more": "tail",
    "Continue reading": "tail", "Post your comment": "tail", "Donate": "tail", "Sponsor": "tail",
    "Previous entry": "tail", "Next entry": "tail", "Back to Home": "tail",
    "Latest Blog Articles": "tail", "Next post": "tail", "Previous post": "tail",
    "Older posts": "tail", "Newer posts": "tail", "More posts about": "tail",
}
# English: the section titles of the shipped heading feature (score/features/headings.py's
# BOILER_WORDS) that title what follows a story; not its words for a page's furniture ("search",
# "menu", "links", "topics", "featured", "latest", "footnotes"), nor "response"/"reply", which
# head a letter's answer, nor "comment", French for "how"
ENGLISH_TAIL = (
    "comments", "responses", "replies", "related", "see also", "more from", "more on",
    "more stories", "more news", "popular", "most read", "most viewed", "most emailed",
    "most shared", "trending", "recommended", "you may also like", "you might also like",
    "also read", "read more", "read next", "share", "follow", "newsletter", "subscribe",
    "sign up", "tags", "categories", "archives", "recent posts", "top stories", "around the web",
    "from the web", "leave a", "trackbacks", "about the author", "editor's picks",
    "you might like", "more like this", "don't miss", "don’t miss", "in case you missed",
    "more articles", "previous post", "next post")
BOILER_SOURCE = ("ce-filter", "ce_filter/score/features/headings.py BOILER_WORDS (English)")
# Credit lines and agencies: no translation catalogue has them; the words a photo or source
# credit starts with in each language, and the names of the large news and photo agencies, as
# printed under news photos (standard wording, listed here with what each is)
STANDARD = (
    ("credit", "de", ("foto", "fotos", "bild", "bilder", "quelle", "bildquelle", "grafik")),
    ("credit", "fr", ("photo", "crédit photo", "crédits photo", "illustration")),
    ("credit", "es", ("foto", "fotos", "fuente", "imagen")),
    ("credit", "pt", ("foto", "fotos", "fonte", "imagem")),
    ("credit", "it", ("foto", "fonte", "immagine")),
    ("credit", "nl", ("foto", "beeld", "bron")),
    ("credit", "pl", ("fot", "zdjęcie", "źródło")),
    ("credit", "sv", ("foto", "bild", "källa")),
    ("credit", "ru", ("фото", "источник")),
    ("credit", "tr", ("fotoğraf", "kaynak")),
    ("credit", "ja", ("写真", "出典", "画像")),
    ("credit", "ko", ("사진", "출처")),
    ("credit", "zh", ("图片来源", "圖片來源", "摄影", "攝影")),
    ("credit", "ar", ("صورة", "المصدر")),
    ("agency", "de", ("dpa", "apa", "keystone", "sda", "imago", "picture alliance", "ddp")),
    ("agency", "fr", ("afp", "belga")),
    ("agency", "es", ("efe", "europa press")),
    ("agency", "pt", ("lusa",)),
    ("agency", "it", ("ansa",)),
    ("agency", "nl", ("anp",)),
    ("agency", "pl", ("pap",)),
    ("agency", "ru", ("тасс", "риа новости")),
    ("agency", "ja", ("共同通信",)),
    ("agency", "zh", ("新华社", "新華社", "中新社")),
    ("agency", "en", ("reuters", "getty images", "epa", "afp", "ap", "xinhua", "kyodo",
                      "yonhap", "tass", "shutterstock")),
)
STANDARD_SOURCE = {"credit": ("standard wording", "the first word of a photo or source credit"),
                   "agency": ("well-known name", "a news or photo agency")}


# translations that title what a story keeps: "参考" (Sphinx's "See also" in Chinese) begins
# "参考文献", the references
NOT_TAIL = frozenset({"参考"})


def role_rows(folder: Path) -> list[tuple[str, ...]]:
    """(role, language, phrase, English, source, file) for the rules after the cut: the
    catalogues' translations of the strings of ROLES (and those strings themselves, as English
    rows), ENGLISH_TAIL, and STANDARD."""
    out: list[tuple[str, ...]] = []
    english: dict[tuple[str, str], str] = {}
    for lang, phrase, en, src, file in rows(folder, ROLE_ALIAS):
        role = ROLES.get(en)
        if role is None or phrase in NOT_TAIL:
            continue
        out.append((role, lang, phrase, en, src, file))
        english.setdefault((_clean(en) or en, src), file)
    for (phrase, src), file in sorted(english.items()):
        out.append(("tail", "en", phrase, phrase, src, f"{file} (msgid)"))
    for w in ENGLISH_TAIL:
        out.append(("tail", "en", w, w, *BOILER_SOURCE))
    for role, lang, words in STANDARD:
        for w in words:
            out.append((role, lang, w, "", *STANDARD_SOURCE[role]))
    seen: set[tuple[str, str, str, str]] = set()
    uniq = []
    for r in out:
        if (r[0], r[1], r[2], r[4]) not in seen:
            seen.add((r[0], r[1], r[2], r[4]))
            uniq.append(r)
    return uniq


def main(argv: list[str]) -> None:
    if argv and argv[0] == "--roles":
        sys.stdout.write("role\tlanguage\tphrase\tenglish\tsource\tfile\n")
        for r in role_rows(Path(argv[1])):
            sys.stdout.write("\t".join(r) + "\n")
        return
    sys.stdout.write("language\tphrase\tenglish\tsource\tfile\n")
    for r in rows(Path(argv[0])):
        sys.stdout.write("\t".join(r) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
