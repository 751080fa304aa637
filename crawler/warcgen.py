"""Writing WARC records the way crawlers do (for the shipped sample, tests and small tools).

``WarcBuilder`` writes ``response`` records with real HTTP framing: a body can be sent
content-encoded (gzip, deflate, br) and/or with chunked transfer-encoding, exactly as the
bytes came over the wire, so readers have something real to undo.
"""

from __future__ import annotations

import gzip
import io
import uuid
import zlib
from typing import IO, TypedDict

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

STATUS_TEXT = {
    200: "OK",
    301: "Moved Permanently",
    304: "Not Modified",
    404: "Not Found",
    500: "Server Error",
}


class _RecordOptions(TypedDict, total=False):
    """The keyword options of warcio's ``create_warc_record`` a record is written with."""

    warc_headers_dict: dict[str, str]
    http_headers: StatusAndHeaders
    warc_content_type: str


def encode_body(body: bytes, content_encoding: str | None) -> bytes:
    if not content_encoding:
        return body
    if content_encoding == "gzip":
        return gzip.compress(body, mtime=0)
    if content_encoding == "deflate":
        return zlib.compress(body)
    if content_encoding == "br":
        import brotli  # optional; only when asked for

        return brotli.compress(body)
    raise ValueError(f"unknown content-encoding {content_encoding}")


def chunk(data: bytes, size: int = 1000) -> bytes:
    """HTTP/1.1 chunked transfer-encoding of ``data``."""
    out = io.BytesIO()
    for i in range(0, len(data), size):
        part = data[i : i + size]
        out.write(b"%x\r\n" % len(part) + part + b"\r\n")
    out.write(b"0\r\n\r\n")
    return out.getvalue()


def record_id(seed: str) -> str:
    """A stable WARC-Record-ID for ``seed`` (so a rebuilt file is byte-identical)."""
    return f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, seed)}>"


class WarcBuilder:
    """Thin layer over warcio's WARCWriter; ``gzip=True`` writes one gzip member per record."""

    def __init__(self, out: IO[bytes], *, gzip: bool = True, date: str = "2024-01-01T00:00:00Z") -> None:
        self.writer = WARCWriter(out, gzip=gzip)
        self.date = date

    def _headers(self, seed: str, extra: dict[str, str] | None) -> dict[str, str]:
        h = {"WARC-Record-ID": record_id(seed), "WARC-Date": self.date}
        h.update(extra or {})
        return h

    def warcinfo(self, info: dict[str, str]) -> str:
        rec = self.writer.create_warcinfo_record("sample.warc.gz", info)
        rec.rec_headers.replace_header("WARC-Record-ID", record_id("warcinfo"))
        rec.rec_headers.replace_header("WARC-Date", self.date)
        self.writer.write_record(rec)
        return record_id("warcinfo")

    def response(
        self,
        url: str,
        body: bytes,
        *,
        content_type: str = "text/html; charset=utf-8",
        status: int = 200,
        content_encoding: str | None = None,
        chunked: bool = False,
        headers: list[tuple[str, str]] | None = None,
    ) -> str:
        """A ``response`` record; returns its WARC-Record-ID."""
        payload = encode_body(body, content_encoding)
        http = [("Content-Type", content_type)] if content_type else []
        if content_encoding:
            http.append(("Content-Encoding", content_encoding))
        if chunked:
            payload = chunk(payload)
            http.append(("Transfer-Encoding", "chunked"))
        else:
            http.append(("Content-Length", str(len(payload))))
        http.extend(headers or [])
        status_line = f"{status} {STATUS_TEXT.get(status, 'Status')}"
        return self._write(url, "response", payload, StatusAndHeaders(status_line, http, protocol="HTTP/1.1"))

    def resource(self, url: str, body: bytes, content_type: str = "text/html") -> str:
        return self._write(url, "resource", body, None, content_type=content_type)

    def request(self, url: str) -> str:
        http = StatusAndHeaders(
            f"GET {url} HTTP/1.1", [("User-Agent", "ce-filter-sample")], is_http_request=True
        )
        return self._write(url, "request", b"", http, seed=f"request {url}")

    def revisit(
        self,
        url: str,
        refers_to: str | None = None,
        *,
        payload_digest: str | None = None,
        refers_to_uri: str | None = None,
        refers_to_date: str | None = None,
        status: int = 200,
        date: str | None = None,
    ) -> str:
        """A ``revisit`` record (no payload). The original is named by any of ``refers_to``
        (its record id), ``payload_digest`` (identical-payload-digest profile) and
        ``refers_to_uri``/``refers_to_date``; ``status`` 304 writes a server-not-modified one."""
        profile = "server-not-modified" if status == 304 else "identical-payload-digest"
        extra = {"WARC-Profile": f"http://netpreserve.org/warc/1.0/revisit/{profile}"}
        for k, v in (("WARC-Refers-To", refers_to), ("WARC-Payload-Digest", payload_digest),
                     ("WARC-Refers-To-Target-URI", refers_to_uri),
                     ("WARC-Refers-To-Date", refers_to_date), ("WARC-Date", date)):
            if v:
                extra[k] = v
        http = StatusAndHeaders(f"{status} {STATUS_TEXT.get(status, 'Status')}",
                                [("Content-Type", "text/html")] if status != 304 else [],
                                protocol="HTTP/1.1")
        return self._write(url, "revisit", b"", http, seed=f"revisit {url} {date or ''}".strip(), extra=extra)

    def _write(
        self,
        url: str,
        rtype: str,
        payload: bytes,
        http: StatusAndHeaders | None,
        *,
        seed: str | None = None,
        extra: dict[str, str] | None = None,
        content_type: str | None = None,
    ) -> str:
        seed = seed or f"{rtype} {url}"
        kw: _RecordOptions = {"warc_headers_dict": self._headers(seed, extra)}
        if http is not None:
            kw["http_headers"] = http
        if content_type:
            kw["warc_content_type"] = content_type
        rec = self.writer.create_warc_record(url, rtype, payload=io.BytesIO(payload), **kw)
        self.writer.write_record(rec)
        return kw["warc_headers_dict"]["WARC-Record-ID"]
