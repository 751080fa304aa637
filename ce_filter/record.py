"""The output record: one JSON document per page, the same from every output path
(schema: ``ce_filter/record.schema.json``, versioning rule in docs/PIPELINE.md).

One rule for what a page does not have: a field that is unknown or was not found is ``null``,
never ``''`` (an unknown URL, no title, no reason because there is text, an unknown
Content-Type). ``text`` is the one string that is always there: ``''`` with a ``reason``."""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from ce_filter.api import META_FIELDS
from ce_filter.read.rawpage import RawPage, now_iso

SCHEMA_PATH = Path(__file__).with_name("record.schema.json")
SCHEMA_ID = "ce-filter.record/4"


def model_version(extractor: Any) -> str:
    model = getattr(extractor, "model", None)
    if model is not None and hasattr(model, "name"):
        return f"{model.name}@{model.digest}"
    return str(getattr(extractor, "version", "")).rpartition("model/")[2]


def make_record(page: RawPage | Any, extraction: Any, extractor: Any) -> dict[str, Any]:
    """The output record of one page. ``page`` is a RawPage or a dict-like with the same keys
    (url, body, fetch_time, status, headers, content_type, record_id, source, source_name)."""
    page = RawPage.from_mapping(page)
    text = extraction.text or ""
    return {
        "schema": SCHEMA_ID,
        "url": page.url or None,
        "fetch_time": page.fetch_time or None,
        "status": page.status,
        "title": extraction.title or None,
        **{k: getattr(extraction, k, "") or None for k in META_FIELDS},
        "page_type": getattr(extraction, "page_type", "") or None,
        "page_type_prob": getattr(extraction, "page_type_prob", None),
        "text": text,
        "reason": extraction.reason or None,
        "stats": {
            "blocks_kept": int(extraction.blocks_kept),
            "blocks_total": len(extraction.blocks),
            "chars": len(text),
            "bytes_in": len(page.body),
            "truncated": bool(extraction.truncated),
        },
        "text_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "encoding": extraction.encoding or None,
        "content_type": page.content_type or None,
        "source": _source(page),
        "model": model_version(extractor),
        "extractor": str(getattr(extractor, "version", "")),
        "processed_at": now_iso(),
    }


def _source(page: RawPage) -> dict[str, Any]:
    out = {"type": page.source, "name": page.source_name or None, "record_id": page.record_id or None}
    if page.revisit_of:
        out["revisit_of"] = page.revisit_of
    return out


def filter_page(extractor: Any, page: RawPage, encoding: str | None = None) -> dict[str, Any]:
    """Run the filter on one page and make its record (the one step every stage shares).
    ``encoding`` overrides the page's own charset hint (``extract --encoding``)."""
    ex = extractor.extract(page.body, page.url or None, encoding=encoding or page.encoding)
    return make_record(page, ex, extractor)


def dumps(record: dict[str, Any]) -> bytes:
    """The wire form: compact UTF-8 JSON, no newline inside (safe for JSON lines)."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _validator() -> Any:
    try:
        from jsonschema import Draft202012Validator
    except ImportError:
        from ce_filter.extras import MissingExtra

        raise MissingExtra("record validation", "schema") from None
    return Draft202012Validator(schema())


def validate(record: Any) -> list[str]:
    """Problems of ``record`` against the record schema (empty list = valid), each as
    ``$.path: message``. With jsonschema (the ``schema`` extra): validation is for tests and
    for consumers checking what they read, not a step of the per-page path."""
    return [
        "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path) + f": {e.message}"
        for e in sorted(_validator().iter_errors(record), key=lambda e: list(map(str, e.absolute_path)))
    ]
