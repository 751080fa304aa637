"""Which addresses a service may fetch from: the public internet only (no SSRF).

A URL given to ``ce-filter serve`` is chosen by its client, who must not get the service to
read what only the service can reach: loopback, private networks, link-local addresses (the
cloud metadata endpoint 169.254.169.254 among them), carrier-grade NAT, multicast, reserved
and unspecified addresses, and IPv6's equivalents (an IPv4-mapped address is judged as the
IPv4 one). The check is made on the addresses the host name resolves to, at connection time,
and the connection goes to the very address checked (so a name that resolves once to a
public address and then to a private one reaches neither), for the first request and every
redirect alike (each hop opens its connection through here). Proxies from the environment are
not used by the guarded opener: a proxy would resolve the name itself, past the check.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import urllib.request
from typing import Any


class BlockedAddress(OSError):
    """A host that resolves to an address the service must not reach."""


def is_public(address: str) -> bool:
    """Whether ``address`` (an IP literal) is a global unicast address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def public_addresses(host: str, port: int) -> list[tuple[Any, ...]]:
    """getaddrinfo's TCP entries for ``host``, refused whole (BlockedAddress) when any of
    them is not public: a name that mixes public and private addresses is not trusted."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    for info in infos:
        addr = str(info[4][0])
        if not is_public(addr):
            raise BlockedAddress(f"{host} resolves to {addr}, a non-public address: not fetched "
                                 "(serve --allow-private-fetch to allow)")
    return infos


def _guarded_connection(address: tuple[str, int], timeout: Any = socket._GLOBAL_DEFAULT_TIMEOUT,  # type: ignore[attr-defined]
                        source_address: Any = None, **kw: Any) -> socket.socket:
    """socket.create_connection to a checked address of ``address``'s host."""
    host, port = address
    err: OSError | None = None
    for family, type_, proto, _, sockaddr in public_addresses(host, port):
        sock = socket.socket(family, type_, proto)
        try:
            if timeout is not socket._GLOBAL_DEFAULT_TIMEOUT:  # type: ignore[attr-defined]
                sock.settimeout(timeout)
            if source_address:
                sock.bind(source_address)
            sock.connect(sockaddr)
            return sock
        except OSError as e:
            sock.close()
            err = e
    raise err or OSError(f"{host}: no address")


class _HTTP(http.client.HTTPConnection):
    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self._create_connection = _guarded_connection  # what connect() opens its socket with


class _HTTPS(http.client.HTTPSConnection):
    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self._create_connection = _guarded_connection


class _HTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req: Any) -> Any:
        return self.do_open(_HTTP, req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def https_open(self, req: Any) -> Any:
        return self.do_open(_HTTPS, req, context=self._context)  # type: ignore[attr-defined]


def public_opener() -> urllib.request.OpenerDirector:
    """A urllib opener that connects to public addresses only (redirects included) and uses
    no proxy."""
    return urllib.request.build_opener(urllib.request.ProxyHandler({}), _HTTPHandler, _HTTPSHandler)


def blocked_reason(exc: BaseException | None) -> str:
    """The BlockedAddress message behind ``exc`` (its chain of causes and contexts), or ''."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, BlockedAddress):
            return str(exc)
        reason = getattr(exc, "reason", None)
        if isinstance(reason, BlockedAddress):
            return str(reason)
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return ""
