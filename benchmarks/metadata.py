"""``ce-filter bench --metadata``: title, author and date against wcxb-dev's annotations, side
by side with ``trafilatura.extract_metadata`` on the same pages, and what the metadata costs.

Accuracy is over the pages whose annotation has the field (1,497 titles, 739 authors, 782
dates): a title or author counts when its word tokens (case-folded, NFKC, ``\\w+``) equal the
annotation's, a date when it is the same day. "given, none annotated" counts the pages where a
tool gives the field and the annotation has none (a wrong author is worse than none).

Cost: ce-filter's extraction with and without its metadata (``Extractor(metadata=False)``), in
one process, interleaved page by page (best of ``--repeat``): the difference over the full
extraction time is the share the metadata takes. The walk's own collection (a few attribute
reads on <meta>, <link>, <time>, <script> and byline elements) happens in both runs; its cost
is measured apart, in instructions, which other load on the machine does not change:
``python -m ce_filter.bench.metadata --instructions 100`` runs the extraction of 100 pages
under callgrind with the metadata, without its rules, and without the walk's collection too
(each less a run that only loads the same pages and warms up).

Dates in other languages (``dates`` section): the corpora with a ``pages.tsv`` language
(magic-html, newspaper, zh-content, zh-finance, big5) have no annotated date, so the page's own
URL is the label where it holds a whole date (``/2024/03/05/``, ``/20180522/``, ``/202405/20/``),
and big5's year where it does not: each tool is given the page's bytes without its URL (so
neither reads the label), and a date counts when it is the URL's day (the year, for big5's
year). Per corpus and language (pages.tsv's), beside ``trafilatura.extract_metadata`` and
``htmldate.find_date`` (trafilatura's date library, alone), with each one's time per page. On
wcxb-dev, the date accuracy is also given by the page's language (ce-filter's ``language``).
"""

from __future__ import annotations

import gzip
import json
import re
import statistics
import time
import unicodedata
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal, TypedDict, cast

from .pages import REPO, data_root
from .report import table

if TYPE_CHECKING:
    import argparse

    from ce_filter.learn.corpus import PageMeta

DOC = REPO / "docs" / "OUTPUT.md"
BENCH_DOC = REPO / "docs" / "BENCHMARKS.md"  # the other sections' default --out

# (tool's field, meta.json's field) of the fields with an annotation
FIELDS: tuple[tuple[Literal["title", "author", "date"], str], ...] = (
    ("title", "title"), ("author", "author"), ("date", "publish_date"))


class Fields(TypedDict, total=False):
    """A tool's metadata of one page (a field it does not give: missing or None)."""

    title: str | None
    author: str | None
    date: str | None
    language: str | None
    image: str | None
    tags: Sequence[str] | None
    categories: Sequence[str] | None
    hostname: str | None


# a tool's metadata of one page, from its bytes and URL
MetadataFn = Callable[[bytes, "str | None"], Fields]
# a wcxb-dev page: id, URL, raw bytes, meta.json's annotation
MetaPage = tuple[str, str, bytes, "PageMeta"]


class MetaResult(TypedDict):
    """measure's figures: each tool's fields by page id, the pages, the seconds of ce-filter's
    extraction with and without the metadata and of trafilatura's (None when not installed)."""

    got: dict[str, dict[str, Fields]]
    pages: int
    t_with: float
    t_without: float
    t_traf: float | None


def norm(s: str | None) -> str:
    return " ".join(re.findall(r"\w+", unicodedata.normalize("NFKC", s or "").casefold()))


def hit(field: str, got: str | None, gold: str | None) -> bool:
    if field == "date":
        return bool(got) and str(got)[:10] == gold
    return bool(got) and norm(got) == norm(gold)


def load(limit: int | None = None) -> list[MetaPage]:
    """(id, url, raw bytes, annotation) of wcxb-dev's pages."""
    root = data_root() / "wcxb-dev"
    meta = json.loads((root / "meta.json").read_text(encoding="utf-8"))
    out = []
    for pid in sorted(meta)[:limit]:
        raw = gzip.open(root / "html" / f"{pid}.html.gz", "rb").read()
        out.append((pid, meta[pid].get("url") or "", raw, meta[pid]))
    return out


def trafilatura_fn() -> MetadataFn | None:
    try:
        from trafilatura.metadata import extract_metadata
    except ImportError:
        return None

    def run(raw: bytes, url: str | None) -> Fields:
        try:
            m = extract_metadata(raw, default_url=url)
        except Exception:  # noqa: BLE001 - a peer's failure is a miss, not a crash
            return {}
        return {"title": m.title, "author": m.author, "date": m.date, "image": m.image, "tags": m.tags,
                "categories": m.categories, "hostname": m.hostname} if m else {}

    return run


def htmldate_fn() -> MetadataFn | None:
    """htmldate.find_date as trafilatura calls it by default (original date, no extensive
    search), alone."""
    try:
        from htmldate import find_date
    except ImportError:
        return None

    def run(raw: bytes, url: str | None) -> Fields:
        try:
            return {"date": find_date(raw, url=url, original_date=True, extensive_search=False)}
        except Exception:  # noqa: BLE001
            return {}

    return run


def measure(pages: list[MetaPage], repeat: int) -> MetaResult:
    from ce_filter.api import Extractor

    with_md, without = Extractor(), Extractor(metadata=False)
    traf = trafilatura_fn()
    got: dict[str, dict[str, Fields]] = {"ce-filter": {}, "trafilatura": {}}
    t_with = t_without = t_traf = 0.0
    for pid, url, raw, _ in pages:
        best_w = best_wo = 1e9
        r = None
        for _ in range(repeat):  # interleaved: the two runs see the same machine state
            t0 = time.perf_counter()
            r = with_md.extract(raw, url).settle()  # the rules run on first reading: now
            t1 = time.perf_counter()
            without.extract(raw, url)
            t2 = time.perf_counter()
            best_w, best_wo = min(best_w, t1 - t0), min(best_wo, t2 - t1)
        assert r is not None, "measure needs repeat >= 1"
        t_with += best_w
        t_without += best_wo
        got["ce-filter"][pid] = cast("Fields", {
            "title": r.title, "author": r.author, "date": r.date, "language": r.language,
            **{k: getattr(r, k) for k in NEW_FIELDS}})
        if traf is not None:
            t0 = time.perf_counter()
            got["trafilatura"][pid] = traf(raw, url)
            t_traf += time.perf_counter() - t0
    return {"got": got, "pages": len(pages), "t_with": t_with, "t_without": t_without,
            "t_traf": t_traf if traf is not None else None}


NEW_FIELDS: tuple[Literal["image", "tags", "categories", "hostname"], ...] = (
    "image", "tags", "categories", "hostname")


def new_fields(res: MetaResult, pages: list[MetaPage]) -> str:
    """image, tags, categories, hostname on wcxb-dev: how often each tool gives one, and how
    often the two agree where both do (no annotation: agreement, not accuracy)."""
    ce, tf = res["got"]["ce-filter"], res["got"].get("trafilatura") or {}
    rows = []
    for f in NEW_FIELDS:
        a = b = both = same = 0
        for pid, *_ in pages:
            x, y = (ce.get(pid) or {}).get(f), (tf.get(pid) or {}).get(f)
            a, b = a + bool(x), b + bool(y)
            if x and y:
                both += 1
                if f in ("tags", "categories"):
                    same += {t.casefold() for t in x} == {t.strip().casefold() for t in y}
                else:
                    same += str(x).rstrip("/") == str(y).rstrip("/")
        rows.append([f, str(a), str(b) if tf else "—", f"{same}/{both}" if tf else "—"])
    return table(["field", "ce-filter gives it", "trafilatura gives it", "the same where both give it"], rows)


def date_by_language(res: MetaResult, pages: list[MetaPage]) -> str:
    """Date accuracy on wcxb-dev by the page's language (ce-filter's ``language``)."""
    groups: dict[str, list[str]] = {}
    for pid, _, _, ann in pages:
        if ann.get("publish_date"):
            lang = (res["got"]["ce-filter"].get(pid) or {}).get("language") or "?"
            groups.setdefault(lang if lang == "en" else "other", []).append(pid)
    rows = []
    for g, pids in sorted(groups.items()):
        anns = {pid: a for pid, _, _, a in pages}
        cells = [g, str(len(pids))]
        for tool in ("ce-filter", "trafilatura"):
            got = res["got"].get(tool) or {}
            ok = sum(hit("date", (got.get(p) or {}).get("date"), anns[p]["publish_date"]) for p in pids)
            cells.append(f"{ok / len(pids):.3f}" if got else "—")
        rows.append(cells)
    return table(["language", "pages with a date", "ce-filter", "trafilatura"], rows)


# ---------------------------------------------------------------- dates in other languages

OTHER = ("magic-html", "newspaper", "zh-content", "zh-finance", "big5")
_URL_DAY = (re.compile(r"/((?:19|20)\d\d)[/-]?(\d\d)[/-]?(\d\d)(?=[/._-]|$)"),
            re.compile(r"/((?:19|20)\d\d)(\d\d)/(\d\d)/"))


class OtherPage(TypedDict):
    """A page of the OTHER corpora: its corpus, id, language (pages.tsv's, '?' where none), the
    label (the URL's day, else the capture year) and its bytes."""

    corpus: str
    id: str
    lang: str
    day: str
    year: str
    raw: bytes


class DatesResult(TypedDict):
    """measure_dates' figures: each tool's date per page (in the pages' order), the seconds of
    each (and of ce-filter's metadata rules alone, ``rules``) per page, the pages."""

    got: dict[str, list[str]]
    secs: dict[str, list[float]]
    pages: int


def url_day(url: str) -> str:
    """The whole date in a URL's path (the label of the ``dates`` section), or ''."""
    for rx in _URL_DAY:
        m = rx.search(url or "")
        if m:
            y, mo, d = (int(x) for x in m.groups())
            if 1 <= mo <= 12 and 1 <= d <= 31:
                return f"{y:04d}-{mo:02d}-{d:02d}"
    return ""


def other_pages(limit: int | None = None) -> list[OtherPage]:
    """corpus, id, lang, label (day or year), bytes of the OTHER corpora present."""
    out: list[OtherPage] = []
    for corpus in OTHER:
        root = data_root() / corpus
        if not (root / "pages.tsv").exists():
            continue
        lines = (root / "pages.tsv").read_text(encoding="utf-8").splitlines()
        head = lines[0].split("\t")
        for line in lines[1:][:limit]:
            row = dict(zip(head, line.split("\t")))
            day = url_day(row.get("url", ""))
            out.append({"corpus": corpus, "id": row["id"], "lang": row.get("lang") or "?", "day": day,
                        "year": "" if day else row.get("year", ""),
                        "raw": gzip.open(root / "html" / f"{row['id']}.html.gz", "rb").read()})
    return out


def measure_dates(pages: list[OtherPage]) -> DatesResult:
    """Each tool's date on each page, given without its URL, and the tool's time."""
    from ce_filter.api import Extractor

    ex = Extractor()
    tools: dict[str, MetadataFn] = {}
    for name, make in (("trafilatura", trafilatura_fn), ("htmldate", htmldate_fn)):
        fn = make()
        if fn is not None:
            tools[name] = fn
    got: dict[str, list[str]] = {"ce-filter": [], **{t: [] for t in tools}}
    secs: dict[str, list[float]] = {k: [] for k in (*got, "rules")}
    ex.extract(pages[0]["raw"]).settle()  # the rules' first run imports them and loads fastText
    for p in pages:
        t0 = time.perf_counter()
        r = ex.extract(p["raw"])
        t1 = time.perf_counter()
        r.settle()  # the metadata rules and the language
        t2 = time.perf_counter()
        got["ce-filter"].append(r.date)
        secs["ce-filter"].append(t2 - t0)
        secs["rules"].append(t2 - t1)
        for name, fn in tools.items():
            t0 = time.perf_counter()
            got[name].append(str(fn(p["raw"], None).get("date") or ""))
            secs[name].append(time.perf_counter() - t0)
    return {"got": got, "secs": secs, "pages": len(pages)}


def dates_report(pages: list[OtherPage], res: DatesResult) -> str:
    tools = list(res["got"])
    groups: dict[tuple[str, str, str], list[int]] = {}
    for i, p in enumerate(pages):
        lang = p["lang"] if p["lang"] in ("en", "zh", "ja") else "other"
        if p["day"] or p["year"]:
            groups.setdefault((p["corpus"], lang, "URL's day" if p["day"] else "year"), []).append(i)
    rows = []
    for (corpus, lang, label), idx in sorted(groups.items()):
        cells = [corpus, lang, label, str(len(idx))]
        for t in tools:
            g = res["got"][t]
            if label == "year":
                ok = sum(g[i][:4] == pages[i]["year"] for i in idx)
            else:
                ok = sum(g[i][:10] == pages[i]["day"] for i in idx)
            given = sum(bool(g[i]) for i in idx)
            cells.append(f"{ok / len(idx):.3f} ({given})")
        rows.append(cells)
    n = res["pages"]

    def ms(xs: list[float]) -> list[str]:
        return [f"{statistics.median(xs) * 1e3:.3f}", f"{sum(xs) / len(xs) * 1e3:.3f}"]

    cost = [[t, *ms(res["secs"][t])] for t in tools]
    cost[0][0] = "ce-filter (whole extraction with metadata)"
    cost.insert(1, ["ce-filter's metadata rules and language alone", *ms(res["secs"]["rules"])])
    return "\n\n".join([
        f"{n} pages of {', '.join(sorted({p['corpus'] for p in pages}))}, each given without its URL. "
        "Cells: share of the labelled pages whose date is right (pages with a date given).",
        table(["corpus", "language", "label", "pages", *tools], rows),
        "Time per page (ms, one pass, each page's metadata rules right after its extraction, as in a "
        "pipeline; the median is what a page costs, the mean adds what a loaded machine's "
        "preemptions add):",
        table(["tool", "median ms/page", "mean ms/page"], cost)])


# per tool and field: (right, annotated, given where none is annotated)
Scores = dict[str, dict[str, tuple[int, int, int]]]


def scores(res: MetaResult, pages: list[MetaPage]) -> Scores:
    out: Scores = {}
    for tool, g in res["got"].items():
        if not g:
            continue
        row: dict[str, tuple[int, int, int]] = {}
        for field, key in FIELDS:
            n = ok = extra = 0
            for pid, _, _, ann in pages:
                v = (g.get(pid) or {}).get(field)
                if ann.get(key):
                    n += 1
                    ok += hit(field, v, ann[key])
                elif v:
                    extra += 1
            row[field] = (ok, n, extra)
        out[tool] = row
    return out


def report(res: MetaResult, sc: Scores, pages: list[MetaPage]) -> str:
    rows = []
    for tool, row in sc.items():
        cells = [tool]
        for field, _ in FIELDS:
            ok, n, extra = row[field]
            cells.append(f"{ok / n:.3f} ({ok}/{n})" if n else "—")
        cells.append(" / ".join(str(row[f][2]) for f, _ in FIELDS))
        rows.append(cells)
    head = ["tool", "title", "author", "date (same day)", "given, none annotated (title / author / date)"]
    n = res["pages"]
    share = (res["t_with"] - res["t_without"]) / res["t_with"] if res["t_with"] else float("nan")
    cost = [["ce-filter extraction with metadata", f"{res['t_with'] / n * 1e3:.2f}"],
             ["ce-filter extraction without (metadata=False)", f"{res['t_without'] / n * 1e3:.2f}"]]
    if res["t_traf"] is not None:
        cost.append(["trafilatura.extract_metadata alone", f"{res['t_traf'] / n * 1e3:.2f}"])
    ce, tf = sc.get("ce-filter"), sc.get("trafilatura")
    targets = []
    if ce and tf:
        for field, _ in FIELDS:
            a = ce[field][0] / ce[field][1]
            b = tf[field][0] / tf[field][1]
            targets.append([f"{field} accuracy ≥ trafilatura's", f"{a:.3f} vs {b:.3f}",
                            "met" if a >= b else "**not met**"])
    targets.append(["metadata < 10 % of the per-page time", f"{share * 100:.1f} %",
                    "met" if share < 0.10 else "**not met**"])
    return "\n\n".join([
        f"wcxb-dev, {n} pages. Accuracy over the pages annotated with the field.",
        table(head, rows),
        "Date by the page's language (ce-filter's `language`):",
        date_by_language(res, pages),
        "The fields without annotation: how often each tool gives them, and agreement:",
        new_fields(res, pages),
        "Time per page (ms, best of the repeats, same process, interleaved):",
        table(["run", "ms/page"], cost),
        table(["target", "reached", ""], targets),
    ])


def run(a: argparse.Namespace) -> int:
    """``ce-filter bench --metadata`` (``--limit``, ``--repeat``, ``--pin``, ``--no-write``,
    ``--out`` as for the other sections; the pages are wcxb-dev's, the only corpus here with
    annotated metadata)."""
    import os
    import sys

    from .measure import single_core
    from .report import run_header, update_doc

    root = data_root() / "wcxb-dev"
    if not (root / "meta.json").exists():
        print(f"ce-filter bench --metadata: no {root}/meta.json (set CE_FILTER_DATA)", file=sys.stderr)
        return 2
    single_core(a.pin)
    pages = load(a.limit)
    res = measure(pages, max(a.repeat, 1))
    body = report(res, scores(res, pages), pages)
    print(body)
    sections = {"metadata": f"{run_header(cmd_of(a), a.pin)}\n\n{body}"}
    others = other_pages(a.limit)
    if others:
        dates = dates_report(others, measure_dates(others))
        print(dates)
        sections["metadata-dates"] = f"{run_header(cmd_of(a), a.pin)}\n\n{dates}"
    doc = DOC if a.out in (None, str(BENCH_DOC)) else a.out
    if not a.no_write and doc:
        update_doc(doc, sections)
        print(f"wrote {os.path.relpath(doc)} (sections: {', '.join(sections)})", file=sys.stderr)
    return 0


def cmd_of(a: argparse.Namespace) -> str:
    return ("ce-filter bench --metadata" + (f" --limit {a.limit}" if a.limit else "")
            + (f" --pin {a.pin}" if a.pin is not None else ""))


# ---------------------------------------------------------------- instructions (callgrind)

VARIANTS = (("with metadata", "full"), ("without the rules (metadata=False)", "norules"),
            ("without the rules and the walk's collection", "nohead"))


def _child(variant: str, n: int, base: bool) -> None:
    """One callgrind run: load n pages (spread over wcxb-dev), warm up, extract them all
    unless ``base``."""
    from ce_filter.api import Extractor
    from ce_filter.read import segment

    pages = load()
    pages = pages[:: max(len(pages) // n, 1)][:n]
    if variant == "nohead":
        segment._c.configure_head(0, 0, 0, 0, 0, 0, 0, 0, 0)
    ex = Extractor(metadata=variant == "full")
    for _, url, raw, _ in pages[:5]:
        ex.extract(raw, url).settle()
    if not base:
        for _, url, raw, _ in pages:
            ex.extract(raw, url).settle()  # the rules run on first reading: here


def instructions(n: int) -> str:
    """The table of instructions per page of each variant (callgrind), and the shares."""
    import subprocess
    import sys

    got = {}
    for _, v in VARIANTS:
        for base in (False, True):
            cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
                   "-m", "ce_filter.bench.metadata", "--child", v, str(n)] + (["--base"] if base else [])
            err = subprocess.run(cmd, capture_output=True, text=True, check=True).stderr
            m = re.search(r"Collected : (\d+)", err)
            if not m:
                raise RuntimeError(f"no instruction count from {' '.join(cmd)}:\n{err[-2000:]}")
            got[v, base] = int(m.group(1))
    per = {v: (got[v, False] - got[v, True]) / n for _, v in VARIANTS}
    rows = [[name, f"{per[v] / 1e6:.2f}"] for name, v in VARIANTS]
    full = per["full"]
    shares = [["the metadata rules and language", f"{(full - per['norules']) / full * 100:.1f} %"],
              ["the walk's collection", f"{(per['norules'] - per['nohead']) / full * 100:.1f} %"],
              ["all metadata", f"{(full - per['nohead']) / full * 100:.1f} %"]]
    return "\n\n".join([
        f"Instructions per page (callgrind), {n} wcxb-dev pages:",
        table(["extraction", "M instructions/page"], rows),
        table(["share of the extraction with metadata", ""], shares)])


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="python -m ce_filter.bench.metadata",
                                description="What the metadata costs, in instructions (callgrind).")
    p.add_argument("--instructions", type=int, metavar="N", help="measure on N wcxb-dev pages")
    p.add_argument("--child", nargs=2, metavar=("VARIANT", "N"), help=argparse.SUPPRESS)
    p.add_argument("--base", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        _child(a.child[0], int(a.child[1]), a.base)
        return 0
    print(instructions(a.instructions or 100))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
