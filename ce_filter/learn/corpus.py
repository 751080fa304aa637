"""Labelled corpora on disk: html/<id>.html, gold/<id>.txt, optional comments/ and split.tsv."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from html import unescape
from pathlib import Path


@dataclass
class Doc:
    id: str
    html: bytes
    gold: str
    comments: str = ""

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
# "don 039 t"), and a gold that is only an HTML comment saying the page has no article.
_CE_MARK = re.compile(r"<[plhPLH]>")
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


def load_corpus(root: str | Path, split: str | None = None, limit: int | None = None) -> Iterator[Doc]:
    """Pages with gold text; pages whose html or gold is missing are skipped."""
    root = Path(root)
    for i, doc_id in enumerate(corpus_ids(root, split)):
        if limit is not None and i >= limit:
            break
        html = root / "html" / f"{doc_id}.html"
        gold = root / "gold" / f"{doc_id}.txt"
        if not html.exists() or not gold.exists():
            continue
        comments = repair_gold(_read_text(root / "comments" / f"{doc_id}.txt"))
        yield Doc(doc_id, html.read_bytes(), repair_gold(_read_text(gold)), comments)
