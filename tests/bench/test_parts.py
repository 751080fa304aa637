"""The harness's parts: statistics, the stage breakdown, the bare walk, peer adapters, docs."""

from __future__ import annotations

import math

import pytest
from ce_filter.bench import peers, stats
from ce_filter.bench.report import BEGIN, END, update_doc
from ce_filter.bench.stages import STAGES, bare_walk, floor, staged_extract

from .conftest import TOPICS, page

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # the peers' own, on import


def test_linear_fit_and_percentiles():
    sizes = [10_000, 50_000, 100_000, 200_000]
    secs = [(2 + 3 * b / 100_000) / 1000 for b in sizes]  # 2 ms + 3 ms per 100 KB
    slope, intercept, r2 = stats.linear_fit(sizes, secs)
    assert slope == pytest.approx(3) and intercept == pytest.approx(2) and r2 == pytest.approx(1)
    assert math.isnan(stats.linear_fit([1], [1.0])[0])
    assert stats.percentile([1, 2, 3, 4, 5], 50) == 3 and stats.percentile([1, 2], 95) == pytest.approx(1.95)
    assert stats.per_page([[3, 1], [2, 5], [9, 9]], "best") == [2, 1]
    assert stats.per_page([[3, 1], [2, 5], [9, 9]], "median") == [3, 5]
    b = stats.buckets([1_000, 20_000, 21_000, 900_000], [0.001, 0.002, 0.004, 0.010])
    assert [(lab, n) for lab, n, _, _ in b] == [("0–16 KB", 1), ("16–32 KB", 2), ("≥256 KB", 1)]
    assert b[1][3] == pytest.approx(3.0)  # median ms of the bucket


def test_staged_extract_is_extract():
    """The breakdown must time what Extractor.extract does: same text, every stage timed."""
    from ce_filter import Extractor

    ex = Extractor()
    for i, topic in enumerate(TOPICS):
        html = page(i, topic)[0].encode()
        text, secs = staged_extract(ex, html)
        assert text == ex.extract(html).text and text
        assert len(secs) == len(STAGES) and all(s >= 0 for s in secs)
    assert staged_extract(ex, b"<html><body></body></html>")[0] == ""


def test_bare_walk_visits_every_node():
    from selectolax.lexbor import LexborHTMLParser

    html = page(2, TOPICS[2])[0]
    tree = LexborHTMLParser(html)
    assert bare_walk(tree) == sum(1 for _ in tree.root.traverse(include_text=True))
    assert bare_walk(LexborHTMLParser("")) >= 1
    parse_s, walk_s = floor(html)
    assert parse_s > 0 and walk_s > 0


def test_guarded_counts_a_raising_peer():
    calls = iter([ValueError("bad page"), "text", None])

    def flaky(_data: bytes, _url: str | None = None) -> str | None:
        x = next(calls)
        if isinstance(x, Exception):
            raise x
        return x

    g = peers.Guarded(flaky)
    assert [g(b""), g(b""), g(b"")] == ["", "text", ""]
    assert g.errors == 1 and "bad page" in g.last_error


@pytest.mark.parametrize("name", peers.ALL)
def test_each_installed_tool_extracts_the_article(name, request):
    html, gold = page(3, TOPICS[3])
    if peers.foreign(name):  # needs a newer Python: made (scripts/bench_py312.sh) and run there
        from ce_filter.bench.measure import tool_outputs

        request.getfixturevalue("py312")
        r = tool_outputs(name, [(html.encode(), "https://example.org/news/1")], timeout=300)
        assert r["ok"] and r["errors"] == 0, r
        text = r["outputs"][0]
    else:
        if not peers.available(name):
            pytest.skip(f"{name} not installed (pip install -e '.[bench]')")
        fn = peers.make(name)
        text = fn(html.encode())
        assert fn.errors == 0, fn.last_error
    assert "supporters argued" in text, f"{name}: {text[:200]!r}"


def test_ce_filter_with_metadata_is_the_same_text_with_every_field_read(monkeypatch):

    calls = []
    import ce_filter.keep.result as extraction

    real = extraction.metadata_fields
    monkeypatch.setattr(extraction, "metadata_fields", lambda *a: calls.append(1) or real(*a))
    html = page(3, TOPICS[3])[0].encode()
    plain, full = peers.make("ce-filter"), peers.make("ce-filter+metadata")
    assert plain(html) == full(html) and "supporters argued" in plain(html)
    assert len(calls) == 1  # full only: plain reads the text alone (twice)
    assert peers.OURS == peers.ALL[:2] and not set(peers.OURS) & set(peers.PEERS)


def test_parse_tools():
    assert peers.parse_tools("all") == list(peers.ALL)
    assert peers.parse_tools("html-text,resiliparse") == ["ce-filter", "html-text", "resiliparse"]
    with pytest.raises(ValueError, match="unknown tool"):
        peers.parse_tools("nope")


def test_update_doc_replaces_only_its_section(tmp_path):
    doc = tmp_path / "B.md"
    doc.write_text(f"# Bench\n\nhand text\n\n{BEGIN.format('speed')}\nold\n{END.format('speed')}\n\ntail\n")
    update_doc(doc, {"speed": "new $1 \\1 table", "quality": "q table"})
    text = doc.read_text()
    assert "hand text" in text and "tail" in text and "old" not in text
    assert "new $1 \\1 table" in text  # no regex escapes
    assert text.index(BEGIN.format("quality")) > text.index("tail")
    update_doc(doc, {"quality": "q2"})
    assert "q2" in doc.read_text() and "q table" not in doc.read_text() and "new $1" in doc.read_text()
