"""The dense features' C part's inputs for every corpus page (the arrays dense.py hands it),
and the package's own matrices of them: what harness.c recomputes on another CPU.

    python scripts/crossarch/pages.py DATA_DIR OUT_DIR
"""

from __future__ import annotations

import struct
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ce_filter.learn.corpus import load_corpus
from ce_filter.read.page import read
from ce_filter.read.segment import PATH_LEN, Blocks
from ce_filter.score.features import dense
from ce_filter.score.features.headings import BOILER_HEADING, HEADING_MAX_WORDS, NEGATIVE, UNLIKELY
from ce_filter.score.features.rx import RX, RX_LEVELS, RX_MATCHER, RX_NAMES

KIND = np.array([0.4, 0.05, 0.1, 0.15, 0.1, 0.12, 0.08])


def every_page(data: Path) -> Iterator[Blocks]:
    """The blocks of every page of every corpus under ``data`` (as the extractor reads them)."""
    for corpus in sorted(p for p in data.iterdir() if (p / "html").is_dir()):
        for doc in load_corpus(corpus):
            b = read(doc.html).blocks
            if b is not None:
                yield b


def main(data: Path, out_dir: Path) -> None:
    off, lut = dense.ALL_OFFSETS, dense.TAG_GROUP_LUT
    head = [PATH_LEN, dense.ALL_WIDTH, off["st"], off["cetr"], off["dom"], off["rx"], off["kind"],
            off["head"], dense.HEAD_GROUP, UNLIKELY, NEGATIVE, len(lut)]
    is_head = lut == dense.HEAD_GROUP
    pages = 0
    with open(out_dir / "pages.bin", "wb") as f, open(out_dir / "package.bin", "wb") as g:
        f.write(struct.pack("<12q", *head) + lut.astype("<i8").tobytes())
        for b in every_page(data):
            n = len(b)
            if not n:
                continue
            tag, cnt = np.asarray(b.tag, dtype=np.int64), b.counts()
            rx = b.pattern_columns(RX, RX_MATCHER, RX_LEVELS, len(RX_NAMES))
            lex = np.zeros(n, np.uint8)
            short = np.flatnonzero(is_head[np.minimum(tag, len(lut) - 1)] & (cnt[:, 1] <= HEADING_MAX_WORDS))
            for i in short.tolist():
                lex[i] = BOILER_HEADING.search(b.texts[i].lower()) is not None
            f.write(struct.pack("<2q", n, rx.shape[1]))
            for a, t in ((cnt, "<f8"), (tag, "<i8"), (b.n_tags, "<f8"), (b.depth, "<f8"), (b.flags, "<i8"),
                         (b.container_ids(), "<i8"), (rx, "<f8"), (lex, "u1"), (KIND, "<f8")):
                f.write(np.ascontiguousarray(a, dtype=t).tobytes())
            cols = dense.all_columns(b, KIND)
            g.write(np.hstack([cols[k] for k in sorted(cols, key=off.__getitem__)]).tobytes())
            pages += 1
        f.write(struct.pack("<2q", 0, 0))
    print(pages, "pages")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
