"""Pages from files, directories, stdin and URLs (what ``ce-filter extract`` reads).

Each input is read up to a bound (the filter's page size limit + 1 byte, so the filter can
tell it cut the page), never whole: ``extract < /dev/zero`` reads 8 MiB, not until memory
runs out. A URL is fetched over http(s) with a total time limit. An input that cannot be
read is yielded as an :class:`InputError` in its turn, so the inputs before and after it are
still processed.
"""

from __future__ import annotations

import re
import sys
import time
import urllib.error
import urllib.request
import zlib
from collections.abc import Iterable, Iterator
from http.client import HTTPException
from pathlib import Path
from typing import BinaryIO

from ce_filter.read.rawpage import RawPage, now_iso

USER_AGENT = "ce-filter (main-content extraction)"
HTML_GLOB = "*.htm*"
_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
_CHUNK = 64 * 1024


class InputError(Exception):
    """One input that could not be read (the message names it)."""


def is_url(spec: str) -> bool:
    return bool(_URL.match(spec))


def _read_bounded(fh: BinaryIO, limit: int, deadline: float | None = None, what: str = "") -> bytes:
    """At most ``limit`` bytes; past ``deadline`` (monotonic) an InputError."""
    parts: list[bytes] = []
    n = 0
    while n < limit:
        chunk = fh.read(min(_CHUNK, limit - n))
        if not chunk:
            break
        parts.append(chunk)
        n += len(chunk)
        if deadline is not None and time.monotonic() > deadline:
            raise InputError(f"{what}: timed out while reading")
    return b"".join(parts)


def _undo_content_encoding(body: bytes, encoding: str, limit: int) -> bytes:
    """gzip/deflate bodies a server sent although we asked for none, cut at ``limit``."""
    enc = encoding.strip().lower()
    if enc in ("gzip", "x-gzip", "deflate"):
        wbits = 47 if enc != "deflate" else 15  # 47: gzip or zlib header; deflate: zlib
        for wb in (wbits, -15):
            try:
                return zlib.decompressobj(wb).decompress(body, limit)
            except zlib.error:
                continue
    return body


def fetch(url: str, *, limit: int, timeout: float, opener: urllib.request.OpenerDirector | None = None
          ) -> RawPage:
    """GET ``url`` (http or https; redirects followed), at most ``limit`` bytes of body,
    within ``timeout`` seconds in all, with ``opener`` (a urllib OpenerDirector; default
    urllib's). Failures are InputError."""
    scheme = url.split(":", 1)[0].lower()
    if scheme not in ("http", "https"):
        raise InputError(f"{url}: only http and https URLs are fetched")
    req = urllib.request.Request(
        url,
        headers={
            "User-Agent": USER_AGENT,
            "Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5",
            "Accept-Encoding": "identity",
        },
    )
    deadline = time.monotonic() + timeout
    try:
        with (opener.open if opener else urllib.request.urlopen)(req, timeout=timeout) as resp:  # noqa: S310
            body = _read_bounded(resp, limit, deadline, url)
            headers = {k: v for k, v in resp.headers.items()}
            body = _undo_content_encoding(body, resp.headers.get("Content-Encoding", ""), limit)
            return RawPage(
                url=resp.geturl(),
                body=body,
                fetch_time=now_iso(),
                status=resp.status,
                headers=headers,
                content_type=resp.headers.get("Content-Type", ""),
                source="fetch",
                source_name=url,
            )
    except urllib.error.HTTPError as e:
        raise InputError(f"{url}: HTTP {e.code} {e.reason}") from None
    except urllib.error.URLError as e:
        raise InputError(f"{url}: {e.reason}") from None
    except (OSError, HTTPException, ValueError) as e:  # timeouts, resets, bad status lines
        raise InputError(f"{url}: {type(e).__name__}: {e}") from None


def _file_page(path: Path, limit: int) -> RawPage:
    try:
        with open(path, "rb") as fh:
            body = _read_bounded(fh, limit)
    except OSError as e:
        raise InputError(f"{path}: {e.strerror or e}") from None
    return RawPage(url="", body=body, source="file", source_name=str(path))


def _html_files(directory: str) -> list[Path]:
    return sorted(p for p in Path(directory).rglob(HTML_GLOB) if p.is_file())


def count_inputs(specs: Iterable[str]) -> int:
    """How many pages (or errors) ``iter_inputs`` will yield for ``specs``: the total of a
    progress bar, known before any page is read."""
    return sum(max(len(_html_files(s)), 1) if not is_url(s) and Path(s).is_dir() else 1 for s in specs)


def iter_inputs(specs: Iterable[str], *, limit: int, timeout: float = 30.0) -> Iterator[RawPage | InputError]:
    """Each input in order: a file, every ``*.htm*`` file under a directory, ``-`` (stdin)
    or an http(s) URL. ``limit``: bytes read per page at most."""
    for spec in specs:
        try:
            if spec == "-":
                yield RawPage(url="", body=_read_bounded(sys.stdin.buffer, limit), source="file",
                              source_name="-")
            elif is_url(spec):
                yield fetch(spec, limit=limit, timeout=timeout)
            elif Path(spec).is_dir():
                files = _html_files(spec)
                if not files:
                    raise InputError(f"{spec}: no {HTML_GLOB} files in this directory")
                for f in files:
                    try:
                        yield _file_page(f, limit)
                    except InputError as e:
                        yield e
            elif not Path(spec).exists():
                raise InputError(f"{spec}: no such file or directory")
            else:
                yield _file_page(Path(spec), limit)
        except InputError as e:
            yield e
