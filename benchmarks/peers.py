"""One adapter per tool: ``make(name)`` -> ``fn(html_bytes, url) -> text``.

Every tool is given the page's address where the corpus has one (a crawler always knows it):
ce-filter's page-kind estimate reads the URL's shape, trafilatura and readability-lxml take it
as an argument, the others have no use for it.

Every tool gets the page's raw bytes and decodes them the way it prefers (that cost is part
of its time): trafilatura, readability-lxml, jusText and turbohtml take bytes and detect the
charset themselves; resiliparse uses its own ``detect_encoding``; boilerpy3, html-text and
rs-trafilatura (trafipy) take only ``str``, so they get w3lib's ``html_to_unicode`` (the decoder
of Scrapy and of html-text's own authors; w3lib comes with Scrapy), or ce-filter's decoder where
w3lib is absent.

A tool whose wheels need a newer Python than the bench's (``Tool.python``: rs-trafilatura's
binding trafipy needs 3.12) is measured in another interpreter that has it: ``interpreter``
finds one ($CE_FILTER_BENCH_PY312, the checkout's ``.venv312`` made by
``scripts/bench_py312.sh``, ``python3.12`` on PATH, pyenv's versions), and ``measure.run_child``
runs the measuring process there. Where none has the tool, it is "not available", like any
peer that is not installed.

Only the standard library is imported here at module level: a tool's measuring process
imports that tool alone, so its memory figure is its own (and the one in another interpreter
imports nothing of ce-filter).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

Fn = Callable[[bytes, "str | None"], str]


@dataclass(frozen=True)
class Tool:
    name: str
    module: str  # what must be importable
    dist: str  # distribution name, for the version
    how: str  # one line for the docs: the call and its settings
    python: tuple[int, int] | None = None  # the oldest Python its wheels install on, where newer than 3.10


TOOLS: dict[str, Tool] = {t.name: t for t in (
    Tool("ce-filter", "ce_filter", "ce-filter",
         "`Extractor().extract(html, url=url).text` (shipped content model; the metadata rules "
         "run when a metadata field is first read, so not here)"),
    Tool("ce-filter+metadata", "ce_filter", "ce-filter",
         "`Extractor().extract(html, url=url)` with every field read (`.to_dict()`): the text, "
         "title, author, date, site, language and page kind of a pipeline's record"),
    Tool("trafilatura", "trafilatura", "trafilatura",
         "`trafilatura.extract(html, url=url, include_comments=False)`, otherwise its defaults"),
    Tool("rs-trafilatura", "trafipy", "trafipy",
         "`trafipy.extract(html_to_unicode(None, html)[1], url=url, include_comments=False).text` "
         "(rs-trafilatura's Python binding, version column = trafipy's; takes only `str`, w3lib "
         "decodes; otherwise its defaults), measured under Python ≥ 3.12 (`scripts/bench_py312.sh`)",
         python=(3, 12)),
    Tool("resiliparse", "resiliparse", "resiliparse",
         "`extract_plain_text(HTMLTree.parse_from_bytes(html, detect_encoding(html)), "
         "main_content=True, comments=False)`: main content, user comments left out like the gold"),
    Tool("turbohtml", "turbohtml", "turbohtml",
         "`turbohtml.parse(html).article().text`: bytes in (it sniffs BOM, `<meta>` charset, "
         "UTF-8, else windows-1252), its defaults"),
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


INSTALL_HINT = "not installed (`pip install -e '.[bench]'`)"
CHECKOUT = Path(__file__).resolve().parents[1]


def foreign(name: str) -> bool:
    """The tool needs a newer Python than this one: it runs in ``interpreter(name)``."""
    need = TOOLS[name].python
    return need is not None and sys.version_info[:2] < need


def available(name: str) -> bool:
    if foreign(name):
        return interpreter(name) is not None
    return importlib.util.find_spec(TOOLS[name].module) is not None


def missing_hint(name: str) -> str:
    """What the tables say for a tool that cannot run here."""
    need = TOOLS[name].python
    if not foreign(name) or need is None:
        return INSTALL_HINT
    return (f"not available: no Python ≥ {need[0]}.{need[1]} with {TOOLS[name].dist} "
            f"(`bash scripts/bench_py312.sh`, or ${_env_var(need)}=PYTHON)")


def version(name: str) -> str:
    if name in OURS:
        import ce_filter

        return ce_filter.__version__
    if foreign(name):
        return _probe_tool(name)[1]
    try:
        return metadata.version(TOOLS[name].dist)
    except metadata.PackageNotFoundError:
        return "?"


def _env_var(need: tuple[int, int]) -> str:
    return f"CE_FILTER_BENCH_PY{need[0]}{need[1]}"


def candidates(need: tuple[int, int]) -> list[str]:
    """Interpreters to try for a tool needing Python ``need``, in order: $CE_FILTER_BENCH_PY312
    (for 3.12), the checkout's ``.venv312`` (scripts/bench_py312.sh), ``python3.12`` on PATH,
    then pyenv's versions ($PYENV_ROOT, else ~/.pyenv) of that minor, newest first."""
    tag = f"{need[0]}.{need[1]}"
    found = [os.environ.get(_env_var(need), ""),
             str(CHECKOUT / f".venv{need[0]}{need[1]}" / "bin" / "python"),
             shutil.which(f"python{tag}") or ""]
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    if pyenv.is_dir():
        def key(p: Path) -> tuple[int, ...]:
            return tuple(int(x) if x.isdigit() else -1 for x in p.name.split("."))

        found += [str(p / "bin" / "python") for p in sorted(pyenv.glob(f"{tag}.*"), key=key, reverse=True)]
    seen: list[str] = []
    for c in found:
        if c and c not in seen and os.access(c, os.X_OK):
            seen.append(c)
    return seen


# Run by a candidate interpreter: is it new enough, and is the tool there (not imported: a
# find_spec, like ``available``)? Prints one JSON line.
_PROBE = """import importlib.util, json, sys
from importlib import metadata
module, dist, need = sys.argv[1], sys.argv[2], tuple(map(int, sys.argv[3].split(".")))
ok = sys.version_info[:2] >= need and importlib.util.find_spec(module) is not None
try:
    v = metadata.version(dist) if ok else ""
except metadata.PackageNotFoundError:
    v = "?"
print(json.dumps({"ok": ok, "version": v}))
"""


@functools.cache
def _probe_tool(name: str) -> tuple[str | None, str]:
    """(the first candidate interpreter that has the tool, the tool's version there)."""
    t = TOOLS[name]
    assert t.python is not None
    for py in candidates(t.python):
        try:
            out = subprocess.run([py, "-I", "-c", _PROBE, t.module, t.dist, f"{t.python[0]}.{t.python[1]}"],
                                 capture_output=True, text=True, timeout=60).stdout
            got = json.loads(out.strip().splitlines()[-1]) if out.strip() else {}
        except (OSError, subprocess.SubprocessError, ValueError):
            continue
        if got.get("ok"):
            return py, str(got.get("version") or "?")
    return None, "?"


def interpreter(name: str) -> str | None:
    """For a ``foreign`` tool: the Python to measure it in (None where no candidate has it)."""
    return _probe_tool(name)[0]


def _decoder() -> Callable[[bytes], str]:
    try:
        from w3lib.encoding import html_to_unicode

        return lambda data: html_to_unicode(None, data)[1]
    except ImportError:
        from ce_filter.read.decode import decode_html

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


def _rs_trafilatura() -> Fn:
    # only in an interpreter of Python >= 3.12 (``foreign``), never the one mypy checks
    trafipy = importlib.import_module("trafipy")
    decode = _decoder()

    def run(data: bytes, url: str | None = None) -> str:
        text: str = trafipy.extract(decode(data), url=url, include_comments=False).text
        return text

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


def _turbohtml() -> Fn:
    import turbohtml

    def run(data: bytes, url: str | None = None) -> str:
        text: str = turbohtml.parse(data).article().text
        return text

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
    "rs-trafilatura": _rs_trafilatura, "resiliparse": _resiliparse, "turbohtml": _turbohtml,
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
