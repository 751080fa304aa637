"""Every page's record (``Extractor.extract(html, url).to_dict()``) as JSON lines, in corpus
order, to compare two versions of the filter page by page:

    python -m benchmarks.dump_records before.jsonl dragnet:test wcxb-dev
    ... change the filter ...
    python -m benchmarks.dump_records after.jsonl dragnet:test wcxb-dev
    cmp before.jsonl after.jsonl   # or diff, to see which pages moved
"""

from __future__ import annotations

import json
import sys


def main(argv: list[str]) -> None:
    if not argv:
        sys.exit(__doc__)
    from ce_filter import Extractor

    from . import pages

    out, specs = argv[0], argv[1:] or ["dragnet:test", "wcxb-dev"]
    ex = Extractor()
    n = 0
    with open(out, "w", encoding="utf-8") as f:
        for d in pages.load(specs):
            rec = ex.extract(d.html, d.url or None).to_dict()
            f.write(json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n")
            n += 1
    print(f"{n} records -> {out}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
