"""How far the pre-parse caps (ce_filter/read/precheck.py) sit from normal pages: every page of
the labelled corpora is scanned without caps, and the largest count of each kind is set
against its cap. Prints a markdown table (docs/RELIABILITY.md quotes it).

    python fuzz/corpus_margins.py [../shared/data]
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

from ce_filter.read.precheck import DEFAULT_LIMITS, Limits, check, scan

NO_CAPS = Limits(*(1 << 62,) * 5)
ROWS = (("elements", "max_elements", "start tags (past the cap: cut there)"),
        ("attr_work", "max_attr_work", "sum of attributes² per element"),
        ("nesting_work", "max_nesting_work", "open elements walked"),
        ("reconstructed", "max_reconstructed", "formatting elements re-created"),
        ("options_max", "max_select_options", "options in one select (past the cap: not parsed as options)"))


def pages(root: Path):
    for html in sorted(root.glob("*/html")):
        for f in sorted(html.iterdir()):
            data = f.read_bytes()
            yield f"{html.parent.name}/{f.name}", gzip.decompress(data) if f.suffix == ".gz" else data


def main(argv: list[str]) -> int:
    root = Path(argv[0] if argv else Path(__file__).resolve().parents[2] / "shared" / "data")
    top = {k: (0, "") for k, _, _ in ROWS}
    n = tripped = cut = 0
    for name, data in pages(root):
        n += 1
        s = scan(data, NO_CAPS)
        for k, _, _ in ROWS:
            if getattr(s, k) > top[k][0]:
                top[k] = (getattr(s, k), name)
        at, why = check(data)
        tripped += bool(why)
        cut += at < len(data)
    print(f"{n} pages of {root}: {tripped} rejected, {cut} cut by the caps\n")
    print("| count | cap | largest on a corpus page | page | cap / largest |")
    print("|---|---:|---:|---|---:|")
    for k, cap_name, what in ROWS:
        cap = getattr(DEFAULT_LIMITS, cap_name)
        v, page = top[k]
        print(f"| {what} | {cap:,} | {v:,} | {page} | {cap / max(v, 1):,.0f}× |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
