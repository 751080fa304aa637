"""The crawler against a hostile site on 127.0.0.1 (a real HTTP server): filtering runs off
the reactor thread (downloads go on while a page is filtered), a page past the budget and one
too costly to parse each get a record with the reason, and the crawl finishes."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from pipeline.conftest import REPO, cli_env

from .hostile import shapes

N = 30
ARTICLE = ("<html><head><title>Page {i}</title></head><body><article><h1>Page {i}</h1><p>The "
           "harbour committee met again on Tuesday to discuss page {i} of the plan, which the "
           "residents of the old town have asked about for many months now.</p></article></body></html>")
OVER = ("<html><body>" + "<div>" * 12_000 + "</div>" * 12_000 + "<p>x" * 85_000
        + "</body></html>")  # passes the pre-parse scan, ~0.3 s of CPU (near the most under its caps)


class _Site(BaseHTTPRequestHandler):
    served = 0
    lock = threading.Lock()

    def log_message(self, *args) -> None:
        pass

    def _send(self, body: bytes, ctype: str = "text/html; charset=utf-8") -> None:
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        path = self.path
        if path == "/robots.txt":
            self._send(b"User-agent: *\nAllow: /\n", "text/plain")
        elif path == "/":  # the /n pages are a chain: downloads go on one after another
            links = ["/gated", "/slow", "/deep", "/n0"]
            self._send("".join(f'<a href="{u}">{u}</a> ' for u in links).encode())
        elif path == "/count":
            self._send(str(type(self).served).encode(), "text/plain")
        elif path == "/slow":
            self._send(OVER.encode())
        elif path == "/deep":
            self._send(shapes()["nested divs"])
        else:
            body = ARTICLE.format(i=path)
            if path.startswith("/n"):
                with type(self).lock:
                    type(self).served += 1
                k = int(path[2:]) + 1
                if k < N:
                    body = body.replace("</article>", f'</article><a href="/n{k}">next</a>')
            self._send(body.encode())


@pytest.fixture
def site():
    handler = type("Site", (_Site,), {"served": 0, "lock": threading.Lock()})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_hostile_pages_neither_stop_the_crawl_nor_the_downloads(site, tmp_path):
    out, gate = tmp_path / "o.jsonl", tmp_path / "gate.txt"
    pipelines = {"tests.reliability.gate.GatedFilterPipeline": 100,
                 "ce_filter.pipelines.scrapy_pipelines.JsonLinesPipeline": 300}
    env = cli_env(GATE_SERVER=site, GATE_OUT=str(gate), CE_FILTER_PAGE_BUDGET="0.1")
    args = [sys.executable, "-m", "scrapy", "crawl", "cefilter", "-a", f"start_urls={site}/",
            "-s", f"ITEM_PIPELINES={json.dumps(pipelines)}", "-s", f"CE_FILTER_JSONL={out}",
            "-a", f"max_depth={N + 5}", "-s", "DOWNLOAD_DELAY=0", "-s", "LOG_LEVEL=WARNING"]
    r = subprocess.run(args, cwd=REPO, env=env, capture_output=True, timeout=600)
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    assert gate.read_text() == "released"  # /n* pages were downloaded while /gated was filtered
    recs = {x["url"].removeprefix(site): x for x in map(json.loads, out.read_text().splitlines())}
    assert len(recs) == N + 4  # /, /gated, /slow, /deep and the N pages
    assert recs["/slow"]["reason"] == "over budget: time (0.1 s)" and not recs["/slow"]["text"]
    assert recs["/deep"]["reason"] == "too costly to parse: nesting too deep"
    assert all("harbour committee" in recs[f"/n{i}"]["text"] for i in range(N))
