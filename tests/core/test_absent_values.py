"""One rule for what a page does not have: null in the record (never ''), in every output and
in the schema; and a clear TypeError for an argument that is not a page at all."""

from __future__ import annotations

import json

import pytest

import ce_filter
from ce_filter import Extractor
from ce_filter.cli import main
from ce_filter.read.rawpage import RawPage
from ce_filter.record import filter_page, make_record, schema, validate

from .test_api import ARTICLE

# the record's fields that may be absent: unknown, or not found in the page
MAY_BE_ABSENT = ("url", "fetch_time", "status", "title", "html_title", "author", "date", "sitename",
                 "description", "canonical_url", "image", "tags", "categories", "hostname", "language",
                 "page_type", "page_type_prob", "reason", "encoding", "content_type")


@pytest.mark.parametrize("bad", [123, 1.5, ["<p>x</p>"], {"html": "x"}, object()])
def test_extract_of_a_non_page_says_which_types_are_accepted(bad):
    for fn in (ce_filter.extract, Extractor().extract):
        with pytest.raises(TypeError, match=r"html must be str, bytes, bytearray or memoryview \(or None\), "
                                            rf"not {type(bad).__name__}"):
            fn(bad)


def test_extract_of_a_bad_url_type_and_the_accepted_types():
    with pytest.raises(TypeError, match="url must be str or None, not int"):
        ce_filter.extract("<p>x</p>", 5)  # type: ignore[arg-type]
    for ok in ("<p>x</p>", b"<p>x</p>", bytearray(b"<p>x</p>"), memoryview(b"<p>x</p>"), None, ""):
        ce_filter.extract(ok)  # type: ignore[arg-type]  # (None and '': an empty result with a reason)
    assert ce_filter.extract(None).reason == "no input"  # type: ignore[arg-type]


def test_the_schema_allows_null_for_every_field_that_may_be_absent_and_only_those():
    props = schema()["properties"]
    for k, p in props.items():
        nullable = "null" in (p.get("type") if isinstance(p.get("type"), list) else [p.get("type")])
        assert nullable == (k in MAY_BE_ABSENT), k
    for k, p in props["source"]["properties"].items():
        assert ("null" in p["type"]) == (k != "type"), k


def test_a_record_without_url_title_reason_or_content_type_has_nulls():
    ex = Extractor()
    untitled = ARTICLE.replace("<title>Council expands bike lanes</title>", "").replace(
        "<h1>Council expands bike lanes</h1>", "")
    rec = filter_page(ex, RawPage(url="", body=untitled.encode(), source="file", source_name="a.html"))
    assert rec["text"] and validate(rec) == []
    for k in ("url", "fetch_time", "status", "title", "reason", "content_type"):
        assert rec[k] is None, k
    assert rec["source"] == {"type": "file", "name": "a.html", "record_id": None}
    # and nowhere a '' standing for "absent": text is the one string that is always there
    empty = make_record(RawPage(url="", body=b""), ex.extract(b""), ex)
    assert empty["text"] == "" and empty["reason"] == "empty input" and validate(empty) == []
    assert [k for k, v in empty.items() if v == ""] == ["text"]
    assert [k for k, v in rec.items() if v == ""] == []


def test_stdin_and_file_records_from_the_cli_have_null_url(tmp_path, capsys, monkeypatch):
    import io
    import sys

    page = tmp_path / "a.html"
    page.write_text(ARTICLE)
    assert main(["extract", "--format", "jsonl", str(page)]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["url"] is None and rec["reason"] is None and rec["title"] == "Council expands bike lanes"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(ARTICLE.encode())))
    assert main(["extract", "--format", "jsonl", "-"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["url"] is None and rec["source"]["name"] == "-" and validate(rec) == []
