"""A select with many options through ``extract`` against Lexbor's own parse of the same page
(Lexbor inserts each option of one select at a cost that grows with the options before it;
the pre-parse scan renames the options past ce_filter.read.precheck.MAX_SELECT_OPTIONS).
Prints a markdown table (docs/RELIABILITY.md quotes it).

    python fuzz/select_flood.py [N ...]     # default 10000 20000 50000 120000; the parse alone
                                            # is timed up to --parse-max options (default 20000)
"""

from __future__ import annotations

import argparse
import time

from selectolax.lexbor import LexborHTMLParser

from ce_filter import Extractor


def page(n: int) -> bytes:
    prose = b"A sentence of plain prose for the page. " * 30
    return (b"<html><body><article><h1>A title</h1><p>" + prose + b"</p></article><form><select>"
            + b"<option value=1>x" * n + b"</select></form></body></html>")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", nargs="*", type=int, default=[10_000, 20_000, 50_000, 120_000])
    ap.add_argument("--parse-max", type=int, default=20_000)
    a = ap.parse_args()
    ex = Extractor()
    print("| options in one select | Lexbor's parse alone | `extract` (CPU s) | text |")
    print("|---:|---:|---:|---|")
    for n in a.n:
        html = page(n)
        parse = "—"
        if n <= a.parse_max:
            t0 = time.process_time()
            LexborHTMLParser(html)
            parse = f"{time.process_time() - t0:.2f} s"
        t0 = time.process_time()
        r = ex.extract(html)
        took = time.process_time() - t0
        cut = ", cut" if r.truncated else ""
        print(f"| {n:,} | {parse} | {took:.2f} s | {len(r.text)} characters{cut} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
