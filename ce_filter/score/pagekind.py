"""The page kind (article, documentation, service, forum, collection, listing, product): a
multinomial logistic regression over page-level signals, served with numpy.

Indexing pipelines route on the kind, and the block model reads its probabilities (a menu of
short links is boilerplate on an article and the content of a listing). The signals are what a
person glances at: the declared types (JSON-LD / microdata ``@type``, ``og:type``), the URL's
shape and words, and the page's blocks (how many, how link-heavy, how many headings, list
items, table cells, form fields and code blocks, and how much of the page is one repeated
structure). The model is JSON, stored inside the content model file (``pagekind``) and fitted
with it (learn.fit.page_kinds), so ``scripts/train_models.sh`` rebuilds both.

The signals are computed in C only (``ce_filter/score/_pagekind.c``, a required part: the HTML's
scans, the URL read as urlsplit reads it, the block arrays and the first words, without the
GIL); their Python reference, which the model was fitted on and the C part matches bit for
bit, is the test oracle tests/oracles/pagekind_signals.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

import numpy as np

from .. import native
from ..read.segment import FLAG_NAMES, HEADINGS, PATH_LEN, Blocks, tag_id

if TYPE_CHECKING:
    from ..jsontypes import JSONObject, Loaded

FORMAT_VERSION = 1
KINDS = ("article", "documentation", "service", "forum", "collection", "listing", "product")

# Declared types, grouped by the kind they point to (schema.org names, lower-cased).
_LD_GROUPS: dict[str, tuple[str, ...]] = {
    "article": ("article", "newsarticle", "blogposting", "reportagenewsarticle", "opinionnewsarticle",
                "analysisnewsarticle", "scholarlyarticle", "liveblogposting", "report", "posting"),
    "tech": ("techarticle", "apireference", "softwaresourcecode", "softwareapplication", "howto",
             "webapplication", "course"),
    "product": ("product", "offer", "aggregateoffer", "productgroup", "productmodel", "brand",
                "individualproduct", "vehicle", "car"),
    "forum": ("discussionforumposting", "qapage", "question", "answer", "comment",
              "socialmediaposting", "conversation"),
    "list": ("itemlist", "collectionpage", "searchresultspage", "offercatalog", "dataset"),
    "service": ("service", "organization", "localbusiness", "corporation", "professionalservice",
                "faqpage", "contactpage", "aboutpage", "place", "postaladdress", "store",
                "restaurant", "hotel", "medicalorganization", "educationalorganization"),
    "webpage": ("webpage", "website", "webpageelement"),
    "review": ("review", "aggregaterating", "rating"),
    "event": ("event", "jobposting", "recipe", "movie", "book", "musicrecording"),
    "person": ("person", "profilepage"),
    "media": ("videoobject", "imageobject", "imagegallery", "mediagallery", "audioobject"),
    "breadcrumb": ("breadcrumblist",),
}
_LD_INDEX = {t: i for i, (_, ts) in enumerate(_LD_GROUPS.items()) for t in ts}
_OG_KINDS = ("article", "product", "website")
_SCAN_CHARS = 2_000_000  # the declared types are in the head or near it; bounded cost

# URL path words (a priori lexicons; matched as whole path segments or slug words)
_URL_WORDS: dict[str, frozenset[str]] = {
    "blog": frozenset("blog blogs news article articles post posts story stories press insights "
                      "magazine journal opinion".split()),
    "docs": frozenset("docs doc documentation api reference guide guides manual learn tutorial "
                      "tutorials wiki developer developers sdk help kb support reference".split()),
    "forum": frozenset("forum forums thread threads topic topics t questions question discussion "
                       "discussions community comments r board showthread viewtopic answers".split()),
    "product": frozenset("product products p dp item items shop store buy sku gp".split()),
    "list": frozenset("category categories collection collections c tag tags search list lists "
                      "browse catalog archive jobs events listings directory results s".split()),
    "service": frozenset("services service pricing about contact solutions features plans company "
                         "team careers locations industries what-we-do".split()),
}
_URL_EXTS = (".html", ".htm", ".php", ".aspx")  # the last path segment's, for url_html
# numpy's log1p of the counts the C part's kind_proba reads from a table (the same values as
# np.log1p's scalar calls: one ufunc loop either way)
_LOG1P_TABLE: list[float] = np.log1p(np.arange(4096, dtype=np.float64)).tolist()

# Words in the page's text that a kind tends to show (lower-cased, whole words)
_TEXT_WORDS: dict[str, tuple[str, ...]] = {
    "forum": ("reply", "replies", "quote", "joined", "posts", "posted", "members", "views",
              "thread", "upvote", "upvotes", "permalink"),
    "product": ("cart", "stock", "sku", "shipping", "reviews", "price", "qty", "quantity",
                "wishlist", "checkout", "warranty", "delivery"),
    "docs": ("parameters", "returns", "example", "examples", "install", "usage", "syntax",
             "default", "configuration", "function", "method", "api"),
    "service": ("services", "contact", "clients", "solutions", "consultation", "experience",
                "team", "expertise", "quote", "customers", "trusted", "book"),
    "listing": ("results", "sort", "filter", "showing", "items", "next", "previous", "page",
                "more", "view", "all", "load"),
}
_CURRENCY = tuple("$€£¥")
_TEXT_SCAN = 20_000  # characters of block text read for the words (bounded cost)
# the characters besides \d (decimal digits) that str.isdigit() accepts, as code point ranges:
# a token that starts with one of either counts as a number
_DIGIT_EXTRA = ((0xb2, 0xb3), (0xb9, 0xb9), (0x1369, 0x1371), (0x19da, 0x19da), (0x2070, 0x2070),
                (0x2074, 0x2079), (0x2080, 0x2089), (0x2460, 0x2468), (0x2474, 0x247c),
                (0x2488, 0x2490), (0x24ea, 0x24ea), (0x24f5, 0x24fd), (0x24ff, 0x24ff),
                (0x2776, 0x277e), (0x2780, 0x2788), (0x278a, 0x2792), (0x10a40, 0x10a43),
                (0x10e60, 0x10e68), (0x11052, 0x1105a), (0x1f100, 0x1f10a))
_BIT = {n: 1 << i for i, n in enumerate(FLAG_NAMES)}
_TAG_PRE = tag_id("pre")
_TAG_H1 = tag_id("h1")


def feature_names() -> list[str]:
    names = [f"ld_{g}" for g in _LD_GROUPS] + ["ld_any"] + [f"og_{k}" for k in _OG_KINDS] + ["og_other"]
    names += ["url_known", "url_depth", "url_root", "url_query", "url_year", "url_numeric",
              "url_slug_words", "url_html"] + [f"url_{g}" for g in _URL_WORDS]
    names += ["blocks", "words", "link_share", "linky_blocks", "short_blocks", "long_words",
              "top_block", "headings", "heading_share", "h1s", "li", "table", "form", "label",
              "pre", "pre_words", "blockquote", "dl", "article", "main", "navish", "a_blocks",
              "rep_max", "rep_blocks", "rep_words", "rep2_max", "rep2_blocks", "rep2_words",
              "price", "digits"]
    names += [f"w_{g}" for g in _TEXT_WORDS]
    return names


N_FEATURES = len(feature_names())
_N_HEAD = feature_names().index("blocks")  # the declared types', og:type's and URL's signals


def page_signals(blocks: Blocks, html: str = "", url: str | None = None) -> np.ndarray:
    """The page's signal vector (``feature_names`` order) of its blocks, its HTML (the first
    _SCAN_CHARS characters) and ``url`` (else the canonical link), in C; numpy takes the log1p
    of the counts that have one (its SIMD log1p is not libm's, bit for bit)."""
    x = np.array(_c.head_signals(html, url, _SCAN_CHARS))
    x[_HEAD_LOG1P] = np.log1p(x[_HEAD_LOG1P])
    n = len(blocks)
    if n:
        cnt, cont = blocks.counts(), blocks.container_ids()
    else:
        cnt = cont = np.zeros(0)
    tail = _c.block_signals(np.ascontiguousarray(cnt, dtype=np.float64),
                            np.ascontiguousarray(blocks.flags, dtype=np.int64),
                            np.ascontiguousarray(blocks.tag, dtype=np.int64),
                            np.ascontiguousarray(cont, dtype=np.int64))
    n_tok, n_cur, n_dig, groups = _c.text_signals(blocks.text_column().joined, _TEXT_SCAN)
    n_read = max(n_tok, 1)
    v = np.array(tail + (n_cur, n_dig / n_read) + tuple(1000.0 * g / n_read for g in groups))
    v[_C_LOG1P] = np.log1p(v[_C_LOG1P])
    return np.concatenate([x, v])


# in the C part's values (block_signals then price, digits, the word groups): those that get
# numpy's log1p here (numpy's SIMD log1p is not libm's, bit for bit)
_C_LOG1P = np.array([0, 1, 7, 9, 14, 22, 25, 28] + list(range(30, 30 + len(_TEXT_WORDS))))
# in head_signals' values: the counts that get numpy's log1p here (url_depth, url_slug_words)
_HEAD_LOG1P = np.array([feature_names().index(k) for k in ("url_depth", "url_slug_words")])


class PageKindC(Protocol):
    """The functions of the C part (score/_pagekind.c) that Python calls."""

    def configure(self, ld_index: dict[str, int], n_ld_groups: int, words: dict[str, int],
                  n_word_groups: int, currency: str, digit_extra: list[tuple[int, int]],
                  headings: list[int], tag_h1: int, tag_pre: int, bits: list[int], path_len: int,
                  url_words: dict[str, int], n_url_groups: int, og_kinds: list[str],
                  url_exts: list[str], log1p: list[float], /) -> None: ...

    def scan_html(self, html: str, limit: int, want_canonical: bool, /
                  ) -> tuple[int, str | None, str | None]: ...  # (declared-type mask, og:type, canonical)

    def head_signals(self, html: str, url: str | None, limit: int, /) -> tuple[float, ...]: ...

    def block_signals(self, counts: np.ndarray, flags: np.ndarray, tag: np.ndarray, cont: np.ndarray, /
                      ) -> tuple[float, ...]: ...

    def text_signals(self, joined: str, limit: int, /) -> tuple[int, int, int, tuple[int, ...]]: ...

    def kind_proba(self, html: str, url: str | None, scan_limit: int, counts: np.ndarray,
                   flags: np.ndarray, tag: np.ndarray, cont: np.ndarray, joined: str, limit: int,
                   log1p: np.ndarray, mean: np.ndarray, scale: np.ndarray, coef: np.ndarray,
                   intercept: np.ndarray, out: np.ndarray, /) -> None: ...

    def kind_plan(self, mean: np.ndarray, scale: np.ndarray, coef: np.ndarray, intercept: np.ndarray,
                  log1p: np.ndarray, scan_limit: int, text_limit: int, /) -> object: ...


def _group_bits(groups: Sequence[Iterable[str]]) -> dict[str, int]:
    """word -> the bit mask of the groups it is in."""
    out: dict[str, int] = {}
    for g, ws in enumerate(groups):
        for w in ws:
            out[w] = out.get(w, 0) | 1 << g
    return out


def _configure(mod: PageKindC) -> PageKindC:
    """The page-kind part (ce_filter._pass, from score/_pagekind.c) configured with this module's tables."""
    words = _group_bits(list(_TEXT_WORDS.values()))
    bits = [_BIT[k] for k in ("li", "table", "form", "label", "pre", "blockquote", "dl", "article",
                               "main")]
    bits += [_BIT["nav"] | _BIT["header"] | _BIT["footer"] | _BIT["aside"], _BIT["a"]]
    mod.configure(_LD_INDEX, len(_LD_GROUPS), words, len(_TEXT_WORDS), "".join(_CURRENCY),
                  list(_DIGIT_EXTRA), sorted(HEADINGS), _TAG_H1, _TAG_PRE, bits, PATH_LEN,
                  _group_bits(list(_URL_WORDS.values())), len(_URL_WORDS), list(_OG_KINDS),
                  list(_URL_EXTS), _LOG1P_TABLE)
    return mod


_c = _configure(cast(PageKindC, native.required("_pass")))


class PageKindError(ValueError):
    """A page-kind model file that is not valid."""


@dataclass
class PageKindModel:
    """Standardise, one weight vector per kind, softmax."""

    kinds: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray  # kinds x features
    intercept: np.ndarray  # kinds
    meta: dict[str, Loaded] = field(default_factory=dict)  # the training's notes, not checked

    def __getstate__(self) -> dict[str, object]:
        # the pass's plan (pass_plan) is a C capsule: made again where it is needed
        state = dict(self.__dict__)
        state.pop("_plan", None)
        return state

    def proba(self, x: np.ndarray) -> np.ndarray:
        """Kind probabilities of one page (or of a pages x features matrix)."""
        z = ((x - self.mean) / self.scale) @ self.coef.T + self.intercept
        z = z - z.max(axis=-1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=-1, keepdims=True)

    def page_proba(self, blocks: Blocks, html: str = "", url: str | None = None) -> np.ndarray:
        """``proba(page_signals(blocks, html, url))`` in one C call without the GIL (libm's
        log1p and exp, the products added in feature order: the numpy reference's values to
        ~1e-15)."""
        if not len(blocks):
            return self.proba(page_signals(blocks, html, url))
        out = np.empty(len(self.kinds))
        _c.kind_proba(html, url, _SCAN_CHARS, blocks.counts(),
                      np.ascontiguousarray(blocks.flags, dtype=np.int64),
                      np.ascontiguousarray(blocks.tag, dtype=np.int64), blocks.container_ids(),
                      blocks.text_column().joined, _TEXT_SCAN, _C_LOG1P, self.mean, self.scale, self.coef,
                      self.intercept, out)
        return out

    def pass_plan(self) -> object:
        """What the pass after the walk reads of this model (blockmodel.Model.page_pass computes
        ``page_proba`` in its call): made once per model."""
        plan = self.__dict__.get("_plan")
        if plan is None:
            plan = self.__dict__["_plan"] = _c.kind_plan(self.mean, self.scale, self.coef,
                                                         self.intercept, _C_LOG1P, _SCAN_CHARS,
                                                         _TEXT_SCAN)
        return plan

    def predict(self, blocks: Blocks, html: str = "", url: str | None = None
                ) -> tuple[str, float, np.ndarray]:
        """(kind, its probability, all probabilities in ``kinds`` order)."""
        p = self.page_proba(blocks, html, url)
        i = int(np.argmax(p))
        return self.kinds[i], float(p[i]), p

    def to_json(self) -> JSONObject:
        return {"format": "ce-filter-pagekind", "format_version": FORMAT_VERSION,
                "kinds": list(self.kinds), "features": feature_names(),
                "mean": self.mean.tolist(), "scale": self.scale.tolist(),
                "coef": self.coef.tolist(), "intercept": self.intercept.tolist(), "meta": self.meta}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1, sort_keys=True) + "\n"

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.dumps(), encoding="utf-8")

    @classmethod
    def from_json(cls, d: Loaded) -> PageKindModel:
        if d.get("format") != "ce-filter-pagekind":
            raise PageKindError("not a ce-filter page-kind model file")
        if d.get("format_version") != FORMAT_VERSION:
            raise PageKindError(f"page-kind model format {d.get('format_version')} != {FORMAT_VERSION}")
        if d.get("features") != feature_names():
            raise PageKindError("feature names in the file do not match this ce-filter's signals")
        kinds = tuple(str(k) for k in d["kinds"])
        nf = N_FEATURES
        mean, scale = (np.asarray(d[k], dtype=np.float64) for k in ("mean", "scale"))
        coef = np.asarray(d["coef"], dtype=np.float64)
        icpt = np.asarray(d["intercept"], dtype=np.float64)
        if mean.shape != (nf,) or scale.shape != (nf,) or coef.shape != (len(kinds), nf) \
                or icpt.shape != (len(kinds),):
            raise PageKindError("page-kind model: weights of the wrong shape")
        arrs = np.concatenate([mean, scale, coef.ravel(), icpt])
        if not np.all(np.isfinite(arrs)) or np.any(scale == 0):
            raise PageKindError("page-kind model: non-finite weights or zero scale")
        return cls(kinds, mean, scale, np.ascontiguousarray(coef), icpt, dict(d.get("meta", {})))

    @classmethod
    def load(cls, path: str | Path) -> PageKindModel:
        try:
            return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))
        except (KeyError, TypeError, json.JSONDecodeError) as e:
            raise PageKindError(f"{path}: {e!r}") from e


