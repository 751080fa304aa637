"""The output record and its JSON Schema."""

from __future__ import annotations

import copy
import hashlib
import json

import pytest
from ce_filter.crawler.page import RawPage
from ce_filter.pipelines.record import (
    SCHEMA_ID,
    SCHEMA_PATH,
    dumps,
    filter_page,
    make_record,
    schema,
    validate,
)

from ce_filter import Extractor

from .helpers import article, paras


@pytest.fixture(scope="module")
def ex():
    return Extractor()


def _page(**kw) -> RawPage:
    d = {
        "url": "http://x.test/a",
        "body": article("A title", paras("records")).encode(),
        "content_type": "text/html; charset=utf-8",
        "record_id": "<urn:uuid:1>",
        "status": 200,
        "fetch_time": "2024-01-01T00:00:00Z",
    }
    d.update(kw)
    return RawPage(**d)


def test_record_fields(ex):
    page = _page()
    rec = filter_page(ex, page)
    assert rec["schema"] == SCHEMA_ID and rec["url"] == page.url and rec["status"] == 200
    assert paras("records")[0] in rec["text"] and rec["title"] == "A title" and rec["reason"] == ""
    assert (
        rec["stats"]["chars"] == len(rec["text"])
        and 0 < rec["stats"]["blocks_kept"] < rec["stats"]["blocks_total"]
    )
    assert rec["stats"]["bytes_in"] == len(page.body)
    assert rec["digest"] == "sha256:" + hashlib.sha256(rec["text"].encode()).hexdigest()
    assert rec["source"] == {"type": "warc", "name": None, "record_id": "<urn:uuid:1>"}
    assert rec["extractor"] == ex.version and rec["model"] in ex.version
    assert validate(rec) == []
    line = dumps(rec)
    assert b"\n" not in line and json.loads(line) == rec


def test_dict_like_page_and_empty_result(ex):
    item = {"url": "http://x.test/b", "body": b"", "status": 200, "source": "crawl"}
    rec = make_record(item, ex.extract(item["body"]), ex)
    assert rec["text"] == "" and rec["reason"] == "empty input" and rec["source"]["type"] == "crawl"
    assert validate(rec) == []


def test_validator_catches_problems(ex):
    rec = filter_page(ex, _page())
    bad = copy.deepcopy(rec)
    bad["status"] = "200"
    del bad["text"]
    bad["stats"]["chars"] = -1
    bad["digest"] = "md5:x"
    bad["extra"] = 1
    bad["source"]["type"] = "ftp"
    problems = "\n".join(validate(bad))
    for part in (
        "$.status",
        "missing 'text'",
        "$.stats.chars",
        "$.digest",
        "unexpected 'extra'",
        "$.source.type",
    ):
        assert part in problems


def test_schema_file_is_versioned_and_agrees_with_jsonschema(ex):
    sch = json.loads(SCHEMA_PATH.read_text())
    assert sch["properties"]["schema"]["const"] == SCHEMA_ID and SCHEMA_ID.endswith("/1")
    assert sch["$id"].endswith(":1") and sch is not schema()
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema not installed; own checker used above")
    jsonschema.validate(filter_page(ex, _page()), sch)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**filter_page(ex, _page()), "status": "x"}, sch)
