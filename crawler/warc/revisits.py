"""Revisit records resolved against the originals read earlier in the same run.

A revisit stores no body (its payload is identical to an earlier capture's), so with
``revisits=True`` the reader keeps recent pages by the keys a revisit can name its original
with, bounded in bytes, and gives the revisit the original's body.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

from ce_filter.read.rawpage import RawPage

if TYPE_CHECKING:
    from .lines import WarcHeaders

REVISIT_SKIPPED = "revisit (no payload)"
REVISIT_UNRESOLVED = "revisit (original not in input)"
REVISIT_CACHE_BYTES = 64 << 20


class RevisitIndex:
    """The pages read so far, by the keys a revisit record can name its original with:
    ``WARC-Refers-To`` (record id), ``WARC-Payload-Digest`` (identical-payload-digest
    revisits) and ``WARC-Refers-To-Target-URI`` + ``WARC-Refers-To-Date``.

    Bodies are kept, not file offsets, so stdin and shards work the same way; the cache is
    bounded by ``max_bytes`` (least recently stored dropped first), so a run over a large
    archive holds at most that much. Originals in other files of the run are found; originals
    outside the run (an earlier crawl's WARC) are not, and the revisit is counted as
    ``revisit (original not in input)``."""

    def __init__(self, max_bytes: int = REVISIT_CACHE_BYTES) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        # record id -> (page, its other keys); the keys go with the page when it is dropped
        self._pages: OrderedDict[str, tuple[RawPage, tuple[str, ...]]] = OrderedDict()
        self._keys: dict[str, str] = {}  # digest / "uri date" -> record id

    def __len__(self) -> int:
        return len(self._pages)

    def add(self, page: RawPage, digest: str | None) -> None:
        rid = page.record_id
        if not rid or len(page.body) > self.max_bytes:
            return
        self._drop(rid)
        keys = tuple(k for k in (digest, _uri_date(page.url, page.fetch_time)) if k)
        self._pages[rid] = (page, keys)
        self.bytes += len(page.body)
        for k in keys:
            self._keys[k] = rid
        while self.bytes > self.max_bytes:
            self._drop(next(iter(self._pages)))

    def _drop(self, rid: str) -> None:
        held = self._pages.pop(rid, None)
        if held is None:
            return
        self.bytes -= len(held[0].body)
        for k in held[1]:
            if self._keys.get(k) == rid:
                del self._keys[k]

    def find(self, headers: WarcHeaders) -> RawPage | None:
        """The original a revisit's WARC headers point at, if it is still held."""
        get = headers.get_header
        for rid in (
            get("WARC-Refers-To"),
            self._keys.get(get("WARC-Payload-Digest") or ""),
            self._keys.get(_uri_date(get("WARC-Refers-To-Target-URI"), get("WARC-Refers-To-Date"))),
        ):
            held = self._pages.get(rid or "")
            if held is not None:
                return held[0]
        return None


def _uri_date(uri: str | None, date: str | None) -> str:
    return f"{uri} {date}" if uri and date else ""


def revisit_index(revisits: bool | RevisitIndex | None) -> RevisitIndex | None:
    if isinstance(revisits, RevisitIndex):
        return revisits
    return RevisitIndex() if revisits else None
