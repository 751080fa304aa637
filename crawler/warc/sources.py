"""What a run reads: WARC/ARC paths, directories, globs, ``-`` (stdin) or open binary streams.

Resolved to (name, path-or-stream) pairs before any record is read, so a missing input fails
at once (FileNotFoundError) rather than part-way through a run.
"""

from __future__ import annotations

import glob
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Protocol, cast


class Readable(Protocol):
    """Any binary stream a source can be: expand_sources takes what has ``read`` as a stream
    (its ``name``, where it has one, names the records' source)."""

    def read(self, size: int = -1, /) -> bytes: ...


Source = str | os.PathLike | IO[bytes] | Readable
WARC_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz")


def expand_sources(source: Source | Iterable[Source]) -> list[tuple[str, str | Readable]]:
    """(name, path-or-stream) pairs. ``-`` is stdin; globs and directories expand (sorted).
    Raises FileNotFoundError for a path or glob that names nothing."""
    # one path or stream, or an iterable of them (hasattr, as at run time, narrows no type)
    sources: Iterable[Source]
    if isinstance(source, (str, os.PathLike)) or hasattr(source, "read"):
        sources = [cast(Source, source)]
    else:
        sources = source
    out: list[tuple[str, str | Readable]] = []
    for s in sources:
        if hasattr(s, "read"):
            out.append((getattr(s, "name", "<stream>"), cast(Readable, s)))
            continue
        name = os.fspath(s)
        if name == "-":
            out.append(("<stdin>", sys.stdin.buffer))
        elif Path(name).is_dir():
            files = sorted(str(p) for p in Path(name).rglob("*") if p.name.endswith(WARC_SUFFIXES))
            out.extend((f, f) for f in files)
        elif Path(name).exists():
            out.append((name, name))
        elif glob.has_magic(name) and glob.glob(name):
            out.extend((f, f) for f in sorted(glob.glob(name)))
        else:
            raise FileNotFoundError(f"no WARC input at {name!r}")
    return out
