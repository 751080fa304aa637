"""Bytes to text: the page's charset from BOM, HTTP hint, <meta>, then detection.

Crawled bytes lie about their encoding often enough that decoding must never
raise: every path ends in a lossy-but-total decode.
"""

from __future__ import annotations

import codecs
import re
from functools import lru_cache

from . import mojibake

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# <meta charset=x> and <meta http-equiv=content-type content="...; charset=x">
_META_RE = re.compile(
    rb"""<meta[^>]{0,512}?charset\s*=\s*["']?\s*([a-zA-Z0-9_:.\-]{1,40})""", re.I
)
_HEADER_RE = re.compile(r"""charset\s*=\s*["']?\s*([a-zA-Z0-9_:.\-]{1,40})""", re.I)
# WHATWG: these labels are decoded as their superset.
_ALIASES = {
    "iso-8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
    "iso-8859-9": "cp1254",
    "tis-620": "cp874",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-sjis": "shift_jis",
    "utf-16": "utf-16-le",
    "unicode": "utf-16-le",
}


# Text codecs of Python that are not charsets a web page can be in: a label naming one is
# treated as unknown (WHATWG does not know them either; utf-7 is excluded there on purpose).
# Non-text codecs (hex, base64, zlib, ...) are refused through CodecInfo._is_text_encoding.
_NOT_CHARSETS = frozenset({"idna", "punycode", "undefined", "unicode-escape", "raw-unicode-escape",
                           "utf-7", "mbcs", "oem"})


def normalize_charset(label: str | None) -> str | None:
    """A Python codec name for a charset label, or None when the label names no charset
    (unknown, or a codec that is not a text encoding of pages, such as ``hex`` or ``idna``)."""
    if not label or not isinstance(label, str):
        return None
    label = label.strip().strip("\"'").lower()
    label = _ALIASES.get(label, label)
    try:
        info = codecs.lookup(label)
    except (LookupError, ValueError):  # ValueError: a label with a NUL in it
        return None
    if not getattr(info, "_is_text_encoding", True) or not _web_charset(info.name):
        return None
    return info.name


@lru_cache(maxsize=256)
def _web_charset(name: str) -> bool:
    """A codec pages can be in: UTF-16/32 (found by BOM or NULs), or one that reads markup's
    ASCII as ASCII. That excludes EBCDIC and the like, whose bytes for ``<`` are not 0x3C:
    the pre-parse scan (precheck.py) reads the raw bytes of every other page."""
    if name.startswith(("utf-16", "utf-32")):
        return True
    if name in _NOT_CHARSETS:
        return False
    try:
        return b"<a b='c' d=\"e\"/>\n".decode(name) == "<a b='c' d=\"e\"/>\n"
    except (UnicodeError, LookupError, ValueError, TypeError):
        return False


def charset_from_content_type(content_type: str | None) -> str | None:
    """The charset parameter of an HTTP Content-Type header value."""
    if not content_type:
        return None
    m = _HEADER_RE.search(content_type)
    return normalize_charset(m.group(1)) if m else None


def sniff_meta(head: bytes) -> str | None:
    m = _META_RE.search(head)
    if not m:
        return None
    name = normalize_charset(m.group(1).decode("ascii", "ignore"))
    # A page that says utf-16/32 in a <meta> is ASCII-compatible bytes: the label lies.
    if name and name.startswith(("utf-16", "utf-32")):
        return "utf-8"
    return name


# ---------------------------------------------------------------- binary input

# Formats recognised by their first bytes: PDF, PNG, GIF, JPEG, ZIP (and OOXML, EPUB, JAR), gzip
_MAGIC = (b"%PDF", b"\x89PNG", b"GIF8", b"\xff\xd8\xff", b"PK\x03\x04", b"\x1f\x8b")
# C0 control bytes that no text encoding of a page uses outside UTF-16/32: all but tab, line
# feed, vertical tab, form feed, carriage return and ESC (ISO-2022-JP switches with ESC), and DEL
_CONTROL = bytes(c for c in range(32) if c not in (9, 10, 11, 12, 13, 27)) + b"\x7f"
_NOT_CONTROL = bytes(c for c in range(256) if c not in _CONTROL)
BINARY_HEAD = 4096  # the bytes read by looks_binary


def bare_utf16(head: bytes) -> str | None:
    """``utf-16-le``/``-be`` (or ``utf-32-le``/``-be``) where ``head``, with no byte-order mark,
    has that encoding's NUL pattern: markup is ASCII, so in UTF-16 every other byte of it is NUL
    (on the odd bytes for little-endian), in UTF-32 three bytes in four; None otherwise."""
    if len(head) < 8 or head.count(0) * 4 < len(head):  # fewer NULs than a quarter of the bytes
        return None
    n = len(head) // 4 * 4
    lanes = [head[i:n:4].count(0) * 4 / n for i in range(4)]  # the NUL share of each lane
    if min(lanes[1:]) > 0.6 and lanes[0] < 0.2:
        return "utf-32-le"
    if min(lanes[:3]) > 0.6 and lanes[3] < 0.2:
        return "utf-32-be"
    odd, even = (lanes[1] + lanes[3]) / 2, (lanes[0] + lanes[2]) / 2
    if odd > 0.5 and even < 0.1:
        return "utf-16-le"
    if even > 0.5 and odd < 0.1:
        return "utf-16-be"
    return None


def looks_binary(data: bytes) -> bool:
    """``data`` is not a page in any text encoding: a known binary format by its first bytes,
    or more than one byte in 20 of the first 4 KiB a C0 control character (NUL included) no text
    encoding of a page uses. UTF-16/32 with or without a byte-order mark is text (bare_utf16).
    Random bytes are 11 % such characters; no page of the labelled corpora has more than 0.5 %
    (docs/OUTPUT.md, "Binary input"). One pass of ``bytes.translate`` over 4 KiB: a few µs."""
    head = data[:BINARY_HEAD]
    if not head:
        return False
    if head.startswith(_MAGIC):
        return True
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):  # UTF-32 BOMs begin the same
        return False
    control = len(head.translate(None, _NOT_CONTROL))
    return control > len(head) // 20 and bare_utf16(head) is None


def _detect(data: bytes) -> str:
    try:
        from charset_normalizer import from_bytes
    except ImportError:  # pragma: no cover - charset_normalizer is a dependency
        return "cp1252"
    best = from_bytes(data[:65536]).best()
    return best.encoding if best is not None else "cp1252"


def decode_html(data: bytes | str, hint: str | None = None) -> tuple[str, str]:
    """Decode page bytes; returns (text, encoding used).

    Order follows the HTML standard's sniffing: BOM wins, then the transport's
    charset (``hint``), then a <meta> in the first 4 KiB, then UTF-8 if the bytes
    are valid UTF-8, then statistical detection. Undecodable bytes are replaced, and text that
    was UTF-8 decoded as Latin-1/cp1252 and encoded again is taken back (mojibake.py).
    """
    if isinstance(data, str):
        return mojibake.repair_str(data), "str"
    return decode_bytes(data, hint)[:2]


def decode_bytes(data: bytes, hint: str | None = None) -> tuple[str, str, bool]:
    """:func:`decode_html` of bytes, and whether double-encoded text was taken back (the text
    is then no longer the bytes' own decoding). Bytes labelled with a legacy charset (windows-1252,
    ISO-8859-*, GBK/GB2312, Big5, Shift_JIS, EUC-*, KOI8-R, …) that are valid UTF-8 beyond ASCII
    are read as UTF-8."""
    text, enc = _decode(data, hint)
    if _legacy(enc) and not data.isascii():
        try:
            text, enc = data.decode("utf-8"), "utf-8"
        except UnicodeDecodeError as err:
            # a UTF-8 page cut mid-character: valid multi-byte UTF-8 up to its last bytes
            if err.start > len(data) - 8 and not data[:err.start].isascii():
                text, enc = data.decode("utf-8", "replace"), "utf-8"
    if mojibake.suspect(data):
        fixed = mojibake.repair(text)
        return fixed, enc, fixed is not text
    return text, enc, False


def _legacy(enc: str) -> bool:
    """A charset label UTF-8 bytes are trusted over: any but UTF-8/16/32 (and the BOM-less
    ``str`` path). Natural text in a one-byte charset is never valid UTF-8 once it leaves
    ASCII, and text in a multi-byte one (GBK, Big5, Shift_JIS, EUC-KR) is not either beyond a
    few characters: its lead and trail bytes do not follow UTF-8's pattern. Pages that declare
    gb2312 and are UTF-8 are common on Chinese sites."""
    return not enc.startswith(("utf-8", "utf_8", "utf-16", "utf-32"))


def _decode(data: bytes, hint: str | None) -> tuple[str, str]:
    for bom, enc in _BOMS:
        if data.startswith(bom):
            return data[len(bom):].decode(enc, "replace"), enc
    bare = bare_utf16(data[:1024])  # no BOM, but UTF-16/32's NULs: the bytes say it, not a label
    if bare:
        return _total_decode(data, bare)
    declared = normalize_charset(hint)
    if declared and declared.startswith(("utf-16", "utf-32")) and b"\x00" not in data[:1024]:
        declared = None  # no NUL in the head: ASCII-compatible bytes, the transport's label lies
    declared = declared or sniff_meta(data[:4096])
    if declared:
        return _total_decode(data, declared)
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as err:
        # A few bad bytes late in a UTF-8 page (truncation) are not another charset.
        if err.start > len(data) - 8:
            return data.decode("utf-8", "replace"), "utf-8"
    return _total_decode(data, normalize_charset(_detect(data)) or "cp1252")


def _c1(err: UnicodeError) -> tuple[str, int]:
    """WHATWG's windows-1252: the five bytes cp1252 leaves undefined are their C1 controls
    (so that nothing is lost where the page is in fact UTF-8 read as windows-1252)."""
    assert isinstance(err, UnicodeDecodeError)
    return err.object[err.start:err.end].decode("latin-1"), err.end


codecs.register_error("ce_filter.c1", _c1)


def _total_decode(data: bytes, enc: str) -> tuple[str, str]:
    """``data`` in ``enc`` with bad bytes replaced; UTF-8 where the codec itself fails (a
    codec registered by some other package may not honour ``errors="replace"``)."""
    try:
        return data.decode(enc, "ce_filter.c1" if enc == "cp1252" else "replace"), enc
    except (LookupError, UnicodeError, ValueError, TypeError):
        return data.decode("utf-8", "replace"), "utf-8"
