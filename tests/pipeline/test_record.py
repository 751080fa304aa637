"""The output record and its JSON Schema: versioned, evolvable, checked with jsonschema."""

from __future__ import annotations

import copy
import hashlib
import json

import pytest

from ce_filter import Extractor
from ce_filter.read.rawpage import RawPage
from ce_filter.record import (
    SCHEMA_ID,
    SCHEMA_PATH,
    dumps,
    filter_page,
    make_record,
    schema,
    validate,
)

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
    assert paras("records")[0] in rec["text"] and rec["title"] == "A title" and rec["reason"] is None
    assert (
        rec["stats"]["chars"] == len(rec["text"])
        and 0 < rec["stats"]["blocks_kept"] < rec["stats"]["blocks_total"]
    )
    assert rec["stats"]["bytes_in"] == len(page.body)
    assert rec["text_sha256"] == hashlib.sha256(rec["text"].encode()).hexdigest() and "digest" not in rec
    assert rec["source"] == {"type": "warc", "name": None, "record_id": "<urn:uuid:1>"}
    assert rec["extractor"] == ex.version and rec["model"] in ex.version
    assert validate(rec) == []
    line = dumps(rec)
    assert b"\n" not in line and json.loads(line) == rec
    assert list(rec) == list(schema()["properties"])  # every field, in the schema's order


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
    bad["text_sha256"] = "md5:x"
    bad["source"]["type"] = "No Such Type!"
    problems = "\n".join(validate(bad))
    for part in ("$.status:", "'text' is a required property", "$.stats.chars:", "$.text_sha256:",
                 "$.source.type:"):
        assert part in problems, problems
    assert len(validate(bad)) == 5


def test_schema_is_versioned_and_evolvable(ex):
    """Fields added later (at the top, in stats, in source) do not make a record invalid for
    a reader of this version; another major version does."""
    sch = json.loads(SCHEMA_PATH.read_text())
    assert sch["properties"]["schema"]["const"] == SCHEMA_ID == "ce-filter.record/4"
    assert sch["$id"] == "urn:ce-filter:record:4" and sch is not schema()
    assert "additionalProperties" not in json.dumps(sch)  # nowhere: readers ignore unknown fields
    rec = filter_page(ex, _page())
    newer = {**copy.deepcopy(rec), "keywords": ["a"], "reading": {"minutes": 3, "level": 0.9}}
    newer["stats"]["words"] = 12
    newer["source"]["warc_offset"] = 1234
    assert validate(newer) == []
    assert validate({**rec, "schema": "ce-filter.record/2"}) != []
    optional = [k for k in sch["properties"] if k not in sch["required"]]
    # version 3.0 had every field required; the fields added within version 3 are optional
    assert optional == ["image", "tags", "categories", "hostname", "page_type", "page_type_prob"]
    older = {k: v for k, v in rec.items() if k not in optional}  # a record from before them
    assert validate(older) == []
    assert validate({**rec, "page_type": "homepage"}) == []  # an open set: a new kind is an addition
    assert validate({**rec, "page_type_prob": 1.5}) != []
    assert "revisit_of" not in sch["properties"]["source"]["required"]


def test_record_type_is_the_schema(ex):
    """The Record TypedDict (what the stages type their records by) names the schema's fields,
    required and optional as the schema has them, and every field a record has; its Stats and
    Source the nested objects'; ``content`` (serve's other format) is the one field it adds."""
    from ce_filter.record import Record, Source, Stats

    sch = schema()
    props = sch["properties"]
    assert Record.__required_keys__ == set(sch["required"])
    assert Record.__optional_keys__ == set(props) - set(sch["required"]) | {"content"}
    assert set(filter_page(ex, _page())) == set(Record.__annotations__) - {"content"}
    assert Stats.__required_keys__ == set(props["stats"]["properties"]) == set(props["stats"]["required"])
    assert Source.__required_keys__ == set(props["source"]["required"])
    assert Source.__optional_keys__ == set(props["source"]["properties"]) - set(props["source"]["required"])


def test_validate_without_jsonschema_names_the_extra(monkeypatch):
    import builtins

    from ce_filter import record
    from ce_filter.extras import MissingExtra

    real_import = builtins.__import__

    def no_jsonschema(name, *a, **kw):
        if name == "jsonschema":
            raise ImportError("no jsonschema")
        return real_import(name, *a, **kw)

    record._validator.cache_clear()
    monkeypatch.setattr(builtins, "__import__", no_jsonschema)
    try:
        with pytest.raises(MissingExtra, match=r"pip install 'ce-filter\[schema\]'"):
            record.validate({})
    finally:
        monkeypatch.undo()
        record._validator.cache_clear()


def test_raw_page_from_any_item_kind():
    """dict, scrapy.Item, dataclass and attrs items (itemadapter): the page's fields by name,
    the rest of the item ignored; a str body is UTF-8."""
    import dataclasses

    import attr
    import scrapy

    fields = {"url": "http://x.test/é", "body": "<p>é</p>", "status": 200,
              "headers": {"Content-Type": "text/html; charset=utf-8"}, "fetch_time": "2024-01-01T00:00:00Z"}

    class PageItem(scrapy.Item):
        url, body, status, headers, fetch_time, shop = (scrapy.Field() for _ in range(6))

    @dataclasses.dataclass
    class PageData:
        url: str
        body: str
        status: int
        headers: dict
        fetch_time: str
        shop: str = "mine"

    @attr.s(auto_attribs=True)
    class PageAttrs:
        url: str
        body: str
        status: int
        headers: dict
        fetch_time: str
        shop: str = "mine"

    for item in ({**fields, "shop": "mine"}, PageItem(**fields, shop="mine"), PageData(**fields),
                 PageAttrs(**fields)):
        page = RawPage.from_mapping(item)
        assert page == RawPage(url="http://x.test/é", body="<p>é</p>".encode(), status=200,
                               headers=fields["headers"], fetch_time=fields["fetch_time"],
                               content_type="text/html; charset=utf-8", source="crawl"), type(item)
    assert RawPage.from_mapping(PageItem(url="http://x.test/")).body == b""  # fields not set: defaults
    page = _page()
    assert RawPage.from_mapping(page) is page


def test_metadata_fields_in_the_record(ex):
    body = article("Harbour fleet returns | Town Paper", paras("records")).replace(
        "<h1>Harbour fleet returns | Town Paper</h1>", "<h1>Harbour fleet returns</h1><p>By Jane Doe</p>")
    rec = filter_page(ex, _page(body=body.encode()))
    assert rec["title"] == "Harbour fleet returns"
    assert rec["html_title"] == "Harbour fleet returns | Town Paper"
    assert rec["author"] == "Jane Doe" and rec["language"] == "en"
    assert rec["date"] is None and rec["canonical_url"] is None  # nothing credible: null, not ''
    assert validate(rec) == []
    bad = dict(rec, date="5 March 2024")
    assert validate(bad)  # the date is ISO 8601
    empty = filter_page(ex, _page(body=b""))
    assert empty["title"] is None and empty["language"] is None and validate(empty) == []


def test_wet_output_carries_language_and_title(ex, tmp_path):
    from ce_filter.pipelines.sinks import WarcSink
    from warcio.archiveiterator import ArchiveIterator

    rec = filter_page(ex, _page())
    with WarcSink(tmp_path / "o.warc.gz") as sink:
        sink.write(rec)
        sink.write(dict(rec, language=None, title=""))
    convs = [r for r in ArchiveIterator(open(tmp_path / "o.warc.gz", "rb")) if r.rec_type == "conversion"]
    h = convs[0].rec_headers
    assert h.get_header("WARC-Identified-Content-Language") == "en"
    assert h.get_header("WARC-Title") == "A title"
    assert convs[1].rec_headers.get_header("WARC-Identified-Content-Language") is None
    assert convs[1].rec_headers.get_header("WARC-Title") is None


def test_record_carries_the_page_kind(ex):
    if ex.kind_model is None:
        pytest.skip("the shipped content model has no page-kind model")
    rec = filter_page(ex, _page())
    assert rec["page_type"] in ("article", "documentation", "service", "forum", "collection",
                                "listing", "product") and 0 < rec["page_type_prob"] <= 1
    empty = filter_page(ex, _page(body=b"<html><body></body></html>"))
    assert empty["page_type"] is None and empty["page_type_prob"] is None
    assert validate(rec) == [] and validate(empty) == []
