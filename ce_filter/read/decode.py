"""Bytes to text: the page's charset from BOM, HTTP hint, <meta>, then detection.

Crawled bytes lie about their encoding often enough that decoding must never
raise: every path ends in a lossy-but-total decode.
"""

from __future__ import annotations

import codecs
import re

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
# The WHATWG Encoding Standard's labels (https://encoding.spec.whatwg.org/#names-and-labels), by
# encoding: the only charset labels a browser accepts. Any other label is unknown. The
# "replacement" encoding's labels (iso-2022-kr, hz-gb-2312, ...) and x-user-defined are left
# out: a browser decodes no text with them, so here they are unknown too.
_WHATWG_LABELS: dict[str, tuple[str, ...]] = {
    "utf-8": ("unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"),
    "cp866": ("866", "cp866", "csibm866", "ibm866"),
    "iso8859-2": ("csisolatin2", "iso-8859-2", "iso-ir-101", "iso8859-2", "iso88592", "iso_8859-2",
                  "iso_8859-2:1987", "l2", "latin2"),
    "iso8859-3": ("csisolatin3", "iso-8859-3", "iso-ir-109", "iso8859-3", "iso88593", "iso_8859-3",
                  "iso_8859-3:1988", "l3", "latin3"),
    "iso8859-4": ("csisolatin4", "iso-8859-4", "iso-ir-110", "iso8859-4", "iso88594", "iso_8859-4",
                  "iso_8859-4:1988", "l4", "latin4"),
    "iso8859-5": ("csisolatincyrillic", "cyrillic", "iso-8859-5", "iso-ir-144", "iso8859-5", "iso88595",
                  "iso_8859-5", "iso_8859-5:1988"),
    "iso8859-6": ("arabic", "asmo-708", "csiso88596e", "csiso88596i", "csisolatinarabic", "ecma-114",
                  "iso-8859-6", "iso-8859-6-e", "iso-8859-6-i", "iso-ir-127", "iso8859-6", "iso88596",
                  "iso_8859-6", "iso_8859-6:1987"),
    "iso8859-7": ("csisolatingreek", "ecma-118", "elot_928", "greek", "greek8", "iso-8859-7", "iso-ir-126",
                  "iso8859-7", "iso88597", "iso_8859-7", "iso_8859-7:1987", "sun_eu_greek"),
    "iso8859-8": ("csiso88598e", "csisolatinhebrew", "hebrew", "iso-8859-8", "iso-8859-8-e", "iso-ir-138",
                  "iso8859-8", "iso88598", "iso_8859-8", "iso_8859-8:1988", "visual",
                  "csiso88598i", "iso-8859-8-i", "logical"),
    "iso8859-10": ("csisolatin6", "iso-8859-10", "iso-ir-157", "iso8859-10", "iso885910", "l6", "latin6"),
    "iso8859-13": ("iso-8859-13", "iso8859-13", "iso885913"),
    "iso8859-14": ("iso-8859-14", "iso8859-14", "iso885914"),
    "iso8859-15": ("csisolatin9", "iso-8859-15", "iso8859-15", "iso885915", "iso_8859-15", "l9"),
    "iso8859-16": ("iso-8859-16",),
    "koi8-r": ("cskoi8r", "koi", "koi8", "koi8-r", "koi8_r"),
    "koi8-u": ("koi8-ru", "koi8-u"),
    "mac-roman": ("csmacintosh", "mac", "macintosh", "x-mac-roman"),
    "cp874": ("dos-874", "iso-8859-11", "iso8859-11", "iso885911", "tis-620", "windows-874"),
    "cp1250": ("cp1250", "windows-1250", "x-cp1250"),
    "cp1251": ("cp1251", "windows-1251", "x-cp1251"),
    "cp1252": ("ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1",
               "iso-ir-100", "iso8859-1", "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1", "latin1",
               "us-ascii", "windows-1252", "x-cp1252"),
    "cp1253": ("cp1253", "windows-1253", "x-cp1253"),
    "cp1254": ("cp1254", "csisolatin5", "iso-8859-9", "iso-ir-148", "iso8859-9", "iso88599", "iso_8859-9",
               "iso_8859-9:1989", "l5", "latin5", "windows-1254", "x-cp1254"),
    "cp1255": ("cp1255", "windows-1255", "x-cp1255"),
    "cp1256": ("cp1256", "windows-1256", "x-cp1256"),
    "cp1257": ("cp1257", "windows-1257", "x-cp1257"),
    "cp1258": ("cp1258", "windows-1258", "x-cp1258"),
    "mac-cyrillic": ("x-mac-cyrillic", "x-mac-ukrainian"),
    "gb18030": ("chinese", "csgb2312", "csiso58gb231280", "gb2312", "gb_2312", "gb_2312-80", "gbk",
                "iso-ir-58", "x-gbk", "gb18030"),
    "big5hkscs": ("big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5"),
    "euc_jp": ("cseucpkdfmtjapanese", "euc-jp", "x-euc-jp"),
    "iso2022_jp": ("csiso2022jp", "iso-2022-jp"),
    "cp932": ("csshiftjis", "ms932", "ms_kanji", "shift-jis", "shift_jis", "sjis", "windows-31j",
                  "x-sjis"),
    "cp949": ("cseuckr", "csksc56011987", "euc-kr", "iso-ir-149", "korean", "ks_c_5601-1987",
               "ks_c_5601-1989", "ksc5601", "ksc_5601", "windows-949"),
    "utf-16-be": ("unicodefffe", "utf-16be"),
    "utf-16-le": ("csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff", "utf-16", "utf-16le"),
}
_LABELS = {label: codec for codec, labels in _WHATWG_LABELS.items() for label in labels}
# the codec names above are labels too: a hint made by normalize_charset reads the same again
_LABELS.update({codec: codec for codec in _WHATWG_LABELS})


def normalize_charset(label: str | None) -> str | None:
    """The Python codec for a charset label, or None when the label is not one a browser
    accepts (WHATWG Encoding Standard): ``charmap``, ``palmos``, ``hex`` or ``idna`` name
    Python codecs, not page charsets. The label is matched as browsers match it (ASCII
    case-insensitive, surrounding whitespace and quotes removed)."""
    if not label or not isinstance(label, str):
        return None
    return _LABELS.get(label.strip(" \t\n\f\r\"'").lower())


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
