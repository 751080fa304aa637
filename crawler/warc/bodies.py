"""An HTTP body as the page: chunking and Content-Encoding (gzip, deflate, br, zstd) undone.

Servers lie about encodings and bodies can be bombs, so decoding is capped (PAYLOAD_CAP bytes
taken, BODY_CAP per layer), linear in its input whatever the gzip members, and bounded in CPU
time like a parse (the page budget); a body that cannot be undone is a skip reason, not an error.
zstd comes from ``compression.zstd`` on Python >= 3.14, else ``backports.zstd`` (the warc extra).
"""

from __future__ import annotations

import sys
import time
import zlib
from typing import TYPE_CHECKING

from warcio.bufferedreaders import ChunkedDataReader

if TYPE_CHECKING:
    from .lines import WarcHeaders, WarcRecord
    from .sources import Readable

# Bounds on what one record may cost, whatever its headers say.
PAYLOAD_CAP = 16 << 20  # bytes of one HTTP body kept as sent (the rest is read past)
BODY_CAP = 16 << 20  # bytes of one body once its Content-Encoding is undone
DECODE_SECONDS = 10.0  # CPU seconds to undo one body's Content-Encoding (the page budget's default)
_PIECE = 256  # first piece of a gzip member fed to zlib (doubling): see _inflate


def decode_budget(seconds: float | None) -> float:
    return DECODE_SECONDS if seconds is None else max(float(seconds), 0.0)


def payload(record: WarcRecord, http: WarcHeaders | None, seconds: float = 0.0) -> tuple[bytes, str]:
    """The body with transfer- and content-encoding undone, or (b'', why not). At most
    PAYLOAD_CAP bytes are taken as sent and BODY_CAP decoded (the filter cuts pages at 8 MiB
    anyway); the rest of the record is read past, never held. Undoing the content-encoding
    may take ``seconds`` of CPU time (0: no limit); past that the body is skipped."""
    raw = record.raw_stream
    if http is not None and "chunked" in (http.get_header("Transfer-Encoding") or "").lower():
        raw = ChunkedDataReader(raw)  # falls back to the bytes as they are if not really chunked
    data = _read_upto(raw, PAYLOAD_CAP)
    coding = (http.get_header("Content-Encoding") or "") if http is not None else ""
    try:
        return decode_content(data, coding, seconds=seconds), ""
    except DecodeOverBudget as e:
        return b"", f"undecodable body ({coding.strip().lower()}: {e})"
    except LookupError as e:
        return b"", str(e)
    except Exception as e:  # noqa: BLE001 - servers lie about encodings; a lie that is HTML is kept
        if sniff_html(data):
            return data, ""
        return b"", f"undecodable body ({coding.strip().lower()}: {type(e).__name__})"


def _read_upto(stream: Readable, n: int) -> bytes:
    out = []
    while n > 0:
        b = stream.read(min(n, 1 << 20))
        if not b:
            break
        out.append(b)
        n -= len(b)
    return b"".join(out)


class DecodeOverBudget(Exception):
    """Undoing a body's Content-Encoding ran past its CPU seconds (decode_content)."""


def decode_content(data: bytes, coding: str | None, limit: int = BODY_CAP,
                   seconds: float = 0.0) -> bytes:
    """Undo an HTTP Content-Encoding (gzip, deflate, br, zstd where available; a list of them
    is undone last-applied first), giving at most ``limit`` bytes of each layer (a bomb is cut,
    not inflated). Raises LookupError for an encoding it cannot undo and the codec's own error
    for bytes that are not what the header says.

    Linear in the bytes in and out, however many gzip members the body holds (_inflate);
    ``seconds`` > 0 bounds the CPU time (this thread's) as the page budget bounds a parse:
    past it, DecodeOverBudget."""
    deadline = time.thread_time() + seconds if seconds > 0 else None
    for c in reversed([c.strip().lower() for c in (coding or "").split(",") if c.strip()]):
        if c in ("identity", "none"):
            continue
        if c in ("gzip", "x-gzip"):
            data = _inflate(data, 16 + zlib.MAX_WBITS, limit, deadline)
        elif c == "deflate":
            try:
                data = _inflate(data, zlib.MAX_WBITS, limit, deadline)
            except zlib.error:
                data = _inflate(data, -zlib.MAX_WBITS, limit, deadline)  # raw deflate, as some servers send
        elif c == "br":
            try:
                import brotli
            except ImportError:
                raise LookupError("unsupported content-encoding br (brotli not installed)") from None
            data = brotli.Decompressor().process(data, output_buffer_limit=limit)[:limit]
        elif c == "zstd":
            data = _zstd(data, limit)
        else:
            raise LookupError(f"unsupported content-encoding {c}")
        _check(deadline)
    return data


def _check(deadline: float | None) -> None:
    if deadline is not None and time.thread_time() > deadline:
        raise DecodeOverBudget("past the page budget's CPU seconds")


def _inflate(data: bytes, wbits: int, limit: int, deadline: float | None = None) -> bytes:
    """Decompress every member (gzip may be multi-member), at most ``limit`` bytes; a cut
    stream gives what it has.

    Linear: zlib copies what follows a member's end into ``unused_data``, so handing it the
    whole rest of the body at every member costs the square of their number (300,000 empty
    members in 6 MB: 22 s). Each member is fed in pieces instead, from _PIECE bytes doubling,
    so what a member's end leaves over is at most its own size again plus _PIECE. The
    deadline (thread CPU time) is checked every 64 pieces."""
    view = memoryview(data)
    n, pos, room, pieces = len(data), 0, limit, 0
    out: list[bytes] = []
    while pos < n and room > 0:
        d = zlib.decompressobj(wbits)
        step = _PIECE
        while True:
            pieces += 1
            if not pieces & 63:
                _check(deadline)
            piece = view[pos: pos + step]
            chunk = d.decompress(piece, room)
            if chunk:
                out.append(chunk)
                room -= len(chunk)
            if room <= 0:  # the cap: the rest is not inflated
                return b"".join(out)
            if d.eof:  # (room left: zlib took the whole piece, up to the member's end)
                pos += len(piece) - len(d.unused_data)
                break
            pos += len(piece)
            if pos >= n:  # cut inside a member: what it has
                out.append(d.flush()[:room])
                room -= len(out[-1])
                break
            step = min(step * 2, 1 << 20)
    return b"".join(out)


def _zstd(data: bytes, limit: int) -> bytes:
    try:
        if sys.version_info >= (3, 14):
            try:
                from compression import zstd
            except ImportError:  # built without _zstd: the backport, same API (its stubs are a copy)
                from backports import zstd  # type: ignore[no-redef]  # (a second module, to mypy)
        else:
            from backports import zstd
    except ImportError:
        raise LookupError("unsupported content-encoding zstd (no zstd module)") from None
    return zstd.ZstdDecompressor().decompress(data, max_length=limit)


def sniff_html(body: bytes) -> bool:
    head = body[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith(b"<")
