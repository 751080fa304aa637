"""The output record: one JSON document per page, the same from every output path
(schema: ``ce_filter/record.schema.json``, versioning rule in docs/PIPELINE.md), made by one
step, ``make_record(page, extraction, extractor)``, which every stage calls: how a stage gets the
page's Extraction (here, in a filter process, under which budget) is its own; the record is not.

One rule for what a page does not have: a field that is unknown or was not found is ``null``,
never ``''`` (an unknown URL, no title, no reason because there is text, an unknown
Content-Type). ``text`` is the one string that is always there: ``''`` with a ``reason``."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, cast

from ce_filter.api import META_FIELDS, Extraction
from ce_filter.read.rawpage import RawPage, now_iso

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

    from ce_filter.run.budget import PageFilter

SCHEMA_PATH = Path(__file__).with_name("record.schema.json")
SCHEMA_ID = "ce-filter.record/4"


class Stats(TypedDict):
    """A record's ``stats`` (record.schema.json)."""

    blocks_kept: int
    blocks_total: int
    chars: int
    bytes_in: int
    truncated: bool


class _SourceFields(TypedDict):
    type: str
    name: str | None
    record_id: str | None


class Source(_SourceFields, total=False):
    """A record's ``source`` (record.schema.json); ``revisit_of`` only for a resolved revisit."""

    revisit_of: str | None


class _RecordFields(TypedDict):
    schema: str
    url: str | None
    fetch_time: str | None
    status: int | None
    title: str | None
    html_title: str | None
    author: str | None
    date: str | None
    sitename: str | None
    description: str | None
    canonical_url: str | None
    language: str | None
    text: str
    reason: str | None
    stats: Stats
    text_sha256: str
    encoding: str | None
    content_type: str | None
    source: Source
    model: str
    extractor: str
    processed_at: str


class Record(_RecordFields, total=False):
    """The output record, as ``ce_filter/record.schema.json`` has it: the required fields, then
    the optional ones (``make_record`` always writes them; a reader may meet a record without
    them), and ``content``, the page in another format (``ce-filter serve``'s ``format``), which
    the schema does not name."""

    image: str | None
    tags: Sequence[str] | None
    categories: Sequence[str] | None
    hostname: str | None
    page_type: str | None
    page_type_prob: float | None
    content: str


class JsonSchema(TypedDict, total=False):
    """The parts of a JSON Schema (draft 2020-12) the record schema uses, as its readers read
    them (the Spark job derives its table schema from it)."""

    type: str | list[str]
    properties: dict[str, JsonSchema]
    required: list[str]
    items: JsonSchema
    description: str


def model_version(extractor: object) -> str:
    """``name@digest`` of what made an extraction: its ``model``'s (an Extractor, a
    BoundedExtractor, an ExtractorRef), else the model part of its ``version``."""
    model = getattr(extractor, "model", None)
    if model is not None and hasattr(model, "name"):
        return f"{model.name}@{model.digest}"
    return str(getattr(extractor, "version", "")).rpartition("model/")[2]


@dataclass(frozen=True)
class ExtractorRef:
    """The extractor a record names (its ``model`` and ``extractor`` fields) as a filter process
    reported it: ce_filter.run.pool's ready info ``(version, model name, model digest)``. What a
    stage gives ``make_record`` for a page whose filter process died on it (no Extractor here)."""

    version: str
    name: str
    digest: str

    @property
    def model(self) -> ExtractorRef:
        """As an Extractor's ``model``: ``name`` and ``digest``."""
        return self


def make_record(page: RawPage | Mapping[str, object], extraction: Extraction, extractor: object, *,
                bytes_in: int | None = None, content: str | None = None) -> Record:
    """The output record of one page: the one step every stage makes its records with (``ce-filter
    extract`` and ``warc``, the crawl's Scrapy pipeline, the Kafka worker, the Spark job, ``ce-filter
    serve``; the datatrove step derives its documents' metadata from it), whoever made the
    ``extraction`` (this process, a filter process of ce_filter.run.pool, BoundedExtractor).

    ``page``: a RawPage or a dict-like with the same keys (url, body, fetch_time, status, headers,
    content_type, record_id, source, source_name, revisit_of): where the page came from is its
    fields (``source``, ``source_name``: the WARC file, the Kafka topic/partition/offset, ...).
    ``extractor``: what made the extraction (its ``version`` and ``model``), or an ExtractorRef.
    ``bytes_in``: the page's size where ``page`` no longer holds its body (a page announced by a
    filter process that then died on it; default ``len(page.body)``). ``content``: the page
    rendered in another format (``ce-filter serve``'s ``format``), added as ``content``."""
    page = RawPage.from_mapping(page)
    text = extraction.text or ""
    # (a cast: the metadata fields come in by META_FIELDS' names, which a TypedDict cannot follow)
    rec = cast(Record, {
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
            "bytes_in": len(page.body) if bytes_in is None else bytes_in,
            "truncated": bool(extraction.truncated),
        },
        "text_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "encoding": extraction.encoding or None,
        "content_type": page.content_type or None,
        "source": _source(page),
        "model": model_version(extractor),
        "extractor": str(getattr(extractor, "version", "")),
        "processed_at": now_iso(),
    })
    if content is not None:
        rec["content"] = content
    return rec


def _source(page: RawPage) -> Source:
    out: Source = {"type": page.source, "name": page.source_name or None, "record_id": page.record_id or None}
    if page.revisit_of:
        out["revisit_of"] = page.revisit_of
    return out


def filter_page(extractor: PageFilter, page: RawPage, encoding: str | None = None) -> Record:
    """Filter one page with ``extractor`` here and make its record (``make_record``): for a caller
    with an Extractor in hand (``ce-filter extract --format jsonl``). ``encoding`` overrides the
    page's own charset hint (``extract --encoding``)."""
    ex = extractor.extract(page.body, page.url or None, encoding=encoding or page.encoding)
    return make_record(page, ex, extractor)


def dumps(record: Mapping[str, object]) -> bytes:
    """The wire form: compact UTF-8 JSON, no newline inside (safe for JSON lines)."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


@lru_cache(maxsize=1)
def schema() -> JsonSchema:
    return cast(JsonSchema, json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    try:
        from jsonschema import Draft202012Validator
    except ImportError:
        from ce_filter.extras import MissingExtra

        raise MissingExtra("record validation", "schema") from None
    return Draft202012Validator(schema())


def validate(record: object) -> list[str]:
    """Problems of ``record`` against the record schema (empty list = valid), each as
    ``$.path: message``. With jsonschema (the ``schema`` extra): validation is for tests and
    for consumers checking what they read, not a step of the per-page path."""
    return [
        "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path) + f": {e.message}"
        for e in sorted(_validator().iter_errors(record), key=lambda e: list(map(str, e.absolute_path)))
    ]
