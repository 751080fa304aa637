"""Double-encoded UTF-8 ("donâ€™t", "cafÃ©"): text that was UTF-8, got decoded as Latin-1 or
cp1252 somewhere upstream and was saved as UTF-8 again. The page's bytes are valid UTF-8 and
say so, so no charset choice can undo it; each character has to be taken back apart.

The repair is run by run: a character that could lead a UTF-8 sequence (Â..ô) followed by as
many characters as it needs that stand for continuation bytes (U+0080..U+00BF, or cp1252's
characters for 0x80..0x9F) is re-encoded to those bytes and decoded as UTF-8. A run is only
replaced where that gives one character of a script or symbol block that text uses (so legit
text such as "ÉTÉ»" next to mojibake stays), and a page is only touched where at least
``MIN_RUNS`` runs are the unmistakable kind (a C1 control in the run, or the lead Â, Ã or â,
which start the double encoding of no-break space, Latin-1 letters and typographic
punctuation). A second pass undoes text that was double-encoded twice.

The byte test :func:`suspect` runs on every page, so it is in C (``_mojibake.c``, the one
implementation; its test oracle, tests/oracles/mojibake_suspect.py, is a regular expression).
"""

from __future__ import annotations

import re
from typing import Protocol, cast

from .. import native

MIN_RUNS = 2
PASSES = 2

# cp1252's characters for the bytes 0x80..0x9F, each mapped back to its byte
_CP1252 = {c: b for b in range(0x80, 0xA0) if (c := bytes([b]).decode("cp1252", "ignore"))}
# the same runs in the text's UTF-8 (searched as bytes: the literal 0xC3 makes that fast): a
# lead character Â..ß, à..ï or ð..ô and one, two or three continuation characters
_CONT = b"(?:\xc2[\x80-\xbf]|" + b"|".join(re.escape(c.encode()) for c in _CP1252) + b")"
_RUN = re.compile(b"\xc3[\x82-\x9f]" + _CONT + b"|\xc3[\xa0-\xaf]" + _CONT + b"{2}|\xc3[\xb0-\xb4]"
                  + _CONT + b"{3}")
_STRONG_LEADS = frozenset("ÂÃâ")
# where a repaired character may fall: Latin-1 letters and signs, Latin Extended-A/B, spacing
# modifiers, Greek,
# Cyrillic, Armenian, Hebrew, Arabic; the three-byte blocks of scripts, punctuation, symbols,
# CJK and Hangul; four-byte characters (emoji and the rest)
_PLAUSIBLE = ((0x00A0, 0x024F), (0x02B0, 0x02FF), (0x0370, 0x06FF), (0x0900, 0x0DFF), (0x0E00, 0x0EFF),
              (0x1E00, 0x2BFF), (0x3000, 0x9FFF), (0xAC00, 0xD7AF), (0xFF00, 0xFFEF),
              (0x10000, 0x10FFFF))

def suspect(data: bytes) -> bool:
    """Whether the bytes may hold double-encoded UTF-8 (cheap; a yes is confirmed by
    :func:`repair`)."""
    return bool(_c.suspect(data))


def _undo(run: str) -> str | None:
    try:
        raw = bytes(_CP1252[c] if c in _CP1252 else ord(c) for c in run)
        ch = raw.decode("utf-8")
    except (UnicodeDecodeError, ValueError, KeyError):
        return None
    cp = ord(ch)
    if 0x80 <= cp <= 0x9F:  # a C1 control: the inner layer of text double-encoded twice
        return ch if run[0] == "Â" else None
    return ch if any(lo <= cp <= hi for lo, hi in _PLAUSIBLE) else None


def _strong(run: str) -> bool:
    return run[0] in _STRONG_LEADS or any("\u0080" <= c <= "\u009f" for c in run)


def _one_pass(text: str) -> str | None:
    data = text.encode("utf-8", "surrogatepass")
    fixes: dict[bytes, tuple[bytes, bool]] = {}
    pieces: list[bytes] = []
    last = strong = 0
    for m in _RUN.finditer(data):
        raw = m.group(0)
        if raw not in fixes:
            run = raw.decode("utf-8")
            ch = _undo(run)
            fixes[raw] = (ch.encode("utf-8") if ch is not None else b"", _strong(run))
        fix, sure = fixes[raw]
        if fix:
            pieces += (data[last:m.start()], fix)
            last = m.end()
            strong += sure
    if strong < MIN_RUNS:
        return None
    pieces.append(data[last:])
    return b"".join(pieces).decode("utf-8", "surrogatepass")


def repair(text: str) -> str:
    """``text`` with its double-encoded runs decoded; ``text`` itself where it shows fewer
    than ``MIN_RUNS`` unmistakable ones."""
    for _ in range(PASSES):
        fixed = _one_pass(text)
        if fixed is None:
            break
        text = fixed
    return text


def repair_str(text: str) -> str:
    """:func:`repair` for text given as str, behind a cheap test of its own (the leads of the
    unmistakable runs)."""
    if "Ã" in text or "Â" in text or "â" in text:
        return repair(text)
    return text


class MojibakeC(Protocol):
    """The function of the C part (read/_mojibake.c) that Python calls: whether the bytes hold
    a lead character's bytes (Â..ô) followed by a continuation character's."""

    def suspect(self, data: bytes, /) -> bool: ...


_c = cast(MojibakeC, native.required("read._mojibake"))
