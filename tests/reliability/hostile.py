"""Page shapes that make the HTML parse super-linear (seen in the wild or under fuzzing), shared
by the tests and the fuzz seed corpus."""

from __future__ import annotations


def shapes() -> dict[str, bytes]:
    """name -> page. Each costs Lexbor seconds to minutes, or gigabytes, unguarded."""
    return {
        "nested divs": b"<div>" * 100_000 + b"x",
        "nested divs, 1 MB": b"<div>" * 200_000 + b"x",
        "100k attributes": b"<p " + b" ".join(b"a%d" % i for i in range(100_000)) + b">x",
        "100k attributes, slashes": b"<p/" + b"/".join(b"a%d" % i for i in range(100_000)) + b">x",
        "spans then stray end tags": b"<span>" * 40_000 + b"</foo>" * 40_000,
        "span + stray end tag, interleaved": b"<span></foo>" * 40_000,
        "formatting reconstruction": b"<div>" + b"".join(b"<b class=c%d>" % i for i in range(3000))
        + b"</div>" + b"<div>x</div>" * 3000,
        "formatting reconstruction, closed at the end": b"<div>"
        + b"".join(b"<i title=t%d>" % i for i in range(3000)) + b"</div>"
        + b"<div>x</div>" * 3000 + b"</i>" * 3000,
        "formatting reconstruction without text": b"<div>"
        + b"".join(b"<font size=%d>" % i for i in range(3000)) + b"</div>"
        + b"<p><span></span></p>" * 3000,
        "formatting end tags across blocks": b"".join(b"<b c=%d><div>" % i for i in range(3000))
        + b"</b>" * 3000,
        "quote hides the tag end": b"<div a='>'</div>" * 100_000,
        "nested tables": b"<table><tr><td>" * 30_000,
        "nested inline svg": b"<svg><g>" * 50_000,
    }
