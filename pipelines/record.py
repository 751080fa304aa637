"""The output record: one JSON document per page (schema: ``pipelines/record.schema.json``)."""

from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from ce_filter.crawler.page import RawPage, now_iso

SCHEMA_PATH = Path(__file__).with_name("record.schema.json")
SCHEMA_ID = "ce-filter.record/1"


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
        "url": page.url,
        "fetch_time": page.fetch_time,
        "status": page.status,
        "title": extraction.title or "",
        "text": text,
        "reason": extraction.reason or "",
        "stats": {
            "blocks_kept": int(extraction.blocks_kept),
            "blocks_total": len(extraction.blocks),
            "chars": len(text),
            "bytes_in": len(page.body),
            "truncated": bool(extraction.truncated),
        },
        "digest": "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "encoding": extraction.encoding or "",
        "content_type": page.content_type or "",
        "source": _source(page),
        "model": model_version(extractor),
        "extractor": str(getattr(extractor, "version", "")),
        "processed_at": now_iso(),
    }


def _source(page: RawPage) -> dict[str, Any]:
    out = {"type": page.source, "name": page.source_name, "record_id": page.record_id}
    if page.revisit_of:
        out["revisit_of"] = page.revisit_of
    return out


def filter_page(extractor: Any, page: RawPage) -> dict[str, Any]:
    """Run the filter on one page and make its record (the one step every stage shares)."""
    return make_record(page, extractor.extract(page.body, page.url, encoding=page.encoding), extractor)


def dumps(record: dict[str, Any]) -> bytes:
    """The wire form: compact UTF-8 JSON, no newline inside (safe for JSON lines)."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
    "null": (type(None),),
}


def validate(instance: Any, sch: dict[str, Any] | None = None, path: str = "$") -> list[str]:
    """Problems of ``instance`` against the record schema (empty list = valid).

    A small checker for the JSON Schema keywords the record schema uses (type, const, enum,
    required, properties, additionalProperties, minimum, pattern), so validating needs no
    extra dependency; ``jsonschema``, where installed, gives the same verdict."""
    sch = schema() if sch is None else sch
    errs: list[str] = []
    types = sch.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else types
        ok = any(
            isinstance(instance, _TYPES[t])
            and not (t in ("integer", "number") and isinstance(instance, bool))
            for t in names
        )
        if not ok:
            return [f"{path}: expected {'/'.join(names)}, got {type(instance).__name__}"]
    if "const" in sch and instance != sch["const"]:
        errs.append(f"{path}: must be {sch['const']!r}")
    if "enum" in sch and instance not in sch["enum"]:
        errs.append(f"{path}: {instance!r} not one of {sch['enum']}")
    if "minimum" in sch and isinstance(instance, (int, float)) and instance < sch["minimum"]:
        errs.append(f"{path}: below {sch['minimum']}")
    if "pattern" in sch and isinstance(instance, str) and not re.search(sch["pattern"], instance):
        errs.append(f"{path}: does not match {sch['pattern']}")
    if isinstance(instance, dict):
        props = sch.get("properties", {})
        errs += [f"{path}: missing {k!r}" for k in sch.get("required", []) if k not in instance]
        if sch.get("additionalProperties") is False:
            errs += [f"{path}: unexpected {k!r}" for k in instance if k not in props]
        for k, sub in props.items():
            if k in instance:
                errs += validate(instance[k], sub, f"{path}.{k}")
    return errs
