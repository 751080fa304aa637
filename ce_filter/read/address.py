"""A page's address as the site memory and the metadata read it: its host."""

from __future__ import annotations

import functools
from typing import Protocol, cast

from .. import native


class HostC(Protocol):
    """The function of the metadata C part (keep/_metadata.c) that reads a URL's host."""

    def hostname(self, url: str | None, /) -> str: ...


@functools.cache
def _c() -> HostC:
    return cast("HostC", native.required("keep._metadata"))


def hostname(url: str | None) -> str:
    """The host of ``url``, lower case, without "www." and port ('' for none or a relative URL).
    Read from the string itself by the C part (urlsplit's checks cost more than the rest of the
    field); the test compares it with urlsplit's hostname."""
    return _c().hostname(url)
