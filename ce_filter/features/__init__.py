"""Block features: each group switchable (for the ablation), all computed per page with numpy."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..segment import (
    FLAG_NAMES,
    HEADINGS,
    KIND_CONTAINS,
    KIND_ENDS,
    KIND_EQUALS,
    PATH_LEN,
    Blocks,
    Patterns,
    _ids,
    token_matcher,
)
from .cetr import cetr_features, smooth
from .shallow import link_density, shifted, st_features, text_density
from .tokens import token_matrix

GROUPS = ("st", "cetr", "ic", "dom", "text", "ctx", "rx", "head")
_WORD = re.compile(r"\w+")

_TAG_GROUPS = [
    ("p", _ids("p")), ("div", _ids("div")), ("li", _ids("li")), ("cell", _ids("td th")),
    ("head", HEADINGS), ("dd", _ids("dd dt")), ("pre", _ids("pre blockquote")),
    ("sect", _ids("article section main")), ("body", _ids("body html")),
    ("fig", _ids("figure figcaption caption")), ("form", _ids("form fieldset legend label")),
    ("hdrftr", _ids("header footer nav aside")),
]
# tag id -> its group's index (-1: none), as a lookup array (tag ids are < 0x10000)
_TAG_GROUP_LUT = np.full(max(t for _, ids in _TAG_GROUPS for t in ids) + 2, -1, dtype=np.int64)
for _k, (_, _ids_k) in enumerate(_TAG_GROUPS):
    _TAG_GROUP_LUT[sorted(_ids_k)] = _k
_IS_HEADING = np.zeros(len(_TAG_GROUP_LUT), dtype=bool)  # by tag id (headings are a tag group)
_IS_HEADING[sorted(HEADINGS)] = True

STOPWORDS = frozenset(
    "the a an of to in and or is are was were be been it its that this with for on as at by from "
    "he she they we you i his her their our not but have has had will would can could which who "
    "what when there than then so if do does did no into about more also after over said".split()
)


@dataclass
class FeatureSpec:
    """Which feature groups a model uses and the learned token lists it needs."""

    groups: tuple[str, ...] = GROUPS
    ic_own: list[str] = field(default_factory=list)
    ic_anc: list[str] = field(default_factory=list)
    heading_words: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"groups": list(self.groups), "ic_own": self.ic_own, "ic_anc": self.ic_anc,
                "heading_words": self.heading_words}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> FeatureSpec:
        return cls(tuple(d["groups"]), list(d.get("ic_own", [])), list(d.get("ic_anc", [])),
                   list(d.get("heading_words", [])))

    def vocabs(self) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
        cache = self.__dict__.get("_vocabs")
        if cache is None:
            cache = tuple({t: i for i, t in enumerate(v)}
                          for v in (self.ic_own, self.ic_anc, self.heading_words))
            self.__dict__["_vocabs"] = cache
        return cache


# Character classes counted per block in one bincount: 0 other, 1 space, 2 sentence end,
# 3 comma, 4 digit, 5 ASCII upper case. Codes past 127 count as "other".
_N_CLS = 6
_CLS = np.zeros(129, dtype=np.int64)
_CLS[32] = 1
_CLS[[46, 33, 63]] = 2
_CLS[44] = 3
_CLS[48:58] = 4
_CLS[65:91] = 5


def _char_class_counts(codes: np.ndarray, n_chr: np.ndarray) -> np.ndarray:
    """(blocks x classes) counts; blocks are joined with one separator char each."""
    n = len(n_chr)
    owner = np.repeat(np.arange(n), n_chr.astype(np.int64) + 1)[: len(codes)]
    cls = _CLS[np.minimum(codes, 128)]
    return np.bincount(owner * _N_CLS + cls, minlength=n * _N_CLS).reshape(n, _N_CLS).astype(np.float64)


def _window_mean(x: np.ndarray, r: int) -> np.ndarray:
    c = np.concatenate(([0.0], np.cumsum(x)))
    n = len(x)
    idx = np.arange(n)
    lo = np.maximum(idx - r, 0)
    hi = np.minimum(idx + r + 1, n)
    return (c[hi] - c[lo]) / (hi - lo)


def _last_heading(tag: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which blocks are headings (h1-h6), and for each block the index of the last heading at
    or before it (-1: none yet)."""
    is_h = _IS_HEADING[np.minimum(tag, len(_IS_HEADING) - 1)]
    return is_h, np.maximum.accumulate(np.where(is_h, np.arange(len(tag)), -1))


def heading_words(texts: list[str], tag: np.ndarray) -> list[tuple[str, ...]]:
    """Words of the heading that governs each block (a heading is governed by the one before)."""
    is_h, hi = _last_heading(np.asarray(tag, dtype=np.int64))
    prev = np.where(is_h, np.concatenate(([-1], hi[:-1])), hi) if len(hi) else hi
    cache: dict[int, tuple[str, ...]] = {-1: ()}
    out = []
    for j in prev.tolist():
        w = cache.get(j)
        if w is None:
            w = cache[j] = tuple(dict.fromkeys(_WORD.findall(texts[j].lower())))[:8]
        out.append(w)
    return out


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


# Readability's class/id regexes ("unlikely candidates", "negative", "positive"), which it
# matches against the joined class and id: as literal patterns over our class/id tokens, so
# compound names count (entry-content, relatedPosts). Their "-ad-" / "-hid-" are whole tokens
# and "com-" a token ending in "com"; every other alternative is a substring of one token.
_RX_WORDS = (
    ("unlikely", "banner breadcrumbs combx comment community disqus extra foot header legends menu "
                 "related remark replies rss shoutbox sidebar skyscraper social sponsor supplemental "
                 "pagination pager popup share widget promo outbrain tags tool masthead meta cookie "
                 "newsletter subscribe", "ad", ""),
    ("negative", "hidden banner combx comment contact footer gdpr masthead media meta outbrain promo "
                 "related scroll share shoutbox sidebar skyscraper sponsor shopping tags widget",
     "ad hid", "com"),
    ("positive", "article body content entry hentry main page post text blog story", "", ""),
)
RX_NAMES = tuple(name for name, *_ in _RX_WORDS)
RX: Patterns = tuple(
    (bit, kind, w)
    for bit, (_, contains, equals, ends) in enumerate(_RX_WORDS)
    for kind, words in ((KIND_CONTAINS, contains), (KIND_EQUALS, equals), (KIND_ENDS, ends))
    for w in words.split()
)
RX_LEVELS = 4  # the block's element and its nearest ancestors, each level on its own
_RX_MATCHER = token_matcher(RX)


def _rx_columns(b: Blocks) -> tuple[list[str], list[np.ndarray]]:
    """The RX flags as 0/1 columns: of the block's own element and of each of its RX_LEVELS
    nearest ancestors apart (levels of ``container``), and of any ancestor at all."""
    names = [f"rx{lvl}_{r}" for lvl in range(RX_LEVELS + 1) for r in RX_NAMES]
    names += [f"rx_anc_{r}" for r in RX_NAMES]
    return names, [b.pattern_columns(RX, _RX_MATCHER, RX_LEVELS, len(RX_NAMES))]


# Headings over what is not the article: a block whose governing heading (the last heading
# before it, of any level) reads "Comments", "Related stories", "More from ..." is boilerplate
# whatever its own markup (comment threads are often bare <div><p>; docs/RESULTS.md, "head").
_BOILER_HEADING = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in (
    "comment", "comments", "responses", "response", "replies", "reply", "related", "see also",
    "more from", "more on", "more stories", "more news", "popular", "most read", "most viewed",
    "most emailed", "most shared", "trending", "sponsored", "advertisement", "recommended",
    "you may also like", "you might also like", "also read", "read more", "read next", "share",
    "follow", "newsletter", "subscribe", "sign up", "tags", "categories", "archives",
    "recent posts", "latest", "top stories", "elsewhere", "around the web", "from the web",
    "discussion", "leave a", "trackback", "trackbacks", "about the author", "links", "blogroll",
    "sponsors", "partners", "connect", "search", "navigation", "menu")) + r")\b")
HEADING_MAX_WORDS = 10  # a longer "heading" is prose set in a heading tag, not a section title
_UNLIKELY, _NEGATIVE = RX_NAMES.index("unlikely"), RX_NAMES.index("negative")


def _heading_columns(texts: list[str], tag: np.ndarray, n_tok: np.ndarray, rx_own: np.ndarray
                     ) -> tuple[list[str], list[np.ndarray]]:
    """For a heading block: its own title reads as boilerplate (the lexicon) / its class or id
    does (rx unlikely or negative). For any other block: the same two of the heading that
    governs it (the last heading before it; none: 0). ``rx_own``: blocks x RX_NAMES, the rx
    bits of each block's own element."""
    n = len(texts)
    names = ["head_lex", "head_rx", "gov_head_lex", "gov_head_rx"]
    is_h, last = _last_heading(tag)
    hs = np.flatnonzero(is_h)
    own = np.zeros((n, 2))
    gov = np.zeros((n, 2))
    if len(hs) == 0:
        return names, [own, gov]
    search = _BOILER_HEADING.search
    own[hs, 0] = [k <= HEADING_MAX_WORDS and search(texts[i].lower()) is not None
                  for i, k in zip(hs.tolist(), n_tok[hs].tolist())]
    own[hs, 1] = np.maximum(rx_own[hs, _UNLIKELY], rx_own[hs, _NEGATIVE])
    # the blocks after the first heading that are not headings take their governing heading's
    under = np.flatnonzero((last >= 0) & ~is_h)
    gov[under] = own[last[under]]
    return names, [own, gov]


def page_features(b: Blocks, spec: FeatureSpec) -> np.ndarray:
    """The page's feature matrix (blocks x features), columns in ``feature_names`` order."""
    return _stack(len(b), _columns(b, spec))


# Token-list columns (0/1 per token of a learned list) are named with these prefixes.
TOKEN_PREFIXES = ("ic_own:", "ic_anc:", "head:")
TokenRows = tuple[str, Sequence[tuple[str, ...]], dict[str, int]]


def page_inputs(b: Blocks, spec: FeatureSpec) -> tuple[np.ndarray, list[TokenRows]]:
    """For serving: the dense columns (``feature_names`` minus the token-list columns, in
    order) and, per token list, (name prefix, each block's tokens, vocab). A block has a
    handful of a list's hundreds of tokens, so the model adds their weights (Model.scores)
    instead of filling and multiplying a mostly-zero blocks x vocab matrix."""
    tokens: list[TokenRows] = []
    return _stack(len(b), _columns(b, spec, tokens=tokens)), tokens


def _stack(n: int, cols: list[np.ndarray]) -> np.ndarray:
    if not cols:
        return np.zeros((n, 0))
    return np.concatenate([c.reshape(n, -1) for c in cols], axis=1)


def feature_names(spec: FeatureSpec) -> list[str]:
    probe = Blocks(texts=["x"], anchor_texts=[""], n_tags=[1], tag=[0], depth=[0], flags=[0],
                   container=[(1,) + (0,) * (PATH_LEN - 1)], own_tokens=[()], anc_tokens=[()])
    return _columns(probe, spec, names_only=True)  # type: ignore[return-value]


def _columns(b: Blocks, spec: FeatureSpec, names_only: bool = False,
             tokens: list[TokenRows] | None = None) -> list[Any]:
    n = len(b)
    g = set(spec.groups)
    names: list[str] = []
    cols: list[np.ndarray] = []

    def add(ns: list[str], cs: list[np.ndarray]) -> None:
        names.extend(ns)
        cols.extend(cs)

    texts = b.texts
    cnt = b.counts()
    n_chr, n_tok = cnt[:, 0], cnt[:, 1]
    tag = np.asarray(b.tag, dtype=np.int64)
    n_tags = np.asarray(b.n_tags, dtype=np.float64)
    ld = link_density(n_tok, cnt[:, 2])
    td = text_density(n_tok, n_chr)

    if "st" in g:
        add(*st_features(td, ld))
    if "cetr" in g:
        add(*cetr_features(n_chr, n_tags))
    if "ic" in g:
        v_own, v_anc, v_head = spec.vocabs()
        if names_only:
            names.extend(f"ic_own:{t}" for t in spec.ic_own)
            names.extend(f"ic_anc:{t}" for t in spec.ic_anc)
        elif tokens is not None:
            tokens.append(("ic_own:", b.own_tokens, v_own))
            tokens.append(("ic_anc:", b.anc_tokens, v_anc))
        else:
            cols.append(token_matrix(b.own_tokens, v_own))
            cols.append(token_matrix(b.anc_tokens, v_anc))
    log_tok = np.log1p(n_tok)
    if "dom" in g:
        flags = np.asarray(b.flags, dtype=np.int64)
        total = max(n_tok.sum(), 1.0)
        add([f"in_{f}" for f in FLAG_NAMES],
            [((flags[:, None] >> np.arange(len(FLAG_NAMES))) & 1).astype(np.float64)])
        grp = _TAG_GROUP_LUT[np.minimum(tag, len(_TAG_GROUP_LUT) - 1)]
        add([f"tag_{k}" for k, _ in _TAG_GROUPS],
            [(grp[:, None] == np.arange(len(_TAG_GROUPS))).astype(np.float64)])
        depth = np.asarray(b.depth, dtype=np.float64)
        main = int(np.argmax(n_tok)) if n else 0
        cont = b.container_ids()
        mass = [group_sum(cont[:, lvl], n_tok) / total for lvl in range(3)]
        add(*_main_container(cont, n_tok, ld))
        pos = np.arange(n, dtype=np.float64) / max(n - 1, 1)
        cpos = (np.cumsum(n_chr) - n_chr) / max(n_chr.sum(), 1.0)
        n_a = ld * n_tok
        add(["page_ld", "page_log_tok", "top_share"],
            [np.full(n, n_a.sum() / total), np.full(n, np.log1p(total)),
             np.full(n, n_tok.max() / total if n else 0.0)])
        add(["td_rel", "tok_rank"],
            [td / max(td.max(), 1.0) if n else td,
             _ranks(-n_tok) / max(n - 1, 1)])
        add(["log_tok", "log_tags", "depth", "depth_vs_main", "same_parent_as_main", "pos",
             "char_pos", "mass0", "mass1", "mass2", "log_tok_vs_max", "n_blocks"],
            [log_tok, np.log1p(n_tags), np.log1p(depth), np.abs(depth - depth[main]) if n else depth,
             (cont[:, 1] == cont[main, 1]).astype(np.float64) if n else depth, pos, cpos,
             mass[0], mass[1], mass[2], log_tok - (log_tok.max() if n else 0.0),
             np.full(n, np.log1p(n), dtype=np.float64)])
    if "text" in g:
        joined = "\n".join(texts)
        codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        starts = np.zeros(n, dtype=np.int64)
        if n > 1:
            starts[1:] = np.cumsum(n_chr[:-1] + 1).astype(np.int64)
        cc = _char_class_counts(codes, n_chr)
        period, comma, digit, upper = cc[:, 2], cc[:, 3], cc[:, 4], cc[:, 5]
        last = codes[np.maximum(starts + n_chr.astype(np.int64) - 1, 0)] if n else codes[:0]
        ends = np.isin(last, (46, 33, 63, 34, 8221)).astype(np.float64)
        words = joined.lower().split()
        owner = np.repeat(np.arange(n), n_tok.astype(np.int64)) if n else np.zeros(0, np.int64)
        if len(owner) != len(words):  # non-space whitespace inside a block (rare): recount
            counts = [len(t.split()) for t in texts]
            owner = np.repeat(np.arange(n), counts)
        stop = np.fromiter(map(STOPWORDS.__contains__, words), dtype=np.float64, count=len(words))
        tset = set(b.title.lower().split())
        in_title = np.fromiter(map(tset.__contains__, words), dtype=np.float64, count=len(words))
        stop_r = np.bincount(owner, weights=stop, minlength=n) / n_tok
        title_r = np.bincount(owner, weights=in_title, minlength=n) / n_tok
        add(["sent_per_tok", "comma_per_tok", "digit_ratio", "upper_ratio", "ends_sentence",
             "stop_ratio", "title_ratio"],
            [period / n_tok, comma / n_tok, digit / np.maximum(n_chr, 1), upper / np.maximum(n_chr, 1),
             ends, stop_r, title_r])
        if "ic" in g:
            v_head = spec.vocabs()[2]
            if names_only:
                names.extend(f"head:{t}" for t in spec.heading_words)
            elif tokens is not None:
                tokens.append(("head:", heading_words(texts, tag), v_head))
            else:
                cols.append(token_matrix(heading_words(texts, tag), v_head))
    if "rx" in g or "head" in g:
        rx_names, rx_cols = _rx_columns(b)
        if "rx" in g:
            add(rx_names, rx_cols)
        if "head" in g:  # the first RX_NAMES columns: the block's own element's bits
            add(*_heading_columns(texts, tag, n_tok, rx_cols[0][:, : len(RX_NAMES)]))
    if "ctx" in g:
        add(["log_tok_w2", "log_tok_w5", "ld_w2", "ld_w5", "td_smooth", "td_prev2", "td_next2"],
            [_window_mean(log_tok, 2), _window_mean(log_tok, 5), _window_mean(ld, 2),
             _window_mean(ld, 5), smooth(td), shifted(td, -2), shifted(td, 2)])
    return names if names_only else cols
