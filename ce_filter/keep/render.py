"""The kept blocks as text, Markdown, HTML, XML, JSON or CSV, in page order (docs/OUTPUT.md).

Structure comes from what the walk recorded per block: the tag that opened it (h1-h6, li,
td/th, pre), its ancestor flags (inside a list, a table, a blockquote, a pre), its ancestors
(which row and which table a cell is in) and, in ``Extras``, what the text alone loses: a
code block's own line breaks, whether a list is numbered, the links' targets and the images'
alt text. ``FORMATS`` is the one list of output names the CLI and the service accept.
"""

from __future__ import annotations

import csv
import html as _html
import io
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol, cast
from urllib.parse import urljoin, urlsplit

import numpy as np

from .. import native
from ..read.segment import FLAG_NAMES, FLAG_PRE, HEADINGS, PATH_LEN, Blocks, tag_id

# a text in a format's own escaping, with link markup for (anchor, href) in it
Escape = Callable[[str, Sequence[tuple[str, str]]], str]


class Extraction(Protocol):
    """What the formats read of a page's result (keep/result.py's Extraction), named here so
    that the renderers need not import the result that calls them."""

    @property
    def text(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def reason(self) -> str: ...
    @property
    def url(self) -> str: ...
    @property
    def html_title(self) -> str: ...
    @property
    def author(self) -> str: ...
    @property
    def date(self) -> str: ...
    @property
    def sitename(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def canonical_url(self) -> str: ...
    @property
    def language(self) -> str: ...
    @property
    def page_type(self) -> str: ...
    @property
    def page_type_prob(self) -> float | None: ...
    def to_markdown(self, *, links: bool = False, images: bool = False) -> str: ...
    def to_html(self, *, links: bool = False, images: bool = False) -> str: ...
    def to_xml(self, *, links: bool = False, images: bool = False) -> str: ...

# The output formats, one list for the CLI (--format) and the service (?format=): ``jsonl`` is
# the pipeline's record (ce_filter/record.py), the others are made here from an Extraction.
FORMATS = ("text", "markdown", "html", "json", "xml", "csv", "jsonl")

_BIT = {n: 1 << i for i, n in enumerate(FLAG_NAMES)}
_HEADING_LEVEL = {tag_id(f"h{k}"): k for k in range(1, 7)}
assert set(_HEADING_LEVEL) == set(HEADINGS)
TAG_LI, TAG_TD, TAG_TH, TAG_PRE = tag_id("li"), tag_id("td"), tag_id("th"), tag_id("pre")
TAG_DT, TAG_DD = tag_id("dt"), tag_id("dd")
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

    def resolved(self, base: str) -> Extras:
        """The same, with every href and src made absolute against ``base`` (``base_url``);
        unchanged where ``base`` is ''."""
        if not base:
            return self
        return replace(self, links=[(i, a, absolute(base, h)) for i, a, h in self.links],
                       images=[(i, a, absolute(base, s)) for i, a, s in self.images])


# The first <base href> of a page (the HTML standard: the first base element with an href)
_BASE_HREF = re.compile(
    r"""<base\b[^>]*?(?<![\w-])href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.I)


def base_url(page: str, url: str | None) -> str:
    """What a page's relative links resolve against: its ``<base href>`` (itself resolved
    against ``url``), else ``url``; '' where that is not an absolute http(s)-like address (no
    url given and no absolute base), so links are then left as written."""
    base = url or ""
    m = _BASE_HREF.search(page)
    if m:
        href = _html.unescape(next(g for g in m.groups() if g is not None)).strip()
        if href:
            base = absolute(base, href) if base else href
    try:
        parts = urlsplit(base)
    except ValueError:  # a malformed address (an unclosed IPv6 bracket)
        return ""
    return base if parts.scheme and parts.netloc else ""


def absolute(base: str, link: str) -> str:
    """``link`` resolved against ``base`` as a browser does; as written where it cannot be
    (a malformed address)."""
    link = link.strip()
    if not base or not link:
        return link
    try:
        return urljoin(base, link)
    except ValueError:
        return link


@dataclass
class _Item:
    kind: str  # "h", "li", "pre", "quote", "p", "table"
    text: str = ""
    level: int = 0  # heading level; list item number (0 = bullet)
    rows: list[list[tuple[str, bool]]] = field(default_factory=list)  # table: cells (text, is header)
    group: int = 0  # list item: its list's element serial (items of one list stay together)


def _items(blocks: Blocks, keep: np.ndarray, extras: Extras, links: bool, images: bool,
           escape: Escape) -> list[_Item]:
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
    imgs_before: dict[int, list[tuple[str, str]]] = {}
    if images:
        n = len(keep)
        for i, alt, src in extras.images:
            if 0 <= i < n - 1 and not keep[i] and keep[i + 1]:
                # the block it stands after is left out (a byline): it goes before the next one
                imgs_before.setdefault(i + 1, []).append((alt, src))
            else:
                by_block_imgs.setdefault(i, []).append((alt, src))
    out: list[_Item] = []
    list_counter: dict[int, int] = {}  # list element serial -> items so far
    table_key = -1
    for i in np.flatnonzero(keep).tolist():
        for alt, src in imgs_before.get(i, ()):
            out.append(_Item("img", alt, rows=[[(src, False)]]))
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


# ---------------------------------------------------------------- plain text

CELL_SEP = " | "  # between the cells of a table row in the text


def to_text(blocks: Blocks, keep: np.ndarray, extras: Extras | Callable[[], Extras] | None = None) -> str:
    """The kept blocks as plain text, one paragraph per block, except that a table keeps a row
    per line (its cells joined by `` | ``, grouped as the Markdown table groups them) and a code
    block its own line breaks: its text as written, from the walk's code column
    (``Blocks.code_column``). Blocks without one (the Python walk's, a test oracle) take it from
    ``extras`` (or a function making them, called only for a page that keeps a code block);
    without them a code block is its one-line block text. Joined in C (keep/_render.c, in the pass's module
    ce_filter._pass: the one implementation; the test oracle tests/oracles/render_text.py
    checks it)."""
    cont = blocks.container_ids()
    args = (keep.view(np.uint8), *blocks.text_column().c_args(),
            np.ascontiguousarray(blocks.tag, dtype=np.int64),
            np.ascontiguousarray(blocks.flags, dtype=np.int64), cont, cont.shape[1],
            FLAG_PRE, TAG_PRE, TAG_TD, TAG_TH, MAX_CELL_CHARS, blocks.code_column())
    out: str | None = _c.text(*args, None)
    if out is None:  # a code block is kept: its lines as written
        out = _c.text(*args, ((extras() if callable(extras) else extras) or Extras()).pre)
    assert out is not None
    return out


def pass_form() -> tuple[int, int, int, int, int, int]:
    """How ``to_text`` writes a page, as the pass after the walk (ce_filter/_pass.c) reads it:
    the ancestor path's length, the code flag and tag, the cell tags, a cell's longest text."""
    return PATH_LEN, FLAG_PRE, TAG_PRE, TAG_TD, TAG_TH, MAX_CELL_CHARS


class RenderC(Protocol):
    """The function of the C part (keep/_render.c) that Python calls: the kept text, or None
    where a code block is kept and neither ``code`` (Blocks.code_column) nor ``pre`` (its text
    as written, by block) gives it."""

    def text(self, keep: np.ndarray, utf8: bytes, starts: np.ndarray, tag: np.ndarray, flags: np.ndarray,
             cont: np.ndarray, path_len: int, flag_pre: int, tag_pre: int, tag_td: int, tag_th: int,
             max_cell_chars: int, code: tuple[bytes, np.ndarray] | None, pre: dict[int, str] | None,
             /) -> str | None: ...


_c = cast(RenderC, native.required("_pass"))


# ---------------------------------------------------------------- Markdown

_MD_LINE_START = re.compile(r"^(\s*)([#>+\-*=]|\d+[.)])(?=\s|$)")
_MD_INLINE = re.compile(r"([\\`*_\[\]<>])")


def _md_inline(s: str) -> str:
    return _MD_INLINE.sub(r"\\\1", s)


def _linked(text: str, links: Sequence[tuple[str, str]], esc: Callable[[str], str],
            link: Callable[[str, str], str]) -> str:
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



def _list_tags(items: list[_Item]) -> Iterator[tuple[str, str, _Item | None]]:
    """Each item with the list to close before it and the list to open before it ("", "ul" or
    "ol"): consecutive list items of one list share it. A last (close, "", None) closes what is
    still open."""
    open_list, group = "", -1
    for it in items:
        want = ("ol" if it.level else "ul") if it.kind == "li" else ""
        close = ""
        if open_list and (want != open_list or it.group != group):
            close, open_list = open_list, ""
        opened = ""
        if want and not open_list:
            opened = open_list = want
            group = it.group
        yield close, opened, it
    if open_list:
        yield open_list, "", None


def to_html(blocks: Blocks, keep: np.ndarray, extras: Extras | None = None, *, links: bool = False,
            images: bool = False, title: str = "", lang: str = "") -> str:
    """The kept blocks as a small, clean HTML document (the article's own markup only)."""
    items = _items(blocks, keep, extras or Extras(), links, images, _html_escape)
    out: list[str] = []
    for close, opened, it in _list_tags(items):
        if close:
            out.append(f"</{close}>")
        if opened:
            out.append(f"<{opened}>")
        if it is None:
            break
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
    lang_attr = f' lang="{_html.escape(lang)}"' if lang else ""
    head = f"<meta charset=\"utf-8\">\n<title>{_html.escape(title, quote=False)}</title>"
    return (f"<!DOCTYPE html>\n<html{lang_attr}>\n<head>\n{head}\n</head>\n<body>\n<article>\n"
            + "\n".join(out) + "\n</article>\n</body>\n</html>\n")


# ---------------------------------------------------------------- XML (trafilatura's shape)

# characters XML 1.0 does not allow, even escaped
_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _xml_text(s: str) -> str:
    return _html.escape(_XML_BAD.sub("", s), quote=False)


def _xml_attr(s: str) -> str:
    return _html.escape(_XML_BAD.sub("", s).strip(), quote=True)


def _xml_escape(text: str, links: Sequence[tuple[str, str]] = ()) -> str:
    return _linked(text, links, _xml_text, lambda a, h: f'<ref target="{_xml_attr(h)}">{_xml_text(a)}</ref>')


_CELL = {True: '<cell role="head">', False: "<cell>"}


def to_xml(blocks: Blocks, keep: np.ndarray, extras: Extras | None = None, *, links: bool = False,
           images: bool = False, meta: Mapping[str, object] | None = None) -> str:
    """The kept blocks as trafilatura's XML: a ``<doc>`` whose attributes are the metadata
    (``meta``: name -> value, empty ones left out), its ``<main>`` (``<head rend="h2">``, ``<p>``,
    ``<list rend="ul|ol">`` of ``<item>``, ``<table>`` of ``<row>`` of ``<cell>``, ``<code>``,
    ``<quote>``; with ``links`` ``<ref target>``, with ``images`` ``<graphic src alt>``) and an
    empty ``<comments/>`` (the comments model keeps comments in the text, unsplit)."""
    items = _items(blocks, keep, extras or Extras(), links, images, _xml_escape)
    body: list[str] = []
    ind = "    "
    for close, opened, it in _list_tags(items):
        if close:
            body.append(f"{ind}</list>")
        if opened:
            body.append(f'{ind}<list rend="{opened}">')
        if it is None:
            break
        if it.kind == "h":
            body.append(f'{ind}<head rend="h{it.level}">{it.text}</head>')
        elif it.kind == "li":
            body.append(f"{ind}  <item>{it.text}</item>")
        elif it.kind == "pre":
            body.append(f"{ind}<code>{_xml_text(it.text.strip(chr(10)))}</code>")
        elif it.kind == "quote":
            body.append(f"{ind}<quote>\n{ind}  <p>{it.text}</p>\n{ind}</quote>")
        elif it.kind == "table":
            rows = [f"{ind}<table>"]
            for r in it.rows:
                rows.append(f"{ind}  <row>")
                rows += [f"{ind}    {_CELL[h]}{c}</cell>" for c, h in r]
                rows.append(f"{ind}  </row>")
            rows.append(f"{ind}</table>")
            body.append("\n".join(rows))
        elif it.kind == "img":
            body.append(f'{ind}<graphic src="{_xml_attr(it.rows[0][0][0])}" alt="{_xml_attr(it.text)}"/>')
        else:
            body.append(f"{ind}<p>{it.text}</p>")
    attrs = "".join(f' {k}="{_xml_attr(str(v))}"' for k, v in (meta or {}).items() if v not in (None, ""))
    main = "  <main>\n" + "\n".join(body) + "\n  </main>" if body else "  <main/>"
    return f"<doc{attrs}>\n{main}\n  <comments/>\n</doc>\n"


# ---------------------------------------------------------------- metadata in other tools' names


def _joined(v: object) -> str:
    """A list field (categories, tags) as trafilatura writes it: joined with ';'."""
    if isinstance(v, (list, tuple)):
        return ";".join(str(x) for x in v if x)
    return str(v or "")


def _host(url: str) -> str:
    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return ""


def page_metadata(r: Extraction) -> dict[str, str]:
    """An Extraction's metadata under trafilatura's names, in its order: ``url`` is the address
    given, else the page's canonical one; '' where none."""
    url = r.url or r.canonical_url
    return {
        "title": r.title, "author": r.author, "url": url,
        "hostname": getattr(r, "hostname", "") or _host(url),
        "description": r.description, "sitename": r.sitename, "date": r.date,
        "categories": _joined(getattr(r, "categories", "")), "tags": _joined(getattr(r, "tags", "")),
        "image": getattr(r, "image", "") or "", "language": r.language, "pagetype": r.page_type,
    }


# trafilatura's <doc> attributes, and the page kind and the reason of an empty text after them
XML_ATTRIBUTES = ("sitename", "title", "author", "date", "url", "hostname", "description", "categories",
                  "tags", "language", "image", "pagetype")


def xml_meta(r: Extraction) -> dict[str, str]:
    m = page_metadata(r)
    return {**{k: m[k] for k in XML_ATTRIBUTES}, "reason": r.reason}


# the YAML front matter's fields (--with-metadata), trafilatura's order
FRONT_MATTER = ("title", "author", "url", "hostname", "description", "sitename", "date", "categories",
                "tags", "image", "language", "pagetype")
# a plain YAML scalar that reads back as the same string: starts with a letter, has no ": ",
# " #" or a trailing ":", no character YAML reads as a line break or refuses unquoted
_YAML_UNSAFE = re.compile(r": |\s#|:$|[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]|\s$")
_YAML_WORDS = frozenset("true false yes no on off y n null none".split())
# what a JSON string leaves as is that YAML would read otherwise inside double quotes
_YAML_ESCAPE = {c: f"\\u{c:04x}" for c in (0x7F, *range(0x80, 0xA0), 0x2028, 0x2029, 0xFEFF,
                                          *range(0xD800, 0xE000), 0xFFFE, 0xFFFF)}


def _yaml_scalar(v: str) -> str:
    """``v`` as a YAML string: plain where YAML reads it back as the same string, else
    double-quoted (a JSON string, with the few characters YAML reads as line breaks escaped)."""
    if v and v[0].isalpha() and not _YAML_UNSAFE.search(v) and v.lower() not in _YAML_WORDS:
        return v
    return json.dumps(v, ensure_ascii=False).translate(_YAML_ESCAPE)


def front_matter(r: Extraction) -> str:
    """The page's metadata as YAML front matter (``---`` lines around ``name: value``), the
    empty fields left out; categories and tags as lists."""
    m = page_metadata(r)
    lines = ["---"]
    for k in FRONT_MATTER:
        v = m[k]
        if not v:
            continue
        if k in ("categories", "tags"):
            lines.append(f"{k}: " + json.dumps(v.split(";"), ensure_ascii=False))
        else:
            lines.append(f"{k}: {_yaml_scalar(str(v))}")
    return "\n".join(lines) + "\n---\n"


def to_json(r: Extraction) -> str:
    """One page as one JSON object on one line: trafilatura's field names where they mean the
    same (``source`` the page's address, ``source-hostname`` the site's name, ``excerpt`` the
    description, ``pagetype`` the page kind), then ce-filter's own; null where nothing was
    found, ``text`` '' with ``reason`` saying why."""
    m = page_metadata(r)
    d: dict[str, str | float | None] = {
        "title": m["title"], "author": m["author"], "hostname": m["hostname"], "date": m["date"],
        "comments": None, "text": r.text, "language": m["language"], "image": m["image"],
        "pagetype": m["pagetype"], "source": m["url"], "source-hostname": m["sitename"],
        "excerpt": m["description"], "categories": m["categories"], "tags": m["tags"],
        "canonical_url": r.canonical_url, "html_title": r.html_title,
        "page_type_prob": r.page_type_prob, "reason": r.reason,
    }
    return json.dumps({k: (None if v == "" and k != "text" else v) for k, v in d.items()}, ensure_ascii=False)


# trafilatura's CSV columns; the ones ce-filter does not make (a record id, a fingerprint of the
# text, the licence, the comments apart) are null, so a reader by position reads the same
CSV_COLUMNS = ("url", "id", "fingerprint", "hostname", "title", "image", "date", "text", "comments",
               "license", "pagetype")


def to_csv(r: Extraction) -> str:
    """One page as one tab-separated row of CSV_COLUMNS ('null' where none), quoted as CSV
    quotes (a text with tabs, quotes or line breaks is in double quotes)."""
    m = {**page_metadata(r), "text": r.text}
    out = io.StringIO()
    csv.writer(out, delimiter="\t", quoting=csv.QUOTE_MINIMAL).writerow(
        [m.get(k) or "null" for k in CSV_COLUMNS])
    return out.getvalue()


def render_extraction(r: Extraction, fmt: str, *, links: bool = False, images: bool = False,
                      with_metadata: bool = False) -> str:
    """An Extraction in one of FORMATS but ``jsonl`` (the pipeline's record, made by
    ce_filter/record.py from the fetched page): text, markdown or html as ``r.text`` /
    ``to_markdown`` / ``to_html``, text and markdown after YAML front matter where
    ``with_metadata``; json, xml and csv always carry the metadata."""
    if fmt == "json":
        return to_json(r)
    if fmt == "csv":
        return to_csv(r)
    if fmt == "xml":
        return str(r.to_xml(links=links, images=images))
    if fmt == "html":
        return str(r.to_html(links=links, images=images))
    if fmt == "markdown":
        body = str(r.to_markdown(links=links, images=images))
    elif fmt == "text":
        body = r.text + "\n" if r.text else ""
    else:
        raise ValueError(f"format must be one of {', '.join(f for f in FORMATS if f != 'jsonl')}, "
                         f"not {fmt!r}")
    return front_matter(r) + body if with_metadata else body
