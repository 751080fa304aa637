"""The blocks' texts as one string: a page's block texts joined by "\\n" (a block's text is
whitespace-normalised, so it holds none) with where each starts, in characters for Python and
in UTF-8 bytes for the C parts (the anchor texts, not normalised, are joined by nothing). The
walk makes the one string instead of a str per block; a block's str is made only where it is
read (``texts[i]``), and the C parts that read every
block (the page kind's text signals, the repeated texts, the kept text, the metadata scans)
read the UTF-8 spans without making any."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import overload

import numpy as np

SEP = "\n"


class TextColumn(Sequence[str]):
    """``n`` block texts as one string. ``starts`` (n + 1 int64): where text i begins in
    ``joined``; it ends ``gap`` characters before ``starts[i + 1]`` (the separator "\\n" where
    ``gap`` is 1, none where it is 0; the last start is ``len(joined) + gap``). ``utf8`` and
    ``byte_starts`` are the same in UTF-8 bytes (the C parts' form; made on first use where the
    column was built from str)."""

    __slots__ = ("joined", "starts", "gap", "_at", "_utf8", "_byte_starts")

    def __init__(self, joined: str, starts: np.ndarray, gap: int = 1, utf8: bytes | None = None,
                 byte_starts: np.ndarray | None = None) -> None:
        self.joined = joined
        self.starts = starts
        self.gap = gap
        # the starts read as Python ints (indexing the array would make numpy scalars)
        self._at = np.ascontiguousarray(starts, dtype=np.int64).data.cast("B").cast("q")
        self._utf8 = utf8
        self._byte_starts = byte_starts

    @classmethod
    def of(cls, texts: Iterable[str], gap: int = 1) -> TextColumn:
        """The column of ``texts``: joined by "\\n" (``gap`` 1: strs without one, else
        ValueError) or by nothing (``gap`` 0)."""
        ts = list(texts)
        if gap and any(SEP in t for t in ts):
            raise ValueError("a block text holds no line break")
        starts = np.zeros(len(ts) + 1, dtype=np.int64)
        starts[0] = 0 if ts else gap  # the last start is len(joined) + gap
        if ts:
            np.cumsum(np.fromiter((len(t) + gap for t in ts), dtype=np.int64, count=len(ts)),
                      out=starts[1:])
        return cls((SEP if gap else "").join(ts), starts, gap)

    @property
    def utf8(self) -> bytes:
        """``joined`` in UTF-8."""
        if self._utf8 is None:
            self._utf8 = self.joined.encode("utf-8", "surrogatepass")
        return self._utf8

    @property
    def byte_starts(self) -> np.ndarray:
        """``starts`` in bytes of ``utf8`` (n + 1 int64)."""
        b = self._byte_starts
        if b is None:
            if self.utf8.isascii():
                b = self.starts
            else:
                n, g = len(self), self.gap
                b = np.zeros(n + 1, dtype=np.int64)
                lens = [len(t.encode("utf-8", "surrogatepass")) + g for t in self]
                np.cumsum(np.asarray(lens, dtype=np.int64), out=b[1:])
                if n == 0:
                    b[0] = g
            self._byte_starts = b
        return b

    def c_args(self) -> tuple[bytes, np.ndarray]:
        """(utf8, byte_starts): the two arguments the C parts take for the texts."""
        return self.utf8, self.byte_starts

    def __len__(self) -> int:
        return len(self._at) - 1

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[str]: ...

    def __getitem__(self, i: int | slice) -> str | Sequence[str]:
        if isinstance(i, slice):
            a, b, step = i.indices(len(self))
            if step == 1:
                return self._part(a, max(a, b))
            return [self[k] for k in range(a, b, step)]
        at = self._at
        n = len(at) - 1
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("block index out of range")
        return self.joined[at[i]:at[i + 1] - self.gap]

    def joined_part(self, a: int, b: int) -> str:
        """Texts a to b (0 <= a <= b <= len) as ``joined`` holds them (its piece from text a's
        start to text b - 1's end): the texts' one string without making a column of them."""
        at = self._at
        return self.joined[at[a]:at[b] - self.gap] if a < b else ""

    def _part(self, a: int, b: int) -> TextColumn:
        """Texts a to b (a <= b) as a column of their own (their one string cut out)."""
        g, at = self.gap, self._at
        if a == b:
            return TextColumn("", np.array([g], dtype=np.int64), g)
        starts = self.starts[a:b + 1] - at[a]
        part = TextColumn(self.joined[at[a]:at[b] - g], starts, g)
        if self._utf8 is not None and self._byte_starts is not None:
            if self._byte_starts is self.starts:  # ASCII: the same starts
                part._utf8, part._byte_starts = self._utf8[at[a]:at[b] - g], starts
            else:
                bs = self._byte_starts
                part._utf8 = self._utf8[int(bs[a]):int(bs[b]) - g]
                part._byte_starts = bs[a:b + 1] - bs[a]
        return part

    def __iter__(self) -> Iterator[str]:
        if not len(self):
            return iter(())
        if self.gap:
            return iter(self.joined.split(SEP))
        j, s = self.joined, self.starts.tolist()
        return (j[a:b] for a, b in zip(s, s[1:]))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TextColumn) and other.gap == self.gap:
            return self.joined == other.joined and np.array_equal(self.starts, other.starts)
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to lists: unhashable as they are

    def __repr__(self) -> str:
        return f"TextColumn({list(self)!r})"

    def __reduce__(self) -> tuple[object, tuple[str, np.ndarray, int]]:
        return (TextColumn, (self.joined, self.starts, self.gap))


def pick(texts: Sequence[str], at: Iterable[int]) -> list[str]:
    """The texts at the indices ``at``, in their order: one call for the few blocks a rule reads
    (a TextColumn's are cut out of its one string here, without a method call each)."""
    if not isinstance(texts, TextColumn):
        return [texts[i] for i in at]
    j, s, g = texts.joined, texts._at, texts.gap
    return [j[s[i]:s[i + 1] - g] for i in at]


def column(texts: Sequence[str], gap: int = 1) -> TextColumn:
    """``texts`` as a TextColumn joined by "\\n" (``gap`` 1) or by nothing (0): itself where it
    is one of that kind."""
    if isinstance(texts, TextColumn) and texts.gap == gap:
        return texts
    return TextColumn.of(texts, gap)
