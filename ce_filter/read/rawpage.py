"""One fetched page before filtering, whatever source it came from (crawl, WARC, Kafka)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any, cast

from itemadapter import ItemAdapter

from ce_filter.read.decode import charset_from_content_type

# an item's fields by name, taken as they come (RawPage's fields say what each should be)
_Fields = Mapping[str, Any]  # Any: a field of a foreign item (Scrapy, a JSON envelope), not checked
# Media types the filter is for. ``text/plain`` is not: it has no markup to segment.
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml", "application/xml+xhtml", "application/html"})


def now_iso() -> str:
    """The current UTC time as ISO 8601 with a Z (the form WARC-Date uses)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def media_type(content_type: str | None) -> str:
    """``text/html`` from ``Text/HTML; charset=utf-8``; '' when absent."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def is_html_type(content_type: str | None, *, allow_missing: bool = True) -> bool:
    """True for HTML-ish media types. A missing type counts as HTML when ``allow_missing``
    (servers that send none mostly send HTML, and the filter copes with anything else)."""
    mt = media_type(content_type)
    if not mt:
        return allow_missing
    return mt in HTML_TYPES


@dataclass
class RawPage:
    """A page as fetched. ``body`` is the decoded payload: transfer- and content-encoding
    are already undone. ``encoding`` is the transport's charset hint (from Content-Type)."""

    url: str
    body: bytes
    fetch_time: str | None = None  # ISO 8601 UTC, e.g. 2024-05-01T12:00:00Z
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)  # HTTP response headers
    content_type: str = ""
    record_id: str | None = None  # WARC-Record-ID of the source record, when from a WARC
    source: str = "warc"  # warc | crawl | kafka
    source_name: str | None = None  # WARC file name, Kafka topic/partition/offset, ...
    revisit_of: str | None = None  # a resolved WARC revisit: the record id of its original

    @property
    def encoding(self) -> str | None:
        """Charset hint for the filter (a Python codec name), from the Content-Type header."""
        return charset_from_content_type(self.content_type)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_mapping(cls, item: object) -> RawPage:
        """A RawPage from any item: a dict (e.g. a decoded JSON envelope), a scrapy.Item, a
        dataclass or an attrs object, read through itemadapter as Scrapy reads items. Fields
        are taken by name (url, body, fetch_time, status, headers, content_type, record_id,
        source, source_name, revisit_of); a missing one takes its default, a str body is
        encoded as UTF-8, and other fields of the item are ignored."""
        if isinstance(item, RawPage):
            return item
        d: _Fields = ItemAdapter(item) if ItemAdapter.is_item(item) else cast(_Fields, item)
        body = d.get("body") or b""
        if isinstance(body, str):
            body = body.encode("utf-8")
        headers = dict(d.get("headers") or {})
        return cls(
            url=str(d.get("url") or ""),
            body=bytes(body),
            fetch_time=d.get("fetch_time"),
            status=d.get("status"),
            headers=headers,
            content_type=d.get("content_type") or headers.get("Content-Type", ""),
            record_id=d.get("record_id"),
            source=d.get("source") or "crawl",
            source_name=d.get("source_name"),
            revisit_of=d.get("revisit_of"),
        )
