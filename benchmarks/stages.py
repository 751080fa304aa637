"""ce-filter's own time, stage by stage, and the floor it is compared with.

``staged_extract`` repeats ``Extractor.extract`` (ce_filter/api.py) with a clock between the
stages. It is the one place that knows the internal names, so when the filter's internals
are renamed only this function changes; tests/bench checks that its text still equals
``Extractor.extract``'s.
"""

from __future__ import annotations

import time
from typing import Any

STAGES = ("decode", "parse", "segment", "page kind", "features", "model", "assemble", "metadata")


def staged_extract(ex: Any, data: bytes) -> tuple[str, list[float]]:
    """(text, seconds per stage in STAGES order) for one page, as ``ex.extract(data)`` does it:
    decode is the bytes to text with the binary check and the pre-parse cost scan, page kind
    the page signals and the page-kind model, metadata the metadata rules and the language."""

    from ce_filter.api import BlockList, Extraction
    from ce_filter.features import page_inputs
    from ce_filter.segment import parse, segment

    clock = time.perf_counter
    t0 = clock()
    html, _enc, _cut, reason, utf8 = ex._decode(data)
    t1 = clock()
    if reason:
        return "", [t1 - t0] + [0.0] * (len(STAGES) - 1)
    tree = parse(html, utf8)
    t2 = clock()
    blocks = segment(tree)
    t3 = clock()
    if not len(blocks):
        return "", [t1 - t0, t2 - t1, t3 - t2] + [0.0] * (len(STAGES) - 3)
    kind, style = ex.page_context(blocks, html, None)
    t4 = clock()
    x, tokens = page_inputs(blocks, ex.model.spec, kind, style)
    t5 = clock()
    scores = ex.model.scores(x, tokens, blocks, kind, style)
    t6 = clock()
    keep = ex.keep(blocks, scores, kind, len(html))[0]
    text = "\n\n".join([t for t, k in zip(blocks.texts, keep) if k])
    out = Extraction(text, blocks.title, BlockList(blocks.texts, scores, keep))
    t7 = clock()
    if ex.metadata:
        for k, v in ex._metadata_fields(blocks, None, text).items():  # what settle() runs
            setattr(out, k, v)
    t8 = clock()
    return text, [t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t7 - t6, t8 - t7]


def bare_walk(tree: Any) -> int:
    """Visit every node once (first_child / next / parent, no stack), reading its tag id:
    the least any one-walk segmenter must do. Returns the node count."""
    node = tree.root
    depth = n = 0
    while node is not None:
        n += 1
        _ = node.tag_id
        child = node.first_child
        if child is not None:
            node = child
            depth += 1
            continue
        while depth > 0:
            nxt = node.next
            if nxt is not None:
                node = nxt
                break
            node = node.parent
            depth -= 1
        else:
            break
    return n


def floor(html: str) -> tuple[float, float]:
    """Seconds for (selectolax parse alone, parse + bare walk) of an already decoded page."""
    from selectolax.lexbor import LexborHTMLParser

    clock = time.perf_counter
    t0 = clock()
    LexborHTMLParser(html)
    t1 = clock()
    bare_walk(LexborHTMLParser(html))
    t2 = clock()
    return t1 - t0, t2 - t1
