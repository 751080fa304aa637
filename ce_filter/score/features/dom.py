"""DOM features: the block's ancestor tags and opening tag, its place on the page and in the
tree, and the page's main container (readability's idea in vector form)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...read.segment import FLAG_NAMES, HEADINGS, Blocks, tag_ids

TAG_GROUPS = [
    ("p", tag_ids("p")), ("div", tag_ids("div")), ("li", tag_ids("li")), ("cell", tag_ids("td th")),
    ("head", HEADINGS), ("dd", tag_ids("dd dt")), ("pre", tag_ids("pre blockquote")),
    ("sect", tag_ids("article section main")), ("body", tag_ids("body html")),
    ("fig", tag_ids("figure figcaption caption")), ("form", tag_ids("form fieldset legend label")),
    ("hdrftr", tag_ids("header footer nav aside")),
]
# tag id -> its group's index (-1: none), as a lookup array (tag ids are < 0x10000)
TAG_GROUP_LUT = np.full(max(t for _, ids in TAG_GROUPS for t in ids) + 2, -1, dtype=np.int64)
for _k, (_, _ids_k) in enumerate(TAG_GROUPS):
    TAG_GROUP_LUT[sorted(_ids_k)] = _k


def _ranks(x: np.ndarray) -> np.ndarray:
    """Each element's place in x's stable sort (argsort of argsort, as one scatter)."""
    r = np.empty(len(x), dtype=np.int64)
    r[np.argsort(x, kind="stable")] = np.arange(len(x))
    return r


def group_sum(ids: np.ndarray, w: np.ndarray) -> np.ndarray:
    """For each block, the sum of ``w`` over the blocks with the same id (an element serial:
    small non-negative ints, so a bincount over them needs no np.unique). Summed in block
    order, as a unique + bincount would, so the floats are the same."""
    return np.bincount(ids, weights=w)[ids]


MAIN_SHARE = 0.5  # the main container holds at least this share of the page's prose


def _main_container(cont: np.ndarray, n_tok: np.ndarray, ld: np.ndarray
                    ) -> tuple[list[str], list[np.ndarray]]:
    """Readability's idea in vector form: 'prose' (long, link-poor blocks) is summed into every
    ancestor; the deepest ancestor holding MAIN_SHARE of it is the main container. Features:
    inside it or not, levels below it, and the prose share of the block's nearest ancestors."""
    n = len(n_tok)
    prose = np.where(n_tok >= 8, (n_tok * (1.0 - ld)) ** 1.5, 0.0)
    total = prose.sum()
    names = ["main_box", "below_main_box", "prose1", "prose2", "prose4"]
    if n == 0 or total <= 0:
        return names, [np.zeros(n)] * len(names)
    # element serials index the arrays directly (they are small ints; 0 = no element)
    flat = cont.ravel()
    mass = np.bincount(flat, weights=np.repeat(prose, cont.shape[1]))
    mass[0] = 0.0
    # the elements holding enough prose (each is on some block's path: mass is summed over
    # the paths); the deepest of them is the one with the least prose still over the share
    cand = np.flatnonzero(mass >= MAIN_SHARE * total)
    if len(cand):
        best = cand[np.argmin(mass[cand])]
        hit = cont == best
        in_main = hit.any(axis=1).astype(np.float64)
        below = np.where(in_main > 0, hit.argmax(axis=1), -1).astype(np.float64)
    else:
        in_main = np.zeros(n)
        below = np.full(n, -1.0)
    share = mass[cont] / total
    return names, [in_main, below, share[:, 1], share[:, 2], share[:, min(4, cont.shape[1] - 1)]]


def dom_columns(b: Blocks, n_chr: np.ndarray, n_tok: np.ndarray, n_tags: np.ndarray,
                tag: np.ndarray, ld: np.ndarray, td: np.ndarray, log_tok: np.ndarray
                ) -> tuple[list[str], list[np.ndarray | float]]:
    """The "dom" group's columns (the block's shallow figures are passed in: computed once);
    a float is a page-level figure, the same on every block."""
    n = len(b)
    names: list[str] = []
    cols: list[np.ndarray | float] = []

    def add(ns: list[str], cs: Sequence[np.ndarray | float]) -> None:
        names.extend(ns)
        cols.extend(cs)

    flags = np.asarray(b.flags, dtype=np.int64)
    total = max(n_tok.sum(), 1.0)
    # bit k of each block's flags as column k (the flags' low bytes unpacked: FLAG_NAMES < 32)
    bits = np.unpackbits(flags.astype("<u4").view(np.uint8).reshape(n, 4), axis=1, bitorder="little")
    add([f"in_{f}" for f in FLAG_NAMES], [bits[:, : len(FLAG_NAMES)].astype(np.float64)])
    grp = TAG_GROUP_LUT[np.minimum(tag, len(TAG_GROUP_LUT) - 1)]
    add([f"tag_{k}" for k, _ in TAG_GROUPS],
        [(grp[:, None] == np.arange(len(TAG_GROUPS))).astype(np.float64)])
    depth = np.asarray(b.depth, dtype=np.float64)
    main = int(np.argmax(n_tok)) if n else 0
    cont = b.container_ids()
    mass = [group_sum(cont[:, lvl], n_tok) / total for lvl in range(3)]
    add(*_main_container(cont, n_tok, ld))
    pos = np.arange(n, dtype=np.float64) / max(n - 1, 1)
    cpos = (np.cumsum(n_chr) - n_chr) / max(n_chr.sum(), 1.0)
    n_a = ld * n_tok
    add(["page_ld", "page_log_tok", "top_share"],
        [float(n_a.sum() / total), float(np.log1p(total)), float(n_tok.max() / total) if n else 0.0])
    add(["td_rel", "tok_rank"],
        [td / max(td.max(), 1.0) if n else td,
         _ranks(-n_tok) / max(n - 1, 1)])
    add(["log_tok", "log_tags", "depth", "depth_vs_main", "same_parent_as_main", "pos",
         "char_pos", "mass0", "mass1", "mass2", "log_tok_vs_max", "n_blocks"],
        [log_tok, np.log1p(n_tags), np.log1p(depth), np.abs(depth - depth[main]) if n else depth,
         (cont[:, 1] == cont[main, 1]).astype(np.float64) if n else depth, pos, cpos,
         mass[0], mass[1], mass[2], log_tok - (log_tok.max() if n else 0.0),
         float(np.log1p(n))])
    return names, cols
