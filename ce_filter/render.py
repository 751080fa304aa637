"""The kept blocks as Markdown or as clean HTML, in page order.

Structure comes from what the walk recorded per block: the tag that opened it (h1-h6, li,
td/th, pre), its ancestor flags (inside a list, a table, a blockquote, a pre), its ancestors
(which row and which table a cell is in) and, in ``Extras``, what the text alone loses: a
code block's own line breaks, whether a list is numbered, the links' targets and the images'
alt text. Plain text output does not come through here and is unchanged.
"""

from __future__ import annotations

import html as _html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .segment import FLAG_NAMES, HEADINGS, Blocks, _id

_BIT = {n: 1 << i for i, n in enumerate(FLAG_NAMES)}
_HEADING_LEVEL = {_id(f"h{k}"): k for k in range(1, 7)}
assert set(_HEADING_LEVEL) == set(HEADINGS)
TAG_LI, TAG_TD, TAG_TH, TAG_PRE = _id("li"), _id("td"), _id("th"), _id("pre")
TAG_DT, TAG_DD = _id("dt"), _id("dd")
# The output formats of ``ce-filter extract --format`` (and the names ``ce-filter serve`` takes).
FORMATS = ("text", "jsonl", "markdown", "html")
MAX_CELL_CHARS = 300  # a "table" with longer cells is a layout table: its cells become paragraphs


@dataclass
class Extras:
    """Per-block structure beyond Blocks, collected by the walk for the renderers.

    ``pre``: block index -> the code block's text as written (line breaks and indentation kept).
    ``ordered``: indices of the list items whose nearest list is an ``<ol>``.
    ``links``: (block index, anchor text, href), in page order.
    ``images``: (block index, alt text, src), in page order; the block is the one the image
    stands in (or the one before it)."""

    pre: dict[int, str] = field(default_factory=dict)
    ordered: set[int] = field(default_factory=set)
    links: list[tuple[int, str, str]] = field(default_factory=list)
    images: list[tuple[int, str, str]] = field(default_factory=list)


@dataclass
class _Item:
    kind: str  # "h", "li", "pre", "quote", "p", "table"
    text: str = ""
    level: int = 0  # heading level; list item number (0 = bullet)
    rows: list[list[tuple[str, bool]]] = field(default_factory=list)  # table: cells (text, is header)
    group: int = 0  # list item: its list's element serial (items of one list stay together)


def _items(blocks: Blocks, keep: np.ndarray, extras: Extras, links: bool, images: bool,
           escape: Any) -> list[_Item]:
    """The kept blocks as typed items, cells grouped into tables and list items numbered.
    ``escape`` turns a text into the target format's text; link markup is added after it."""
    texts = blocks.texts
    tags = np.asarray(blocks.tag, dtype=np.int64)
    flags = np.asarray(blocks.flags, dtype=np.int64)
    cont = blocks.container_ids()
    by_block_links: dict[int, list[tuple[str, str]]] = {}
    if links:
        for i, anchor, h in extras.links:
            if anchor and h:
                by_block_links.setdefault(i, []).append((anchor, h))
    by_block_imgs: dict[int, list[tuple[str, str]]] = {}
    if images:
        for i, alt, src in extras.images:
            by_block_imgs.setdefault(i, []).append((alt, src))
    out: list[_Item] = []
    list_counter: dict[int, int] = {}  # list element serial -> items so far
    table_key = -1
    for i in np.flatnonzero(keep).tolist():
        tag, fl = int(tags[i]), int(flags[i])
        text = texts[i]
        body = escape(text, by_block_links.get(i, ()))
        if tag in (TAG_TD, TAG_TH) and len(text) <= MAX_CELL_CHARS:
            row, table = int(cont[i, 1]), int(cont[i, 3])
            cell = (body, tag == TAG_TH)
            if out and out[-1].kind == "table" and table == table_key:
                t = out[-1]
                if t.level == row:
                    t.rows[-1].append(cell)
                else:
                    t.rows.append([cell])
                    t.level = row
            else:
                out.append(_Item("table", level=row, rows=[[cell]]))
                table_key = table
        elif tag in _HEADING_LEVEL:
            out.append(_Item("h", body, _HEADING_LEVEL[tag]))
        elif i in extras.pre or tag == TAG_PRE or fl & _BIT["pre"]:
            out.append(_Item("pre", extras.pre.get(i, text)))
        elif tag == TAG_LI:
            num = 0
            parent = int(cont[i, 1])
            if i in extras.ordered:
                num = list_counter[parent] = list_counter.get(parent, 0) + 1
            out.append(_Item("li", body, num, group=parent))
        elif fl & _BIT["blockquote"]:
            out.append(_Item("quote", body))
        else:
            out.append(_Item("p", body))
        for alt, src in by_block_imgs.get(i, ()):
            out.append(_Item("img", alt, rows=[[(src, False)]]))
    return out


# ---------------------------------------------------------------- Markdown

_MD_LINE_START = re.compile(r"^(\s*)([#>+\-*=]|\d+[.)])(?=\s|$)")
_MD_INLINE = re.compile(r"([\\`*_\[\]<>])")


def _md_inline(s: str) -> str:
    return _MD_INLINE.sub(r"\\\1", s)


def _linked(text: str, links: Sequence[tuple[str, str]], esc: Any, link: Any) -> str:
    """``text`` through ``esc``, and each anchor's first occurrence after the previous one
    through ``link(anchor, href)`` instead."""
    parts: list[str] = []
    pos = 0
    for anchor, href in links:
        at = text.find(anchor, pos)
        if at < 0:
            continue
        parts.append(esc(text[pos:at]))
        parts.append(link(anchor, href))
        pos = at + len(anchor)
    parts.append(esc(text[pos:]))
    return "".join(parts)


def _md_escape(text: str, links: Sequence[tuple[str, str]] = ()) -> str:
    """Text that Markdown shows as itself: inline markers escaped, and a line that would read
    as a heading, quote or list item escaped at its start; with ``links``, anchors become
    [anchor](href)."""
    out = _linked(text, links, _md_inline, lambda a, h: f"[{_md_inline(a)}]({_md_url(h)})")
    return _MD_LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), out)


def _md_url(href: str) -> str:
    href = href.strip()
    return f"<{href}>" if re.search(r"[\s()<>]", href) else href


def _fence(code: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    return "`" * max(3, longest + 1)


def to_markdown(blocks: Blocks, keep: np.ndarray, extras: Extras | None = None, *,
                links: bool = False, images: bool = False) -> str:
    """The kept blocks as Markdown: # headings, - / 1. list items, fenced code, tables, > quotes;
    with ``links`` [anchor](href), with ``images`` ![alt](src)."""
    items = _items(blocks, keep, extras or Extras(), links, images, _md_escape)
    out: list[str] = []
    prev: _Item | None = None
    for it in items:
        if it.kind == "h":
            s = "#" * it.level + " " + it.text
        elif it.kind == "li":
            s = (f"{it.level}. " if it.level else "- ") + it.text
        elif it.kind == "pre":
            f = _fence(it.text)
            s = f"{f}\n{it.text.strip(chr(10))}\n{f}"
        elif it.kind == "quote":
            s = "> " + it.text
        elif it.kind == "table":
            s = _md_table(it.rows)
        elif it.kind == "img":
            s = f"![{_md_inline(it.text)}]({_md_url(it.rows[0][0][0])})"
        else:
            s = it.text
        # the items of one list stay together; everything else is a paragraph
        same = prev is not None and it.kind == prev.kind == "li" and it.group == prev.group
        out.append(("\n" if same else "\n\n") + s if out else s)
        prev = it
    return "".join(out) + ("\n" if out else "")


def _md_table(rows: list[list[tuple[str, bool]]]) -> str:
    width = max(len(r) for r in rows)
    if width < 2 and len(rows) < 2:
        return rows[0][0][0]  # one lone cell: a paragraph

    def line(cells: list[str]) -> str:
        cells = cells + [""] * (width - len(cells))
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    head = [c for c, _ in rows[0]]
    body = rows[1:]
    out = [line(head), "|" + "---|" * width]
    out += [line([c for c, _ in r]) for r in body]
    return "\n".join(out)


# ---------------------------------------------------------------- HTML


def _html_text(s: str) -> str:
    return _html.escape(s, quote=False)


def _html_escape(text: str, links: Sequence[tuple[str, str]] = ()) -> str:
    return _linked(text, links, _html_text,
                   lambda a, h: f'<a href="{_html.escape(h.strip())}">{_html_text(a)}</a>')


def to_html(blocks: Blocks, keep: np.ndarray, extras: Extras | None = None, *, links: bool = False,
            images: bool = False, title: str = "", lang: str = "") -> str:
    """The kept blocks as a small, clean HTML document (the article's own markup only)."""
    items = _items(blocks, keep, extras or Extras(), links, images, _html_escape)
    out: list[str] = []
    open_list = ""  # the open list's tag
    group = -1  # and its element serial
    for it in items:
        want = ("ol" if it.level else "ul") if it.kind == "li" else ""
        if open_list and (want != open_list or it.group != group):
            out.append(f"</{open_list}>")
            open_list = ""
        if want and not open_list:
            out.append(f"<{want}>")
            open_list, group = want, it.group
        if it.kind == "h":
            out.append(f"<h{it.level}>{it.text}</h{it.level}>")
        elif it.kind == "li":
            out.append(f"<li>{it.text}</li>")
        elif it.kind == "pre":
            out.append(f"<pre><code>{_html.escape(it.text.strip(chr(10)), quote=False)}</code></pre>")
        elif it.kind == "quote":
            out.append(f"<blockquote><p>{it.text}</p></blockquote>")
        elif it.kind == "table":
            rows = []
            for r in it.rows:
                cells = "".join(f"<{'th' if h else 'td'}>{c}</{'th' if h else 'td'}>" for c, h in r)
                rows.append(f"<tr>{cells}</tr>")
            out.append("<table>\n" + "\n".join(rows) + "\n</table>")
        elif it.kind == "img":
            src = _html.escape(it.rows[0][0][0].strip())
            out.append(f'<p><img src="{src}" alt="{_html.escape(it.text)}"></p>')
        else:
            out.append(f"<p>{it.text}</p>")
    if open_list:
        out.append(f"</{open_list}>")
    lang_attr = f' lang="{_html.escape(lang)}"' if lang else ""
    head = f"<meta charset=\"utf-8\">\n<title>{_html.escape(title, quote=False)}</title>"
    return (f"<!DOCTYPE html>\n<html{lang_attr}>\n<head>\n{head}\n</head>\n<body>\n<article>\n"
            + "\n".join(out) + "\n</article>\n</body>\n</html>\n")
