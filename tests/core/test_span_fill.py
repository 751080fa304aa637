"""The span rule after the cut (kindrules.fill_span, Extractor.span_added): on a page read as
documentation or as a collection, the blocks between the first and the last kept block that
reach the kind's level and sit in no nav/aside/header/footer/form are kept too; on other
kinds nothing changes."""

from __future__ import annotations

import numpy as np

from ce_filter.api import Extractor
from ce_filter.keep.kindrules import SPAN_FILL, fill_span
from ce_filter.read.segment import FLAG_NAMES, FLAG_PRE, parse, segment
from ce_filter.score.blockmodel import FALLBACK_REL, select_c

_BIT = {n: 1 << i for i, n in enumerate(FLAG_NAMES)}
PAGE = ("<html><head><title>asyncio API</title></head><body><nav><ul><li><a href='/'>Home</a></li>"
        "<li><a href='/api'>API</a></li></ul></nav><main><h1>The event loop</h1>"
        "<p>The event loop runs asynchronous tasks and callbacks, performs network IO operations "
        "and runs subprocesses.</p><dl><dt>loop.run_until_complete(future)</dt><dd>Run until the "
        "future has completed.</dd><dt>loop.stop()</dt><dd>Stop the event loop.</dd></dl>"
        "<div class='note'>Note: this method is idempotent.</div>"
        "<p>Application developers should typically use the high-level asyncio functions and "
        "rarely need to reference the loop object.</p></main>"
        "<footer><p>Copyright the project.</p></footer></body></html>")


def test_fill_span_adds_the_gaps_of_the_kept_span_only() -> None:
    keep = np.array([False, True, False, False, False, True, False])
    scores = np.array([0.9, 0.8, 0.2, 0.03, 0.3, 0.9, 0.9])
    flags = np.array([0, 0, 0, 0, _BIT["nav"], 0, 0])
    # block 2 reaches the level; 3 does not; 4 sits in a nav; 0 and 6 lie outside the span
    assert np.flatnonzero(fill_span(keep, scores, flags, 0.05)).tolist() == [2]
    assert np.flatnonzero(fill_span(keep, scores, flags, 0.0)).tolist() == [2, 3]
    for bit in ("aside", "header", "footer", "form"):
        assert not fill_span(keep, scores, np.array([0, 0, _BIT[bit], 0, 0, 0, 0]), 0.0)[2]
    # with a site memory, a block the host's other pages hold is not added back
    seen = np.array([False, False, True, False, False, False, False])
    assert not fill_span(keep, scores, flags, 0.0, seen)[2] and fill_span(keep, scores, flags, 0.0, seen)[3]
    # fewer than two kept blocks: no span to fill
    one = np.array([False, True, False, False, False, False, False])
    assert not fill_span(one, scores, flags, 0.0).any()
    assert not fill_span(np.zeros(0, dtype=bool), np.zeros(0), np.zeros(0, dtype=np.int64), 0.0).any()


def test_extractor_fills_the_span_on_the_kinds_of_the_rule_only() -> None:
    ex = Extractor()
    assert ex.kind_model is not None
    kinds = ex.kind_model.kinds
    blocks = segment(parse(PAGE))
    n = len(blocks)
    # every block in the middle scored low but above the levels, the first and the last kept
    scores = np.full(n, 0.2)
    scores[0] = scores[-1] = 0.9
    flags = np.asarray(blocks.flags, dtype=np.int64)
    for k in kinds:
        kind = np.eye(len(kinds))[kinds.index(k)]
        keep = ex.decide(blocks, scores, kind)[0]
        base = select_c(scores, ex.cut(kind), flags, FLAG_PRE, FALLBACK_REL)
        if k in SPAN_FILL:
            outside = (flags & (_BIT["nav"] | _BIT["aside"] | _BIT["header"] | _BIT["footer"]
                                | _BIT["form"])) != 0
            assert keep.tolist() == (base | ~outside).tolist()
            assert ex.span_added(base, scores, flags, kind) is not None
        else:
            assert keep.tolist() == base.tolist()
            assert ex.span_added(base, scores, flags, kind) is None
    # without kind probabilities, no rule
    assert ex.span_added(select_c(scores, ex.threshold, flags, FLAG_PRE, FALLBACK_REL), scores,
                         flags, None) is None


def test_explain_names_the_blocks_the_span_rule_kept() -> None:
    from ce_filter.explain import explain

    class Doc(Extractor):  # the page read as documentation, whatever the model says
        def kind_name(self, kind: np.ndarray | None) -> str | None:
            return None if kind is None else "documentation"

    data = explain(PAGE, extractor=Doc())
    named = [b for b in data["blocks"] if b.get("group", "").startswith("kept inside the kept span")]
    assert named and all(b["kept"] for b in named)
    text = Doc().extract(PAGE).text
    assert all(b["text"][:20] in text for b in named)
