"""The public face: ``extract(html)`` and an ``Extractor`` that loads its model once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import numpy as np

from . import __version__
from .decode import decode_html
from .model import Model, load_default
from .precheck import DEFAULT_LIMITS, Limits, check
from .segment import parse, segment

# Pages above this size are cut before parsing: a 50 MB "page" is a dump, not an article,
# and the cut keeps memory and latency bounded for the stream.
MAX_BYTES = 8 * 1024 * 1024


@dataclass
class Block:
    text: str
    score: float
    is_content: bool


class BlockList(Sequence[Block]):
    """An Extraction's blocks, made into Block objects only when read: most callers want the
    text, and a few hundred small objects per page were a measurable share of the time."""

    __slots__ = ("_texts", "_scores", "_keep")

    def __init__(self, texts: list[str], scores: np.ndarray, keep: np.ndarray) -> None:
        self._texts, self._scores, self._keep = texts, scores, keep

    def __len__(self) -> int:
        return len(self._texts)

    @overload
    def __getitem__(self, i: int) -> Block: ...
    @overload
    def __getitem__(self, i: slice) -> list[Block]: ...
    def __getitem__(self, i: int | slice) -> Block | list[Block]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        return Block(self._texts[i], float(self._scores[i]), bool(self._keep[i]))

    def kept(self) -> int:
        return int(np.count_nonzero(self._keep))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    def __repr__(self) -> str:
        return repr(list(self))


@dataclass
class Extraction:
    """What the filter made of one page. ``text`` is empty when ``reason`` says why."""

    text: str
    title: str
    blocks: Sequence[Block] = field(default_factory=list)
    encoding: str = ""
    reason: str = ""
    truncated: bool = False
    model: str = ""

    @property
    def blocks_kept(self) -> int:
        if isinstance(self.blocks, BlockList):
            return self.blocks.kept()
        return sum(b.is_content for b in self.blocks)

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "title": self.title,
            "encoding": self.encoding,
            "reason": self.reason,
            "truncated": self.truncated,
            "model": self.model,
            "blocks_kept": self.blocks_kept,
            "blocks_total": len(self.blocks),
        }


def _looks_binary(data: bytes) -> bool:
    head = data[:4096]
    if not head:
        return False
    if head.count(b"\x00") > len(head) // 100 + 1 and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return True
    return head.startswith((b"%PDF", b"\x89PNG", b"GIF8", b"\xff\xd8\xff", b"PK\x03\x04", b"\x1f\x8b"))


FALLBACK_REL = 0.8
# The precision-leaning cut for a model file that does not record one (files from before
# the training (learn.fit) chose it on CV: Model.precise_threshold).
PRECISE_THRESHOLD = 0.65


def select(scores: np.ndarray, threshold: float) -> np.ndarray:
    """Blocks at or above the threshold; on a page where none is, the best-scored ones
    (within FALLBACK_REL of the top score), since an empty page is the worst answer."""
    keep = scores >= threshold
    if not keep.any() and len(scores):
        keep = scores >= scores.max() * FALLBACK_REL
    return keep


class Extractor:
    """Loads a model once; ``extract`` is then cheap to call per page.

    ``comments=True`` uses the model trained on article+comments gold.
    ``threshold`` overrides the model's probability cut (higher = more precise);
    ``precise=True`` is the precision-leaning preset: the model's CV-chosen cut (best mean
    page F0.5 on the training pages), never below its default one.
    """

    def __init__(
        self,
        model: Model | str | None = None,
        *,
        comments: bool = False,
        threshold: float | None = None,
        precise: bool = False,
        max_bytes: int = MAX_BYTES,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        if model is None:
            model = load_default("comments" if comments else "content")
        elif isinstance(model, str):
            model = Model.load(model)
        self.model = model
        if threshold is None:
            pt = PRECISE_THRESHOLD if model.precise_threshold is None else model.precise_threshold
            threshold = max(model.threshold, pt) if precise else model.threshold
        self.threshold = threshold
        self.max_bytes = max_bytes
        self.limits = limits  # the pre-parse caps (precheck.py)
        self.version = f"ce-filter/{__version__} model/{model.name}@{model.digest}"

    def extract(
        self, html: bytes | str, url: str | None = None, *, encoding: str | None = None
    ) -> Extraction:
        """Clean main-content text of one page. Never raises on bad input."""
        if html is None:
            return Extraction("", "", reason="no input", model=self.version)
        truncated = False
        if isinstance(html, (bytes, bytearray, memoryview)):
            data = bytes(html)
            if not data.strip():
                return Extraction("", "", reason="empty input", model=self.version)
            if _looks_binary(data):
                return Extraction("", "", reason="binary content", model=self.version)
            if len(data) > self.max_bytes:
                data, truncated = data[: self.max_bytes], True
            text_html, enc = decode_html(data, encoding)
            # the scan reads markup bytes: the page's own, unless it is UTF-16/32
            raw = None if enc.startswith(("utf-16", "utf-32")) else data
        else:
            text_html, enc, raw = html, "str", None
            if len(text_html) > self.max_bytes:
                text_html, truncated = text_html[: self.max_bytes], True
            if not text_html.strip():
                return Extraction("", "", reason="empty input", model=self.version)
        if raw is None:
            raw = text_html.encode("utf-8", "surrogatepass")
            enc_raw = "utf-8"
        else:
            enc_raw = enc
        cut, why = check(raw, self.limits)
        if why:
            return Extraction("", "", encoding=enc, reason=why, truncated=truncated, model=self.version)
        if cut < len(raw):  # past the element cap: parse the page up to there
            text_html, truncated = raw[:cut].decode(enc_raw, "replace"), True
        blocks = segment(parse(text_html))
        if not len(blocks):
            return Extraction("", blocks.title, encoding=enc, reason="no text in page",
                              truncated=truncated, model=self.version)
        scores = self.model.block_scores(blocks)
        keep = select(scores, self.threshold)
        kept = [t for t, k in zip(blocks.texts, keep) if k]
        out = Extraction(
            "\n\n".join(kept),
            blocks.title,
            BlockList(blocks.texts, scores, keep),
            encoding=enc,
            truncated=truncated,
            model=self.version,
        )
        if not kept:
            out.reason = "no block classified as content"
        return out

    def scores(self, html: str) -> np.ndarray:
        blocks = segment(parse(html))
        return self.model.block_scores(blocks)


_default: dict[bool, Extractor] = {}


def extract(html: bytes | str, url: str | None = None, *, comments: bool = False) -> Extraction:
    """Extract with the shipped default model (loaded on first use)."""
    ex = _default.get(comments)
    if ex is None:
        ex = _default[comments] = Extractor(comments=comments)
    return ex.extract(html, url)
