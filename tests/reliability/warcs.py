"""Damaged WARC files made in the tests: every kind of break a crawl archive has."""

from __future__ import annotations

import gzip
import io
import re
import zlib

from ce_filter.crawler.warcgen import WarcBuilder


def pages(n: int, tag: str = "p") -> tuple[bytes, list[int]]:
    """A gzip WARC of ``n`` HTML responses and the offset of each record (one gzip member each)."""
    buf = io.BytesIO()
    w = WarcBuilder(buf)
    offsets = []
    for i in range(n):
        offsets.append(buf.tell())
        body = (f"<html><head><title>{tag} {i}</title></head><body><article><p>Record {tag} {i}: "
                f"the committee met on Tuesday to discuss the plan for item {i}, which residents "
                "had asked about for many months.</p></article></body></html>").encode()
        w.response(f"http://{tag}.test/{i}", body)
    offsets.append(buf.tell())
    return buf.getvalue(), offsets


def member(data: bytes, offsets: list[int], k: int) -> bytes:
    return data[offsets[k]:offsets[k + 1]]


def with_member(data: bytes, offsets: list[int], k: int, new: bytes) -> bytes:
    return data[:offsets[k]] + new + data[offsets[k + 1]:]


def damage(data: bytes, offsets: list[int], k: int, kind: str) -> bytes:
    """``data`` with record ``k`` broken in the way ``kind`` names."""
    m = member(data, offsets, k)
    if kind == "crc":
        b = bytearray(m)
        b[-6] ^= 0xFF  # in the CRC-32 of the gzip trailer
        return with_member(data, offsets, k, bytes(b))
    if kind == "corrupt":
        b = bytearray(m)
        b[10] |= 0x06  # the first deflate block's type: 3 is reserved (invalid)
        return with_member(data, offsets, k, bytes(b))
    if kind == "garbage":
        return with_member(data, offsets, k, bytes(range(200)))
    text = gzip.decompress(m)
    if kind == "absurd-length":
        text = re.sub(rb"Content-Length: \d+", b"Content-Length: 9999999999", text, count=1)
    elif kind == "short-length":
        text = re.sub(rb"Content-Length: \d+", b"Content-Length: 20", text, count=1)
    elif kind == "bad-length":
        text = re.sub(rb"Content-Length: \d+", b"Content-Length: 12x", text, count=1)
    else:
        raise ValueError(kind)
    return with_member(data, offsets, k, gzip.compress(text))


def bomb_member(url: str, size: int, content_encoding: str | None = None) -> bytes:
    """One gzip member holding a response whose body is ``size`` zero bytes (or, with
    ``content_encoding='gzip'``, a gzip body that inflates to that), written without ever
    holding it whole."""
    zeros = b"\0" * (1 << 20)
    if content_encoding == "gzip":
        inner = zlib.compressobj(9, zlib.DEFLATED, 31)
        body = b"".join(inner.compress(zeros) for _ in range(size >> 20)) + inner.flush()
        http = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n"
                b"Content-Length: %d\r\n\r\n" % len(body))
        block_len = len(http) + len(body)
        parts = [http, body]
    else:
        http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n" % size
        block_len = len(http) + size
        parts = [http]
    head = (b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: " + url.encode()
            + b"\r\nWARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:0>\r\n"
            b"Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n" % block_len)
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    out = [c.compress(head)] + [c.compress(p) for p in parts]
    if content_encoding is None:
        out += [c.compress(zeros) for _ in range(size >> 20)]
    out += [c.compress(b"\r\n\r\n"), c.flush()]
    return b"".join(out)
