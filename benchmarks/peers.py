"""One adapter per tool: ``make(name)`` -> ``fn(html_bytes, url) -> text``.

Every tool is given the page's address where the corpus has one (a crawler always knows it):
ce-filter's page-kind estimate reads the URL's shape, trafilatura and readability-lxml take it
as an argument, the others have no use for it.

Every tool gets the page's raw bytes and decodes them the way it prefers (that cost is part
of its time): trafilatura, readability-lxml and jusText take bytes and detect the charset
themselves; resiliparse uses its own ``detect_encoding``; boilerpy3 and html-text take only
``str``, so they get w3lib's ``html_to_unicode`` (the decoder of Scrapy and of html-text's own
authors; w3lib comes with Scrapy), or ce-filter's decoder where w3lib is absent.

Only the standard library is imported here at module level: a tool's measuring process
imports that tool alone, so its memory figure is its own.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata

Fn = Callable[[bytes, "str | None"], str]


@dataclass(frozen=True)
class Tool:
    name: str
    module: str  # what must be importable
    dist: str  # distribution name, for the version
    how: str  # one line for the docs: the call and its settings


TOOLS: dict[str, Tool] = {t.name: t for t in (
    Tool("ce-filter", "ce_filter", "ce-filter",
         "`Extractor().extract(html, url=url).text` (shipped content model; the metadata rules "
         "run when a metadata field is first read, so not here)"),
    Tool("ce-filter+metadata", "ce_filter", "ce-filter",
         "`Extractor().extract(html, url=url)` with every field read (`.to_dict()`): the text, "
         "title, author, date, site, language and page kind of a pipeline's record"),
    Tool("trafilatura", "trafilatura", "trafilatura",
         "`trafilatura.extract(html, url=url, include_comments=False)`, otherwise its defaults"),
    Tool("resiliparse", "resiliparse", "resiliparse",
         "`extract_plain_text(HTMLTree.parse_from_bytes(html, detect_encoding(html)), "
         "main_content=True, comments=False)`: main content, user comments left out like the gold"),
    Tool("readability-lxml", "readability", "readability-lxml",
         "`Document(html, url=url).summary()`, summary HTML to text with html-text"),
    Tool("justext", "justext", "justext",
         "`justext.justext(html, get_stoplist('English'))`, non-boilerplate paragraphs joined"),
    Tool("boilerpy3", "boilerpy3", "boilerpy3",
         "`ArticleExtractor().get_content(html_to_unicode(None, html)[1])` (w3lib decodes)"),
    Tool("html-text", "html_text", "html-text",
         "`html_text.extract_text(html_to_unicode(None, html)[1])`: the keep-everything baseline"),
)}
ALL = tuple(TOOLS)
OURS = ("ce-filter", "ce-filter+metadata")  # the same extraction; the second reads every field
PEERS = ALL[len(OURS):]


def available(name: str) -> bool:
    return importlib.util.find_spec(TOOLS[name].module) is not None


def version(name: str) -> str:
    if name in OURS:
        import ce_filter

        return ce_filter.__version__
    try:
        return metadata.version(TOOLS[name].dist)
    except metadata.PackageNotFoundError:
        return "?"


def _decoder() -> Callable[[bytes], str]:
    try:
        from w3lib.encoding import html_to_unicode

        return lambda data: html_to_unicode(None, data)[1]
    except ImportError:
        from ce_filter.decode import decode_html

        return lambda data: decode_html(data)[0]


def _ce_filter() -> Fn:
    from ce_filter import Extractor

    ex = Extractor()

    def run(data: bytes, url: str | None = None) -> str:
        return ex.extract(data, url=url).text

    return run


def _ce_filter_record() -> Fn:
    from ce_filter import Extractor

    ex = Extractor()

    def run(data: bytes, url: str | None = None) -> str:
        text: str = ex.extract(data, url=url).to_dict()["text"]
        return text

    return run


def _trafilatura() -> Fn:
    import trafilatura

    def run(data: bytes, url: str | None = None) -> str:
        return trafilatura.extract(data, url=url, include_comments=False) or ""

    return run


def _resiliparse() -> Fn:
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.encoding import detect_encoding
    from resiliparse.parse.html import HTMLTree

    def run(data: bytes, url: str | None = None) -> str:
        # detect_encoding is typed str | None; in its default HTML5 mode it always names one
        # (utf-8 when it knows nothing), which is also parse_from_bytes' own default
        tree = HTMLTree.parse_from_bytes(data, detect_encoding(data) or "utf-8")
        return extract_plain_text(tree, main_content=True, comments=False)

    return run


def _summary_to_text() -> Callable[[str], str]:
    try:
        from html_text import extract_text

        return extract_text
    except ImportError:  # html-text is a peer too; lxml comes with readability-lxml
        import lxml.html

        return lambda s: lxml.html.fromstring(s).text_content() if s.strip() else ""


def _readability() -> Fn:
    from readability import Document

    to_text = _summary_to_text()

    def run(data: bytes, url: str | None = None) -> str:
        return to_text(Document(data, url=url).summary())

    return run


def _justext() -> Fn:
    import justext

    stoplist = justext.get_stoplist("English")

    def run(data: bytes, url: str | None = None) -> str:
        paragraphs = justext.justext(data, stoplist)
        return "\n\n".join(p.text for p in paragraphs if not p.is_boilerplate)

    return run


def _boilerpy3() -> Fn:
    from boilerpy3 import extractors

    ex = extractors.ArticleExtractor()
    decode = _decoder()

    def run(data: bytes, url: str | None = None) -> str:
        content: str = ex.get_content(decode(data))
        return content

    return run


def _html_text() -> Fn:
    import html_text

    decode = _decoder()

    def run(data: bytes, url: str | None = None) -> str:
        text: str = html_text.extract_text(decode(data))
        return text

    return run


_FACTORIES: dict[str, Callable[[], Fn]] = {
    "ce-filter": _ce_filter, "ce-filter+metadata": _ce_filter_record, "trafilatura": _trafilatura,
    "resiliparse": _resiliparse,
    "readability-lxml": _readability, "justext": _justext, "boilerpy3": _boilerpy3,
    "html-text": _html_text,
}


class Guarded:
    """Wraps a tool: a page it raises on yields "" and is counted in ``errors``."""

    def __init__(self, fn: Fn) -> None:
        self.fn = fn
        self.errors = 0
        self.last_error = ""

    def __call__(self, data: bytes, url: str | None = None) -> str:
        try:
            return self.fn(data, url) or ""
        except Exception as e:  # noqa: BLE001 - any failure of a peer is a scored empty page
            self.errors += 1
            self.last_error = f"{type(e).__name__}: {e}"[:200]
            return ""


def make(name: str) -> Guarded:
    """The tool's extraction function; ImportError when the tool is not installed."""
    if name not in _FACTORIES:
        raise KeyError(f"unknown tool {name!r}; known: {', '.join(ALL)}")
    return Guarded(_FACTORIES[name]())


def parse_tools(spec: str | None) -> list[str]:
    """'all', or a comma list of tool names (ce-filter is always measured, first)."""
    if not spec or spec == "all":
        return list(ALL)
    names = [s.strip() for s in spec.split(",") if s.strip()]
    unknown = [n for n in names if n not in TOOLS]
    if unknown:
        raise ValueError(f"unknown tool(s) {', '.join(unknown)}; known: {', '.join(ALL)}")
    return ["ce-filter"] + [n for n in names if n != "ce-filter"]
