"""Where the next record starts after damage: a gzip member that inflates to ``WARC/``, or a
``WARC/1.x`` line in an uncompressed WARC.

A truncated or corrupt gzip member says nothing about where the next one begins, so the reader
searches for it; each candidate is checked with bounded work (a resync may try every
``1f 8b 08`` in a gap), and warc_shards cuts files with the same test so shards and a
whole-file read agree.
"""

from __future__ import annotations

import re
import zlib

from .rawinput import LOOK

GZIP_MAGIC = b"\x1f\x8b\x08"
NAME_LOOK = 1 << 10  # a gzip member start candidate: the most its FNAME / FCOMMENT may take
DEFLATE_LOOK = 4 << 10  # ... and the deflate bytes looked at for its first 5 bytes ("WARC/")


def member_starts_record(buf: bytes | bytearray, i: int = 0) -> bool:
    """Whether ``buf[i:]`` (raw bytes) starts a gzip member that decompresses to a WARC record.

    Bounded work whatever the bytes (a resync tries every ``1f 8b 08`` in the gap): the gzip
    header is parsed here (an FNAME or FCOMMENT of at most NAME_LOOK bytes, an FEXTRA of at
    most LOOK), and only the first DEFLATE_LOOK bytes of the deflate data are inflated, for
    5 bytes of output."""
    end = min(len(buf), i + LOOK)
    if end - i < 18 or buf[i: i + 3] != GZIP_MAGIC:
        return False
    flags = buf[i + 3]
    if flags & 0xE0:  # reserved bits: zlib refuses the member
        return False
    h = i + 10
    if flags & 4:  # FEXTRA
        h += 2 + (buf[h] | buf[h + 1] << 8)  # (h + 1 < end: 18 bytes at least)
    for bit in (8, 16):  # FNAME, FCOMMENT: zero-terminated
        if flags & bit and h < end:
            z = buf.find(b"\0", h, min(end, h + NAME_LOOK))
            if z < 0:
                return False
            h = z + 1
    if flags & 2:  # FHCRC
        h += 2
    if h >= end:
        return False
    try:
        out = zlib.decompressobj(-zlib.MAX_WBITS).decompress(
            memoryview(buf)[h: min(end, h + DEFLATE_LOOK)], 5)
    except zlib.error:
        return False
    return out == b"WARC/"


def next_member(buf: bytearray, i: int, limit: int) -> int:
    while True:
        i = buf.find(GZIP_MAGIC, i, limit + len(GZIP_MAGIC) - 1)
        if i < 0 or member_starts_record(buf, i):
            return i
        i += 1


# A record start found by a resync: anywhere (junk before it need not end in a line break).
_RECORD_START = re.compile(rb"WARC/1\.[01]\r?\n")
RECORD_LINE = re.compile(rb"(?<=\n)WARC/1\.[01]\r?\n")  # one at the start of a line


def next_plain(buf: bytearray, i: int, limit: int, start: re.Pattern = _RECORD_START) -> int:
    m = start.search(buf, i, limit + 12)
    return -1 if m is None or m.start() >= limit else m.start()


def next_any(buf: bytearray, i: int, limit: int) -> int:
    found = [j for j in (next_member(buf, i, limit), next_plain(buf, i, limit)) if j >= 0]
    return min(found, default=-1)
