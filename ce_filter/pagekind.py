"""The page kind (article, documentation, service, forum, collection, listing, product): a
multinomial logistic regression over page-level signals, served with numpy.

Indexing pipelines route on the kind, and the block model reads its probabilities (a menu of
short links is boilerplate on an article and the content of a listing). The signals are what a
person glances at: the declared types (JSON-LD / microdata ``@type``, ``og:type``), the URL's
shape and words, and the page's blocks (how many, how link-heavy, how many headings, list
items, table cells, form fields and code blocks, and how much of the page is one repeated
structure). The model is JSON, stored inside the content model file (``pagekind``) and fitted
with it (learn.fit.page_kinds), so ``scripts/train_models.sh`` rebuilds both.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from .segment import FLAG_NAMES, HEADINGS, Blocks, _id

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
_URL_SPLIT = re.compile(r"[/\-_.+]+")
_YEAR = re.compile(r"/(?:19|20)\d\d/")
_NUM_SEG = re.compile(r"/\d{3,}(?:/|$|[-_])")

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
# digits that are not decimal (superscripts, circled numbers, ...)
_DIGIT_START = re.compile(
    " [\\d\xb2\xb3\xb9\u1369-\u1371\u19da\u2070\u2074-\u2079\u2080-\u2089\u2460-\u2468\u2474-\u247c"
    "\u2488-\u2490\u24ea\u24f5-\u24fd\u24ff\u2776-\u277e\u2780-\u2788\u278a-\u2792"
    "\U00010a40-\U00010a43\U00010e60-\U00010e68\U00011052-\U0001105a\U0001f100-\U0001f10a]")

_BIT = {n: 1 << i for i, n in enumerate(FLAG_NAMES)}
_TAG_PRE = _id("pre")
_TAG_H1 = _id("h1")


def _text_prefix(texts: list[str]) -> str:
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


def page_signals(blocks: Blocks, html: str = "", url: str | None = None) -> np.ndarray:
    """The page's signal vector (``feature_names`` order)."""
    x: list[float] = []
    head = html[:_SCAN_CHARS]
    x.extend(_declared_types(head).tolist())
    og = _OG_RX.search(head) if "og:type" in head else None
    og_t = og.group(1).lower() if og else ""
    x.extend(float(og_t.startswith(k)) for k in _OG_KINDS)
    x.append(float(bool(og_t) and not og_t.startswith(_OG_KINDS)))

    u = _page_url(html, url)
    parts = urlsplit(u) if u else None
    path = (parts.path if parts else "").lower()
    segs = [s for s in path.split("/") if s]
    words = set(_URL_SPLIT.split(path)) | set(segs)
    last = segs[-1] if segs else ""
    x += [float(bool(u)), float(np.log1p(len(segs))), float(bool(u) and not segs),
          float(bool(parts and parts.query)), float(bool(_YEAR.search(path))),
          float(bool(_NUM_SEG.search(path))), float(np.log1p(last.count("-"))),
          float(last.endswith((".html", ".htm", ".php", ".aspx")))]
    x.extend(float(bool(words & ws)) for ws in _URL_WORDS.values())

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
    meta: dict[str, Any] = field(default_factory=dict)

    def proba(self, x: np.ndarray) -> np.ndarray:
        """Kind probabilities of one page (or of a pages x features matrix)."""
        z = ((x - self.mean) / self.scale) @ self.coef.T + self.intercept
        z = z - z.max(axis=-1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=-1, keepdims=True)

    def predict(self, blocks: Blocks, html: str = "", url: str | None = None
                ) -> tuple[str, float, np.ndarray]:
        """(kind, its probability, all probabilities in ``kinds`` order)."""
        p = self.proba(page_signals(blocks, html, url))
        i = int(np.argmax(p))
        return self.kinds[i], float(p[i]), p

    def to_json(self) -> dict[str, Any]:
        return {"format": "ce-filter-pagekind", "format_version": FORMAT_VERSION,
                "kinds": list(self.kinds), "features": feature_names(),
                "mean": self.mean.tolist(), "scale": self.scale.tolist(),
                "coef": self.coef.tolist(), "intercept": self.intercept.tolist(), "meta": self.meta}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1, sort_keys=True) + "\n"

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.dumps(), encoding="utf-8")

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> PageKindModel:
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
        return cls(kinds, mean, scale, coef, icpt, dict(d.get("meta", {})))

    @classmethod
    def load(cls, path: str | Path) -> PageKindModel:
        try:
            return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))
        except (KeyError, TypeError, json.JSONDecodeError) as e:
            raise PageKindError(f"{path}: {e!r}") from e


