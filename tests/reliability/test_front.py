"""serve's front (ce_filter.service.front) on its own, against a stand-in worker: bodies are counted by
the bytes sent, so a client announcing a large body and sending little turns nobody away."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

from ce_filter.service.front import Front, FrontOptions


async def _worker(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.readuntil(b"\r\n\r\n")
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
    await writer.drain()
    writer.close()


async def _request(port: int, body: bytes, announce: int | None = None) -> bytes:
    r, w = await asyncio.open_connection("127.0.0.1", port)
    head = b"POST /extract HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % (announce or len(body))
    w.write(head + body)
    await w.drain()
    out = await asyncio.wait_for(r.read(), 10)
    w.close()
    return out


async def _until(cond, timeout: float = 10.0) -> None:
    """Wait for ``cond()`` (the front's counters move as its event loop reads), at most
    ``timeout`` seconds: a bound against a hang, not a timing assertion."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        assert loop.time() < end, "the front's counters never got there"
        await asyncio.sleep(0.01)


def test_bodies_are_counted_by_the_bytes_sent(tmp_path: Path) -> None:
    async def main() -> None:
        sock_path = str(tmp_path / "w.sock")
        upstream = await asyncio.start_unix_server(_worker, sock_path)
        listener = socket.create_server(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        opts = FrontOptions(client_timeout=5, max_body=10_000, max_buffered=1_000)
        front = Front(listener, sock_path, opts)
        server = await asyncio.start_server(front.handle, sock=listener)
        try:
            r, w = await asyncio.open_connection("127.0.0.1", port)  # announces 9,000, sends 100
            w.write(b"POST /extract HTTP/1.1\r\nHost: x\r\nContent-Length: 9000\r\n\r\n" + b"x" * 100)
            await w.drain()
            await _until(lambda: front.buffered == 100)
            assert (await _request(port, b"y" * 500)).startswith(b"HTTP/1.1 200")
            assert (await _request(port, b"z" * 1_500)).startswith(b"HTTP/1.1 503")
            assert (await _request(port, b"", announce=20_000)).startswith(b"HTTP/1.1 413")
            out = await asyncio.wait_for(r.read(), 10)  # the slow one: 408 after client_timeout
            assert out.startswith(b"HTTP/1.1 408")
            w.close()
            await _until(lambda: front.buffered == 0 and front.active == 0)
        finally:
            server.close()
            upstream.close()

    asyncio.run(main())
