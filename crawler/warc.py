"""WARC in: ``.warc`` / ``.warc.gz`` (multi-member gzip) from paths, globs, directories or stdin.

``iter_pages(source, stats)`` yields one :class:`~ce_filter.crawler.page.RawPage` per HTML-ish
``response`` (or ``resource``) record, with HTTP chunking and content-encoding undone and the
``Content-Type`` charset kept as the filter's encoding hint. Everything else is skipped and
counted by reason in :class:`WarcStats`, never silently. A broken or truncated file does not
raise: every whole record before the break is yielded, then the break (file and offset) is
recorded in ``stats.errors`` and reading goes on with the next file.

``revisit`` records (a later capture whose payload is identical to an earlier one, so the
archive stores no body) are skipped by default: a corpus wants each text once. With
``revisits=True`` they are resolved against the originals read earlier in the same run (see
:class:`RevisitIndex`) and become pages of their own, dated and addressed as the revisit.
"""

from __future__ import annotations

import glob
import io
import os
import sys
import zlib
from collections import Counter, OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from warcio.archiveiterator import ArchiveIterator
from warcio.bufferedreaders import ChunkedDataReader
from warcio.limitreader import LimitReader

from .page import RawPage, is_html_type, media_type

Source = str | os.PathLike | IO[bytes]
WARC_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz")
PAGE_TYPES = ("response", "resource")
TRUNCATED = "truncated record"
REVISIT_SKIPPED = "revisit (no payload)"
REVISIT_UNRESOLVED = "revisit (original not in input)"
REVISIT_CACHE_BYTES = 64 << 20


@dataclass
class WarcStats:
    """Counts for a run. Invariant: ``records == pages + sum(skipped.values())``."""

    files: int = 0
    records: int = 0
    pages: int = 0
    skipped: Counter = field(default_factory=Counter)
    errors: list[dict[str, Any]] = field(default_factory=list)
    bytes_read: int = 0  # input bytes read, as stored (compressed): progress against file sizes

    def skip(self, reason: str) -> None:
        self.skipped[reason] += 1

    @property
    def skipped_total(self) -> int:
        return sum(self.skipped.values())

    def error(self, source: str, offset: int | None, message: str) -> None:
        self.errors.append({"source": source, "offset": offset, "error": message})

    def merge(self, other: WarcStats) -> None:
        self.files += other.files
        self.records += other.records
        self.pages += other.pages
        self.skipped.update(other.skipped)
        self.errors.extend(other.errors)
        self.bytes_read += other.bytes_read

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "records": self.records,
            "pages": self.pages,
            "skipped": dict(sorted(self.skipped.items())),
            "errors": list(self.errors),
        }

    def summary(self) -> str:
        skipped = ", ".join(f"{n} {r}" for r, n in sorted(self.skipped.items())) or "none"
        line = f"{self.files} file(s), {self.records} records: {self.pages} pages; skipped: {skipped}"
        for e in self.errors:
            line += f"\nerror: {e['source']}: {e['error']} at offset {e['offset']}"
        return line


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

    def find(self, headers: Any) -> RawPage | None:
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


def expand_sources(source: Source | Iterable[Source]) -> list[tuple[str, Any]]:
    """(name, path-or-stream) pairs. ``-`` is stdin; globs and directories expand (sorted).
    Raises FileNotFoundError for a path or glob that names nothing."""
    if isinstance(source, (str, os.PathLike)) or hasattr(source, "read"):
        source = [source]  # type: ignore[list-item]
    out: list[tuple[str, Any]] = []
    for s in source:  # type: ignore[union-attr]
        if hasattr(s, "read"):
            out.append((getattr(s, "name", "<stream>"), s))
            continue
        name = os.fspath(s)
        if name == "-":
            out.append(("<stdin>", sys.stdin.buffer))
        elif Path(name).is_dir():
            files = sorted(str(p) for p in Path(name).rglob("*") if p.name.endswith(WARC_SUFFIXES))
            out.extend((f, f) for f in files)
        elif Path(name).exists():
            out.append((name, name))
        elif glob.has_magic(name) and glob.glob(name):
            out.extend((f, f) for f in sorted(glob.glob(name)))
        else:
            raise FileNotFoundError(f"no WARC input at {name!r}")
    return out


def iter_pages(
    source: Source | Iterable[Source], stats: WarcStats | None = None, *, all_statuses: bool = False,
    revisits: bool | RevisitIndex = False,
) -> Iterator[RawPage]:
    """Pages from WARC files, globs, directories, ``-`` (stdin) or binary streams.

    Inputs are resolved at call time (a missing file raises FileNotFoundError here, not
    later); records are read lazily. ``all_statuses`` keeps non-2xx responses too.
    ``revisits`` resolves revisit records against the originals read before them (True, or
    a :class:`RevisitIndex` to choose its size or share it between calls).
    """
    inputs = expand_sources(source)
    stats = stats if stats is not None else WarcStats()
    index = _revisit_index(revisits)
    return _iter_inputs(inputs, stats, all_statuses, index)


def _revisit_index(revisits: bool | RevisitIndex | None) -> RevisitIndex | None:
    if isinstance(revisits, RevisitIndex):
        return revisits
    return RevisitIndex() if revisits else None


def _iter_inputs(inputs: list[tuple[str, Any]], stats: WarcStats, all_statuses: bool,
                 revisits: RevisitIndex | None) -> Iterator[RawPage]:
    for name, src in inputs:
        stats.files += 1
        if hasattr(src, "read"):
            yield from _iter_stream(name, src, stats, all_statuses, revisits=revisits)
        else:
            with open(src, "rb") as fh:
                yield from _iter_stream(name, fh, stats, all_statuses, revisits=revisits)


class _Counting:
    """Counts the bytes read, so offsets are stream positions even on stdin (and, into
    ``stats.bytes_read``, how much of the input is done)."""

    def __init__(self, fh: IO[bytes], stats: WarcStats) -> None:
        self.fh = fh
        self.offset = 0
        self.stats = stats

    def tell(self) -> int:
        return self.offset

    def read(self, size: int = -1) -> bytes:
        data = self.fh.read(size)
        self.offset += len(data)
        self.stats.bytes_read += len(data)
        return data


class _Iterator(ArchiveIterator):
    """warcio's iterator, noting whether the last gzip member was complete when it stopped."""

    member_cut = False

    def close(self) -> None:
        d = self.reader.decompressor if self.reader is not None else None
        self.member_cut = d is not None and not getattr(d, "eof", True)
        super().close()


def _iter_stream(name: str, fh: IO[bytes], stats: WarcStats, all_statuses: bool,
                 base: int = 0, stop: int | None = None, revisits: RevisitIndex | None = None
                 ) -> Iterator[RawPage]:
    """``base``: the stream's offset in the file (error offsets are file offsets); ``stop``:
    records starting at or after this file offset belong to the next shard (warc_shards)."""
    src = _Counting(fh, stats)
    src.offset = base
    it = _Iterator(src, arc2warc=True)
    start = base
    try:
        for record in it:
            start = it.offset  # where this record begins (a file offset: warcio asks src.tell())
            if stop is not None and start >= stop:
                return  # the next shard's first record: its reader counts it
            stats.records += 1
            page, reason = _page_from_record(record, name, all_statuses, revisits)
            if page is None:
                stats.skip(reason)
                if reason == TRUNCATED:
                    stats.error(name, start, "input ends inside a record (truncated file)")
                    return
                continue
            stats.pages += 1
            if revisits is not None and record.rec_type != "revisit":
                revisits.add(page, record.rec_headers.get_header("WARC-Payload-Digest"))
            yield page
    except Exception as e:  # noqa: BLE001 - a broken file is data, not a crash
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        stats.error(name, it.offset, f"unreadable record: {type(e).__name__} {first}".strip())
        return
    while src.read(65536):  # anything warcio did not take as a record
        pass
    end = it.offset
    if src.offset > end:
        stats.error(
            name,
            end,
            f"input ends inside a record (truncated file; {src.offset - end} "
            "bytes after the last whole record)",
        )
    elif it.member_cut and src.offset > base:
        stats.error(name, start, "input ends inside the gzip member of the last record (truncated file)")


def _page_from_record(record: Any, name: str, all_statuses: bool,
                      revisits: RevisitIndex | None = None) -> tuple[RawPage | None, str]:
    """The page in a record, or (None, why it is skipped)."""
    if not (record.rec_headers.get_header("Content-Length") or "").strip().isdigit():
        return None, TRUNCATED  # headers cut short (or broken): where the record ends is unknown
    rtype = record.rec_type
    http = record.http_headers if rtype in ("response", "revisit") else None
    ctype = _content_type(record, http)
    status = _status(http)
    body = b""
    original = None
    if rtype == "revisit":
        original = revisits.find(record.rec_headers) if revisits is not None else None
        if original is not None:
            # a server-not-modified revisit records the 304; the page is the original's. The
            # record's own Content-Type is application/http, so only an HTTP one counts.
            status = original.status if status in (None, 304) else status
            ctype = (http.get_header("Content-Type") if http is not None else "") or original.content_type
            http = http if http is not None and http.headers else None
    if rtype == "revisit" and original is None:
        skip = REVISIT_SKIPPED if revisits is None else REVISIT_UNRESOLVED
    elif rtype not in PAGE_TYPES and original is None:
        skip = f"record type {rtype}"
    elif http is not None and not all_statuses and not (status is not None and 200 <= status < 300):
        skip = f"http status {status}"
    elif ctype and not is_html_type(ctype):
        skip = f"non-html {media_type(ctype)}"
    elif original is not None:
        body, skip = original.body, ""
    else:
        body, skip = _payload(record, http)
    if not _drained(record):  # the input ended before the record's Content-Length was read
        return None, TRUNCATED
    if skip:
        return None, skip
    if not ctype and not _sniff_html(body):
        return None, "non-html (no content type)"
    if not body.strip():
        return None, "empty payload"
    return (
        RawPage(
            url=record.rec_headers.get_header("WARC-Target-URI") or "",
            body=body,
            fetch_time=record.rec_headers.get_header("WARC-Date"),
            status=status,
            headers=_headers_dict(http.headers) if http is not None else
            (dict(original.headers) if original is not None else {}),
            content_type=ctype,
            record_id=record.rec_headers.get_header("WARC-Record-ID"),
            source="warc",
            source_name=name,
            revisit_of=original.record_id if original is not None else None,
        ),
        "",
    )


def _content_type(record: Any, http: Any) -> str:
    if http is None:
        return record.rec_headers.get_header("Content-Type") or ""
    return (
        http.get_header("Content-Type") or record.rec_headers.get_header("WARC-Identified-Payload-Type") or ""
    )


def _status(http: Any) -> int | None:
    if http is None:
        return None
    try:
        return int(http.get_statuscode())
    except (TypeError, ValueError):
        return None


def _payload(record: Any, http: Any) -> tuple[bytes, str]:
    """The body with transfer- and content-encoding undone, or (b'', why not)."""
    raw = record.raw_stream
    if http is not None and "chunked" in (http.get_header("Transfer-Encoding") or "").lower():
        data = ChunkedDataReader(raw).read()  # falls back to the bytes as they are if not really chunked
    else:
        data = raw.read()
    coding = (http.get_header("Content-Encoding") or "") if http is not None else ""
    try:
        return decode_content(data, coding), ""
    except LookupError as e:
        return b"", str(e)
    except Exception as e:  # noqa: BLE001 - servers lie about encodings; a lie that is HTML is kept
        if _sniff_html(data):
            return data, ""
        return b"", f"undecodable body ({coding.strip().lower()}: {type(e).__name__})"


def decode_content(data: bytes, coding: str | None) -> bytes:
    """Undo an HTTP Content-Encoding (gzip, deflate, br, zstd where available; a list of them
    is undone last-applied first). Raises LookupError for an encoding it cannot undo and the
    codec's own error for bytes that are not what the header says."""
    for c in reversed([c.strip().lower() for c in (coding or "").split(",") if c.strip()]):
        if c in ("identity", "none"):
            continue
        if c in ("gzip", "x-gzip"):
            data = _zlib_all(data, 16 + zlib.MAX_WBITS)
        elif c == "deflate":
            try:
                data = _zlib_all(data, zlib.MAX_WBITS)
            except zlib.error:
                data = _zlib_all(data, -zlib.MAX_WBITS)  # raw deflate, as some servers send
        elif c == "br":
            try:
                import brotli
            except ImportError:
                raise LookupError("unsupported content-encoding br (brotli not installed)") from None
            data = brotli.decompress(data)
        elif c == "zstd":
            data = _zstd(data)
        else:
            raise LookupError(f"unsupported content-encoding {c}")
    return data


def _zlib_all(data: bytes, wbits: int) -> bytes:
    """Decompress every member (gzip may be multi-member); a cut stream gives what it has."""
    out = []
    while data:
        d = zlib.decompressobj(wbits)
        out.append(d.decompress(data))
        out.append(d.flush())
        data = d.unused_data if d.eof else b""
    return b"".join(out)


def _zstd(data: bytes) -> bytes:
    try:
        from compression import zstd  # Python 3.14+
    except ImportError:
        try:
            from backports import zstd  # type: ignore[no-redef]
        except ImportError:
            raise LookupError("unsupported content-encoding zstd (no zstd module)") from None
    return zstd.decompress(data)


def _headers_dict(pairs: list[tuple[str, str]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in pairs:
        out[k] = f"{out[k]}, {v}" if k in out else v
    return out


def _drained(record: Any) -> bool:
    """Read what is left of a record's block; False when the input ends inside it."""
    raw = record.raw_stream
    if not isinstance(raw, LimitReader):  # no Content-Length, or 0: nothing of its own to read
        return True
    while raw.read(65536):
        pass
    return raw.limit <= 0


def _sniff_html(body: bytes) -> bool:
    head = body[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith(b"<")


def read_all(data: bytes, stats: WarcStats | None = None) -> list[RawPage]:
    """Every page of an in-memory WARC (handy for tests and small tools)."""
    return list(iter_pages(io.BytesIO(data), stats))
