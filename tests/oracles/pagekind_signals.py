"""The page-kind signals in Python: the test oracle of their C part (ce_filter/score/_pagekind.c,
``pagekind.page_signals``), which must give these values bit for bit (the page-kind model was
fitted on them). The declared types, og:type and canonical link found by regular expressions
(the C part's matchers are hand-written equivalents), the URL read through urllib's urlsplit,
the block arrays reduced by numpy, the first words counted by a Counter."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from urllib.parse import _WHATWG_C0_CONTROL_OR_SPACE, _splitnetloc, scheme_chars, urlsplit  # type: ignore[attr-defined]

import numpy as np

from ce_filter.read.segment import HEADINGS, Blocks
from ce_filter.score.pagekind import (
    _BIT,
    _CURRENCY,
    _DIGIT_EXTRA,
    _LD_GROUPS,
    _LD_INDEX,
    _OG_KINDS,
    _SCAN_CHARS,
    _TAG_H1,
    _TAG_PRE,
    _TEXT_SCAN,
    _TEXT_WORDS,
    _URL_EXTS,
    _URL_WORDS,
)

# after a '"@type"' key or an 'itemtype=' attribute (found by str.find)
TYPE_AFTER_KEY = re.compile(r'\s*:\s*\[?\s*"(?:https?://schema\.org/)?([A-Za-z]+)"')
TYPE_AFTER_ATTR = re.compile(r"[\"']?https?://schema\.org/([A-Za-z]+)", re.I)
OG_RX = re.compile(
    r"""<meta[^>]{0,80}?(?:property|name)=["']?og:type["']?[^>]{0,80}?content=["']?([\w.:-]+)""",
    re.I)
CANONICAL_RX = re.compile(r"""<link[^>]{0,80}?rel=["']?canonical["']?[^>]{0,80}?href=["']?([^"'\s>]+)""",
                          re.I)
URL_SPLIT = re.compile(r"[/\-_.+]+")
YEAR = re.compile(r"/(?:19|20)\d\d/")
NUM_SEG = re.compile(r"/\d{3,}(?:/|$|[-_])")
# a token that starts with a character str.isdigit() accepts: \d (decimal digits) and the
# digits that are not decimal (superscripts, circled numbers, ...), as code point ranges
DIGIT_START = re.compile(" [\\d" + "".join(chr(a) + (f"-{chr(b)}" if b > a else "") for a, b in _DIGIT_EXTRA)
                         + "]")
# log1p of the small counts url_signals takes it of, by the same scalar np.log1p calls
_LOG1P_SMALL = tuple(float(np.log1p(k)) for k in range(64))


def log1p_count(k: int) -> float:
    """numpy's log1p of a count."""
    return _LOG1P_SMALL[k] if k < 64 else float(np.log1p(k))


def text_prefix(texts: Sequence[str]) -> str:
    """``" ".join(texts)[:_TEXT_SCAN]`` without joining the blocks past it."""
    n = k = 0
    for t in texts:
        n += len(t) + 1
        k += 1
        if n > _TEXT_SCAN:
            break
    return " ".join(texts[:k])[:_TEXT_SCAN]


def flag_share(flags: np.ndarray, name: str) -> float:
    """The share of blocks with the flag ``name``."""
    return float(np.count_nonzero(flags & _BIT[name])) / max(len(flags), 1)


def repeats(key: np.ndarray, n_tok: np.ndarray) -> tuple[float, float, float]:
    """Of blocks grouped by ``key`` (parent element + tag): the largest group's size (log), the
    share of blocks in groups of at least 4, and the share of the page's words in them."""
    if len(key) == 0:
        return 0.0, 0.0, 0.0
    _, inv, cnt = np.unique(key, return_inverse=True, return_counts=True)
    big = cnt[inv] >= 4
    return (float(np.log1p(cnt.max())), float(big.mean()),
            float(n_tok[big].sum() / max(n_tok.sum(), 1.0)))


def declared_types(head: str) -> np.ndarray:
    """0/1 per _LD_GROUPS entry: the JSON-LD / microdata types the page declares, then 1 if
    it declares any."""
    out = np.zeros(len(_LD_GROUPS) + 1)
    for key, rx in (('"@type"', TYPE_AFTER_KEY), ("itemtype=", TYPE_AFTER_ATTR)):
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


def page_url(html: str, url: str | None) -> str:
    """The URL given, else the page's canonical link, else ''."""
    if url:
        return url
    m = CANONICAL_RX.search(html[:_SCAN_CHARS])
    return m.group(1) if m else ""


def og_signals(og_t: str) -> list[float]:
    """og_article, og_product, og_website, og_other of the lower-cased og:type value."""
    return [float(og_t.startswith(k)) for k in _OG_KINDS] + [
        float(bool(og_t) and not og_t.startswith(_OG_KINDS))]


def url_signals(u: str) -> list[float]:
    """The URL's shape and path words ("url_known" .. the _URL_WORDS groups); urlsplit's
    ValueError on a malformed netloc goes through."""
    parts = urlsplit(u) if u else None
    path = (parts.path if parts else "").lower()
    segs = [s for s in path.split("/") if s]
    words = set(URL_SPLIT.split(path)) | set(segs)
    last = segs[-1] if segs else ""
    x = [float(bool(u)), log1p_count(len(segs)), float(bool(u) and not segs),
         float(bool(parts and parts.query)), float(bool(YEAR.search(path))),
         float(bool(NUM_SEG.search(path))), log1p_count(last.count("-")),
         float(last.endswith(_URL_EXTS))]
    x.extend(float(bool(words & ws)) for ws in _URL_WORDS.values())
    return x


def url_signals_unchecked(u: str) -> list[float]:
    """url_signals of ``u`` with its netloc (if any) replaced by "h": what the C part reads
    where urlsplit raises ValueError on a malformed netloc (its checks are of the netloc only:
    the path and query are those of any netloc)."""
    s = u.lstrip(_WHATWG_C0_CONTROL_OR_SPACE)
    for c in "\t\r\n":
        s = s.replace(c, "")
    i = s.find(":")
    scheme = ""
    if i > 0 and s[0].isascii() and s[0].isalpha() and all(c in scheme_chars for c in s[:i]):
        scheme, s = s[:i + 1], s[i + 1:]
    if s[:2] == "//":
        s = "//h" + _splitnetloc(s, 2)[1]
    return url_signals((scheme + s) or u)


def page_signals(blocks: Blocks, html: str = "", url: str | None = None) -> np.ndarray:
    """The reference of pagekind.page_signals (the page-kind model was fitted on these values)."""
    x: list[float] = []
    head = html[:_SCAN_CHARS]
    x.extend(declared_types(head).tolist())
    og = OG_RX.search(head) if "og:type" in head else None
    x += og_signals(og.group(1).lower() if og else "")
    x += url_signals(page_url(html, url))
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
    x += [flag_share(flags, k) for k in ("li", "table", "form", "label")]
    x += [float(np.log1p(np.count_nonzero(pre | (tag == _TAG_PRE)))), float(n_tok[pre].sum() / tot)]
    x += [flag_share(flags, k) for k in ("blockquote", "dl", "article", "main")]
    navish = _BIT["nav"] | _BIT["header"] | _BIT["footer"] | _BIT["aside"]
    x.append(float(np.count_nonzero(flags & navish)) / max(n, 1))
    x.append(flag_share(flags, "a"))
    cont = blocks.container_ids() if n else np.zeros((0, 3), dtype=np.int64)
    x.extend(repeats(cont[:, 1] * 65536 + tag, n_tok) if n else (0.0, 0.0, 0.0))
    x.extend(repeats(cont[:, 2] * 65536 + tag, n_tok) if n else (0.0, 0.0, 0.0))

    # one split and a Counter of the first words; the tokens that start with a currency sign
    # or a digit counted in the tokens joined by single spaces, where each starts after one
    toks = text_prefix(blocks.texts).lower().split()
    bag = Counter(toks)
    n_read = max(len(toks), 1)
    joined = " " + " ".join(toks)
    x.append(float(np.log1p(sum(joined.count(" " + c) for c in _CURRENCY))))
    x.append(len(DIGIT_START.findall(joined)) / n_read)
    x.extend(float(np.log1p(1000.0 * sum(bag.get(w, 0) for w in ws) / n_read))
             for ws in _TEXT_WORDS.values())
    return np.asarray(x, dtype=np.float64)
