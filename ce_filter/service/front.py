"""The front of ``ce-filter serve``: every request read whole, under a deadline, before a
worker process sees it.

The workers are synchronous (one request at a time each: the work is CPU-bound) and would be
held by a client that sends its body slowly, or never. This front is one asyncio process on
the public address: it reads each request (head and body, Content-Length or chunked) within
``client_timeout`` seconds, at most ``max_body`` bytes of body, and only then hands the whole
request to the workers over a Unix socket; it reads the worker's whole answer before writing
it out, so a client that reads slowly holds no worker either. A slow or silent client costs a
socket and its buffer here, nothing more. ``GET /healthz`` is answered here (the workers'
socket accepting connections), so a service busy with pages stays healthy.

Bounds: ``max_connections`` requests at once (past it: 503, but ``GET /healthz`` is still
answered; past twice that a connection is closed with 503 unread); while three quarters of
that are open, a connection has ``header_timeout`` seconds to send its request head (408), so
idle connections cannot hold the front; ``max_buffered`` bytes held at once, the request bodies
read and the answers not yet taken by their clients (past it: 503); the request head at most
64 KiB (431), a chunk-size or trailer line too (400). Requests are read as RFC 9112 says: one
Content-Length of digits only (two that differ are 400), chunk sizes of hex digits only.
Each request is answered with ``Connection: close``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypedDict

HEAD_LIMIT = 64 << 10
_DIGITS = re.compile(rb"[0-9]{1,18}")
_HEX = re.compile(rb"[0-9A-Fa-f]{1,15}")
_HOP = {b"connection", b"keep-alive", b"transfer-encoding", b"content-length", b"expect",
        b"proxy-connection", b"te", b"upgrade", b"trailer"}
_REASONS = {400: "Bad Request", 500: "Internal Server Error", 408: "Request Timeout",
            413: "Content Too Large",
            431: "Request Header Fields Too Large", 501: "Not Implemented", 502: "Bad Gateway",
            503: "Service Unavailable", 504: "Gateway Timeout"}


# the service's metrics of a request answered here: (path, status, seconds)
Observe = Callable[[str, int, float], object]


class _Meta(TypedDict):
    """What the front knows of a request as it goes."""

    path: str  # its path once its head is read ("other" before)
    held: int  # bytes counted in Front.buffered for it (its body, then its answer)
    t0: float  # when its connection came (the loop's clock)


class _Refuse(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class FrontOptions:
    client_timeout: float = 30.0  # seconds a client has to send its whole request
    upstream_timeout: float = 40.0  # seconds a worker has to answer (its own timeout + margin)
    max_body: int = 1 << 20
    max_connections: int = 1024
    max_buffered: int = 512 << 20  # request bodies and answers held for their clients, in bytes
    header_timeout: float = 2.0  # seconds to send the request head while near max_connections


def answer(status: int, body: bytes, ctype: str = "application/json") -> bytes:
    reason = _REASONS.get(status, "OK" if status == 200 else "")
    return (f"HTTP/1.1 {status} {reason}\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n"
            f"Connection: close\r\n\r\n").encode("latin-1") + body


def error(status: int, message: str) -> bytes:
    return answer(status, json.dumps({"error": message, "status": status}).encode("utf-8"))


class Front:
    """The asyncio server: ``run()`` until SIGTERM (then it stops accepting and lets the
    requests in flight finish, for ``grace`` seconds at most)."""

    def __init__(self, listener: socket.socket, upstream: str, options: FrontOptions,
                 observe: Observe | None = None, grace: float = 10.0) -> None:
        self.listener, self.upstream, self.opt = listener, upstream, options
        self.observe = observe  # (path, status, seconds) -> None: the service's metrics
        self.grace = grace
        self.active = 0
        self.buffered = 0
        self._pressure = asyncio.Event()  # set while near the connection cap (_busy)

    # -- one request
    def _busy(self) -> bool:
        """Near the connection cap (three quarters of it): idle connections get header_timeout."""
        return self.active * 4 >= self.opt.max_connections * 3

    async def _head(self, reader: asyncio.StreamReader, started: float) -> bytes:
        """The request head, within client_timeout of ``started``, or header_timeout while the
        front is near its connection cap (the deadline shortens when the front gets busy)."""
        loop = asyncio.get_running_loop()
        read = asyncio.ensure_future(reader.readuntil(b"\r\n\r\n"))
        try:
            while True:
                busy = self._busy()
                limit = self.opt.client_timeout
                if busy:
                    limit = min(self.opt.header_timeout, limit)
                left = started + limit - loop.time()
                if left <= 0:
                    raise _Refuse(408, f"no request head within {limit:g} s")
                waits: set[asyncio.Future[bytes] | asyncio.Future[Literal[True]]] = {read}
                pressure = None
                if not busy:
                    pressure = asyncio.ensure_future(self._pressure.wait())
                    waits.add(pressure)
                done, _ = await asyncio.wait(waits, timeout=left, return_when=asyncio.FIRST_COMPLETED)
                if pressure is not None:
                    pressure.cancel()
                if read in done:
                    try:
                        return read.result()
                    except asyncio.LimitOverrunError:
                        raise _Refuse(431, f"request head over {HEAD_LIMIT} bytes") from None
        finally:
            if not read.done():
                read.cancel()

    @staticmethod
    async def _line(reader: asyncio.StreamReader, what: str) -> bytes:
        """One CRLF-ended line of the body's framing, at most HEAD_LIMIT bytes (400 beyond)."""
        try:
            return await reader.readuntil(b"\r\n")
        except asyncio.LimitOverrunError:
            raise _Refuse(400, f"{what} over {HEAD_LIMIT} bytes") from None

    async def _read(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    meta: _Meta) -> tuple[bytes, list[tuple[bytes, bytes]], bytes]:
        """(request line, headers, body), or _Refuse; ``meta["path"]``: the path once known."""
        head = await self._head(reader, meta["t0"])
        lines = head[:-4].split(b"\r\n")
        line = lines[0]
        parts = line.split(b" ")
        if len(parts) != 3 or not parts[2].startswith(b"HTTP/1."):
            raise _Refuse(400, "not an HTTP/1.x request line")
        meta["path"] = parts[1].split(b"?", 1)[0].decode("latin-1")
        headers: list[tuple[bytes, bytes]] = []
        for h in lines[1:]:
            k, sep, v = h.partition(b":")
            if not sep or not k or k != k.strip():
                raise _Refuse(400, "malformed header line")
            headers.append((k.lower(), v.strip()))
        if self.active > self.opt.max_connections and not (
                meta["path"] == "/healthz" and parts[0] in (b"GET", b"HEAD")):
            raise _Refuse(503, "too many connections: try again")
        te = b", ".join(v for k, v in headers if k == b"transfer-encoding").lower()
        lengths = [x.strip() for k, v in headers if k == b"content-length" for x in v.split(b",")]
        limit = self.opt.max_body
        if te and te != b"chunked":
            raise _Refuse(501, "only chunked transfer encoding is understood")
        if lengths and te:
            raise _Refuse(400, "both Content-Length and Transfer-Encoding")
        n = 0
        if lengths:
            if not all(_DIGITS.fullmatch(x) for x in lengths):
                raise _Refuse(400, "bad Content-Length: decimal digits only")
            if len(set(lengths)) > 1:
                raise _Refuse(400, "Content-Length headers that differ")
            n = int(lengths[0])
            if n > limit:
                raise _Refuse(413, f"body of {n} bytes is over the limit of {limit}")
        if any(k == b"expect" and v.lower() == b"100-continue" for k, v in headers):
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        if te:
            body = await self._chunked(reader, limit, meta)
        else:
            body = await self._exactly(reader, n, meta)
        return line, headers, body

    def _take(self, meta: _Meta, k: int) -> None:
        """Count ``k`` more bytes held for this request, of its body or its answer (503 past
        ``max_buffered`` in all: the bytes a client has sent count, not the size it announces,
        and an answer counts until its client has taken it)."""
        if self.buffered + k > self.opt.max_buffered:
            raise _Refuse(503, "too many request bodies and answers in flight: try again")
        self.buffered += k
        meta["held"] += k

    async def _exactly(self, reader: asyncio.StreamReader, n: int, meta: _Meta) -> bytes:
        parts: list[bytes] = []
        left = n
        while left:
            piece = await reader.read(min(left, 1 << 16))
            if not piece:
                raise asyncio.IncompleteReadError(b"".join(parts), n)
            self._take(meta, len(piece))
            parts.append(piece)
            left -= len(piece)
        return b"".join(parts)

    async def _chunked(self, reader: asyncio.StreamReader, limit: int, meta: _Meta) -> bytes:
        chunks: list[bytes] = []
        total = 0
        while True:
            size_line = await self._line(reader, "chunk-size line")
            digits = size_line[:-2].split(b";", 1)[0].rstrip(b" \t")
            if not _HEX.fullmatch(digits):
                raise _Refuse(400, "bad chunk size: hexadecimal digits only")
            size = int(digits, 16)
            if size == 0:
                trailers = 0
                while (t := await self._line(reader, "trailer line")) != b"\r\n":
                    trailers += len(t)
                    if trailers > HEAD_LIMIT:
                        raise _Refuse(400, f"trailer section over {HEAD_LIMIT} bytes")
                return b"".join(chunks)
            total += size
            if total > limit:
                raise _Refuse(413, f"body is over the limit of {limit} bytes")
            chunks.append(await self._exactly(reader, size, meta))
            if await reader.readexactly(2) != b"\r\n":
                raise _Refuse(400, "bad chunk framing")

    async def _forward(self, line: bytes, headers: list[tuple[bytes, bytes]], body: bytes,
                       meta: _Meta) -> bytes:
        """The worker's whole answer to the request, counted as held (``_take``) as it is read."""
        try:
            up_r, up_w = await asyncio.open_unix_connection(self.upstream)
        except OSError as e:
            raise _Refuse(503, f"no worker reachable: {e}") from None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.opt.upstream_timeout
        parts: list[bytes] = []
        try:
            out = [line]
            out += [k + b": " + v for k, v in headers if k not in _HOP]
            out += [b"Content-Length: " + str(len(body)).encode(), b"Connection: close", b"", b""]
            up_w.write(b"\r\n".join(out) + body)
            await up_w.drain()
            while True:
                piece = await asyncio.wait_for(up_r.read(1 << 16), max(deadline - loop.time(), 0))
                if not piece:
                    break
                self._take(meta, len(piece))
                parts.append(piece)
        except asyncio.TimeoutError:
            raise _Refuse(504, f"no answer within {self.opt.upstream_timeout:g} s") from None
        except OSError as e:
            raise _Refuse(502, f"the worker's connection failed: {e}") from None
        finally:
            up_w.close()
        if not parts:
            raise _Refuse(502, "the worker ended without an answer (replaced: past the request "
                               "timeout, or it died)")
        return b"".join(parts)

    async def _healthz(self) -> bytes:
        try:
            _, w = await asyncio.wait_for(asyncio.open_unix_connection(self.upstream), 5)
            w.close()
            return answer(200, b"ok\n", "text/plain; charset=utf-8")
        except (OSError, asyncio.TimeoutError) as e:
            return error(503, f"workers not reachable: {e}")

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        t0 = time.perf_counter()
        # held: bytes counted in ``buffered`` for this request (its body, then its answer)
        meta: _Meta = {"path": "other", "held": 0, "t0": asyncio.get_running_loop().time()}
        status = 0
        mine = True  # answered here (a forwarded request is counted by its worker)
        self.active += 1
        if self._busy():
            self._pressure.set()  # the connections waiting for their head: header_timeout now
        try:
            if self.active > 2 * self.opt.max_connections:
                resp = error(503, "too many connections: try again")
            else:
                try:
                    try:
                        line, headers, body = await asyncio.wait_for(self._read(reader, writer, meta),
                                                                     self.opt.client_timeout)
                    except asyncio.TimeoutError:
                        raise _Refuse(408, f"the request was not sent within "
                                           f"{self.opt.client_timeout:g} s") from None
                    except (asyncio.IncompleteReadError, ConnectionError):
                        return  # the client went away
                    if meta["path"] == "/healthz" and line.startswith((b"GET ", b"HEAD ")):
                        resp = await self._healthz()
                    else:
                        resp = await self._forward(line, headers, body, meta)
                        mine = False
                except _Refuse as e:
                    resp = error(e.status, str(e))
                except (ConnectionError, OSError):
                    raise
                except Exception as e:  # noqa: BLE001 - one line in the log, an answer, no traceback
                    print(f"ce-filter serve front: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
                    resp = error(500, f"internal error in the front: {type(e).__name__}")
            status = int(resp[9:12]) if resp[9:12].isdigit() else 0
            writer.write(resp)  # what the client has not taken stays in the transport's buffer,
            del resp  # counted in ``held`` until drained
            await asyncio.wait_for(writer.drain(), self.opt.client_timeout)
        except (asyncio.TimeoutError, ConnectionError, OSError):
            pass
        finally:
            self.active -= 1
            if self._pressure.is_set() and not self._busy():
                self._pressure = asyncio.Event()
            self.buffered -= meta["held"]
            writer.close()
            if self.observe is not None and status and mine:
                try:
                    self.observe(meta["path"], status, time.perf_counter() - t0)
                except Exception:  # noqa: BLE001 - metrics never take a request down
                    pass

    # -- the process
    async def _main(self) -> None:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        loop.add_signal_handler(signal.SIGTERM, stop.set)
        server = await asyncio.start_server(self.handle, sock=self.listener, limit=HEAD_LIMIT)
        parent = os.getppid()
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), 1.0)
            except asyncio.TimeoutError:
                if os.getppid() != parent:  # the service's master is gone: so is the service
                    break
        server.close()
        deadline = loop.time() + self.grace
        while self.active and loop.time() < deadline:
            await asyncio.sleep(0.05)

    def run(self) -> None:
        asyncio.run(self._main())


def _room_for(files: int) -> None:
    """Raise this process's open-file limit to ``files`` where the hard limit lets it (each
    connection is a descriptor; a limit of 1,024 would refuse connections before the cap)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= files:
        return
    target = files if hard == resource.RLIM_INFINITY else min(files, hard)
    if target > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def run_front(listener: socket.socket, upstream: str, options: FrontOptions, observe: Observe | None = None
              ) -> None:
    """The front process's body (forked by serve.run); it ends the master if it fails, so
    that the service stops whole instead of answering nothing."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the master stops the front
    _room_for(2 * options.max_connections + 256)
    try:
        Front(listener, upstream, options, observe).run()
    except BaseException:
        os.kill(os.getppid(), signal.SIGTERM)
        raise
