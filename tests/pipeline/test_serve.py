"""``ce-filter serve`` end to end: the real server (gunicorn, 2 worker processes) on a free
loopback port, a real HTTP client, good and bad inputs, and the fixture site for fetching."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from ce_filter.pipelines.metrics import parse_exposition

from ce_filter.record import validate

from .conftest import REPO, SITE, listening_ports

START_TIMEOUT_S = 60  # a hang guard, not a timing assertion
MAX_BODY = 200_000


def _start(*extra: str) -> tuple[subprocess.Popen, int]:
    """The server on port 0 (the kernel picks a free one, no one can take it first), and the
    port it was given, read from the listening socket its front holds."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ce_filter.service.serve", "--port", "0", "--workers", "2",
         "--max-body", str(MAX_BODY), "--fetch-timeout", "5", *extra],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    deadline = time.monotonic() + START_TIMEOUT_S
    port = 0
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {proc.stdout.read().decode(errors='replace')[-3000:]}")
        try:
            port = port or min(listening_ports(proc.pid), default=0)
            if port:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                c.request("GET", "/healthz")
                if c.getresponse().status == 200:
                    return proc, port
        except OSError:
            pass
        time.sleep(0.1)
    _stop(proc)
    raise RuntimeError("server did not answer /healthz in time")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
    if proc.stdout:
        proc.stdout.close()


CLIENT_TIMEOUT = 4  # this server's --client-timeout


@pytest.fixture(scope="module")
def server() -> Iterator[int]:
    proc, port = _start("--allow-private-fetch", "--client-timeout", str(CLIENT_TIMEOUT))
    try:
        yield port
    finally:
        _stop(proc)


def call(port: int, method: str, path: str, body: bytes | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, str, bytes]:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        return r.status, r.getheader("Content-Type", ""), r.read()
    finally:
        c.close()


def post_json(port: int, doc: Any, path: str = "/extract") -> tuple[int, dict[str, Any]]:
    status, ctype, body = call(port, "POST", path, json.dumps(doc).encode(),
                               {"Content-Type": "application/json"})
    assert ctype.startswith("application/json")
    return status, json.loads(body)


def test_html_body_with_its_charset(server: int) -> None:
    page = (SITE / "b.html").read_bytes()  # Latin-1, charset stated only by the server
    status, ctype, body = call(server, "POST", "/extract?url=http://site.example/b.html", page,
                               {"Content-Type": "text/html; charset=iso-8859-1"})
    assert status == 200 and ctype.startswith("application/json")
    rec = json.loads(body)
    assert rec["url"] == "http://site.example/b.html"
    assert rec["encoding"] in ("cp1252", "iso8859-1", "latin-1", "iso-8859-1")
    assert rec["text"] and "\ufffd" not in rec["text"]
    assert rec["source"]["type"] == "serve" and validate(rec) == []


def test_json_url_and_html(server: int) -> None:
    html = (SITE / "a.html").read_text(encoding="utf-8")
    status, rec = post_json(server, {"url": "http://site.example/a.html", "html": html})
    assert status == 200
    assert rec["url"] == "http://site.example/a.html" and "fishing fleet" in rec["text"].lower()


def test_json_url_is_fetched(server: int, site_server: Any) -> None:
    url = f"{site_server.base}/a.html"
    status, rec = post_json(server, {"url": url})
    assert status == 200 and rec["url"] == url and rec["status"] == 200
    assert "/a.html" in site_server.requests
    status, err = post_json(server, {"url": f"{site_server.base}/missing.html"})
    assert status == 502 and "404" in err["error"]


def test_explain_form_and_view(server: int) -> None:
    status, ctype, body = call(server, "GET", "/")
    assert status == 200 and ctype.startswith("text/html") and b'action="/explain"' in body
    html = (SITE / "a.html").read_bytes()
    form = b"url=&html=" + html.replace(b"%", b"%25").replace(b"&", b"%26").replace(b"+", b"%2B")
    status, ctype, body = call(server, "POST", "/explain", form,
                               {"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 200 and ctype.startswith("text/html")
    assert b'class="blk kept"' in body and b'id="thr"' in body.replace(b"id=thr", b'id="thr"')


@pytest.mark.parametrize("method, path, body, headers, want", [
    ("POST", "/extract", b"{not json", {"Content-Type": "application/json"}, 400),
    ("POST", "/extract", b"[1, 2]", {"Content-Type": "application/json"}, 400),
    ("POST", "/extract", b'{"html": 5}', {"Content-Type": "application/json"}, 400),
    ("POST", "/extract", b'{"url": "ftp://x/y"}', {"Content-Type": "application/json"}, 400),
    ("POST", "/extract", b'{"url": "http://127.0.0.1:1/x"}', {"Content-Type": "application/json"}, 502),
    ("POST", "/extract", b"", {"Content-Type": "text/html"}, 400),
    ("POST", "/extract", b"<p>x</p>", {"Content-Type": "multipart/form-data; boundary=x"}, 415),
    ("POST", "/extract?format=pdf", b"<p>x</p>", {"Content-Type": "text/html"}, 400),
    ("POST", "/extract", b"[" * 100_000 + b"]" * 100_000, {"Content-Type": "application/json"}, 400),
    ("POST", "/extract", b'{"html": "<p>a \\ud800 b</p>"}', {"Content-Type": "application/json"}, 400),
    ("POST", "/extract", b'{"url": "http://x/\\udfff", "html": "<p>a</p>"}',
     {"Content-Type": "application/json"}, 400),
    ("POST", "/extract?threshold=2", b"<p>x</p>", {"Content-Type": "text/html"}, 400),
    ("POST", "/extract?threshold=nan", b"<p>x</p>", {"Content-Type": "text/html"}, 400),
    ("POST", "/extract", b'{"html": "<p>x</p>", "threshold": "high"}',
     {"Content-Type": "application/json"}, 400),
    ("POST", "/extract", b"x" * (MAX_BODY + 1), {"Content-Type": "text/html"}, 413),
    ("GET", "/extract", None, {}, 405),
    ("DELETE", "/", None, {}, 405),
    ("GET", "/nowhere", None, {}, 404),
])
def test_bad_requests_get_clear_errors(server: int, method: str, path: str, body: bytes | None,
                                       headers: dict[str, str], want: int) -> None:
    status, ctype, out = call(server, method, path, body, headers)
    assert status == want
    err = json.loads(out)
    assert err["status"] == want and err["error"]


def test_bad_pages_are_records_with_a_reason(server: int) -> None:
    for body, reason in ((b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8, "binary content"),
                         (b"   \n ", "empty input"),
                         (b"<html><body><script>only()</script></body></html>", "no text in page")):
        status, _, out = call(server, "POST", "/extract", body, {"Content-Type": "application/octet-stream"})
        rec = json.loads(out)
        assert status == 200 and rec["text"] == "" and rec["reason"] == reason
    deep = b"<div>" * 100_000 + b"deep text" + b"</div>" * 100_000  # 1.1 MB: over this server's limit
    try:
        status = call(server, "POST", "/extract", deep, {"Content-Type": "text/html"})[0]
    except (BrokenPipeError, ConnectionResetError):
        # the server answered 413 from the Content-Length and closed before the client had
        # sent the whole body: refused either way (the next calls show the server still serves)
        status = 413
    assert status == 413
    deep = b"<div>" * 30_000 + b"deep text here" + b"</div>" * 30_000
    status, _, out = call(server, "POST", "/extract", deep[:MAX_BODY], {"Content-Type": "text/html"})
    assert status == 200  # absurdly deep (and cut) pages are pages too


def test_chunked_body_over_the_limit(server: int) -> None:
    """A chunked body (no Content-Length) is cut off at the limit: 413, and the server stops
    reading, so the client may find the connection closed while it still sends."""
    key = ("ce_filter_http_requests_total", (("code", "4xx"), ("path", "/extract")))
    before = parse_exposition(call(server, "GET", "/metrics")[2].decode()).get(key, 0)
    chunk = b"<p>" + b"x" * 100_000
    with socket.create_connection(("127.0.0.1", server), timeout=60) as s:
        s.sendall(b"POST /extract HTTP/1.1\r\nHost: x\r\nContent-Type: text/html\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n")
        try:
            for _ in range(3):
                s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            s.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        head = b""
        try:
            while b"\r\n" not in head:
                got = s.recv(4096)
                if not got:
                    break
                head += got
        except ConnectionResetError:
            pass
    # the answer is 413, unless the server's close (with the rest of the body unread) reset
    # the connection before the client read it; either way the request was refused
    assert head.startswith(b"HTTP/1.1 413") or head == b"", head[:200]
    after = parse_exposition(call(server, "GET", "/metrics")[2].decode())[key]
    assert after - before == 1


def test_metrics_count_every_worker(server: int) -> None:
    """/metrics, answered by either worker, is the sum over both (and the front), in valid
    exposition text: every family and series the dashboards read, from the start."""
    from prometheus_client.parser import text_string_to_metric_families

    before = parse_exposition(call(server, "GET", "/metrics")[2].decode())
    n = 6  # more requests than workers: they land on both processes
    page = b"<p>Some words in a paragraph here.</p>"
    for _ in range(n):
        assert call(server, "POST", "/extract", page, {"Content-Type": "text/html"})[0] == 200
    status, headers, body = call(server, "GET", "/metrics")
    assert status == 200
    families = {f.name: f for f in text_string_to_metric_families(body.decode())}
    assert {k: f.type for k, f in families.items() if k.startswith("ce_filter_")} == {
        "ce_filter_http_requests": "counter", "ce_filter_pages": "counter", "ce_filter_bytes_in": "counter",
        "ce_filter_request_duration_seconds": "histogram", "ce_filter_process_start_time_seconds": "gauge"}
    series = {tuple(sorted(s.labels.items())) for s in families["ce_filter_http_requests"].samples}
    assert series == {(("code", c), ("path", p)) for c in ("2xx", "4xx", "5xx")
                      for p in ("/extract", "/explain", "/", "/healthz", "/metrics", "other")}
    assert 0 < families["ce_filter_process_start_time_seconds"].samples[0].value <= time.time()
    after = parse_exposition(body.decode())
    key = ("ce_filter_http_requests_total", (("code", "2xx"), ("path", "/extract")))
    assert after[key] - before.get(key, 0) == n
    text = ("ce_filter_pages_total", (("outcome", "text"),))
    empty = ("ce_filter_pages_total", (("outcome", "empty"),))
    assert after[text] + after[empty] - before.get(text, 0) - before.get(empty, 0) == n
    assert after[("ce_filter_bytes_in_total", ())] - before.get(("ce_filter_bytes_in_total", ()), 0) \
        == n * len(page)
    count = ("ce_filter_request_duration_seconds_count", ())
    assert after[count] - before.get(count, 0) == n
    inf = ("ce_filter_request_duration_seconds_bucket", (("le", "+Inf"),))
    assert after[inf] == after[count]
    metrics = ("ce_filter_http_requests_total", (("code", "2xx"), ("path", "/metrics")))
    assert after[metrics] - before.get(metrics, 0) == 1


def test_no_fetch_refuses_urls() -> None:
    proc, port = _start("--no-fetch")
    try:
        status, err = post_json(port, {"url": "http://127.0.0.1:1/x"})
        assert status == 400 and "--no-fetch" in err["error"]
    finally:
        _stop(proc)


def test_private_addresses_are_not_fetched_by_default(site_server: Any) -> None:
    """Without --allow-private-fetch, a URL whose host is (or resolves to) a loopback,
    private or link-local address is refused with 403 before anything is sent to it."""
    proc, port = _start()
    try:
        site_port = site_server.base.rsplit(":", 1)[1]
        for url in (f"{site_server.base}/a.html", f"http://localhost:{site_port}/a.html",
                    "http://169.254.169.254/latest/meta-data/", "http://10.1.2.3/", "http://[::1]/"):
            status, err = post_json(port, {"url": url})
            assert status == 403 and "non-public address" in err["error"], (url, err)
        assert site_server.requests == []  # nothing reached the fixture site
    finally:
        _stop(proc)


def test_threshold_and_format_as_the_command_line(server: int) -> None:
    """?threshold= is the CLI's --threshold (a cut of 1 keeps only certain blocks; the page's
    fallback still gives text); the format names are the CLI's: json and jsonl are the record
    alone, the others add the page in that format as ``content``."""
    html = (SITE / "a.html").read_bytes()
    ctype = {"Content-Type": "text/html"}
    base = json.loads(call(server, "POST", "/extract", html, ctype)[2])
    low = json.loads(call(server, "POST", "/extract?threshold=0", html, ctype)[2])
    assert low["stats"]["blocks_kept"] == low["stats"]["blocks_total"] >= base["stats"]["blocks_kept"]
    status, rec = post_json(server, {"html": html.decode(), "threshold": 0})
    assert status == 200 and rec["stats"]["blocks_kept"] == rec["stats"]["blocks_total"]
    for fmt in ("jsonl", "json"):
        status, _, body = call(server, "POST", f"/extract?format={fmt}", html, ctype)
        assert status == 200 and json.loads(body)["text"] == base["text"]
        assert "content" not in json.loads(body)
    for fmt in ("text", "xml", "csv"):
        status, _, body = call(server, "POST", f"/extract?format={fmt}", html, ctype)
        rec = json.loads(body)
        assert status == 200 and rec["text"] == base["text"], fmt
        content = rec["content"]
        if fmt == "text":
            assert content.rstrip("\n") == base["text"]
        elif fmt == "xml":
            assert content.startswith("<doc ") and f'title="{base["title"]}"' in content
        else:  # trafilatura's eleven tab-separated columns, the title fifth
            assert content.count("\t") == 10 and content.split("\t")[4] == base["title"]


def _slow_client(port: int) -> socket.socket:
    """A connection that sends its head and a few bytes of a 10,000-byte body, then nothing."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"POST /extract HTTP/1.1\r\nHost: x\r\nContent-Type: text/html\r\n"
              b"Content-Length: 10000\r\n\r\n<p>slow")
    return s


def _pending(s: socket.socket) -> bool:
    """Nothing answered on ``s`` yet, and it is still open."""
    timeout = s.gettimeout()
    s.setblocking(False)
    try:
        s.recv(1, socket.MSG_PEEK)
    except BlockingIOError:
        return True
    finally:
        s.settimeout(timeout)
    return False  # an answer, or closed


def test_slow_clients_hold_no_worker(server: int) -> None:
    """50 connections (more than the workers) sending their body slowly: /healthz and ordinary
    pages are answered while every one of them is still waiting (so none held a worker: a held
    worker would answer only once a slow client timed out); a slow client gets 408 past
    --client-timeout."""
    page = (SITE / "a.html").read_bytes()
    slow = [_slow_client(server) for _ in range(50)]  # queued before the requests below
    try:
        for _ in range(5):
            assert call(server, "GET", "/healthz")[0] == 200
            assert call(server, "POST", "/extract", page, {"Content-Type": "text/html"})[0] == 200
        assert all(_pending(s) for s in slow), "a slow client was answered before the others"
        deadline = time.monotonic() + CLIENT_TIMEOUT + 10
        head = b""
        slow[0].settimeout(CLIENT_TIMEOUT + 10)
        while b"\r\n" not in head and time.monotonic() < deadline:
            got = slow[0].recv(4096)
            if not got:
                break
            head += got
        assert head.startswith(b"HTTP/1.1 408"), head[:200]
    finally:
        for s in slow:
            s.close()


def test_markdown_content_and_metadata_fields(server: int) -> None:
    html = (SITE / "a.html").read_bytes()
    status, _, body = call(server, "POST", "/extract?format=markdown", html, {"Content-Type": "text/html"})
    rec = json.loads(body)
    assert status == 200 and rec["content"].startswith("# Fishing fleet returns with record catch\n\n")
    assert rec["title"] == "Fishing fleet returns with record catch" and rec["language"] == "en"
    assert validate(rec) == []
    status, rec = post_json(server, {"html": html.decode(), "format": "html"})
    assert status == 200 and "<h1>Fishing fleet returns with record catch</h1>" in rec["content"]


SLOW = b"<html><body>" + b"<div>" * 13_000 + b"<p>deep</p></body></html>"  # ~0.2 s of CPU
BIG = b"<html><body>" + b"<p>x" * 99_000 + b"</body></html>"  # ~150 MB


# each limit with its own server, so that on a slow machine the big page's CPU time cannot
# trip before its memory does
@pytest.mark.parametrize(("budget", "page", "reason"), [
    ("0.05", SLOW, "over budget: time (0.05 s)"),
    ("60", BIG, "over budget: memory"),
], ids=["time", "memory"])
def test_a_page_past_its_budget_is_a_record_with_its_reason(budget: str, page: bytes, reason: str) -> None:
    """The per-page budget: a page past its CPU time or memory is answered with the record's
    empty text and reason; the worker that ran out of memory is replaced after answering."""
    ok = (SITE / "a.html").read_bytes()
    proc, port = _start("--workers", "1", "--page-budget", budget, "--page-memory", "40",
                  "--max-body", "1000000")
    try:
        for body_in, why in ((ok, None), (page, reason), (ok, None)):
            status, _, body = call(port, "POST", "/extract", body_in, {"Content-Type": "text/html"})
            rec = json.loads(body)
            assert status == 200 and validate(rec) == [], rec
            if why is None:
                assert rec["title"] == "Fishing fleet returns with record catch" and rec["text"], rec
            else:
                assert rec["text"] == "" and rec["reason"] == why, rec
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        log = proc.communicate(timeout=20)[0].decode(errors="replace")
    replaced = reason == "over budget: memory"
    assert ("ran out of its page memory: replacing it" in log) == replaced, log[-3000:]
    assert log.count("Booting worker") == 1 + replaced, log[-3000:]


def _raw(port: int, data: bytes, then: bytes = b"") -> bytes:
    """Send ``data``; once an interim 100 Continue arrives, ``then``; the whole answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(data)
        out = b""
        while True:
            got = s.recv(65536)
            if not got:
                return out
            out += got
            if then and out.startswith(b"HTTP/1.1 100 Continue\r\n\r\n"):
                s.sendall(then)
                out, then = b"", b""


def test_the_front_reads_requests_as_http_says(server: int) -> None:
    """Expect: 100-continue is answered before the body is read; chunked bodies with
    extensions and trailers arrive whole; an oversized head is 431; a garbled line is 400."""
    page = (SITE / "a.html").read_bytes()
    head = (b"POST /extract HTTP/1.1\r\nHost: x\r\nContent-Type: text/html\r\nExpect: 100-continue\r\n"
            b"Content-Length: %d\r\n\r\n" % len(page))
    out = _raw(server, head, page)
    assert out.startswith(b"HTTP/1.1 200") and b"fishing fleet" in out.lower()
    chunked = b"".join(b"%x;ext=1\r\n%s\r\n" % (len(c), c) for c in (page[:1000], page[1000:]))
    chunked += b"0\r\nX-T: 1\r\n\r\n"
    out = _raw(server, b"POST /extract HTTP/1.1\r\nHost: x\r\nContent-Type: text/html\r\n"
                       b"Transfer-Encoding: chunked\r\n\r\n" + chunked)
    assert out.startswith(b"HTTP/1.1 200") and b"fishing fleet" in out.lower()
    big_head = b"GET /healthz HTTP/1.1\r\nX: " + b"a" * 70_000 + b"\r\n\r\n"
    assert _raw(server, big_head).startswith(b"HTTP/1.1 431")
    assert _raw(server, b"HELLO\r\n\r\n").startswith(b"HTTP/1.1 400")
