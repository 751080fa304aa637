"""The dense block features of the groups st, cetr, dom, rx, head and kind: one call of the C
part (score/features/_dense.c), which defines them; and the repeated items' group (ritem,
features.repitem), a second call of the same part.

The C code is the one implementation in the product: the shipped models are fitted on its
values. numpy versions of the same groups live under tests/oracles and check it at a stated
tolerance (tests/core/test_dense.py). What the C part does not do: the class/id pattern bits
(the walk's ``Blocks.pattern_columns``), handed to it. The boilerplate-heading lexicon is
matched in it too (ce_filter/_phrases.h: the phrases between word boundaries of the lower-cased
title, as a regular expression would find them; ``phrases``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NewType, Protocol, cast

import numpy as np

from ... import native
from ...read.segment import FLAG_NAMES, PATH_LEN, Blocks
from ...read.texts import TextColumn
from ..pagekind import KINDS
from .dom import TAG_GROUP_LUT, TAG_GROUPS
from .headings import BOILER_WORDS, HEADING_MAX_WORDS, NEGATIVE, UNLIKELY
from .rx import RX, RX_LEVELS, RX_MATCHER, RX_NAMES
from .spec import AFTER_GROUPS, FeatureSpec, TokenRows

ST_NAMES = ("td", "ld", "td_prev", "ld_prev", "td_next", "ld_next")
CETR_NAMES = ("cetr_ttr", "cetr_smooth", "cetr_deriv", "cetr_cluster")
DOM_NAMES = (tuple(f"in_{f}" for f in FLAG_NAMES) + tuple(f"tag_{k}" for k, _ in TAG_GROUPS)
             + ("main_box", "below_main_box", "prose1", "prose2", "prose4", "page_ld",
                "page_log_tok", "top_share", "td_rel", "tok_rank", "log_tok", "log_tags", "depth",
                "depth_vs_main", "same_parent_as_main", "pos", "char_pos", "mass0", "mass1",
                "mass2", "log_tok_vs_max", "n_blocks"))
RX_COLUMN_NAMES = (tuple(f"rx{lvl}_{r}" for lvl in range(RX_LEVELS + 1) for r in RX_NAMES)
                   + tuple(f"rx_anc_{r}" for r in RX_NAMES))
HEAD_NAMES = ("head_lex", "head_rx", "gov_head_lex", "gov_head_rx")
# the ritem group (features.repitem), filled by its own call: it reads the blocks' texts (prices)
RITEM_NAMES = ("ri_items", "ri_share", "ri_link", "ri_words", "ri_head", "ri_price", "ri_is_head")
KIND_X = ("log_tok", "ld", "td")  # the block figures the kind probabilities multiply
KIND_NAMES = (tuple(f"kind_{k}" for k in KINDS)
              + tuple(f"kind_{k}*{xn}" for xn in KIND_X for k in KINDS))

# the groups the C part fills, their column names, in the order features.group_columns puts them
# (ic's token lists sit between cetr and dom: Model.scores sums their weights itself)
NAMES: dict[str, tuple[str, ...]] = {"st": ST_NAMES, "cetr": CETR_NAMES, "dom": DOM_NAMES,
                                     "rx": RX_COLUMN_NAMES, "head": HEAD_NAMES, "kind": KIND_NAMES}
_ORDER = ("st", "cetr", "ic", "dom", "rx", "head", "kind")
_AFTER = frozenset(AFTER_GROUPS)
HEAD_GROUP = [g for g, _ in TAG_GROUPS].index("head")  # h1-h6
_IS_HEAD = TAG_GROUP_LUT == HEAD_GROUP
_IS_HEAD_U8 = _IS_HEAD.astype(np.uint8)
_NO_KIND = np.zeros(len(KINDS))
_NO_RX = np.zeros(0)
# a whole row of every C group, for the general path (features.group_columns)
ALL_OFFSETS: dict[str, int] = {}
_j = 0
for _g in _ORDER:
    ALL_OFFSETS[_g] = _j if _g in NAMES else -1
    _j += len(NAMES.get(_g, ()))
ALL_WIDTH = _j


Phrases = NewType("Phrases", object)  # a capsule of compiled phrases (``phrases``)


class DenseC(Protocol):
    """The functions of the C part (score/features/_dense.c) that Python calls."""

    def features(self, n: int, path_len: int, width: int, counts: np.ndarray, tag: np.ndarray,
                 n_tags: np.ndarray, depth: np.ndarray, flags: np.ndarray, cont: np.ndarray,
                 tag_group_lut: np.ndarray, kind: np.ndarray, rx: np.ndarray, utf8: bytes,
                 starts: np.ndarray, lexicon: Phrases, head_max_words: float, out: np.ndarray,
                 o_st: int, o_cetr: int, o_dom: int, o_rx: int, o_kind: int, o_head: int,
                 head_group: int, rx_unlikely: int, rx_negative: int, /) -> None: ...

    def phrases(self, bounded: Sequence[str], unspaced: Sequence[str], slack: int, /) -> Phrases: ...

    def phrase_hits(self, phrases: Phrases, utf8: bytes, starts: np.ndarray, idx: np.ndarray,
                    out: np.ndarray, /) -> None: ...

    def smooth(self, x: np.ndarray, out: np.ndarray, /) -> None: ...

    def repeated(self, utf8: bytes, starts: np.ndarray, out: np.ndarray, /) -> None: ...

    def shop(self, counts: np.ndarray, tag: np.ndarray, tag_group_lut: np.ndarray, head_group: int,
             utf8: bytes, starts: np.ndarray, titles: Phrases, ic: np.ndarray, p: float,
             out: np.ndarray, /) -> None: ...

    def ritem(self, n: int, path_len: int, width: int, o: int, counts: np.ndarray, tag: np.ndarray,
              cont: np.ndarray, is_head: np.ndarray, texts: list[str], out: np.ndarray, /) -> None: ...


_C = cast(DenseC, native.required("_pass"))


def phrases(bounded: Sequence[str], unspaced: Sequence[str] = (), slack: int = 0) -> Phrases:
    """Lower-case phrases compiled for the C part (ce_filter/_phrases.h): a text holds one where
    ``re.search(r"\b(?:p1|p2|...)\b", text.lower())`` finds a ``bounded`` one, or an
    ``unspaced`` one (the scripts written without spaces) stands with at most ``slack`` other
    characters around it (white space at either end not counted)."""
    return _C.phrases(tuple(bounded), tuple(unspaced), slack)


def phrase_hits(texts: TextColumn, ph: Phrases, idx: np.ndarray) -> np.ndarray:
    """For the texts ``idx`` (int64) of a column (a page's: ``Blocks.text_column()``), whether
    each holds a phrase of ``ph``: one call without the GIL over the column's one string (the
    matcher alone, as the features and the shop cues run it: for the tests and the studies)."""
    idx = np.ascontiguousarray(idx, dtype=np.int64)
    out = np.zeros(len(idx), dtype=np.uint8)
    if len(idx):
        _C.phrase_hits(ph, *texts.c_args(), idx, out)
    return out.view(bool)


# the head group's lexicon (headings.BOILER_WORDS); research swaps it (``use_lexicon``)
_lexicon = phrases(BOILER_WORDS)


def use_lexicon(bounded: Sequence[str], unspaced: Sequence[str] = (), slack: int = 0) -> None:
    """Replace the head group's lexicon in this process (the lexicon studies, research/)."""
    global _lexicon
    _lexicon = phrases(bounded, unspaced, slack)


def handles(spec: FeatureSpec) -> bool:
    """Whether the model's dense columns are the C part's groups, then the last groups
    (AFTER_GROUPS) only: its matrix is filled in one pass, without the general path's copies."""
    return set(spec.groups) - _AFTER <= set(_ORDER)


def layout(spec: FeatureSpec) -> tuple[dict[str, int], int]:
    """Each C group's first column in the dense row (-1: not in the model) and the width of
    the C groups (cached on the spec)."""
    lay = spec.__dict__.get("_dense_layout")
    if lay is None:
        off, j = {}, 0
        for g in _ORDER:
            w = len(NAMES.get(g, ()))
            off[g] = j if g in spec.groups and w else -1
            j += w if g in spec.groups else 0
        lay = spec.__dict__["_dense_layout"] = (off, j)
    return lay


def page_inputs(b: Blocks, spec: FeatureSpec, kind: np.ndarray | None = None, extra: int = 0
                ) -> tuple[np.ndarray, list[TokenRows]]:
    """features.page_inputs for a page of at least one block and a spec that ``handles``.
    ``extra`` columns are left at the end of each row, unset, for the last groups (AFTER_GROUPS)
    the caller fills in place."""
    off, width = layout(spec)
    out = np.empty((len(b), width + extra))
    _fill(b, kind, out, off)
    tokens: list[TokenRows] = []
    if "ic" in spec.groups:
        v_own, v_anc, _ = spec.vocabs()
        tokens = [("ic_own:", b.own_tokens, v_own), ("ic_anc:", b.anc_tokens, v_anc)]
    return out, tokens


def all_columns(b: Blocks, kind: np.ndarray | None) -> dict[str, np.ndarray]:
    """Every C group's columns of the page (blocks x width each, views of one matrix): the
    general path's (features.group_columns) and the source of the block figures other groups
    read (td, ld, log words)."""
    out = np.empty((len(b), ALL_WIDTH))
    if len(b):
        _fill(b, kind, out, ALL_OFFSETS)
    return {g: out[:, j:j + len(NAMES[g])] for g, j in ALL_OFFSETS.items() if j >= 0}


# what the C part reads of a page (block_arrays)
BlockArrays = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                    np.ndarray, np.ndarray, bytes, np.ndarray, Phrases]


def block_arrays(b: Blocks, kind: np.ndarray | None, off: dict[str, int], *, rx: bool = True
                 ) -> BlockArrays:
    """What the C part reads of a page (a page of >= 1 block) for the groups at ``off``: the
    counts, tags, tag counts, depths, flags and ancestor ids, the kind probabilities, the class/id
    pattern bits (where rx or head is among the groups, unless ``rx=False``: the pass makes them
    itself), the texts and the heading lexicon."""
    bits = _NO_RX
    if rx and (off["rx"] >= 0 or off["head"] >= 0):
        bits = np.ascontiguousarray(b.pattern_columns(RX, RX_MATCHER, RX_LEVELS, len(RX_NAMES)))
    p = _NO_KIND if kind is None else np.ascontiguousarray(kind, dtype=np.float64)
    return (b.counts(), np.ascontiguousarray(b.tag, dtype=np.int64),
            np.ascontiguousarray(b.n_tags, dtype=np.float64),
            np.ascontiguousarray(b.depth, dtype=np.float64),
            np.ascontiguousarray(b.flags, dtype=np.int64), b.container_ids(), p, bits,
            *b.text_column().c_args(), _lexicon)


def _fill(b: Blocks, kind: np.ndarray | None, out: np.ndarray, off: dict[str, int]) -> None:
    """The C part's columns of the groups at ``off`` into ``out`` (a page of >= 1 block)."""
    cnt, tag, n_tags, depth, flags, cont, p, rx, utf8, starts, lexicon = block_arrays(b, kind, off)
    _C.features(len(b), PATH_LEN, out.shape[1], cnt, tag, n_tags, depth, flags, cont, TAG_GROUP_LUT,
                p, rx, utf8, starts, lexicon, HEADING_MAX_WORDS, out, off["st"], off["cetr"],
                off["dom"], off["rx"], off["kind"], off["head"], HEAD_GROUP, UNLIKELY, NEGATIVE)


def smooth(x: np.ndarray) -> np.ndarray:
    """CETR's Gaussian smoothing (sigma one block, the ends repeated) of any series."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    out = np.empty(len(x))
    _C.smooth(x, out)
    return out


def shop_cues(b: Blocks, titles: Phrases, ic: np.ndarray, p: float) -> np.ndarray:
    """The shop group's three cues of a page (blocks x 3: a text an earlier block has, a block
    under a shop section's title of ``titles``, the class/id column ``ic``), each times ``p``: in
    C (ce_filter/_pass.c shop_fill, which the pass runs in its call)."""
    out = np.empty((len(b), 3))
    _C.shop(b.counts(), np.ascontiguousarray(b.tag, dtype=np.int64), TAG_GROUP_LUT, HEAD_GROUP,
            *b.text_column().c_args(), titles, np.ascontiguousarray(ic, dtype=np.float64), p, out)
    return out


def repeated(b: Blocks) -> np.ndarray:
    """1.0 where a block's text is the same as an earlier block's (the later copies of a block
    shown twice), else 0.0, in C over the texts' one string: the shop group's first cue alone
    (``shop_cues`` computes it with the others), for the tests."""
    out = np.empty(len(b))
    _C.repeated(*b.text_column().c_args(), out)
    return out


def ritem(b: Blocks) -> np.ndarray:
    """The ritem group's columns (blocks x len(RITEM_NAMES)): features.repitem."""
    n = len(b)
    out = np.zeros((n, len(RITEM_NAMES)))
    if n:
        texts = b.texts if isinstance(b.texts, list) else list(b.texts)
        _C.ritem(n, PATH_LEN, out.shape[1], 0, b.counts(), np.ascontiguousarray(b.tag, dtype=np.int64),
                 b.container_ids(), _IS_HEAD_U8, texts, out)
    return out
