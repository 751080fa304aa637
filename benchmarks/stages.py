"""ce-filter's own time, stage by stage, and the floor it is compared with.

``staged_extract`` repeats ``Extractor.extract`` and the metadata rules (ce_filter/extractor.py) one
stage at a time, each stage run through ``call`` (by default: timed with the clock). It is the
one place that knows the internal names, so when the filter's internals are renamed only this
function changes; tests/bench checks that its text still equals ``Extractor.extract``'s and its
record ``to_dict()``'s. ``call`` is a hook so that the same sequence can be counted in machine
instructions (``benchmarks/callgrind_stages.py`` runs each stage through a named C function).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from selectolax.lexbor import LexborHTMLParser

    from ce_filter.extractor import Extractor
    from ce_filter.read.segment import Blocks

STAGES = ("decode", "pre-scan", "parse", "walk", "scores", "select", "metadata", "language")
# what each stage is (docs/BENCHMARKS.md, "Where a page's time goes")
STAGE_NOTES = {
    "decode": "bytes to text: the binary check, the charset (decode.decode_bytes), mojibake repair",
    "pre-scan": "the pre-parse cost scan (precheck.prepare: element count, attribute and depth work, "
                "a select's options past the cap renamed)",
    "parse": "Lexbor parses the text (segment.parse)",
    "walk": "the one C walk that cuts blocks and gathers what the features and rules read",
    "scores": "the page kind, the features, both model stages and the cut in one C call, after "
              "the class/id token sums and pattern bits (Extractor.score_page)",
    "select": "the rules after the cut, the thin-page rule and the kept text (Extractor.keep, "
              "render.to_text)",
    "metadata": "the metadata rules: head, JSON-LD, byline, date, title (metadata.extract_metadata)",
    "language": "the language of the kept text (language.page_language)",
}
# Each stage's allowed p50 ms per page on dragnet test (the bench's default pages): the
# "budget" column of the stage table, which marks a stage over it. The budgets add up to the
# whole record's: 1.6x the parse + walk floor (0.287 + 0.172 = 0.459 ms measured, so 0.734 ms).
# Parse and walk get what they measure (Lexbor itself and the one C walk: little left to take);
# the other six stages share the remaining 0.275 ms, the metadata at most 8 % of the record.
# A rule or a stage added later states its cost against its stage's line here.
RECORD_BUDGET_FACTOR = 1.6  # the record's p50 budget, in parse + walk budgets
METADATA_MAX_SHARE = 0.08  # the metadata rules' budget at most this share of the record's
STAGE_BUDGETS: dict[str, float] = {
    "decode": 0.020,  # a byte scan for the charset and the binary check: under a tenth of a parse
    "pre-scan": 0.020,  # one pass over the text counting tags: the same as decode
    "parse": 0.287,  # Lexbor parsing the page: measured, the floor's first half
    "walk": 0.172,  # the one C walk that cuts the blocks: measured, the floor's second half
    # an HTML scan, the block signals and the page-kind model (a quarter of the walk), the dense
    # columns from the walk's counts and the tokens (a third of the walk), both stages' scores
    # and the cut over the blocks: one C call
    "scores": 0.120,
    "select": 0.040,  # the rules after the cut and the text joined: passes over the kept blocks
    "metadata": 0.055,  # the rules over what the walk collected: 7.5 % of the record
    "language": 0.020,  # the first 200 characters of the kept text
}

T = TypeVar("T")


class Call(Protocol):
    """``call(i, fn)``: runs stage ``i``'s ``fn`` and returns its result."""

    def __call__(self, i: int, fn: Callable[[], T], /) -> T: ...


def _timed(secs: list[float]) -> Call:
    clock = time.perf_counter

    def call(i: int, fn: Callable[[], T]) -> T:
        t0 = clock()
        out = fn()
        secs[i] += clock() - t0
        return out

    return call


def staged_extract(ex: Extractor, data: bytes, url: str | None = None, call: Call | None = None,
                   ) -> tuple[str, list[float]]:
    """(text, seconds per stage in STAGES order) for one page, as ``ex.extract(data, url)``
    followed by reading every metadata field does it. ``call(i, fn)`` runs stage ``i``'s
    ``fn`` and returns its result (default: timed into the seconds returned)."""
    from ce_filter import api

    secs = [0.0] * len(STAGES)
    run = call or _timed(secs)
    text, blocks = _staged(ex, data, url, run)
    if blocks is not None and ex.metadata:
        page_head, extract_metadata, page_language, declared = api.metadata_rules()
        # as api.metadata_fields: the language first, the dates read in it
        hd = run(6, lambda: page_head(blocks.head, blocks.title))
        lang = run(7, lambda: page_language(text, hd.lang))
        run(6, lambda: extract_metadata(hd, url, blocks.texts, api.h1_positions(blocks),
                                        (declared(hd.lang), lang)))
    return text, secs


def _staged(ex: Extractor, data: bytes, url: str | None, run: Call) -> tuple[str, Blocks | None]:
    """Extractor.extract's steps (ce_filter.read.page, then the Extractor's), one by one (bytes
    input only): the kept text and the blocks (None where the page was refused before
    parsing)."""
    from ce_filter.keep.render import to_text
    from ce_filter.read.page import decode_input, parse_page, precheck, segment_page

    d = run(0, lambda: decode_input(data, None, ex.max_bytes))
    p = run(1, lambda: precheck(d, ex.limits))
    if p.reason:
        return "", None
    p = run(2, lambda: parse_page(p))
    p = run(3, lambda: segment_page(p))
    blocks, html = p.blocks, p.text
    assert blocks is not None  # a page not refused is parsed and segmented
    if not len(blocks):
        return "", blocks
    kind, _, scores, cut, site_in = run(4, lambda: ex.score_page(blocks, html, url))
    seen = None if site_in is None else site_in[1] > 0

    def select() -> str:
        keep = ex.keep(blocks, scores, kind, len(html), seen=seen, cut=cut)[0]
        return to_text(blocks, keep)

    return run(5, select), blocks


def bare_walk(tree: LexborHTMLParser) -> int:
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
            nxt = node.next  # type: ignore[union-attr]  # below the root (depth > 0) a node has a parent
            if nxt is not None:
                node = nxt
                break
            node = node.parent  # type: ignore[union-attr]  # (the same)
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
