"""Labelled corpora on disk: html/<id>.html (or .html.gz), gold/<id>.txt, and where the corpus
has them comments/, split.tsv, pages.tsv, snippets.json (must-have / must-not-have strings) and
meta.json (title, author, date).

pages.tsv comes in two layouts, both read by their header: wcxb-dev's ``id, page_type, domain,
url`` and the other corpora's ``id, site, url, year, kind, lang`` (kind = page type, site =
domain)."""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path
from typing import cast

# a page's record in snippets.json: "with" and "without", lists of snippets
PageSnippets = dict[str, list[str]]
# a page's record in meta.json: title and url, author and publish_date (null where unknown)
PageMeta = dict[str, str | None]


@dataclass
class Doc:
    id: str
    html: bytes
    gold: str
    comments: str = ""
    page_type: str = ""  # article, forum, product, ... (pages.tsv); "" where the corpus has none
    domain: str = ""  # the page's site as the corpus gives it (pages.tsv): the CV group
    url: str = ""
    lang: str = ""  # the page's language as the corpus gives it (pages.tsv), "" where unknown
    year: str = ""  # the year the page was captured (pages.tsv), "" where unknown
    must_have: tuple[str, ...] = ()  # snippets a correct extraction contains (snippets.json)
    must_not_have: tuple[str, ...] = ()  # snippets it does not contain
    meta: PageMeta = field(default_factory=dict)  # title, author, publish_date (meta.json)

    def target(self, comments: bool) -> str:
        return f"{self.gold}\n\n{self.comments}" if comments and self.comments else self.gold


def _read_text(p: Path) -> str:
    if not p.exists():
        return ""
    data = p.read_bytes()
    # A few dragnet gold files are UTF-16-LE whose BOM was mangled into U+FFFD U+FFFD:
    # NUL bytes in every other position give them away.
    if data[1::2].count(0) > len(data) // 8:
        while data.startswith(b"\xef\xbf\xbd"):
            data = data[3:]
        return data.decode("utf-16-le", "replace").lstrip("\ufeff")
    return data.decode("utf-8", "replace")


# Leftovers of how the gold files were cut, which no extractor can match and which would count as
# gold words: CleanEval's paragraph marks that the corpus conversion missed mid-line (809 in
# cleaneval-final, 41 in cleaneval-dev), character references copied from the HTML source
# (1,185 in 64 of the 71 cleanportaleval files: "don&#039;t" would be the gold words
# "don 039 t"; 185 in 10 wcxb-dev files), and a gold that is only an HTML comment saying the
# page has no article. A mark closed later in the text (``<p>Hello</p>``) is markup quoted in
# an article or in code (one cleaneval-final and three wcxb-dev pages), so it stays.
_CE_MARK = re.compile(r"<([plh])>(?![\s\S]*</\1>)", re.I)
_CHAR_REF = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_ONLY_COMMENT = re.compile(r"\s*<!--(?:(?!-->).)*-->\s*", re.S)  # one comment, nothing else


def repair_gold(text: str) -> str:
    """The gold text as the corpus authors meant it (see the patterns above)."""
    if _ONLY_COMMENT.fullmatch(text):
        return ""
    text = _CE_MARK.sub(" ", text)
    return _CHAR_REF.sub(lambda m: unescape(m.group(0)), text)


_CANON = re.compile(
    rb"""<(?:link[^>]*rel=["']?canonical[^>]*href|meta[^>]*property=["']?og:url[^>]*content)"""
    rb"""=["']?https?://(?:www\.)?([a-z0-9.-]+)""", re.I)
_HREF = re.compile(rb"""href=["']?https?://(?:www\.)?([a-z0-9.-]+)""", re.I)


def site_of(html: bytes) -> str:
    """The page's site (host), for grouping cross-validation folds by site: the canonical or
    og:url host, else the most linked host. Pages of one site share templates, so page-grouped
    folds would let a site's class names leak from training into validation."""
    m = _CANON.search(html[:200_000])
    if m:
        return m.group(1).decode("ascii", "ignore").lower()
    hosts = Counter(h.lower() for h in _HREF.findall(html[:500_000]))
    return hosts.most_common(1)[0][0].decode("ascii", "ignore") if hosts else ""


def corpus_ids(root: str | Path, split: str | None = None) -> list[str]:
    root = Path(root)
    if split:
        tsv = root / "split.tsv"
        if not tsv.exists():
            raise FileNotFoundError(f"{root} has no split.tsv, so split {split!r} means nothing")
        rows = (line.split("\t") for line in tsv.read_text().splitlines() if line.strip())
        return sorted(r[0] for r in rows if len(r) > 1 and r[1].strip() == split)
    return sorted(p.stem for p in (root / "gold").glob("*.txt"))


def _pages_tsv(root: Path) -> dict[str, dict[str, str]]:
    """pages.tsv (a header row naming the columns, then a row per page) by id."""
    tsv = root / "pages.tsv"
    if not tsv.exists():
        return {}
    lines = tsv.read_text(encoding="utf-8").splitlines()
    if not lines:
        return {}
    head = lines[0].split("\t")
    out = {}
    for line in lines[1:]:
        cells = line.split("\t")
        if cells and cells[0].strip():
            out[cells[0].strip()] = dict(zip(head[1:], (c.strip() for c in cells[1:])))
    return out


def _json(path: Path) -> dict[str, object]:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _html_bytes(root: Path, doc_id: str) -> bytes | None:
    plain = root / "html" / f"{doc_id}.html"
    if plain.exists():
        return plain.read_bytes()
    packed = root / "html" / f"{doc_id}.html.gz"
    if packed.exists():
        return gzip.decompress(packed.read_bytes())
    return None


def load_corpus(root: str | Path, split: str | None = None, limit: int | None = None) -> Iterator[Doc]:
    """Pages with gold text; pages whose html or gold is missing are skipped."""
    root = Path(root)
    info = _pages_tsv(root)
    snippets = cast("dict[str, PageSnippets]", _json(root / "snippets.json"))
    meta = cast("dict[str, PageMeta]", _json(root / "meta.json"))
    for i, doc_id in enumerate(corpus_ids(root, split)):
        if limit is not None and i >= limit:
            break
        html = _html_bytes(root, doc_id)
        gold = root / "gold" / f"{doc_id}.txt"
        if html is None or not gold.exists():
            continue
        comments = repair_gold(_read_text(root / "comments" / f"{doc_id}.txt"))
        row = info.get(doc_id, {})
        snip = snippets.get(doc_id) or {}
        yield Doc(doc_id, html, repair_gold(_read_text(gold)), comments,
                  page_type=row.get("page_type") or row.get("kind", ""),
                  domain=(row.get("domain") or row.get("site", "")).lower(),
                  url=row.get("url", ""), lang=row.get("lang", "").lower(), year=row.get("year", ""),
                  must_have=tuple(snip.get("with") or ()),
                  must_not_have=tuple(snip.get("without") or ()), meta=dict(meta.get(doc_id) or {}))


@dataclass(frozen=True)
class Spec:
    """A corpus named on a command line: ``dir[:split]``."""

    path: str
    split: str | None = None

    @classmethod
    def parse(cls, spec: str) -> Spec:
        path, _, split = spec.partition(":")
        return cls(path, split or None)

    @property
    def name(self) -> str:
        return Path(self.path).name

    @property
    def label(self) -> str:
        """'dragnet test', 'wcxb-dev': how tables name it."""
        return self.name + (f" {self.split}" if self.split else "")

    def size(self) -> int:
        """Pages with gold (for progress totals)."""
        return len(corpus_ids(self.path, self.split))

    def load(self, limit: int | None = None) -> Iterator[Doc]:
        return load_corpus(self.path, self.split, limit)
