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
"""

from __future__ import annotations

import gzip
import json
import re
import time
import unicodedata
from collections.abc import Callable
from typing import Any

from .pages import REPO, data_root
from .report import table

DOC = REPO / "docs" / "OUTPUT.md"
BENCH_DOC = REPO / "docs" / "BENCHMARKS.md"  # the other sections' default --out

FIELDS = (("title", "title"), ("author", "author"), ("date", "publish_date"))


def norm(s: str | None) -> str:
    return " ".join(re.findall(r"\w+", unicodedata.normalize("NFKC", s or "").casefold()))


def hit(field: str, got: str | None, gold: str) -> bool:
    if field == "date":
        return bool(got) and str(got)[:10] == gold
    return bool(got) and norm(got) == norm(gold)


def load(limit: int | None = None) -> list[tuple[str, str, bytes, dict[str, Any]]]:
    """(id, url, raw bytes, annotation) of wcxb-dev's pages."""
    root = data_root() / "wcxb-dev"
    meta = json.loads((root / "meta.json").read_text(encoding="utf-8"))
    out = []
    for pid in sorted(meta)[:limit]:
        raw = gzip.open(root / "html" / f"{pid}.html.gz", "rb").read()
        out.append((pid, meta[pid].get("url") or "", raw, meta[pid]))
    return out


def trafilatura_fn() -> Callable[[bytes, str], dict[str, str | None]] | None:
    try:
        from trafilatura.metadata import extract_metadata
    except ImportError:
        return None

    def run(raw: bytes, url: str) -> dict[str, str | None]:
        try:
            m = extract_metadata(raw, default_url=url)
        except Exception:  # noqa: BLE001 - a peer's failure is a miss, not a crash
            return {}
        return {"title": m.title, "author": m.author, "date": m.date} if m else {}

    return run


def measure(pages: list[tuple[str, str, bytes, dict[str, Any]]], repeat: int) -> dict[str, Any]:
    from ce_filter.api import Extractor

    with_md, without = Extractor(), Extractor(metadata=False)
    traf = trafilatura_fn()
    got: dict[str, dict[str, dict[str, str | None]]] = {"ce-filter": {}, "trafilatura": {}}
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
        t_with += best_w
        t_without += best_wo
        got["ce-filter"][pid] = {"title": r.title, "author": r.author, "date": r.date}
        if traf is not None:
            t0 = time.perf_counter()
            got["trafilatura"][pid] = traf(raw, url)
            t_traf += time.perf_counter() - t0
    return {"got": got, "pages": len(pages), "t_with": t_with, "t_without": t_without,
            "t_traf": t_traf if traf is not None else None}


def scores(res: dict[str, Any], pages: list[tuple[str, str, bytes, dict[str, Any]]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for tool, g in res["got"].items():
        if not g:
            continue
        row = {}
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


def report(res: dict[str, Any], sc: dict[str, Any]) -> str:
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
        "Time per page (ms, best of the repeats, same process, interleaved):",
        table(["run", "ms/page"], cost),
        table(["target", "reached", ""], targets),
    ])


def run(a: Any) -> int:
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
    body = report(res, scores(res, pages))
    print(body)
    cmd = "ce-filter bench --metadata" + (f" --limit {a.limit}" if a.limit else "") + \
        (f" --pin {a.pin}" if a.pin is not None else "")
    doc = DOC if a.out in (None, str(BENCH_DOC)) else a.out
    if not a.no_write and doc:
        update_doc(doc, {"metadata": f"{run_header(cmd, a.pin)}\n\n{body}"})
        print(f"wrote {os.path.relpath(doc)} (section: metadata)", file=sys.stderr)
    return 0


# ---------------------------------------------------------------- instructions (callgrind)

VARIANTS = (("with metadata", "full"), ("without the rules (metadata=False)", "norules"),
            ("without the rules and the walk's collection", "nohead"))


def _child(variant: str, n: int, base: bool) -> None:
    """One callgrind run: load n pages (spread over wcxb-dev), warm up, extract them all
    unless ``base``."""
    from ce_filter import segment
    from ce_filter.api import Extractor

    pages = load()
    pages = pages[:: max(len(pages) // n, 1)][:n]
    if variant == "nohead":
        if segment._fast is None:
            raise SystemExit("the walk's collection can be switched off only in the C walk")
        segment._fast.configure_head(0, 0, 0, 0, 0, 0, 0, 0, 0)
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
