"""serve's front (ce_filter.service.front) against a stand-in worker: the connection cap does not let
idle connections take the service down, the bytes held for clients that do not read their
answers count against the memory cap, and the request framing is read as RFC 9112 says."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from ce_filter.service.front import Front, FrontOptions

WAIT_S = 30  # a hang guard for conditions, not a timing assertion


def _tcp_wmem_max() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/tcp_wmem").read_text().split()[2])
    except (OSError, IndexError, ValueError):
        return 4 << 20


@asynccontextmanager
async def front_on(tmp_path: Path, answer: bytes = b"ok",
                   **opts: Any) -> AsyncIterator[tuple[int, Front, list[bytes]]]:
    """A Front on a loopback port in this loop, its stand-in worker answering ``answer``;
    yields (port, front, the request heads the worker got)."""
    got: list[bytes] = []

    async def worker(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            got.append(await reader.readuntil(b"\r\n\r\n"))
        except (asyncio.IncompleteReadError, ConnectionError):  # a /healthz probe connects only
            writer.close()
            return
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(answer)
                     + answer)
        await writer.drain()
        writer.close()

    sock_path = str(tmp_path / "w.sock")
    upstream = await asyncio.start_unix_server(worker, sock_path)
    listener = socket.create_server(("127.0.0.1", 0))
    front = Front(listener, sock_path, FrontOptions(**{"client_timeout": 20, "max_body": 10_000, **opts}))
    server = await asyncio.start_server(front.handle, sock=listener, limit=64 << 10)
    try:
        yield listener.getsockname()[1], front, got
    finally:
        server.close()
        upstream.close()


async def _exchange(port: int, data: bytes) -> bytes:
    r, w = await asyncio.open_connection("127.0.0.1", port)
    try:
        w.write(data)
        await w.drain()
        return await asyncio.wait_for(r.read(), WAIT_S)
    finally:
        w.close()


async def _until(cond: Callable[[], bool]) -> None:
    async def poll() -> None:
        while not cond():
            await asyncio.sleep(0.02)

    await asyncio.wait_for(poll(), WAIT_S)


HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
PAGE = b"POST /extract HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\n\r\n<p>x</p>"


def test_idle_connections_do_not_take_the_service_down(tmp_path: Path) -> None:
    """More idle connections than the cap: /healthz is still 200; while the front is near its
    cap (three quarters of it), the idle ones are closed with 408 after header_timeout (not
    client_timeout) until it is not, and pages are answered again."""
    cap, idle_n = 20, 30
    busy_at = (3 * cap + 3) // 4  # 15 open connections: near the cap

    async def main() -> None:
        opts = {"max_connections": cap, "header_timeout": 1.0, "client_timeout": 600}
        async with front_on(tmp_path, **opts) as (port, front, _):
            idle = [await asyncio.open_connection("127.0.0.1", port) for _ in range(idle_n)]
            await _until(lambda: front.active == idle_n)
            assert (await _exchange(port, HEALTHZ)).startswith(b"HTTP/1.1 200")
            reads = [asyncio.ensure_future(r.read()) for r, _ in idle]
            await _until(lambda: sum(t.done() for t in reads) >= idle_n - busy_at + 1)
            await _until(lambda: front.active == idle_n - sum(t.done() for t in reads))
            answers = [t.result() for t in reads if t.done()]
            assert all(a.startswith(b"HTTP/1.1 408") for a in answers), {a[:12] for a in answers}
            assert front.active < busy_at  # the rest wait for their client_timeout
            assert (await _exchange(port, PAGE)).startswith(b"HTTP/1.1 200")
            assert (await _exchange(port, HEALTHZ)).startswith(b"HTTP/1.1 200")
            for _, w in idle:
                w.close()
            await _until(lambda: front.active == 0)
            for t in reads:
                t.cancel()

    asyncio.run(main())


def test_idle_connections_below_the_cap_keep_the_client_timeout(tmp_path: Path) -> None:
    """Far from the cap, a connection that has sent nothing yet is not closed early."""
    async def main() -> None:
        opts = {"max_connections": 100, "header_timeout": 0.2, "client_timeout": 600}
        async with front_on(tmp_path, **opts) as (port, front, _):
            r, w = await asyncio.open_connection("127.0.0.1", port)
            await _until(lambda: front.active == 1)
            for _ in range(5):  # five answered requests meanwhile, each longer than header_timeout
                assert (await _exchange(port, PAGE)).startswith(b"HTTP/1.1 200")
                await asyncio.sleep(0.1)
            w.write(PAGE)
            assert (await asyncio.wait_for(r.read(), WAIT_S)).startswith(b"HTTP/1.1 200")
            w.close()

    asyncio.run(main())


def test_answers_held_for_clients_that_do_not_read_count(tmp_path: Path) -> None:
    """An answer counts against max_buffered until its client has taken it: a client that never
    reads holds its answer's bytes, the next answer that does not fit is 503, and once the
    client reads, the count is back to 0."""
    size = 4 * _tcp_wmem_max()  # more than the kernel's socket buffers can take off the front
    big = b"x" * size

    async def main() -> None:
        async with front_on(tmp_path, answer=big, max_buffered=size + size // 2) as (port, front, _):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.setblocking(False)
            await asyncio.get_running_loop().sock_connect(s, ("127.0.0.1", port))
            r, w = await asyncio.open_connection(sock=s, limit=1 << 16)
            w.write(PAGE)
            await w.drain()
            await _until(lambda: front.buffered >= size)  # held, not read: counted
            assert (await _exchange(port, PAGE)).startswith(b"HTTP/1.1 503")
            out = await asyncio.wait_for(r.read(), WAIT_S)
            assert out.startswith(b"HTTP/1.1 200") and out.endswith(big[:100])
            w.close()
            await _until(lambda: front.active == 0)
            assert front.buffered == 0

    asyncio.run(main())


def _chunked(*lines: bytes) -> bytes:
    return b"POST /extract HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + b"".join(lines)


@pytest.mark.parametrize("request_bytes", [
    _chunked(b"1" * 70_000 + b"\r\n"),  # a chunk-size line over 64 KiB
    _chunked(b"1;" + b"e" * 70_000 + b"\r\nx\r\n0\r\n\r\n"),  # its extension too
    _chunked(b"1\r\nx\r\n0\r\nX-T: " + b"t" * 70_000 + b"\r\n\r\n"),  # a trailer line over 64 KiB
    _chunked(b"1\r\nx\r\n0\r\n" + b"X-T: t\r\n" * 10_000 + b"\r\n"),  # a trailer section over 64 KiB
    _chunked(b"0x1\r\nx\r\n0\r\n\r\n"),  # a chunk size with 0x
    _chunked(b"+1\r\nx\r\n0\r\n\r\n"),
    _chunked(b"1_0\r\n" + b"x" * 16 + b"\r\n0\r\n\r\n"),
    _chunked(b" 1\r\nx\r\n0\r\n\r\n"),
    b"POST /extract HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\nContent-Length: 3\r\n\r\n<p>x</p>",
    b"POST /extract HTTP/1.1\r\nHost: x\r\nContent-Length: 8, 3\r\n\r\n<p>x</p>",
    b"POST /extract HTTP/1.1\r\nHost: x\r\nContent-Length: +8\r\n\r\n<p>x</p>",
    b"POST /extract HTTP/1.1\r\nHost: x\r\nContent-Length: 0_8\r\n\r\n<p>x</p>",
    b"POST /extract HTTP/1.1\r\nHost: x\r\nContent-Length: 0x8\r\n\r\n<p>x</p>",
    b"POST /extract HTTP/1.1\r\nHost: x\r\nContent-Length: -0\r\n\r\n",
], ids=["size-line", "extension", "trailer-line", "trailers", "0x-size", "plus-size", "underscore-size",
        "space-size", "two-lengths", "length-list", "plus-length", "underscore-length", "hex-length",
        "minus-zero"])
def test_bad_framing_is_400_without_a_traceback(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                                capsys: pytest.CaptureFixture[str],
                                                request_bytes: bytes) -> None:
    async def main() -> None:
        async with front_on(tmp_path) as (port, _, got):
            out = await _exchange(port, request_bytes)
            assert out.startswith(b"HTTP/1.1 400"), out[:200]
            assert got == []  # no worker saw it
            assert (await _exchange(port, PAGE)).startswith(b"HTTP/1.1 200")

    with caplog.at_level(logging.DEBUG, logger="asyncio"):
        asyncio.run(main())
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("request_bytes", [
    b"POST /extract HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\nContent-Length: 8\r\n\r\n<p>x</p>",
    _chunked(b"4 ;a=b\r\n<p>x\r\n4\r\n</p>\r\n0\r\nX-T: 1\r\n\r\n"),
    _chunked(b"00004\r\n<p>x\r\n4\r\n</p>\r\n0\r\n\r\n"),
], ids=["same-length-twice", "extension-and-trailer", "leading-zeros"])
def test_good_framing_still_passes(tmp_path: Path, request_bytes: bytes) -> None:
    async def main() -> None:
        async with front_on(tmp_path) as (port, _, got):
            assert (await _exchange(port, request_bytes)).startswith(b"HTTP/1.1 200")
            assert len(got) == 1 and b"Content-Length: 8\r\n" in got[0]

    asyncio.run(main())
