"""The page kind (article, documentation, service, forum, collection, listing, product): a
multinomial logistic regression over page-level signals, served with numpy.

Indexing pipelines route on the kind, and the block model reads its probabilities (a menu of
short links is boilerplate on an article and the content of a listing). The signals are what a
person glances at: the declared types (JSON-LD / microdata ``@type``, ``og:type``), the URL's
shape and words, and the page's blocks (how many, how link-heavy, how many headings, list
items, table cells, form fields and code blocks, and how much of the page is one repeated
structure). The model is JSON, stored inside the content model file (``pagekind``) and fitted
with it (learn.fit.page_kinds), so ``scripts/train_models.sh`` rebuilds both.

The signals are computed in C (``ce_filter/score/_pagekind.c``, a third of an extraction's time in
Python); ``_page_signals_py`` is the reference, with the same values bit for bit, and runs
where the C part is not built.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

import numpy as np

from .. import native
from ..read.segment import FLAG_NAMES, HEADINGS, PATH_LEN, Blocks, parse, segment, tag_id

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
# after a '"@type"' key or an 'itemtype=' attribute (found by str.find: a case-insensitive
# regex over the whole page cost 8 ms a page)
_TYPE_AFTER_KEY = re.compile(r'\s*:\s*\[?\s*"(?:https?://schema\.org/)?([A-Za-z]+)"')
_TYPE_AFTER_ATTR = re.compile(r"[\"']?https?://schema\.org/([A-Za-z]+)", re.I)
_OG_RX = re.compile(
    r"""<meta[^>]{0,80}?(?:property|name)=["']?og:type["']?[^>]{0,80}?content=["']?([\w.:-]+)""",
    re.I)
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
_URL_SPLIT = re.compile(r"[/\-_.+]+")
_YEAR = re.compile(r"/(?:19|20)\d\d/")
_NUM_SEG = re.compile(r"/\d{3,}(?:/|$|[-_])")
# log1p of the small counts _url_signals takes it of, made by the same scalar np.log1p calls
# (the same values, bit for bit) once instead of twice a page
_LOG1P_SMALL = tuple(float(np.log1p(k)) for k in range(64))


# numpy's log1p of the counts the C part's kind_proba reads from a table (the same values as
# np.log1p's scalar calls: one ufunc loop either way)
_LOG1P_TABLE: list[float] = np.log1p(np.arange(4096, dtype=np.float64)).tolist()


def _log1p_count(k: int) -> float:
    return _LOG1P_SMALL[k] if k < 64 else float(np.log1p(k))

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
# a token that starts with a character str.isdigit() accepts: \d (decimal digits) and the
# digits that are not decimal (superscripts, circled numbers, ...), as code point ranges
_DIGIT_EXTRA = ((0xb2, 0xb3), (0xb9, 0xb9), (0x1369, 0x1371), (0x19da, 0x19da), (0x2070, 0x2070),
                (0x2074, 0x2079), (0x2080, 0x2089), (0x2460, 0x2468), (0x2474, 0x247c),
                (0x2488, 0x2490), (0x24ea, 0x24ea), (0x24f5, 0x24fd), (0x24ff, 0x24ff),
                (0x2776, 0x277e), (0x2780, 0x2788), (0x278a, 0x2792), (0x10a40, 0x10a43),
                (0x10e60, 0x10e68), (0x11052, 0x1105a), (0x1f100, 0x1f10a))
_DIGIT_START = re.compile(" [\\d" + "".join(chr(a) + (f"-{chr(b)}" if b > a else "") for a, b in _DIGIT_EXTRA)
                          + "]")

_BIT = {n: 1 << i for i, n in enumerate(FLAG_NAMES)}
_TAG_PRE = tag_id("pre")
_TAG_H1 = tag_id("h1")


def _text_prefix(texts: Sequence[str]) -> str:
    """``" ".join(texts)[:_TEXT_SCAN]`` without joining the blocks past it."""
    n = k = 0
    for t in texts:
        n += len(t) + 1
        k += 1
        if n > _TEXT_SCAN:
            break
    return " ".join(texts[:k])[:_TEXT_SCAN]


def _flag_share(flags: np.ndarray, name: str) -> float:
    return float(np.count_nonzero(flags & _BIT[name])) / max(len(flags), 1)


def _repeats(key: np.ndarray, n_tok: np.ndarray) -> tuple[float, float, float]:
    """Of blocks grouped by ``key`` (parent element + tag): the largest group's size (log), the
    share of blocks in groups of at least 4, and the share of the page's words in them."""
    if len(key) == 0:
        return 0.0, 0.0, 0.0
    _, inv, cnt = np.unique(key, return_inverse=True, return_counts=True)
    big = cnt[inv] >= 4
    return (float(np.log1p(cnt.max())), float(big.mean()),
            float(n_tok[big].sum() / max(n_tok.sum(), 1.0)))


def _declared_types(head: str) -> np.ndarray:
    """0/1 per _LD_GROUPS entry: the JSON-LD / microdata types the page declares, then 1 if
    it declares any."""
    out = np.zeros(len(_LD_GROUPS) + 1)
    for key, rx in (('"@type"', _TYPE_AFTER_KEY), ("itemtype=", _TYPE_AFTER_ATTR)):
        i = head.find(key)
        while i >= 0:
            out[-1] = 1.0
            m = rx.match(head, i + len(key))
            if m:
                k = _LD_INDEX.get(m.group(1).lower())
                if k is not None:
                    out[k] = 1.0
            i = head.find(key, i + len(key))
    return out


def _page_url(html: str, url: str | None) -> str:
    if url:
        return url
    m = re.search(r"""<link[^>]{0,80}?rel=["']?canonical["']?[^>]{0,80}?href=["']?([^"'\s>]+)""",
                  html[:_SCAN_CHARS], re.I)
    return m.group(1) if m else ""


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


def _og_signals(og_t: str) -> list[float]:
    """og_article, og_product, og_website, og_other of the lower-cased og:type value."""
    return [float(og_t.startswith(k)) for k in _OG_KINDS] + [
        float(bool(og_t) and not og_t.startswith(_OG_KINDS))]


def _url_signals(u: str) -> list[float]:
    """The URL's shape and path words ("url_known" .. the _URL_WORDS groups)."""
    parts = urlsplit(u) if u else None
    path = (parts.path if parts else "").lower()
    segs = [s for s in path.split("/") if s]
    words = set(_URL_SPLIT.split(path)) | set(segs)
    last = segs[-1] if segs else ""
    x = [float(bool(u)), _log1p_count(len(segs)), float(bool(u) and not segs),
         float(bool(parts and parts.query)), float(bool(_YEAR.search(path))),
         float(bool(_NUM_SEG.search(path))), _log1p_count(last.count("-")),
         float(last.endswith(_URL_EXTS))]
    x.extend(float(bool(words & ws)) for ws in _URL_WORDS.values())
    return x


def page_signals(blocks: Blocks, html: str = "", url: str | None = None) -> np.ndarray:
    """The page's signal vector (``feature_names`` order): computed in C where
    ce_filter.score._pagekind is built, else by ``_page_signals_py`` (the same values, bit for bit)."""
    if _c is None:
        return _page_signals_py(blocks, html, url)
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


def _page_signals_py(blocks: Blocks, html: str = "", url: str | None = None) -> np.ndarray:
    """The reference of page_signals (the page-kind model was fitted on these values)."""
    x: list[float] = []
    head = html[:_SCAN_CHARS]
    x.extend(_declared_types(head).tolist())
    og = _OG_RX.search(head) if "og:type" in head else None
    x += _og_signals(og.group(1).lower() if og else "")
    x += _url_signals(_page_url(html, url))
    n = len(blocks)
    cnt = blocks.counts() if n else np.zeros((0, 3))
    n_tok = cnt[:, 1]
    tot = float(n_tok.sum()) or 1.0
    flags = np.asarray(blocks.flags, dtype=np.int64)
    tag = np.asarray(blocks.tag, dtype=np.int64)
    is_head = np.isin(tag, list(HEADINGS)) if n else np.zeros(0, dtype=bool)
    ld_blk = cnt[:, 2] / np.maximum(n_tok, 1.0)
    pre = (flags & _BIT["pre"]) != 0
    x += [float(np.log1p(n)), float(np.log1p(tot)), float(cnt[:, 2].sum() / tot),
          float((ld_blk > 0.5).mean()) if n else 0.0, float((n_tok < 5).mean()) if n else 0.0,
          float(n_tok[n_tok >= 40].sum() / tot), float(n_tok.max() / tot) if n else 0.0,
          float(np.log1p(is_head.sum())), float(is_head.mean()) if n else 0.0,
          float(np.log1p(np.count_nonzero(tag == _TAG_H1)))]
    x += [_flag_share(flags, k) for k in ("li", "table", "form", "label")]
    x += [float(np.log1p(np.count_nonzero(pre | (tag == _TAG_PRE)))), float(n_tok[pre].sum() / tot)]
    x += [_flag_share(flags, k) for k in ("blockquote", "dl", "article", "main")]
    navish = _BIT["nav"] | _BIT["header"] | _BIT["footer"] | _BIT["aside"]
    x.append(float(np.count_nonzero(flags & navish)) / max(n, 1))
    x.append(_flag_share(flags, "a"))
    cont = blocks.container_ids() if n else np.zeros((0, 3), dtype=np.int64)
    x.extend(_repeats(cont[:, 1] * 65536 + tag, n_tok) if n else (0.0, 0.0, 0.0))
    x.extend(_repeats(cont[:, 2] * 65536 + tag, n_tok) if n else (0.0, 0.0, 0.0))

    # one split and a C-counted bag of the first words (a regex of all the lexicon's words
    # cost more than a millisecond a page); the tokens that start with a currency sign or a
    # digit are counted in the tokens joined by single spaces, where each token starts after
    # one (Python loops over the bag cost a third of this function)
    toks = _text_prefix(blocks.texts).lower().split()
    bag = Counter(toks)
    n_read = max(len(toks), 1)
    joined = " " + " ".join(toks)
    x.append(float(np.log1p(sum(joined.count(" " + c) for c in _CURRENCY))))
    x.append(len(_DIGIT_START.findall(joined)) / n_read)
    x.extend(float(np.log1p(1000.0 * sum(bag.get(w, 0) for w in ws) / n_read))
             for ws in _TEXT_WORDS.values())
    return np.asarray(x, dtype=np.float64)


# in the C part's values (block_signals then price, digits, the word groups): those that get
# numpy's log1p here (numpy's SIMD log1p is not libm's, bit for bit)
_C_LOG1P = np.array([0, 1, 7, 9, 14, 22, 25, 28] + list(range(30, 30 + len(_TEXT_WORDS))))
# in head_signals' values: the counts that get numpy's log1p here (url_depth, url_slug_words)
_HEAD_LOG1P = np.array([feature_names().index(k) for k in ("url_depth", "url_slug_words")])
_PROBE = """<html><head><link rel="canonical" href="https://example.com/blog/2024/a-post.html">
<meta property="og:type" content="Article"><script type="application/ld+json">
{"@type": ["NewsArticle", "https://schema.org/BreadcrumbList"]}</script></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/shop">Shop</a></li><li>Cart</li>
<li>Reply</li></ul></nav><main><article itemtype="http://schema.org/Product"><h1>A post</h1>
<p>Price $19.99, in stock: 3 items, ² free SHIPPING with the \u212aelvin STOC\u212a api.</p>
<pre>def f(): return 1</pre><table><tr><td>Default</td><td>€5</td></tr></table></article></main>
</body></html>"""


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
                   log1p: np.ndarray, mean: np.ndarray,
                   scale: np.ndarray, coef: np.ndarray, intercept: np.ndarray, out: np.ndarray, /
                   ) -> None: ...


def _group_bits(groups: Sequence[Iterable[str]]) -> dict[str, int]:
    """word -> the bit mask of the groups it is in."""
    out: dict[str, int] = {}
    for g, ws in enumerate(groups):
        for w in ws:
            out[w] = out.get(w, 0) | 1 << g
    return out


def _agrees(mod: ModuleType) -> bool:
    """ce_filter.score._pagekind configured with this module's tables, and whether it gives the
    Python reference's page signals on the probe page."""
    words = _group_bits(list(_TEXT_WORDS.values()))
    bits = [_BIT[k] for k in ("li", "table", "form", "label", "pre", "blockquote", "dl", "article",
                               "main")]
    bits += [_BIT["nav"] | _BIT["header"] | _BIT["footer"] | _BIT["aside"], _BIT["a"]]
    mod.configure(_LD_INDEX, len(_LD_GROUPS), words, len(_TEXT_WORDS), "".join(_CURRENCY),
                  list(_DIGIT_EXTRA), sorted(HEADINGS), _TAG_H1, _TAG_PRE, bits, PATH_LEN,
                  _group_bits(list(_URL_WORDS.values())), len(_URL_WORDS), list(_OG_KINDS),
                  list(_URL_EXTS), _LOG1P_TABLE)
    global _c
    _c, blocks = mod, segment(parse(_PROBE))
    try:
        return all(np.array_equal(page_signals(blocks, _PROBE, u), _page_signals_py(blocks, _PROBE, u))
                   for u in (None, "https://example.com/shop/p/blue-kettle?x=1"))
    finally:
        _c = None


_c: PageKindC | None = None
_c = native.probed("score._pagekind", "the Python page signals", _agrees)


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

    def proba(self, x: np.ndarray) -> np.ndarray:
        """Kind probabilities of one page (or of a pages x features matrix)."""
        z = ((x - self.mean) / self.scale) @ self.coef.T + self.intercept
        z = z - z.max(axis=-1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=-1, keepdims=True)

    def page_proba(self, blocks: Blocks, html: str = "", url: str | None = None) -> np.ndarray:
        """``proba(page_signals(blocks, html, url))``: after the HTML's scan, in one C call
        without the GIL where ce_filter.score._pagekind is built (libm's log1p and exp, the products
        added in feature order: the numpy reference's values to ~1e-15)."""
        if _c is None or not len(blocks):
            return self.proba(page_signals(blocks, html, url))
        out = np.empty(len(self.kinds))
        _c.kind_proba(html, url, _SCAN_CHARS, blocks.counts(),
                      np.ascontiguousarray(blocks.flags, dtype=np.int64),
                      np.ascontiguousarray(blocks.tag, dtype=np.int64), blocks.container_ids(),
                      blocks.text_column().joined, _TEXT_SCAN, _C_LOG1P, self.mean, self.scale, self.coef,
                      self.intercept, out)
        return out

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


