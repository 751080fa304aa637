"""ce-filter's stages counted in machine instructions under valgrind's callgrind.

Instruction counts do not move with the load other processes put on the machine, where
wall-clock stage timings do. Each stage of ``stages.staged_extract`` (and the floors and the
peers) runs through its own small C function (``cg_<name>``, compiled here into a throwaway
shared library and called with ctypes), so callgrind's inclusive cost of that function is the
stage's instructions. Run it under callgrind and read the counts with ``--report``::

    valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \\
        python -m benchmarks.callgrind_stages dragnet:test
    python -m benchmarks.callgrind_stages --report /tmp/cg.out 415

The page count divides the totals into instructions per page.
"""

from __future__ import annotations

import argparse
import ctypes
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from .stages import STAGES, bare_walk

EXTRA = ("parse only", "parse + bare walk", "text (extract)", "record (extract + to_dict)", "resiliparse")
NAMES = [*STAGES, *EXTRA]


def _symbol(name: str) -> str:
    return "cg_" + re.sub(r"[^a-z0-9]+", "_", name).strip("_")


def _library() -> Any:
    """One ``void cg_X(void (*f)(void))`` per name, built at -O0 so no call is inlined away."""
    src = "".join(f"void {_symbol(n)}(void (*f)(void)) {{ f(); }}\n" for n in NAMES)
    tmp = Path(tempfile.mkdtemp(prefix="ce-cg-"))
    (tmp / "cg.c").write_text(src)
    subprocess.run(["cc", "-O0", "-shared", "-fPIC", "-o", str(tmp / "cg.so"), str(tmp / "cg.c")], check=True)
    return ctypes.CDLL(str(tmp / "cg.so"))


def main(specs: list[str], limit: int | None) -> None:
    from selectolax.lexbor import LexborHTMLParser

    from ce_filter import Extractor
    from ce_filter.decode import decode_html

    from . import pages, peers
    from .stages import staged_extract

    lib = _library()
    proto = ctypes.CFUNCTYPE(None)
    fns = [getattr(lib, _symbol(n)) for n in NAMES]

    def call(i: int, fn: Any) -> Any:
        box: list[Any] = []
        cb = proto(lambda: box.append(fn()))
        fns[i](cb)
        return box[0]

    docs = pages.load(specs, limit)
    ex = Extractor()
    res = peers._resiliparse()
    for d in docs[:20]:  # warm-up: imports, regex compiles, the language model
        staged_extract(ex, d.html, d.url or None)
        ex.extract(d.html, d.url or None).to_dict()
        res(d.html, None)
    k = len(STAGES)
    for d in docs:
        url = d.url or None
        staged_extract(ex, d.html, url, call)
        html = decode_html(d.html)[0]
        call(k, lambda: LexborHTMLParser(html))
        call(k + 1, lambda: bare_walk(LexborHTMLParser(html)))
        call(k + 2, lambda: ex.extract(d.html, url).text)
        call(k + 3, lambda: ex.extract(d.html, url).to_dict())
        call(k + 4, lambda: res(d.html, None))
    print(f"{len(docs)} pages", file=sys.stderr)


def report(path: str, n_pages: int) -> dict[str, float]:
    """Inclusive instructions per page of each ``cg_`` function in a callgrind output."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                         capture_output=True, text=True, check=True).stdout
    got: dict[str, float] = {}
    for n in NAMES:
        m = re.search(r"^\s*([\d,]+)\s.*\b" + _symbol(n) + r"\b", out, re.M)
        got[n] = int(m.group(1).replace(",", "")) / n_pages if m else float("nan")
    return got


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpora", nargs="*", default=["dragnet:test"])
    ap.add_argument("--limit", type=int)
    ap.add_argument("--report", nargs=2, metavar=("CALLGRIND_OUT", "PAGES"))
    a = ap.parse_args()
    if a.report:
        r = report(a.report[0], int(a.report[1]))
        floor = r["parse only"]
        for n, v in r.items():
            print(f"{n:28s} {v / 1e6:8.3f} M instr/page  {v / floor:6.2f}x parse")
    else:
        main(a.corpora, a.limit)
