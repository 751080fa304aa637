"""Which addresses a service may fetch from: the public internet only (no SSRF).

A URL given to ``ce-filter serve`` is chosen by its client, who must not get the service to
read what only the service can reach: loopback, private networks, link-local addresses (the
cloud metadata endpoint 169.254.169.254 among them), carrier-grade NAT, multicast, reserved
and unspecified addresses, and IPv6's equivalents. An IPv6 address that carries an IPv4 one
(IPv4-mapped ``::ffff:0:0/96``, IPv4-translated ``::ffff:0:0:0/96``, IPv4-compatible
``::/96``, NAT64 ``64:ff9b::/96``, 6to4 ``2002::/16``, Teredo ``2001::/32``) is judged by that
IPv4 address too, since a gateway on the way takes the connection there; the local-use NAT64
prefix ``64:ff9b:1::/48`` is never public. The check is made on the addresses the host name
resolves to, at connection time, and the connection goes to the very address checked (so a
name that resolves once to a public address and then to a private one reaches neither), for
the first request and every redirect alike (each hop opens its connection through here).

Only http and https are fetched, at every hop: the opener has no handler for any other scheme
(no FTP, file or data URLs), and a redirect to another scheme is refused by name
(BlockedScheme) before anything is opened. ``opener(private=True)`` is the same opener with
the address check off (``serve --allow-private-fetch``). Proxies from the environment are not
used: a proxy would resolve the name itself, past the check.
"""

from __future__ import annotations

import functools
import http.client
import ipaddress
import socket
import urllib.parse
import urllib.request
from collections.abc import Sequence
from typing import IO, Any

SCHEMES = ("http", "https")

# IPv6 prefixes whose last 32 bits are an IPv4 address a translator or gateway reaches
_LAST32 = tuple(ipaddress.IPv6Network(n) for n in ("64:ff9b::/96", "::ffff:0:0:0/96", "::/96"))
_NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")  # local use, its IPv4 placed by local choice


class Refused(OSError):
    """A fetch the service must not make; ``status`` is the HTTP status that answers it."""

    status = 403


class BlockedAddress(Refused):
    """A host that resolves to an address the service must not reach."""


class BlockedScheme(Refused):
    """A URL (the first, or a redirect's) whose scheme is not http or https."""

    status = 400


def check_scheme(url: str, what: str = "URL") -> None:
    """BlockedScheme unless ``url`` is http(s); the message names the scheme, never the rest
    of the URL (it may carry credentials)."""
    scheme = urllib.parse.urlsplit(url).scheme.lower()
    if scheme not in SCHEMES:
        shown = f"{scheme}:" if scheme else "(no scheme)"
        raise BlockedScheme(f"{what} with the scheme {shown} not fetched: only http and https are")


def embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries (see the module's list), or []."""
    if ip.ipv4_mapped is not None:
        return [ip.ipv4_mapped]
    if any(ip in net for net in _LAST32):
        return [ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)]
    if ip.sixtofour is not None:
        return [ip.sixtofour]
    if ip.teredo is not None:
        return list(ip.teredo)
    return []


def _global(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return ip.is_global and not ip.is_multicast


def is_public(address: str) -> bool:
    """Whether ``address`` (an IP literal) is a global unicast address, and so is every IPv4
    address it carries."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        if ip in _NAT64_LOCAL:
            return False
        inner = embedded_ipv4(ip)
        if not all(_global(v4) for v4 in inner):
            return False
        if ip.ipv4_mapped is not None:  # an IPv4 address in IPv6 clothes: the IPv4 one's rules
            return True
    return _global(ip)


# one of getaddrinfo's entries: family, type, protocol, canonical name, the socket address
AddrInfo = tuple[socket.AddressFamily, socket.SocketKind, int, str,
                 tuple[str, int] | tuple[str, int, int, int] | tuple[int, bytes]]


def public_addresses(host: str, port: int) -> Sequence[AddrInfo]:
    """getaddrinfo's TCP entries for ``host``, refused whole (BlockedAddress) when any of
    them is not public: a name that mixes public and private addresses is not trusted."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    for info in infos:
        addr = str(info[4][0])
        if not is_public(addr):
            raise BlockedAddress(f"{host} resolves to {addr}, a non-public address: not fetched "
                                 "(serve --allow-private-fetch to allow)")
    return infos


def _guarded_connection(address: tuple[str, int],
                        timeout: float | None = socket._GLOBAL_DEFAULT_TIMEOUT,  # type: ignore[attr-defined]
                        source_address: tuple[str, int] | None = None, **kw: object) -> socket.socket:
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
    def __init__(self, *a: Any, guard: bool = True, **kw: Any) -> None:  # Any: HTTPConnection's, passed on
        super().__init__(*a, **kw)
        if guard:
            self._create_connection = _guarded_connection  # what connect() opens its socket with


class _HTTPS(http.client.HTTPSConnection):
    def __init__(self, *a: Any, guard: bool = True, **kw: Any) -> None:  # Any: HTTPSConnection's, passed on
        super().__init__(*a, **kw)
        if guard:
            self._create_connection = _guarded_connection


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, guard: bool) -> None:
        super().__init__()
        self.guard = guard

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(functools.partial(_HTTP, guard=self.guard), req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, guard: bool) -> None:
        super().__init__()
        self.guard = guard

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(functools.partial(_HTTPS, guard=self.guard), req,
                            context=self._context)  # type: ignore[attr-defined]


class _RedirectHandler(urllib.request.HTTPRedirectHandler):
    def http_error_302(self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str,
                       headers: http.client.HTTPMessage) -> object:
        target = headers.get("location") or headers.get("uri")
        if target:
            try:
                check_scheme(urllib.parse.urljoin(req.full_url, target), "a redirect to a URL")
            except BlockedScheme:
                fp.close()
                raise
        return super().http_error_302(req, fp, code, msg, headers)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302


def opener(private: bool = False) -> urllib.request.OpenerDirector:
    """A urllib opener for http and https only (redirects to another scheme refused), with no
    proxy, that connects to public addresses only (every hop) unless ``private``."""
    o = urllib.request.OpenerDirector()
    for h in (urllib.request.ProxyHandler({}), urllib.request.UnknownHandler(), _HTTPHandler(not private),
              _HTTPSHandler(not private), urllib.request.HTTPDefaultErrorHandler(), _RedirectHandler(),
              urllib.request.HTTPErrorProcessor()):
        o.add_handler(h)
    return o


def public_opener() -> urllib.request.OpenerDirector:
    """``opener()``: public addresses only."""
    return opener()


def refusal(exc: BaseException | None) -> Refused | None:
    """The Refused error behind ``exc`` (its chain of causes and contexts), or None."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, Refused):
            return exc
        reason = getattr(exc, "reason", None)
        if isinstance(reason, Refused):
            return reason
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return None


def blocked_reason(exc: BaseException | None) -> str:
    """The BlockedAddress message behind ``exc`` (its chain of causes and contexts), or ''."""
    r = refusal(exc)
    return str(r) if isinstance(r, BlockedAddress) else ""
