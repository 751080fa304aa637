"""The serving path's dense columns and stage 2's input through the C part (_dense.c).

The numpy code of the groups (shallow, cetr, dom, rx, head, kind; context.context_features)
is the reference: ``page_inputs`` and ``context_inputs`` give the same values bit for bit
(the models were fitted on the reference's). Where numpy's own functions decide the bits
(log1p, ** 1.5, pairwise sums, the smoothing convolution, CETR's k-means) numpy still does
them, once per page on stacked inputs; the C part does the rest in two passes instead of
~150 array calls. Used where ce_filter.score.features._dense is built, not switched off
(CE_FILTER_PURE_PYTHON) and agrees with the reference on a probe page (at first use: the probe
compares with the package's reference columns, features/__init__, which imports this module).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

import numpy as np

from ... import native
from ...read.segment import FLAG_NAMES, PATH_LEN, Blocks, parse, segment
from ..pagekind import KINDS
from .cetr import kmeans_verdict, smooth
from .context import CONTAINER_LEVELS, CONTEXT, context_features
from .dom import TAG_GROUP_LUT, TAG_GROUPS
from .headings import BOILER_HEADING, HEADING_MAX_WORDS, NEGATIVE, UNLIKELY
from .rx import RX, RX_LEVELS, RX_MATCHER, RX_NAMES
from .spec import AFTER_GROUPS, FeatureSpec, TokenRows

if TYPE_CHECKING:
    from types import ModuleType

# the groups the C part fills (with ic's token lists, which Model.scores sums itself), their
# widths, in the order features.group_columns puts them
_ORDER = (("st", 6), ("cetr", 4), ("ic", 0), ("dom", 54), ("rx", 6 * len(RX_NAMES)), ("head", 4),
          ("kind", 4 * len(KINDS)))
_WIDTH = dict(_ORDER)
_AFTER = frozenset(AFTER_GROUPS)
_HEAD_GROUP = [g for g, _ in TAG_GROUPS].index("head")  # h1-h6, as headings.py's _IS_HEADING
_NO_RX = np.zeros((0, 0))


class DenseC(Protocol):
    """The functions of the C part (score/features/_dense.c) that Python calls: the two passes
    of the dense columns (the first also gives the heading blocks and the short ones among
    them) and stage 2's context input, each into ``out``."""

    def dense_a(self, n: int, path_len: int, width: int, counts: np.ndarray, tag: np.ndarray,
                n_tags: np.ndarray, depth: np.ndarray, flags: np.ndarray, cont: np.ndarray,
                tag_group_lut: np.ndarray, out: np.ndarray, lin: np.ndarray, w: np.ndarray, off_st: int,
                off_dom: int, head_group: int, heading_max_words: int, /) -> tuple[list[int], list[int]]: ...

    def dense_b(self, n: int, path_len: int, width: int, lg: np.ndarray, w: np.ndarray, prose: np.ndarray,
                prose_sum: float, link_words: float, g: np.ndarray, cont: np.ndarray, kind: np.ndarray,
                out: np.ndarray, off_cetr: int, off_dom: int, off_kind: int, rx: np.ndarray,
                heads: list[int], lex: list[int], off_head: int, rx_width: int, unlikely: int,
                negative: int, /) -> None: ...

    def context(self, n: int, s: np.ndarray, cont: np.ndarray | None, weight: np.ndarray | None,
                page_rel: bool, s_sum: float, path_len: int, out: np.ndarray, /) -> None: ...


def handles(spec: FeatureSpec) -> bool:
    """Whether the C part computes this model's inputs (the shipped models' groups)."""
    return _c_part() is not None and set(spec.groups) - _AFTER <= _WIDTH.keys()


def _layout(spec: FeatureSpec) -> tuple[dict[str, int], int]:
    """Each group's first column (-1: not in the model) and the dense width (cached)."""
    lay = spec.__dict__.get("_dense_layout")
    if lay is None:
        off, j = {}, 0
        for g, w in _ORDER:
            off[g] = j if g in spec.groups else -1
            j += w if g in spec.groups else 0
        lay = spec.__dict__["_dense_layout"] = (off, j)
    return lay


def page_inputs(b: Blocks, spec: FeatureSpec, kind: np.ndarray | None = None, extra: int = 0
                ) -> tuple[np.ndarray, list[TokenRows]]:
    """features.page_inputs for a page of at least one block and a spec that ``handles``.
    ``extra`` columns are left at the end of each row, unset, for the groups the C part leaves
    to the caller (_AFTER): filled in place, not appended by a copy of the whole matrix."""
    return _page_inputs(cast(DenseC, _c_part()), b, spec, kind, extra)  # loaded: ``handles``


def _page_inputs(c: DenseC, b: Blocks, spec: FeatureSpec, kind: np.ndarray | None, extra: int
                 ) -> tuple[np.ndarray, list[TokenRows]]:
    """``page_inputs`` through the C part ``c``."""
    n = len(b)
    off, width = _layout(spec)
    cnt = b.counts()
    cont = b.container_ids()
    tag = np.ascontiguousarray(b.tag, dtype=np.int64)
    out = np.empty((n, width + extra))
    width += extra  # the C part's row stride; its groups sit at their offsets within a row
    lin = np.empty(4 * n + 2)  # log1p's inputs
    w = np.empty(4 * n + 1)  # td, ld, prose base, link words, the page's words
    heads, short = c.dense_a(n, PATH_LEN, width, cnt, tag,
                             np.ascontiguousarray(b.n_tags, dtype=np.float64),
                             np.ascontiguousarray(b.depth, dtype=np.float64),
                             np.ascontiguousarray(b.flags, dtype=np.int64), cont, TAG_GROUP_LUT,
                             out, lin, w, off["st"], off["dom"], _HEAD_GROUP, HEADING_MAX_WORDS)
    lg = np.log1p(lin)
    prose = w[2 * n:3 * n] ** 1.5
    g = smooth(lg[3 * n:4 * n]) if off["cetr"] >= 0 else lg
    p = np.zeros(len(KINDS)) if kind is None else np.ascontiguousarray(kind, dtype=np.float64)
    rx = _NO_RX  # read only for head
    if off["rx"] >= 0 or off["head"] >= 0:  # rx.rx_columns' matrix
        rx = b.pattern_columns(RX, RX_MATCHER, RX_LEVELS, len(RX_NAMES))
        if off["rx"] >= 0:
            out[:, off["rx"]:off["rx"] + rx.shape[1]] = rx
    texts, search = b.texts, BOILER_HEADING.search
    lex = [i for i in short if search(texts[i].lower()) is not None] if off["head"] >= 0 else []
    c.dense_b(n, PATH_LEN, width, lg, w, prose, float(prose.sum()), float(w[3 * n:4 * n].sum()),
              g, cont, p, out, off["cetr"], off["dom"], off["kind"], np.ascontiguousarray(rx),
              heads, lex, off["head"], rx.shape[1], UNLIKELY, NEGATIVE)
    if off["cetr"] >= 0:
        out[:, off["cetr"] + 3] = kmeans_verdict(g, out[:, off["cetr"] + 2])
    tokens: list[TokenRows] = []
    if off["ic"] >= 0:
        v_own, v_anc, _ = spec.vocabs()
        tokens = [("ic_own:", b.own_tokens, v_own), ("ic_anc:", b.anc_tokens, v_anc)]
    return out, tokens


def context_inputs(s: np.ndarray, cont: np.ndarray | None = None,
                   weight: np.ndarray | None = None, page_rel: bool = False) -> np.ndarray:
    """context.context_features (stage 2's input), through the C part where it is built."""
    c = _c_part()
    if c is None or len(s) == 0:
        return context_features(s, cont, weight, page_rel)
    return _context_inputs(c, s, cont, weight, page_rel)


def _context_inputs(c: DenseC, s: np.ndarray, cont: np.ndarray | None, weight: np.ndarray | None,
                    page_rel: bool) -> np.ndarray:
    """``context_inputs`` of a page of at least one block through the C part ``c``."""
    n = len(s)
    out = np.empty((n, 2 * CONTEXT + 4 + len(CONTAINER_LEVELS) + int(page_rel)))
    s = np.ascontiguousarray(s, dtype=np.float64)
    c.context(n, s, None if cont is None else np.ascontiguousarray(cont, dtype=np.int64),
              None if weight is None else np.ascontiguousarray(weight, dtype=np.float64),
              page_rel, float(s.sum()), PATH_LEN if cont is None else cont.shape[1], out)
    return out


# a page with what the columns branch on: prose and link lists, headings, nesting, repeated
# values (rank ties), a block under 80 and over 80 characters
_PROBE = """<html><head><title>Probe</title></head><body><header class="masthead"><nav><ul>
<li><a href="/">Home</a></li><li><a href="/a">About us</a></li><li>Plain item</li></ul></nav>
</header><main><article class="post-body"><h1>A title of the probe</h1>
<p>The first paragraph has enough words to count as prose for the main container, and a
<a href="/x">link</a> inside it, so that its link density is neither zero nor one.</p>
<div><p>Second paragraph, shorter.</p><blockquote>Quoted words here and there again.</blockquote>
<pre>code = 1</pre></div><h2>Comments</h2><div class="comment"><p>A reply with words.</p></div>
<table><tr><td>cell one</td><td>cell two</td></tr></table></article></main>
<footer><p>Footer text &copy; 2024</p></footer></body></html>"""


def _c_part() -> DenseC | None:
    """ce_filter.score.features._dense, or None: not built, switched off, or disagreeing with the
    reference on the probe page (then it is not trusted at all). Probed at first use."""
    return native.probed("score.features._dense", "the numpy features", _agrees)


def _agrees(mod: ModuleType) -> bool:
    """Whether the C part's columns and context input are the reference's on the probe page."""
    if len(FLAG_NAMES) != 20 or len(TAG_GROUPS) != 12 or len(KINDS) != 7:
        return False  # the C part's constants no longer match
    from . import group_columns, stack_columns  # the reference (features/__init__ is loaded by now)

    blocks = segment(parse(_PROBE))
    spec = FeatureSpec(tuple(g for g, _ in _ORDER), ["post", "body"], ["comment"])
    kind = np.linspace(0.05, 0.3, len(KINDS))
    s = np.linspace(0.1, 0.9, len(blocks)) ** 2
    x = _page_inputs(mod, blocks, spec, kind, 0)[0]
    c = [_context_inputs(mod, s, *a) for a in ((blocks.container_ids(), blocks.token_counts(), True),
                                               (None, None, False))]
    ref = stack_columns(len(blocks), group_columns(blocks, spec, tokens=[], kind=kind))
    return bool(np.array_equal(x, ref)
                and all(np.array_equal(u, context_features(s, *a)) for u, a in
                        zip(c, ((blocks.container_ids(), blocks.token_counts(), True), (None, None, False)))))
