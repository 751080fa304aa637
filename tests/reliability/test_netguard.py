"""serve's fetch reaches public addresses only: the address checked is the one connected to,
after DNS, and again on every redirect (ce_filter.service.netguard)."""

from __future__ import annotations

import http.server
import socket
import threading
import urllib.parse
from collections.abc import Callable, Iterator

import pytest

from ce_filter.service import netguard
from ce_filter.service.serve import HttpError, fetch


@pytest.mark.parametrize(("address", "public"), [
    ("127.0.0.1", False), ("10.0.0.1", False), ("172.16.5.4", False), ("192.168.1.1", False),
    ("169.254.169.254", False), ("100.100.100.200", False), ("0.0.0.0", False), ("224.0.0.1", False),
    ("::1", False), ("fe80::1%eth0", False), ("fd00:ec2::254", False), ("::ffff:127.0.0.1", False),
    ("::", False), ("93.184.215.14", True), ("2606:2800:21f:cb07:6820:80da:af6b:8b2c", True),
    ("::ffff:93.184.215.14", True),
])
def test_public_addresses(address: str, public: bool) -> None:
    assert netguard.is_public(address) is public


def _serve(handler: type[http.server.BaseHTTPRequestHandler],
           seen: list[str]) -> Iterator[tuple[str, list[str]]]:
    """A loopback server of ``handler`` for one test: its address and the paths it was asked."""
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}", seen
    finally:
        srv.shutdown()
        srv.server_close()


@pytest.fixture
def redirecting() -> Iterator[tuple[str, list[str]]]:
    """A loopback server: /go redirects to 127.0.0.2, /page is a page."""
    seen: list[str] = []

    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            seen.append(self.path)
            if self.path == "/go":
                self.send_response(302)
                self.send_header("Location", f"http://127.0.0.2:{self.server.server_address[1]}/page")
                self.end_headers()
                return
            body = b"<html><body><p>A page of words.</p></body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a: object) -> None:
            pass

    yield from _serve(H, seen)


def test_a_redirect_to_a_private_address_is_refused(redirecting, monkeypatch) -> None:
    base, seen = redirecting
    # 127.0.0.1 stands for a public host here; 127.0.0.2 stays what it is
    monkeypatch.setattr(netguard, "is_public", lambda a: a == "127.0.0.1")
    assert fetch(f"{base}/page", 5).body.startswith(b"<html>")
    with pytest.raises(HttpError) as e:
        fetch(f"{base}/go", 5)
    assert e.value.status == 403 and "127.0.0.2" in str(e.value)
    assert seen == ["/page", "/go"]  # the redirect's target was never asked


def test_private_fetch_opts_in(redirecting) -> None:
    base, _ = redirecting
    with pytest.raises(HttpError) as e:
        fetch(f"{base}/page", 5)
    assert e.value.status == 403
    assert fetch(f"{base}/page", 5, private=True).status == 200


# IPv6 forms that carry an IPv4 address: the IPv4 address is judged (a NAT64 gateway, a 6to4
# relay or a translator would take the connection to it)
@pytest.mark.parametrize(("address", "public"), [
    ("64:ff9b::7f00:1", False), ("64:ff9b::a9fe:a9fe", False), ("64:ff9b::5db8:d70e", True),  # NAT64
    ("64:ff9b:1::7f00:1", False), ("64:ff9b:1:5db8:d70e::", False),  # local-use NAT64: never public
    ("2002:7f00:1::", False), ("2002:a00:1::1", False), ("2002:5db8:d70e::1", True),  # 6to4
    ("::7f00:1", False), ("::a00:1", False),  # IPv4-compatible
    ("::ffff:0:7f00:1", False), ("::ffff:0:c0a8:101", False),  # IPv4-translated
    ("2001:0:5db8:d70e:0:0:80ff:fffe", False), ("2001:0:4136:e378:8000:63bf:3fff:fdd2", False),  # Teredo
])
def test_embedded_ipv4_is_judged(address: str, public: bool) -> None:
    assert netguard.is_public(address) is public


def test_a_nat64_url_is_refused_before_connecting() -> None:
    with pytest.raises(HttpError) as e:
        fetch("http://[64:ff9b::7f00:1]/", 2)
    assert e.value.status == 403 and "64:ff9b::7f00:1" in str(e.value)


@pytest.fixture
def redirect_to() -> Iterator[tuple[str, list[str]]]:
    """A loopback server: /r?<url> answers 302 to <url> (percent-decoded)."""
    seen: list[str] = []

    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            seen.append(self.path)
            self.send_response(302)
            self.send_header("Location", urllib.parse.unquote(self.path.partition("?")[2]))
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *a: object) -> None:
            pass

    yield from _serve(H, seen)


@pytest.fixture
def ftp_port() -> Iterator[tuple[int, Callable[[], bool]]]:
    """A listening socket standing for an internal FTP server, and whether anything connected."""
    lst = socket.create_server(("127.0.0.1", 0))
    lst.setblocking(False)

    def connected() -> bool:
        try:
            conn, _ = lst.accept()
        except BlockingIOError:
            return False
        conn.close()
        return True

    try:
        yield lst.getsockname()[1], connected
    finally:
        lst.close()


@pytest.mark.parametrize("private", [False, True], ids=["guarded", "private-allowed"])
@pytest.mark.parametrize("target", ["ftp://127.0.0.1:{port}/secret.html",
                                    "ftp://user:pass@127.0.0.1:{port}/secret.html",
                                    "file:///etc/passwd", "data:text/html,<p>x</p>"])
def test_a_redirect_to_another_scheme_is_refused(redirect_to, ftp_port, monkeypatch, private: bool,
                                                 target: str) -> None:
    """Only http and https are fetched, at every hop, --allow-private-fetch or not: anything
    else is 400 naming the scheme, and nothing is connected to."""
    base, seen = redirect_to
    port, connected = ftp_port
    monkeypatch.setattr(netguard, "is_public", lambda a: a == "127.0.0.1")  # the redirecting page is "public"
    url = target.format(port=port)
    with pytest.raises(HttpError) as e:
        fetch(f"{base}/r?{urllib.parse.quote(url, safe='')}", 5, private=private)
    scheme = url.split(":", 1)[0]
    assert e.value.status == 400 and f"{scheme}:" in str(e.value), str(e.value)
    assert "user:pass" not in str(e.value)  # the redirect's credentials are not echoed
    assert len(seen) == 1 and not connected()


@pytest.mark.parametrize("url", ["ftp://127.0.0.1/x", "file:///etc/passwd", "gopher://127.0.0.1/"])
def test_a_url_of_another_scheme_is_refused(url: str) -> None:
    for private in (False, True):
        with pytest.raises(HttpError) as e:
            fetch(url, 2, private=private)
        assert e.value.status == 400 and url.split(":", 1)[0] in str(e.value)
