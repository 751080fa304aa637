"""The site's other pages: how many pages of the same host hold each block of a page.

Navigation, footers, tickers, "related" lists and cookie notices repeat across a site's pages;
an article's paragraphs do not. A block's *fingerprint* is a deterministic 64-bit hash of its
normalised text (case-folded, every run of digits one mark, whitespace collapsed): the same
footer with another date or count is the same fingerprint (``block_fingerprints`` also marks
link blocks, so a headline linked from the front page is not the article's own). Two memories
give each block of a page "seen on k of the n other pages of this host":

- :class:`SiteMemory`, for streams (``Extractor(site_memory=...)``, ``worker``, ``crawl``): the
  last ``pages`` pages of each host, least recently used hosts forgotten first, with a fixed
  ceiling on the entries held over all hosts.
- :class:`SiteCounts`, order-free (``ce-filter warc``): a first pass counts every host's
  fingerprints over the whole input; each page then reads the counts with itself left out, so
  the result depends neither on the order of the pages nor on how they are split over workers.

A host's first page (n = 0) gets no site input: its result is exactly the single-page one.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Iterable, Sequence
from itertools import repeat
from typing import TYPE_CHECKING, Protocol, cast, runtime_checkable

import numpy as np

from ... import native
from ...read.address import hostname
from ...read.texts import column

if TYPE_CHECKING:
    from ...read.segment import Blocks

# blocks shorter than this many bytes of UTF-8 (after normalising) carry no fingerprint: "|",
# "»", "1." repeat on every page of every site and say nothing about this one
MIN_BYTES = 3
# a block longer than this many characters is fingerprinted by its first MAX_CHARS and its
# length: a 5 MB block costs what a 4 KB one does, and two long blocks that agree on both are
# the same block for this purpose (a repeated footer is never this long)
MAX_CHARS = 4096
NO_PRINT = np.uint64(0)  # the fingerprint of a block too short to have one

_SEP = "\x00"  # between blocks in one normalising pass: not a digit, not whitespace
# the Unicode spaces read as a space (besides ASCII whitespace): no-break, ideographic, thin, ...
_USPACES = ("\xa0", "\u3000", "\u2002", "\u2003", "\u2009", "\u202f", "\u205f", "\u1680")
_DIGITS = re.compile(r"[0-9]+")
_SPACE = re.compile(r"[ \t\n\r\f\v]+")
# splitmix64's finaliser's constants (the C part's too)
_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def _spaces(text: str) -> str:
    for ch in _USPACES:
        if ch in text:
            text = text.replace(ch, " ")
    return text


def normalise(text: str) -> str:
    """The text a fingerprint is made of: case-folded, every run of ASCII digits one "0",
    every run of whitespace (ASCII, and the Unicode spaces of _USPACES) one space, trimmed."""
    return _SPACE.sub(" ", _DIGITS.sub("0", _spaces(text.casefold()))).strip(" ")


def mix(z: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: every input bit moves about half the output bits."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


class MemoryC(Protocol):
    """The function of the C part (score/site/_memory.c) that every build has: each of the ``n``
    NUL-joined blocks' mixed hash and kept bytes into ``out`` and ``kept`` (``block_fingerprints``,
    built up to Python 3.12 only, is looked up: ``_C_BLOCKS``)."""

    def hashes(self, data: bytes, n: int, out: np.ndarray, kept: np.ndarray, /) -> None: ...


# the blocks' hashes and kept bytes from their NUL-joined UTF-8 (``c_hashes``)
Hashes = Callable[[bytes, int], tuple[np.ndarray, np.ndarray]]
_c = cast(MemoryC, native.required("score.site._memory"))
# (the page's TextColumn's joined text and starts, its anchor texts' starts, out)
_C_BLOCKS: Callable[[str, np.ndarray, np.ndarray, np.ndarray], None] | None = getattr(
    _c, "block_fingerprints", None)


def fingerprints(texts: Sequence[str], hashes: Hashes | None = None) -> np.ndarray:
    """Every block's 64-bit fingerprint (uint64; 0 where the block is under MIN_BYTES). The page
    is normalised in one pass over its joined text (``normalise`` per block, as C calls over the
    whole page) and every block hashed at once in numpy: a polynomial hash of its UTF-8 bytes
    modulo 2**64 (prefix sums, so a block's value does not depend on where it sits), mixed with
    its length by splitmix64's finaliser (a block over MAX_CHARS: its first MAX_CHARS, then
    its whole length mixed in). Deterministic across processes and runs, unlike the
    salted ``hash()``; a blake2b call a block cost about twice as much. ``hashes``: the
    blocks' hashes from the joined bytes (None: the C part's, score/site/_memory.c; the
    test oracle passes its numpy twin)."""
    n = len(texts)
    if not n:
        return np.zeros(0, dtype=np.uint64)
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=n)
    long = np.flatnonzero(lengths > MAX_CHARS)
    if len(long):
        texts = list(texts)
        for i in long.tolist():
            texts[i] = texts[i][:MAX_CHARS]
    joined = _SEP.join(texts)
    if joined.count(_SEP) != n - 1:  # a block holding a NUL: read as a space
        joined = _SEP.join(t.replace(_SEP, " ") for t in texts)
    data = _spaces(joined.casefold()).encode("utf-8", "surrogatepass")
    out, kept = (hashes or c_hashes)(data, n)
    if len(long):  # the cut blocks: their whole length mixed in
        with np.errstate(over="ignore"):
            out[long] = mix(out[long] ^ (lengths[long].astype(np.uint64) * _M1))
    out[out == NO_PRINT] = 1
    out[kept < MIN_BYTES] = NO_PRINT
    return out


def c_hashes(utf8: bytes, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Each of the ``n`` NUL-joined blocks' mixed hash and kept bytes, in C."""
    out, kept = np.empty(n, dtype=np.uint64), np.empty(n, dtype=np.int64)
    _c.hashes(utf8, n, out, kept)
    return out, kept


def fingerprint(text: str) -> int:
    """One block's fingerprint (``fingerprints``)."""
    return int(fingerprints([text])[0])


# a link block's fingerprint is its text's with these bits flipped: "Old market hall to become a
# library" as a link on the front page is not the article's own headline on its page, while
# a menu's or a "related" list's links match the same links on the site's other pages
LINK_BITS = np.uint64(0x9E3779B97F4A7C15)


def block_fingerprints(blocks: Blocks) -> np.ndarray:
    """The fingerprints of a segmented page's blocks (segment.Blocks): the text's, marked as
    a link where at least half of the block's text is anchor text. In one C call from the
    texts where the C part has it (CPython up to 3.12: it reads CPython's case folding), else
    folded here and hashed in C (``folded_fingerprints``, the same values)."""
    texts, anchors = blocks.texts, blocks.anchor_texts
    if _C_BLOCKS is None:
        return folded_fingerprints(texts, anchors)
    col, links = blocks.text_column(), column(anchors, gap=0)
    out = np.empty(len(texts), dtype=np.uint64)
    _C_BLOCKS(col.joined, col.starts, links.starts, out)
    return out


def folded_fingerprints(texts: Sequence[str], anchors: Sequence[str], hashes: Hashes | None = None
                        ) -> np.ndarray:
    """``block_fingerprints`` from the texts folded in Python (``fingerprints``, ``hashes`` as
    there): the way where the C part has no block_fingerprints."""
    fps = fingerprints(texts, hashes)
    if not len(fps):
        return fps
    text_len = np.fromiter(map(len, texts), dtype=np.int64, count=len(fps))
    link_len = np.fromiter(map(len, anchors), dtype=np.int64, count=len(fps))
    link = (2 * link_len >= text_len) & (link_len > 0) & (fps != NO_PRINT)
    fps[link] ^= LINK_BITS
    fps[link & (fps == NO_PRINT)] = 1
    return fps


def page_set(fps: np.ndarray) -> np.ndarray:
    """A page's distinct fingerprints (a block repeated on one page counts once per page)."""
    u = np.unique(fps)
    return u[u != NO_PRINT]


def set_digest(s: np.ndarray) -> bytes:
    """A page's identity by content: the digest of its distinct fingerprints (sorted)."""
    return hashlib.blake2b(np.ascontiguousarray(s, dtype=np.uint64).tobytes(), digest_size=16).digest()


@runtime_checkable
class Memory(Protocol):
    """What ``Extractor`` needs of a site memory (``Extractor(site_memory=...)``): how many of
    a host's other pages hold each fingerprint, and to remember a page. SiteMemory (a stream's)
    and SiteCounts (a first pass's, whose ``observe`` does nothing) implement it."""

    def seen(self, host: str, fps: np.ndarray) -> tuple[np.ndarray, int]: ...

    def observe(self, host: str, fps: np.ndarray, key: str = "") -> None: ...


def _lookup(counts: dict[int, int], fps: np.ndarray) -> np.ndarray:
    """counts[f] per fingerprint (0 where absent or for NO_PRINT), as float64."""
    return np.fromiter(map(counts.get, fps.tolist(), repeat(0)), dtype=np.float64, count=len(fps))


class _Host:
    __slots__ = ("pages", "counts", "keys", "digests")

    def __init__(self) -> None:
        self.pages: deque[np.ndarray] = deque()  # each remembered page's distinct fingerprints
        self.counts: Counter[int] = Counter()  # fingerprint -> pages in ``pages`` holding it
        self.keys: deque[str] = deque()  # each remembered page's key (its URL; '' for none)
        self.digests: deque[bytes] = deque()  # each remembered page's set_digest

    def size(self) -> int:
        return len(self.counts) + sum(len(p) for p in self.pages)


class SiteMemory:
    """Per host, the fingerprint sets of its last ``pages`` pages and how many of them hold each
    fingerprint; hosts least recently used are forgotten first.

    Memory bound: at most ``max_entries`` entries over all hosts, an entry being one fingerprint
    of a remembered page (8 bytes in its numpy array) or one key of a host's counter (a Python
    int -> int dict entry). Measured with tracemalloc (tests/core/test_sitememory.py), 65 bytes
    an entry on average where every fingerprint is distinct (the worst case: each counter key
    beside one page entry), 20 where three quarters of a page's blocks repeat; the default
    1,000,000 entries hold at most about 65 MB. When over, the least recently used hosts go
    (never the host just observed, which drops its oldest pages instead).
    """

    def __init__(self, pages: int = 50, max_entries: int = 1_000_000) -> None:
        if pages < 1 or max_entries < 1:
            raise ValueError("pages and max_entries must be at least 1")
        self.window = pages
        self.max_entries = max_entries
        self._hosts: OrderedDict[str, _Host] = OrderedDict()
        self._entries = 0
        self._lock = threading.Lock()  # an Extractor shared by threads (Scrapy's CE_FILTER_THREADS)

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """Hosts remembered."""
        return len(self._hosts)

    @property
    def entries(self) -> int:
        """Entries held over all hosts (the quantity ``max_entries`` bounds)."""
        return self._entries

    def seen(self, host: str, fps: np.ndarray) -> tuple[np.ndarray, int]:
        """(k, n): per block, on how many of the host's n remembered pages its fingerprint
        was (0 for a block without one); n = 0 for a host not seen."""
        with self._lock:
            h = self._hosts.get(host)
            if h is None or not h.pages:
                return np.zeros(len(fps)), 0
            self._hosts.move_to_end(host)
            k, n = _lookup(h.counts, fps), len(h.pages)
            if set_digest(page_set(np.asarray(fps, dtype=np.uint64))) in h.digests:
                # the same page remembered (another URL of it, "/" and "/index.html"): its
                # copy is no evidence that the blocks repeat across the site
                k = np.where(np.asarray(fps, dtype=np.uint64) != NO_PRINT, np.maximum(k - 1, 0), 0.0)
                n -= 1
            return k, n

    def observe(self, host: str, fps: np.ndarray, key: str = "") -> None:
        """Remember a page of ``host`` (its blocks' fingerprints); the host's oldest page goes
        past the window, and least recently used hosts go past the ceiling. ``key`` (the
        page's URL): a page already remembered under it is not counted twice (a capture seen
        again would make its own article look repeated across the site)."""
        if not host:
            return
        s = page_set(np.asarray(fps, dtype=np.uint64))
        with self._lock:
            self._observe(host, s, key)

    def _observe(self, host: str, s: np.ndarray, key: str) -> None:
        h = self._hosts.get(host)
        if h is None:
            h = self._hosts[host] = _Host()
        self._hosts.move_to_end(host)
        digest = set_digest(s)
        if (key and key in h.keys) or digest in h.digests:  # a page remembered already
            return
        h.keys.append(key)
        h.digests.append(digest)
        before = h.size()
        h.counts.update(s.tolist())  # (Counter.update of a list: a loop in C)
        h.pages.append(s)
        while len(h.pages) > self.window:
            self._forget_page(h)
        self._entries += h.size() - before
        while self._entries > self.max_entries:
            oldest = next(iter(self._hosts))
            if oldest == host:  # only this host left: it keeps its newest pages
                if len(h.pages) <= 1:
                    break
                before = h.size()
                self._forget_page(h)
                self._entries += h.size() - before
                continue
            self._entries -= self._hosts.pop(oldest).size()

    @staticmethod
    def _forget_page(h: _Host) -> None:
        h.keys.popleft()
        h.digests.popleft()
        counts = h.counts
        for f in h.pages.popleft().tolist():
            c = counts[f] - 1
            if c:
                counts[f] = c
            else:
                del counts[f]


class SiteCounts:
    """Order-free counts: every host's fingerprints counted over all its pages (``add`` each
    page once, in any order, or merge the counts of several passes); ``seen`` then gives a
    page's blocks the share of the host's *other* pages (the page itself left out), so a page's
    result does not depend on which pages came before it. ``observe`` does nothing: the counts
    are made before the extraction pass."""

    def __init__(self) -> None:
        self.counts: dict[str, Counter[int]] = {}
        self.pages: Counter[str] = Counter()
        self._keys: set[str] = set()  # the pages counted, by key (their URLs), until pruned
        self._digests: set[tuple[str, bytes]] = set()  # and by content (set_digest), per host

    def add(self, host: str, fps: np.ndarray, key: str = "") -> None:
        """Count one page of ``host``; a page whose ``key`` (URL) or whose content (the same
        distinct fingerprints) was counted already is not counted again (a URL captured twice,
        or "/" and "/index.html", is one page of the site; ``seen`` leaves that one out)."""
        if not host or (key and key in self._keys):
            return
        s = page_set(np.asarray(fps, dtype=np.uint64))
        d = (host, set_digest(s))
        if d in self._digests:
            return
        self._digests.add(d)
        if key:
            self._keys.add(key)
        self.pages[host] += 1
        self.counts.setdefault(host, Counter()).update(s.tolist())

    def merge(self, other: SiteCounts) -> None:
        """Add another pass's counts over other pages (the passes of several workers or files)."""
        self.pages.update(other.pages)
        self._keys |= other._keys
        self._digests |= other._digests
        for host, c in other.counts.items():
            self.counts.setdefault(host, Counter()).update(c)

    def prune(self) -> None:
        """Drop the fingerprints counted on one page only and the hosts of one page: left out
        of their own page they count 0, as absent ones do (most of an article's blocks: the
        counts then hold only what repeats)."""
        self._keys, self._digests = set(), set()
        for host in list(self.counts):
            if self.pages[host] <= 1:
                del self.counts[host]
                continue
            c = self.counts[host]
            self.counts[host] = Counter({f: v for f, v in c.items() if v > 1})

    def seen(self, host: str, fps: np.ndarray) -> tuple[np.ndarray, int]:
        """(k, n) over the host's other pages: k = pages holding the block's fingerprint but
        this one, n = the host's pages but this one."""
        n = self.pages.get(host, 0) - 1
        if n <= 0:
            return np.zeros(len(fps)), 0
        fps = np.asarray(fps, dtype=np.uint64)
        k = _lookup(self.counts.get(host, {}), fps)
        # the page counted itself once for each distinct fingerprint it holds
        k = np.where(fps != NO_PRINT, np.maximum(k - 1, 0), 0.0)
        return k, n

    def observe(self, host: str, fps: np.ndarray, key: str = "") -> None:
        """Nothing: the counts were made in the first pass."""


def count_pages(pages: Iterable[tuple[str, Sequence[str]]]) -> SiteCounts:
    """SiteCounts of (host, block texts) pairs."""
    c = SiteCounts()
    for host, texts in pages:
        c.add(host, fingerprints(texts))
    return c


def host_of(url: str | None) -> str:
    """The memory's key: the URL's host, lower case, without "www." and port (metadata's
    ``hostname``); '' (no memory) for none."""
    return hostname(url)
