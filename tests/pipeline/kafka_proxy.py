"""A TCP proxy in front of a Kafka-protocol broker that can refuse Produce requests: the
broker stays up for fetches and commits while every delivery fails, so a test can see what the
worker does when its output is not acknowledged. Given a server-side TLS context, it is also a
TLS listener in front of a plaintext broker (what a cluster's SSL listener is to its clients)."""

from __future__ import annotations

import socket
import ssl
import struct
import threading

PRODUCE = 0  # Kafka API key


def _read_exact(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        part = sock.recv(n - len(buf))
        if not part:
            raise ConnectionError("closed")
        buf += part
    return buf


class KafkaProxy:
    """Listens on 127.0.0.1:``port`` (``.port``; 0: a port the kernel chooses, held from the
    start) and forwards to ``upstream`` (which may be set once the broker is up, before the
    first connection); while ``refuse_produce`` is set, a connection that sends a Produce
    request is closed before it reaches the broker."""

    def __init__(self, port: int = 0, upstream: tuple[str, int] | None = None,
                 tls: ssl.SSLContext | None = None) -> None:
        self.upstream = upstream
        self.tls = tls
        self.refuse_produce = threading.Event()
        self.refused = 0
        self._srv = socket.create_server(("127.0.0.1", port))
        self.port: int = self._srv.getsockname()[1]
        self._socks: list[socket.socket] = []
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._srv.accept()
            except OSError:
                return
            if self.tls is not None:
                try:
                    client.settimeout(30)
                    client = self.tls.wrap_socket(client, server_side=True)  # the handshake
                    client.settimeout(None)
                except (OSError, ssl.SSLError):
                    client.close()  # a client that does not speak TLS, or does not trust us
                    continue
            assert self.upstream is not None, "a connection before the upstream was set"
            server = socket.create_connection(self.upstream)
            self._socks += [client, server]
            threading.Thread(target=self._requests, args=(client, server), daemon=True).start()
            threading.Thread(target=self._pipe, args=(server, client), daemon=True).start()

    def _requests(self, client: socket.socket, server: socket.socket) -> None:
        try:
            while True:
                size = _read_exact(client, 4)
                body = _read_exact(client, struct.unpack(">i", size)[0])
                if self.refuse_produce.is_set() and struct.unpack(">h", body[:2])[0] == PRODUCE:
                    self.refused += 1
                    break
                server.sendall(size + body)
        except OSError:
            pass
        self._close(client, server)

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        self._close(src, dst)

    @staticmethod
    def _close(*socks: socket.socket) -> None:
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self) -> None:
        self._closed = True
        self._srv.close()
        self._close(*self._socks)
