"""A page's address as the site memory and the metadata read it: its host."""

from __future__ import annotations


def hostname(url: str | None) -> str:
    """The host of ``url``, lower case, without "www." and port ('' for none or a relative URL).
    Read from the string itself (urlsplit's checks cost more than the rest of the field); the
    test compares it with urlsplit's hostname."""
    url = (url or "").strip()
    at = url.find("//")
    scheme = url[:at - 1] if at > 0 and url[at - 1] == ":" else None if at else ""
    if at < 0 or scheme is None or not (scheme == "" or scheme.replace("+", "").replace("-", "").isalnum()):
        return ""  # no "//", or something other than a scheme before it
    rest = url[at + 2:]
    end = len(rest)
    for c in "/?#":
        i = rest.find(c)
        if 0 <= i < end:
            end = i
    host = rest[:end].rpartition("@")[2]
    if host.startswith("["):  # an IPv6 literal
        host = host[1:host.find("]")] if "]" in host else ""
    else:
        host = host.partition(":")[0]
    return host.strip().lower().removeprefix("www.")
