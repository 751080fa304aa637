"""serve's fetch reaches public addresses only: the address checked is the one connected to,
after DNS, and again on every redirect (ce_filter.netguard)."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest

from ce_filter import netguard
from ce_filter.serve import HttpError, fetch


@pytest.mark.parametrize(("address", "public"), [
    ("127.0.0.1", False), ("10.0.0.1", False), ("172.16.5.4", False), ("192.168.1.1", False),
    ("169.254.169.254", False), ("100.100.100.200", False), ("0.0.0.0", False), ("224.0.0.1", False),
    ("::1", False), ("fe80::1%eth0", False), ("fd00:ec2::254", False), ("::ffff:127.0.0.1", False),
    ("::", False), ("93.184.215.14", True), ("2606:2800:21f:cb07:6820:80da:af6b:8b2c", True),
    ("::ffff:93.184.215.14", True),
])
def test_public_addresses(address: str, public: bool) -> None:
    assert netguard.is_public(address) is public


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

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}", seen
    finally:
        srv.shutdown()
        srv.server_close()


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
