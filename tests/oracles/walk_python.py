"""The segmenter's walk in Python, over selectolax's node API: the test oracle of the walk
(ce_filter/read/_segment.c, ``segment.segment``), which must give the same blocks as
``segment_tree`` block for block (texts, anchor texts, tags, depths, flags, container paths,
class/id tokens, counts, the title and the head items; with ``extras``, the renderers' items too).

It reads the tag tables and limits of ce_filter/read/segment.py, whose tag ids are those of the
walk's Lexbor (``_segment.tag_id``); the nodes here are selectolax's, so both must be the same
Lexbor version (one Lexbor with the default build, which binds to selectolax's).
research/paperic.py builds its own walk from the helpers here."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, cast

from selectolax.lexbor import LexborHTMLParser

from ce_filter.read.segment import (
    _FLAG_TAGS,
    _NO_ATTR_TAGS,
    _TAG_LIMIT,
    BLOCK_TAGS,
    FLAG_A,
    FLAG_HIDDEN,
    FLAG_PRE,
    LIST_TAGS,
    MAX_BYLINE_ITEMS,
    MAX_ITEM_TEXT,
    MAX_TIME_CHARS,
    PATH_LEN,
    SKIP_TAGS,
    TAG_A,
    TAG_BR,
    TAG_HEAD,
    TAG_HTML,
    TAG_IMG,
    TAG_LI,
    TAG_LINK,
    TAG_META,
    TAG_OL,
    TAG_SCRIPT,
    TAG_TIME,
    TAG_TITLE,
    UNKNOWN_TAG,
    Blocks,
    HeadItem,
    element_tokens,
)

if TYPE_CHECKING:
    from selectolax.lexbor import LexborNode

_HIDDEN_STYLE = re.compile(r"display[ \t\n\r\f]*:[ \t\n\r\f]*none|visibility[ \t\n\r\f]*:[ \t\n\r\f]*hidden",
                           re.I | re.A)


def is_hidden(attrs: dict[str, str | None]) -> bool:
    """Whether an element's own attributes hide it from the reader: ``hidden``,
    ``aria-hidden="true"``, or a ``style`` with ``display: none`` or ``visibility: hidden``
    (the reference of the C walk's is_hidden)."""
    if "hidden" in attrs:
        return True
    a = attrs.get("aria-hidden")
    if a and a.strip(" \t\n\r\f").lower() == "true":
        return True
    st = attrs.get("style")
    return st is not None and _HIDDEN_STYLE.search(st) is not None


# the checks of head_items (loose, ASCII-only: the C walk makes the same ones)
_REL_WORDS = re.compile(r"canonical|author", re.I | re.A)
_BY_WORDS = re.compile(r"author|byline", re.I | re.A)
_AUTHOR_WORD = re.compile(r"author", re.I | re.A)
_LD_JSON = re.compile(r"ld\+json", re.I | re.A)


def head_items(node: LexborNode, tid: int, attrs: dict[str, str | None], out: list[HeadItem],
               body: bool) -> None:
    """Append what one element says about the page (the reference of the C walk's collect)."""
    def get(k: str) -> str:
        return attrs.get(k) or ""

    if tid == TAG_META:
        key = get("property") or get("name") or get("itemprop") or get("http-equiv")
        content = get("content")
        if key and content:
            out.append(("meta", key, content))
    elif tid == TAG_LINK or tid == TAG_A:
        rel, href = get("rel"), get("href")
        if rel and href and _REL_WORDS.search(rel):
            out.append(("link", rel, href))
    elif tid == TAG_SCRIPT:
        if _LD_JSON.search(get("type")):
            out.append(("ld", node.text()))
    elif tid == TAG_TIME:
        out.append(("time", get("datetime"), get("itemprop"), get("class"),
                    _short_text(node)[:MAX_TIME_CHARS]))
    if body:  # rel is read on <a> and <link> only (where it means something)
        cls, idv, prop = get("class"), get("id"), get("itemprop")
        rel = get("rel") if tid == TAG_A or tid == TAG_LINK else ""
        if ((_BY_WORDS.search(cls) or _BY_WORDS.search(idv) or _AUTHOR_WORD.search(rel)
             or _AUTHOR_WORD.search(prop))
                and sum(1 for x in out if x[0] == "by") < MAX_BYLINE_ITEMS):
            out.append(("by", cls, idv, rel, prop, _short_text(node)))


def _render_items(node: LexborNode, tid: int, attrs: dict[str, str | None], n_blocks: int, has_text: bool,
                  links: list[tuple[int, str, str]], images: list[tuple[int, str, str]]) -> None:
    """A link's target or an image's alt text, with the block it stands in: the block being
    made (the next one), or for an image between blocks the one before it."""
    if tid == TAG_A:
        href = attrs.get("href") or ""
        if href:
            links.append((n_blocks, " ".join(node.text().split()), href))
    else:
        src = attrs.get("src") or attrs.get("data-src") or ""
        alt = " ".join((attrs.get("alt") or "").split())
        if src or alt:
            images.append((n_blocks if has_text else max(n_blocks - 1, 0), alt, src))


def _short_text(node: LexborNode) -> str:
    """The element's text, whitespace collapsed; '' when it is over MAX_ITEM_TEXT."""
    t = node.text()
    if len(t) > MAX_ITEM_TEXT // 4 and len(t.encode("utf-8", "ignore")) > MAX_ITEM_TEXT:
        return ""
    return " ".join(t.split())


def _head_walk(head: LexborNode, out: list[HeadItem]) -> str:
    """The <head>'s items, and the text of its first <title>."""
    title = None
    nodes = head.traverse(include_text=False)
    next(nodes)  # the <head> itself
    for node in nodes:
        tid = node.tag_id
        if tid == TAG_TITLE:
            if title is None:
                title = " ".join(node.text().split())
        elif tid > 5:
            head_items(node, tid, node.attributes, out, False)
    return title or ""


def segment_tree(tree: LexborHTMLParser, extras: bool = False) -> Blocks:
    """The walk in Python over selectolax's node API (``extras``: as ``segment.segment``'s)."""
    out = Blocks()
    pre: dict[int, str] = {}
    ordered: set[int] = set()
    links: list[tuple[int, str, str]] = []
    images: list[tuple[int, str, str]] = []
    if extras:
        out.extras = (pre, ordered, links, images)
    root = tree.root
    if root is None:
        return out
    # Blocks()'s own lists (the C walk's columns are arrays and ElementTokens)
    texts, anchors = cast("list[str]", out.texts), cast("list[str]", out.anchor_texts)
    ntags = cast("list[int]", out.n_tags)
    tags, depths = cast("list[int]", out.tag), cast("list[int]", out.depth)
    flags_l = cast("list[int]", out.flags)
    owns, ancs = cast("list[tuple[str, ...]]", out.own_tokens), cast("list[tuple[str, ...]]", out.anc_tokens)
    conts = out.container
    head = out.head
    if root.tag_id == TAG_HTML:
        lang = root.attributes.get("lang")
        if lang:
            head.append(("lang", lang))
    elem_tokens: dict[int, tuple[str, ...]] = {}

    # Stack entry: (tag_id, own tokens, ancestors' tokens (excl. own), tokens incl. own, flags,
    #               (serial of this element, of its parent, of its grandparent))
    empty: tuple[str, ...] = ()
    stack: list[tuple[int, tuple[str, ...], tuple[str, ...], tuple[str, ...], int, tuple[int, ...]]] = []
    serial = 0
    cur: list[str] = []
    cur_a: list[str] = []
    cur_tags = 0
    no_path: tuple[int, ...] = (0,) * PATH_LEN
    opener = (0, empty, empty, empty, 0, no_path)
    br_run = 0
    n_nodes = 0
    has_text = False  # cur holds more than whitespace

    def flush() -> None:
        nonlocal cur, cur_a, cur_tags, has_text
        if has_text:
            text = " ".join("".join(cur).split())
            if text:
                if extras:
                    i = len(texts)
                    if opener[4] & FLAG_PRE:
                        pre[i] = "".join(cur)
                    if opener[0] == TAG_LI:
                        for e in reversed(stack):
                            if e[0] in LIST_TAGS:
                                if e[0] == TAG_OL:
                                    ordered.add(i)
                                break
                texts.append(text)
                anchors.append(" ".join(cur_a))
                ntags.append(cur_tags)
                tags.append(opener[0])
                depths.append(len(stack))
                flags_l.append(opener[4])
                owns.append(opener[1])
                conts.append(opener[5])
                ancs.append(opener[2])
        cur = []
        cur_a = []
        has_text = False
        cur_tags = 0

    node: LexborNode | None = root
    while node is not None:
        n_nodes += 1
        tid = node.tag_id
        descend = False
        if tid == 2:  # text
            s = node.text_content
            if s:
                cur.append(s)
                if not s.isspace():
                    has_text = True
                    br_run = 0
                    if stack and stack[-1][4] & FLAG_A:
                        cur_a.append(s)
        elif tid == TAG_BR:
            br_run += 1
            cur_tags += 1
            if br_run >= 2:
                flush()
                opener = stack[-1] if stack else opener
                br_run = 0
            else:
                cur.append(" ")
        elif tid in SKIP_TAGS:
            if tid == TAG_HEAD:  # <head>: its <title> and what the metadata reads
                t = _head_walk(node, head)
                if not out.title:
                    out.title = t
            elif tid > 5:
                head_items(node, tid, node.attributes, head, True)
        elif tid > 5:  # 0-5: undef, EOF, text, document, comment, doctype
            if tid == TAG_TITLE:
                if not out.title:
                    out.title = " ".join(node.text().split())
            else:
                attrs = node.attributes
                head_items(node, tid, attrs, head, True)
                if extras and (tid == TAG_A or tid == TAG_IMG):
                    _render_items(node, tid, attrs, len(texts), has_text, links, images)
                cls = idv = None
                if tid not in _NO_ATTR_TAGS:
                    cls = attrs.get("class")
                    idv = attrs.get("id")
                own = element_tokens(cls, idv)
                serial += 1
                if own:
                    elem_tokens[serial] = own
                if stack:
                    _, _, _, p_all, p_flags, p_ser = stack[-1]
                else:
                    p_all, p_flags, p_ser = empty, 0, no_path
                fl = p_flags | _FLAG_TAGS.get(tid, 0)
                if not fl & FLAG_HIDDEN and tid in BLOCK_TAGS and is_hidden(attrs):
                    fl |= FLAG_HIDDEN
                entry = (tid if tid < _TAG_LIMIT else UNKNOWN_TAG, own, p_all,
                         p_all + own if own else p_all, fl, (serial,) + p_ser[:-1])
                if tid in BLOCK_TAGS:
                    if cur:
                        flush()
                    cur_tags = 0
                    opener = entry
                    br_run = 0
                stack.append(entry)
                cur_tags += 1
                descend = True
        if descend:
            child = node.first_child
            if child is not None:
                node = child
                continue
            # an empty block tag still separates blocks
            if tid in BLOCK_TAGS:
                if cur:
                    flush()
                cur_tags = 0
            stack.pop()
            if tid in BLOCK_TAGS and stack:
                opener = stack[-1]
        while True:
            nxt = node.next
            if nxt is not None:
                node = nxt
                break
            if not stack:
                node = None
                break
            node = cast("LexborNode", node.parent)  # an element on the stack: it has a parent
            if stack[-1][0] in BLOCK_TAGS:
                if cur:
                    flush()
                cur_tags = 0
                stack.pop()
                if stack:
                    opener = stack[-1]
            else:
                stack.pop()
    flush()
    out.n_nodes = n_nodes
    out.__dict__["_elem_tokens"] = elem_tokens  # by serial, for Blocks.pattern_flags
    return out


# a page that exercises each branch of the walk (tests compare the two walks on it)
PROBE_PAGE = (
    "<html><head><title> A  page </title><style>p{}</style></head><body class='postBody x'>"
    "<div id='mainNav'><a href='/'>Home</a> <a>News</a></div><custom-tag class=c2>own tag</custom-tag>"
    "<article class='story'><h1>Title\u00a0here</h1><p>one <b class=no>bold</b> two<br>three<br><br>"
    "four</p><!-- c --><ul><li>a</li><li class=sel><span id=sp>b</span></li></ul><p></p>tail"
    "<script>x</script><table><tr><td>cell \u2003 one</td></tr></table></article>"
    "<div style='Display : NONE'><p>copy</p></div><p hidden>h</p><em aria-hidden=' true '>a</em>"
    "<span hidden>s</span><div aria-hidden=false>v</div></body></html>"
)


def walk(html: str, extras: bool = False) -> Blocks:
    """``html`` parsed by selectolax and walked here: the oracle of
    ``segment.segment(segment.parse(html), extras)``."""
    return segment_tree(LexborHTMLParser(html), extras)
