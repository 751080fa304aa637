"""Where the best peer wins, page by page: ce-filter's out-of-fold page F1 (the ``--pages``
file of ``ce-filter evaluate --cv``) beside rs-trafilatura's on the same pages.

    # in an interpreter with trafipy and w3lib (Python >= 3.12: benchmarks/peers.py)
    python3.12 -m research.peergap texts ../shared/data/wcxb-dev /tmp/rs_texts.json
    python -m research.peergap compare /tmp/pages.tsv /tmp/rs_texts.json ../shared/data/wcxb-dev

``texts`` runs rs-trafilatura as the bench does (``trafipy.extract(html_to_unicode(None,
html)[1], url=url, include_comments=False).text``) and needs nothing of ce-filter; ``compare``
scores it with ce-filter's metric and prints, per page type, both mean F1, the pages ce-filter
wins and loses (by more than 0.005), how much of the gap its three worst pages make, and the
pages of the largest gaps.
"""

from __future__ import annotations

import csv
import gzip
import json
import sys
from collections import defaultdict
from pathlib import Path


def texts(corpus: str, out: str) -> None:
    import trafipy  # type: ignore[import-not-found]
    from w3lib.encoding import html_to_unicode

    root = Path(corpus)
    got: dict[str, str] = {}
    with open(root / "pages.tsv", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            i, url = row["id"], row.get("url") or None
            path = root / "html" / f"{i}.html.gz"
            data = gzip.open(path).read() if path.exists() else (root / "html" / f"{i}.html").read_bytes()
            try:
                got[i] = trafipy.extract(html_to_unicode(None, data)[1], url=url,
                                         include_comments=False).text or ""
            except Exception:  # scored as empty, as the bench does
                got[i] = ""
    Path(out).write_text(json.dumps(got), encoding="utf-8")


def compare(pages: str, peer: str, corpus: str, show: int = 12) -> None:
    from ce_filter.learn.evaluate import token_prf

    name = Path(corpus).name
    theirs = json.loads(Path(peer).read_text(encoding="utf-8"))
    by: dict[str, list[tuple[float, str, float, float, str]]] = defaultdict(list)
    with open(pages, encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["cut"] != "default" or row["corpus"] != name:
                continue
            i = row["page"].split("/")[-1]
            gold = (Path(corpus) / "gold" / f"{i}.txt").read_text(encoding="utf-8")
            ours, peer_f1 = float(row["f1"]), token_prf(theirs.get(i, ""), gold)[2]
            by[row["page_type"]].append((ours - peer_f1, i, ours, peer_f1, row["kind"]))
    print("| page type | pages | ce-filter | rs-trafilatura | gap | wins | losses | "
          "gap of the 3 worst pages | gap without them |")
    print("|---|---|---|---|---|---|---|---|---|")
    for t, v in sorted(by.items()):
        v.sort()
        n, gap = len(v), sum(x[0] for x in v)
        worst = sum(x[0] for x in v[:3])
        print(f"| {t} | {n} | {sum(x[2] for x in v) / n:.3f} | {sum(x[3] for x in v) / n:.3f} | "
              f"{gap / n:+.4f} | {sum(x[0] > 0.005 for x in v)} | {sum(x[0] < -0.005 for x in v)} | "
              f"{worst / n:+.4f} | {(gap - worst) / max(n - 3, 1):+.4f} |")
    for t, v in sorted(by.items()):
        print(f"\n{t}: the largest gaps (page, ce-filter − rs-trafilatura, ce-filter, "
              "rs-trafilatura, estimated kind)")
        for d, i, a, b, k in v[:show]:
            print(f"  {i} {d:+.3f} {a:.3f} {b:.3f} {k}")


def main(argv: list[str] | None = None) -> int:
    a = sys.argv[1:] if argv is None else argv
    if len(a) == 3 and a[0] == "texts":
        texts(a[1], a[2])
    elif len(a) == 4 and a[0] == "compare":
        compare(a[1], a[2], a[3])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
