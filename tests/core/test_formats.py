"""The output formats end to end on one news page (docs/examples/main-street.html): text keeps
tables and code, links resolve against the page's address, json/xml/csv/--with-metadata, the
same through the API, the CLI and the service."""

from __future__ import annotations

import csv
import io
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from ce_filter import Extractor, extract
from ce_filter.cli import main

REPO = Path(__file__).resolve().parents[2]
PAGE = (REPO / "docs" / "examples" / "main-street.html").read_bytes()
URL = "https://courier.example/news/2024/main-street-reopens.html"
TABLE = "Member | Vote\nAlvarez | Yes\nBrooks | Yes\nChen | No\nDubois | Yes\nEvans | Yes"
CODE = ("Line 4   Station - Main Street - Hospital\n  06:10  06:40  07:10  every 30 min\n"
        "  22:40  last bus")


def test_text_keeps_the_table_rows_and_the_code_lines() -> None:
    r = extract(PAGE)
    assert f"How the council voted\n\n{TABLE}\n\nThe only vote" in r.text
    assert f"published it:\n\n{CODE}\n\nResidents" in r.text
    assert "Riverton Courier. Privacy" not in r.text  # the footer is not content


def test_links_and_images_resolve_against_the_url_and_base_href() -> None:
    # the byline (left to the record's author by default) holds the page's root-relative link
    bylines = Extractor(bylines=True)
    assert "Maria Lopez" not in extract(PAGE, URL).text
    md = bylines.extract(PAGE, URL).to_markdown(links=True, images=True)
    assert "By [Maria Lopez](https://courier.example/authors/maria-lopez), March 5, 2024" in md
    assert "(https://courier.example/news/img/main-street.jpg)" in md
    assert "[three hundred signatures](https://courier.example/news/2024/petition.html)" in md
    assert "[traffic page](https://riverton.example/traffic)" in md
    h = bylines.extract(PAGE, URL).to_html(links=True)
    assert '<a href="https://courier.example/authors/maria-lopez">Maria Lopez</a>' in h
    # no address: links stay as written
    assert "[Maria Lopez](/authors/maria-lopez)" in bylines.extract(PAGE).to_markdown(links=True)
    # a <base href> wins over the url, and is itself resolved against it
    based = PAGE.replace(b"<head>", b"<head><base href='/archive/'>")
    r = extract(based, URL)
    assert "[three hundred signatures](https://courier.example/archive/petition.html)" in \
        r.to_markdown(links=True)
    assert r.resolve("x.png") == "https://courier.example/archive/x.png"
    assert extract(PAGE).resolve("x.png") == "x.png"


def test_json_xml_csv_and_front_matter() -> None:
    r = extract(PAGE, URL)
    d = json.loads(r.render("json"))
    assert d["title"] == "Main Street reopens to traffic after council vote" and d["author"] == "Maria Lopez"
    assert d["date"] == "2024-03-05" and d["source"] == URL and d["hostname"] == "courier.example"
    assert d["source-hostname"] == "Riverton Courier" and d["excerpt"].startswith("The council voted")
    assert d["text"] == r.text and d["pagetype"] == "article" and d["language"] == "en"
    doc = ET.fromstring(r.render("xml", links=True))
    assert doc.get("url") == URL and doc.get("sitename") == "Riverton Courier"
    main_ = doc.find("main")
    assert main_ is not None and main_[0].tag == "head" and main_.find("table/row/cell").get("role") == "head"
    assert main_.find("code").text == CODE
    assert main_.find("p/ref").get("target") == "https://courier.example/news/2024/petition.html"
    [row] = list(csv.reader(io.StringIO(r.render("csv")), delimiter="\t"))
    assert len(row) == 11 and row[0] == URL and row[7] == r.text and row[10] == "article"
    md = r.render("markdown", with_metadata=True)
    assert md.startswith("---\ntitle: Main Street reopens to traffic after council vote\n"
                         "author: Maria Lopez\n")
    assert '\ndate: "2024-03-05"\n' in md and "\n---\n# Main Street reopens" in md


def test_json_names_are_trafilaturas_where_it_has_the_field() -> None:
    """Every field of ce-filter's JSON that trafilatura's JSON also has carries the same kind
    of value (compared on the same page)."""
    trafilatura = pytest.importorskip("trafilatura")
    theirs = json.loads(trafilatura.extract(PAGE.decode(), url=URL, output_format="json", with_metadata=True))
    ours = json.loads(extract(PAGE, URL).render("json"))
    shared = set(ours) & set(theirs)
    assert {"title", "author", "hostname", "date", "text", "comments", "source", "source-hostname",
            "excerpt", "pagetype", "language", "image", "categories", "tags"} <= shared
    for k in ("title", "author", "hostname", "date", "source-hostname", "excerpt"):
        assert ours[k] == theirs[k], k
    their_xml = ET.fromstring(trafilatura.extract(PAGE.decode(), url=URL, output_format="xml",
                                                  with_metadata=True))
    our_xml = ET.fromstring(extract(PAGE, URL).render("xml"))
    assert [e.tag for e in our_xml] == [e.tag for e in their_xml] == ["main", "comments"]
    for k in ("sitename", "title", "author", "date", "hostname", "description"):
        assert our_xml.get(k) == their_xml.get(k), k
    their_csv = next(csv.reader(io.StringIO(trafilatura.extract(PAGE.decode(), url=URL, output_format="csv",
                                                                with_metadata=True)), delimiter="\t"))
    our_csv = next(csv.reader(io.StringIO(extract(PAGE, URL).render("csv")), delimiter="\t"))
    assert len(our_csv) == len(their_csv)
    assert [our_csv[i] for i in (3, 4, 6)] == [their_csv[i] for i in (3, 4, 6)]  # hostname, title, date


def test_the_page_is_walked_once_for_its_text_and_once_more_for_markdown(monkeypatch: pytest.MonkeyPatch
                                                                          ) -> None:
    """A page that keeps a code block gets its lines from the walk (Blocks.code_column): walked
    once; Markdown walks it again (on the same parse) for links, images and numbered lists,
    once however often it is asked."""
    from ce_filter.keep import result as extraction
    from ce_filter.read import page, segment

    walks: list[bool] = []
    real = segment.segment

    def counting(tree: Any, extras: bool = False) -> Any:
        walks.append(extras)
        return real(tree, extras)

    monkeypatch.setattr(page, "segment", counting)  # the page's walk (page.read)
    monkeypatch.setattr(extraction, "segment", counting)  # the walk again (extraction.extras_of)
    r = Extractor().extract(PAGE, URL)
    assert CODE in r.text and walks == [False]
    r.to_markdown(links=True)
    r.to_markdown(links=True)
    assert walks == [False, True]
    no_code = PAGE.replace(b"<pre>", b"<p>").replace(b"</pre>", b"</p>")
    assert CODE not in Extractor().extract(no_code).text and walks == [False, True, False]


# ------------------------------------------------------------------ the CLI


@pytest.fixture
def page_file(tmp_path: Path) -> Path:
    f = tmp_path / "main-street.html"
    f.write_bytes(PAGE)
    return f


def run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["extract", *args]) == 0
    return capsys.readouterr().out


def test_cli_url_resolves_links_of_a_saved_file_and_of_stdin(page_file: Path, capsys, monkeypatch) -> None:
    out = run(capsys, "--format", "markdown", "--links", "--images", "--bylines", "--url", URL,
              str(page_file))
    assert "[Maria Lopez](https://courier.example/authors/maria-lopez)" in out
    assert "![Main Street on Monday morning, cars back between the planters]" \
           "(https://courier.example/news/img/main-street.jpg)" in out
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(PAGE)))
    rec = json.loads(run(capsys, "--format", "jsonl", "--url", URL))
    assert rec["url"] == URL and rec["date"] == "2024-03-05"


def test_cli_formats(page_file: Path, capsys) -> None:
    out = run(capsys, str(page_file))
    assert TABLE in out and CODE in out
    d = json.loads(run(capsys, "--format", "json", "--url", URL, str(page_file)))
    assert d["source"] == URL and TABLE in d["text"]
    assert ET.fromstring(run(capsys, "--format", "xml", str(page_file))).tag == "doc"
    out = run(capsys, "--format", "text", "--with-metadata", str(page_file))
    assert out.startswith("---\ntitle: Main Street") and out.endswith("change after six months.\n\n")
    # over several inputs: json a line per page, csv a row per page, no "==>" headers
    lines = run(capsys, "--format", "json", str(page_file), str(page_file)).splitlines()
    assert len(lines) == 2 and all(json.loads(x)["author"] == "Maria Lopez" for x in lines)
    rows = list(csv.reader(io.StringIO(run(capsys, "--format", "csv", str(page_file), str(page_file))),
                           delimiter="\t"))
    assert len(rows) == 2 and all(len(r) == 11 for r in rows)
    assert run(capsys, "--format", "text", str(page_file), str(page_file)).count("==> ") == 2


def test_cli_empty_page_says_why_in_every_format(tmp_path: Path, capsys) -> None:
    f = tmp_path / "empty.html"
    f.write_text("<html><body><script>x()</script></body></html>")
    assert run(capsys, str(f)) == ""  # the note goes to stderr (tests/core/test_cli_batch.py)
    assert run(capsys, "--format", "markdown", "--with-metadata", str(f)) == "---\n---\n\n"  # front matter
    assert json.loads(run(capsys, "--format", "json", str(f)))["reason"] == "no text in page"
    assert ET.fromstring(run(capsys, "--format", "xml", str(f))).get("reason") == "no text in page"


# ------------------------------------------------------------------ the service


def serve_call(app: Any, query: str, body: bytes) -> dict[str, Any]:
    out: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]]) -> None:
        out["status"] = status

    environ = {"REQUEST_METHOD": "POST", "PATH_INFO": "/extract", "QUERY_STRING": query,
               "CONTENT_TYPE": "text/html; charset=utf-8", "CONTENT_LENGTH": str(len(body)),
               "wsgi.input": io.BytesIO(body)}
    rec = json.loads(b"".join(app(environ, start_response)))
    assert out["status"].startswith("200"), rec
    return rec


def test_serve_url_resolves_links() -> None:
    from urllib.parse import quote

    from ce_filter.service.serve import App

    app = App(Extractor(bylines=True))
    rec = serve_call(app, f"format=markdown&links=1&url={quote(URL, safe='')}", PAGE)
    assert "[Maria Lopez](https://courier.example/authors/maria-lopez)" in rec["content"]
    assert rec["url"] == URL and TABLE in rec["text"]


def test_serve_renders_every_format_through_the_same_function(monkeypatch: pytest.MonkeyPatch) -> None:
    from ce_filter.keep.render import FORMATS
    from ce_filter.service import serve

    monkeypatch.setattr(serve, "_FORMATS", FORMATS, raising=False)  # the service takes render's list
    app = serve.App(Extractor())
    r = extract(PAGE, URL)
    for fmt in ("text", "markdown", "html", "xml", "csv", "json"):
        rec = serve_call(app, f"format={fmt}&url={URL}", PAGE)
        if fmt == "json":  # the record itself is the JSON
            assert "content" not in rec
        else:
            assert rec["content"] == r.render(fmt), fmt


def test_cli_links_of_a_fetched_page_resolve_against_its_address(capsys) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Site(BaseHTTPRequestHandler):
        def log_message(self, *a: Any) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            if self.path == "/latest":  # a redirect: links resolve against where it led
                self.send_response(302)
                self.send_header("Location", "/news/2024/story.html")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Site)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        site = f"http://127.0.0.1:{server.server_address[1]}"
        out = run(capsys, "--format", "markdown", "--links", "--images", "--bylines", f"{site}/latest")
    finally:
        server.shutdown()
        server.server_close()
    assert f"[Maria Lopez]({site}/authors/maria-lopez)" in out
    assert f"({site}/news/img/main-street.jpg)" in out and f"({site}/news/2024/petition.html)" in out
