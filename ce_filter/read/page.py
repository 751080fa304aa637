"""A page's steps, public: bytes -> decoded text (``decode_input``) -> the pre-parse caps
(``precheck``) -> the tree (``parse_page``) -> the blocks (``segment_page``); ``read`` is the
four. The model's steps (context, scores, kept) are the Extractor's (``Extractor.page``), which
fill the same ``Page``. ``Extractor.extract``, explain, the site counts (pipelines.sitecount),
sitefit and the bench stages all go through these functions: none puts the page together
again on its own."""

from __future__ import annotations

from codecs import BOM_UTF8
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from .decode import decode_bytes, looks_binary
from .mojibake import repair_str
from .precheck import DEFAULT_LIMITS, Limits, prepare
from .segment import Blocks, parse, segment

if TYPE_CHECKING:
    from .segment import Tree

# Pages above this size are cut before parsing: a 50 MB "page" is a dump, not an article,
# and the cut keeps memory and latency bounded for the stream.
MAX_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Decoded:
    """The input as text, before the pre-parse caps: ``raw`` is the markup as bytes the caps
    scan (the page's own where they are the text's, else the text's UTF-8) in ``raw_encoding``;
    ``reason`` says why there is no text ('' when there is)."""

    text: str
    encoding: str
    truncated: bool
    reason: str
    raw: bytes = b""
    raw_encoding: str = "utf-8"


@dataclass(frozen=True, slots=True)
class Page:
    """One page through the steps. ``text``: the page as text ('' and ``reason`` when refused
    before parsing); ``utf8``: the text's UTF-8 where the page's own bytes are exactly that
    (for the parse), else None; ``tree`` and ``blocks``: the parse and the segmented page;
    ``kind``/``style``: the page-kind and page-style probabilities (None without those models);
    ``scores``: each block's content probability (after the site stage, with a site memory;
    ``site``: its inputs, (fingerprints, k, n, the model's scores)); ``kept``: the kept mask;
    ``kept_text``: their text where the pass after the walk wrote it (None: not written yet)."""

    text: str
    encoding: str = ""
    truncated: bool = False
    reason: str = ""
    utf8: bytes | None = None
    tree: Tree | None = None
    blocks: Blocks | None = None
    kind: np.ndarray | None = None
    style: np.ndarray | None = None
    scores: np.ndarray | None = None
    site: tuple[np.ndarray, np.ndarray, int, np.ndarray] | None = None
    kept: np.ndarray | None = None
    kept_text: str | None = None


def own_utf8(raw: bytes, text: str, enc: str) -> bytes | None:
    """``raw`` (the page's bytes, BOM and all) where, BOM aside, they are exactly ``text``'s
    UTF-8: decoded as UTF-8 with no byte replaced (no U+FFFD in the text; a page with a U+FFFD
    of its own just takes the slow way)."""
    if enc != "utf-8" or "\ufffd" in text:
        return None
    return raw[len(BOM_UTF8):] if raw.startswith(BOM_UTF8) else raw


def decode_input(html: bytes | str | bytearray | memoryview | None, encoding: str | None = None,
                 max_bytes: int = MAX_BYTES) -> Decoded:
    """The input as text: bytes decoded (``encoding``: the transport's charset; a byte-order
    mark overrides it) and cut at ``max_bytes``; a str repaired of mojibake. No text, and the
    reason, for no input, empty input or binary content. A value that is not a page at all is
    a TypeError."""
    if html is None:
        return Decoded("", "", False, "no input")
    if not isinstance(html, (str, bytes, bytearray, memoryview)):  # a caller's mistake, not a page
        raise TypeError(f"html must be str, bytes, bytearray or memoryview (or None), "
                        f"not {type(html).__name__}")
    truncated = False
    if isinstance(html, (bytes, bytearray, memoryview)):
        data = bytes(html)
        if not data.strip():
            return Decoded("", "", False, "empty input")
        if looks_binary(data):
            return Decoded("", "", False, "binary content")
        if len(data) > max_bytes:
            data, truncated = data[:max_bytes], True
        text, enc, repaired = decode_bytes(data, encoding)
        # the scan reads markup bytes: the page's own, unless it is UTF-16/32 (or the text is no
        # longer theirs)
        if not (repaired or enc.startswith(("utf-16", "utf-32"))):
            return Decoded(text, enc, truncated, "", data, enc)
    else:
        text, enc = repair_str(html), "str"
        if len(text) > max_bytes:
            text, truncated = text[:max_bytes], True
        if not text.strip():
            return Decoded("", "", False, "empty input")
    return Decoded(text, enc, truncated, "", text.encode("utf-8", "surrogatepass"), "utf-8")


def precheck(d: Decoded, limits: Limits = DEFAULT_LIMITS) -> Page:
    """The decoded page through the pre-parse caps (precheck.py): no text and the reason where
    it is too costly to parse; cut at the element cap (``truncated``)."""
    if d.reason:
        return Page("", d.encoding, d.truncated, d.reason)
    raw = d.raw
    page, cut, why = prepare(raw, limits)
    if why:
        return Page("", d.encoding, d.truncated, why)
    if cut < len(raw) or page is not raw:  # past the element cap, or a select's options renamed
        return Page(page[:cut].decode(d.raw_encoding, "replace"), d.encoding,
                    d.truncated or cut < len(raw))
    return Page(d.text, d.encoding, d.truncated, "", own_utf8(raw, d.text, d.encoding))


def decode(html: bytes | str | bytearray | memoryview | None, encoding: str | None = None,
           max_bytes: int = MAX_BYTES, limits: Limits = DEFAULT_LIMITS) -> Page:
    """``decode_input`` then ``precheck``: the page as text, or why not."""
    return precheck(decode_input(html, encoding, max_bytes), limits)


def parse_page(p: Page) -> Page:
    """The page with its tree (a refused page as it is)."""
    if p.reason:
        return p
    return replace(p, tree=parse(p.text, p.utf8))


def segment_page(p: Page) -> Page:
    """The page with its blocks (needs the tree: ``parse_page``)."""
    if p.tree is None:
        return p
    return replace(p, blocks=segment(p.tree))


def read(html: bytes | str | bytearray | memoryview | None, encoding: str | None = None,
         max_bytes: int = MAX_BYTES, limits: Limits = DEFAULT_LIMITS) -> Page:
    """Decoded, checked, parsed and segmented: ``blocks`` is None where the page was refused
    before parsing (``reason`` says why). (``segment_page(parse_page(decode(...)))``, made in
    one value: the hot path.)"""
    p = decode(html, encoding, max_bytes, limits)
    if p.reason:
        return p
    tree = parse(p.text, p.utf8)
    return Page(p.text, p.encoding, p.truncated, "", p.utf8, tree, segment(tree))
