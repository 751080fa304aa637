"""The counts of a run over WARC inputs: records, pages, skips by reason and breaks by place.

Kept apart from the reading so every part of the reader (and warc_shards, the runner's children)
counts into the same object and merges the same way, and a record is never skipped silently.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TypedDict


class _ErrorFields(TypedDict):
    source: str  # the input's name
    offset: int | None  # where in it the break begins
    error: str  # what is wrong, in words
    kind: str  # crc, corrupt, truncated, content-length, not-a-record, too-large, unreadable


class WarcError(_ErrorFields, total=False):
    """A break in an input, as ``WarcStats.error`` records it."""

    skipped: int  # the bytes passed over


@dataclass
class WarcStats:
    """Counts for a run. Invariant: ``records == pages + sum(skipped.values())``."""

    files: int = 0
    records: int = 0
    pages: int = 0
    skipped: Counter = field(default_factory=Counter)
    errors: list[WarcError] = field(default_factory=list)
    bytes_read: int = 0  # input bytes read, as stored (compressed): progress against file sizes

    def skip(self, reason: str) -> None:
        self.skipped[reason] += 1

    @property
    def skipped_total(self) -> int:
        return sum(self.skipped.values())

    def error(self, source: str, offset: int | None, message: str, *, kind: str = "unreadable",
              skipped: int | None = None) -> None:
        """A break in an input: where, what (``kind``: crc, corrupt, truncated, content-length,
        not-a-record, too-large, unreadable) and how many bytes were passed over."""
        e: WarcError = {"source": source, "offset": offset, "error": message, "kind": kind}
        if skipped is not None:
            e["skipped"] = skipped
        self.errors.append(e)

    def merge(self, other: WarcStats) -> None:
        self.files += other.files
        self.records += other.records
        self.pages += other.pages
        self.skipped.update(other.skipped)
        self.errors.extend(other.errors)
        self.bytes_read += other.bytes_read

    def to_dict(self) -> dict[str, object]:
        return {
            "files": self.files,
            "records": self.records,
            "pages": self.pages,
            "skipped": dict(sorted(self.skipped.items())),
            "errors": list(self.errors),
        }

    def summary(self) -> str:
        skipped = ", ".join(f"{n} {r}" for r, n in sorted(self.skipped.items())) or "none"
        line = f"{self.files} file(s), {self.records} records: {self.pages} pages; skipped: {skipped}"
        for e in self.errors:
            line += f"\nerror: {e['source']}: {e['error']} at offset {e['offset']}"
            if e.get("skipped"):
                line += f" ({e['skipped']} bytes passed over)"
        return line


def unreadable_message(e: BaseException) -> str:
    first = str(e).strip().splitlines()[0][:120] if str(e).strip() else ""
    return f"unreadable record: {type(e).__name__} {first}".strip()
