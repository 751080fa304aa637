"""A WARC record as a page, or the reason it is skipped.

The one place that decides which records are pages (type, HTTP status, content type, a
revisit's original, an empty or undecodable body), so WARC and ARC inputs, whole files and
shards all skip by the same reasons and count them the same way.
"""

from __future__ import annotations

from warcio.limitreader import LimitReader

from ce_filter.read.rawpage import RawPage, is_html_type, media_type

from .bodies import payload, sniff_html
from .lines import WarcHeaders, WarcRecord
from .revisits import REVISIT_SKIPPED, REVISIT_UNRESOLVED, RevisitIndex
from .units import length_ok

PAGE_TYPES = ("response", "resource")
TRUNCATED = "truncated record"


def page_from_record(record: WarcRecord, name: str, all_statuses: bool,
                     revisits: RevisitIndex | None = None,
                     seconds: float = 0.0) -> tuple[RawPage | None, str]:
    """The page in a record, or (None, why it is skipped)."""
    if not length_ok((record.rec_headers.get_header("Content-Length") or "").strip()):
        return None, TRUNCATED  # headers cut short (or broken): where the record ends is unknown
    rtype = record.rec_type
    http = record.http_headers if rtype in ("response", "revisit") else None
    ctype = _content_type(record, http)
    status = _status(http)
    body = b""
    original = None
    if rtype == "revisit":
        original = revisits.find(record.rec_headers) if revisits is not None else None
        if original is not None:
            # a server-not-modified revisit records the 304; the page is the original's. The
            # record's own Content-Type is application/http, so only an HTTP one counts.
            status = original.status if status in (None, 304) else status
            ctype = (http.get_header("Content-Type") if http is not None else "") or original.content_type
            http = http if http is not None and http.headers else None
    if rtype == "revisit" and original is None:
        skip = REVISIT_SKIPPED if revisits is None else REVISIT_UNRESOLVED
    elif rtype not in PAGE_TYPES and original is None:
        skip = f"record type {rtype}"
    elif http is not None and not all_statuses and not (status is not None and 200 <= status < 300):
        skip = f"http status {status}"
    elif ctype and not is_html_type(ctype):
        skip = f"non-html {media_type(ctype)}"
    elif original is not None:
        body, skip = original.body, ""
    else:
        body, skip = payload(record, http, seconds)
    if not _drained(record):  # the input ended before the record's Content-Length was read
        return None, TRUNCATED
    if skip:
        return None, skip
    if not ctype and not sniff_html(body):
        return None, "non-html (no content type)"
    if not body.strip():
        return None, "empty payload"
    return (
        RawPage(
            url=record.rec_headers.get_header("WARC-Target-URI") or "",
            body=body,
            fetch_time=record.rec_headers.get_header("WARC-Date"),
            status=status,
            headers=_headers_dict(http.headers) if http is not None else
            (dict(original.headers) if original is not None else {}),
            content_type=ctype,
            record_id=record.rec_headers.get_header("WARC-Record-ID"),
            source="warc",
            source_name=name,
            revisit_of=original.record_id if original is not None else None,
        ),
        "",
    )


def _content_type(record: WarcRecord, http: WarcHeaders | None) -> str:
    if http is None:
        return record.rec_headers.get_header("Content-Type") or ""
    return (
        http.get_header("Content-Type") or record.rec_headers.get_header("WARC-Identified-Payload-Type") or ""
    )


def _status(http: WarcHeaders | None) -> int | None:
    if http is None:
        return None
    try:
        return int(http.get_statuscode())
    except (TypeError, ValueError):
        return None


def _headers_dict(pairs: list[tuple[str, str]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in pairs:
        out[k] = f"{out[k]}, {v}" if k in out else v
    return out


def _drained(record: WarcRecord) -> bool:
    """Read what is left of a record's block; False when the input ends inside it."""
    raw = record.raw_stream
    if not isinstance(raw, LimitReader):  # no Content-Length, or 0: nothing of its own to read
        return True
    while raw.read(65536):
        pass
    return raw.limit <= 0
