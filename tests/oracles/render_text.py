"""The plain text of the kept blocks in Python and numpy: the test oracle of the C part that
joins it (ce_filter/keep/_render.c, ``render.to_text``), which must give the same string."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ce_filter.keep.render import CELL_SEP, MAX_CELL_CHARS, TAG_PRE, TAG_TD, TAG_TH, Extras
from ce_filter.read.segment import FLAG_PRE, Blocks


def to_text(blocks: Blocks, keep: np.ndarray,
                      extras: Extras | Callable[[], Extras] | None = None) -> str:
    """``render.to_text`` in Python and numpy."""
    kept = np.flatnonzero(keep)
    texts = blocks.texts
    tags = np.asarray(blocks.tag, dtype=np.int64)[kept]
    code = (np.asarray(blocks.flags, dtype=np.int64)[kept] & FLAG_PRE) != 0
    code |= tags == TAG_PRE
    cell = (tags == TAG_TD) | (tags == TAG_TH)
    if not code.any() and not cell.any():
        return "\n\n".join([texts[i] for i in kept.tolist()])
    pre = ((extras() if callable(extras) else extras) or Extras()).pre if code.any() else {}
    cont = blocks.container_ids()
    rows, tables = cont[kept, 1].tolist(), cont[kept, 3].tolist()
    out: list[str] = []  # paragraphs, and pieces of a table (its cells, " | " and "\n")
    in_table = row = -1  # the table (and row) the last item is, -1 when it is no table
    for j, (i, is_cell, is_code) in enumerate(zip(kept.tolist(), cell.tolist(), code.tolist())):
        text = texts[i]
        if is_cell and len(text) <= MAX_CELL_CHARS:
            if tables[j] == in_table:
                out.append(CELL_SEP if rows[j] == row else "\n")
            else:
                if out:
                    out.append("\n\n")
                in_table = tables[j]
            out.append(text)
            row = rows[j]
            continue
        in_table = -1
        if out:
            out.append("\n\n")
        out.append(pre[i].strip("\n") if is_code and i in pre else text)
    return "".join(out)
