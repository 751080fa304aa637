"""A page's steps (ce_filter.read.page, Extractor.page) and the site memory's policy and protocol
(ExtractOptions.site_memory, site.memory.Memory)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from ce_filter import Extractor
from ce_filter.options import SITE_POLICIES, ExtractOptions, UsageError
from ce_filter.read.page import (
    Page,
    decode,
    decode_input,
    parse_page,
    precheck,
    read,
    segment_page,
)
from ce_filter.read.precheck import Limits
from ce_filter.score.site.memory import Memory, SiteCounts, SiteMemory

ARTICLE = ("<html><head><title>T</title></head><body><nav><a href='/'>Home</a></nav><article>"
           "<h1>A headline</h1>" + "".join(f"<p>Paragraph {i} of the article, with enough words "
                                           f"to be read as content by the model.</p>" for i in range(8))
           + "</article><footer>Contact us</footer></body></html>")


def test_read_is_its_steps():
    data = ARTICLE.encode()
    p = read(data)
    step = segment_page(parse_page(precheck(decode_input(data))))
    assert isinstance(p, Page) and p.reason == "" and p.encoding == "utf-8"
    assert p.utf8 == data and p.blocks is not None and p.blocks.texts == step.blocks.texts
    assert decode(data).text == p.text and p.kept is None  # the model's steps are the Extractor's


@pytest.mark.parametrize("data, reason", [(None, "no input"), (b"  ", "empty input"),
                                          (b"\x89PNG\r\n\x1a\n" + b"x" * 100, "binary content")])
def test_a_refused_page_has_no_tree(data, reason):
    p = read(data)
    assert p.reason == reason and p.text == "" and p.tree is None and p.blocks is None


def test_the_caps_cut_or_refuse_before_the_parse():
    data = ("<html><body>" + "<p>a words here</p>" * 500 + "</body></html>").encode()
    cut = read(data, max_bytes=200)
    assert cut.truncated and len(cut.text) <= 200
    p = read(data, limits=Limits(max_elements=50))
    assert p.truncated or p.reason  # past the element cap: cut there, or refused
    with pytest.raises(TypeError):
        read(42)  # type: ignore[arg-type]


def test_extract_is_page_then_extraction():
    ex = Extractor()
    p = ex.page(ARTICLE.encode(), "http://example.com/a")
    assert p.blocks is not None and p.scores is not None and p.kept is not None
    assert len(p.kept) == len(p.blocks) and p.site is None
    r = ex.extraction(p, "http://example.com/a")
    assert r.text == ex.extract(ARTICLE.encode(), "http://example.com/a").text
    assert r.blocks_kept == int(p.kept.sum()) and r.title
    assert ex.decode(ARTICLE.encode())[0] == p.text


def test_the_policy_is_one_typed_value():
    assert SITE_POLICIES == ("off", "stream", "two-pass")
    assert ExtractOptions().site_memory == "off" and ExtractOptions().site_source() is None
    assert "site_memory" not in ExtractOptions().extractor_options()
    stream = ExtractOptions(site_memory="stream")
    assert isinstance(stream.site_source(), SiteMemory)
    assert stream.site_source() is not stream.site_source()  # each Extractor its own stream
    counts = SiteCounts()
    two = ExtractOptions().with_counts(counts)
    assert two.site_memory == "two-pass" and two.site_source() is counts
    assert two.extractor_options()["site_memory"] is counts
    assert two.alone() == ExtractOptions()
    assert pickle.loads(pickle.dumps(two)).site_memory == "two-pass"
    for bad in (dict(site_memory="yes"), dict(site_memory="two-pass"),
                dict(site_memory="stream", site_counts=counts)):
        with pytest.raises(UsageError):
            ExtractOptions(**bad)  # type: ignore[arg-type]


def test_the_extractor_takes_what_implements_the_protocol():
    assert isinstance(SiteMemory(), Memory) and isinstance(SiteCounts(), Memory)

    class Mine:  # any value with the protocol's methods
        def __init__(self) -> None:
            self.observed: list[str] = []

        def seen(self, host: str, fps: np.ndarray) -> tuple[np.ndarray, int]:
            return np.zeros(len(fps)), 0

        def observe(self, host: str, fps: np.ndarray, key: str = "") -> None:
            self.observed.append(key)

    mine = Mine()
    ex = Extractor(site_memory=mine)
    p = ex.page(ARTICLE.encode(), "http://example.com/a")
    assert mine.observed == ["http://example.com/a"] and p.site is not None and p.site[2] == 0
    for bad in (True, 42, "stream"):
        with pytest.raises(TypeError):
            Extractor(site_memory=bad)  # type: ignore[arg-type]


def test_every_page_of_input_goes_through_the_page_steps():
    """No product module parses and walks a page of input by itself (``segment(parse(html))``
    skips the decode and the pre-parse caps every stage goes through): only ce_filter/read/page.py
    does, and the C parts' probes on their own fixed probe pages (names ending in PROBE...)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    found = []
    for folder in ("ce_filter", "crawler", "pipelines", "benchmarks"):
        for path in (root / folder).rglob("*.py"):
            rel = path.relative_to(root).as_posix()
            if rel == "ce_filter/read/page.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "segment"
                        and node.args and isinstance(node.args[0], ast.Call)
                        and getattr(node.args[0].func, "id", "") == "parse"):
                    continue
                arg = node.args[0].args[0] if node.args[0].args else None
                if isinstance(arg, ast.Name) and "PROBE" in arg.id:
                    continue
                found.append(f"{rel}:{node.lineno}")
    assert not found, found
