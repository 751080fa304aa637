"""The public face: ``extract(html, url)``, the ``Extractor`` (ce_filter/extractor.py) that
loads its model once and composes a page's steps (ce_filter/read/page.py), and the ``Extraction``
it gives (ce_filter/keep/result.py)."""

from __future__ import annotations

from .extractor import (
    FALLBACK_REL,
    PRECISE_THRESHOLD,
    RECALL_THRESHOLD,
    THIN_REASON,
    Extractor,
    code_blocks,
    extract,
    select,
)
from .keep.result import (
    META_FIELDS,
    Block,
    BlockList,
    Extraction,
    extras_of,
    h1_positions,
    metadata_fields,
    metadata_rules,
    page_head,
)
from .read.page import MAX_BYTES, Page

__all__ = [
    "FALLBACK_REL", "MAX_BYTES", "META_FIELDS", "PRECISE_THRESHOLD", "RECALL_THRESHOLD",
    "THIN_REASON", "Block", "BlockList", "Extraction", "Extractor", "Page", "code_blocks",
    "extract", "extras_of", "h1_positions", "metadata_fields", "metadata_rules", "page_head",
    "select",
]
