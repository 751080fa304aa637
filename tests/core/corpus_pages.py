"""Every page of the labelled corpora, segmented: for the checks that a compiled part gives
its reference's values on all of them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ce_filter.read.decode import decode_html
from ce_filter.read.segment import Blocks, parse, segment


def every_page(data_dir: Path) -> Iterator[tuple[str, Any, str, Blocks]]:
    """(corpus name, doc, decoded page, its blocks) for every page of every corpus."""
    from ce_filter.learn.corpus import load_corpus

    for corpus in sorted(p for p in data_dir.iterdir() if (p / "html").is_dir()):
        for doc in load_corpus(corpus):
            html, _ = decode_html(doc.html)
            yield corpus.name, doc, html, segment(parse(html))
