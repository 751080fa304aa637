"""``ce-filter extract`` over many inputs: the input list of ``-i FILE`` and the one output file
per input of ``-o DIR`` (named from the input, the extension by format; ``--keep-dirs`` keeps
the input's folders)."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path, PurePath, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from .options import UsageError

# a file's extension by output format (a format not listed gets its own name)
EXTENSIONS = {"text": ".txt", "markdown": ".md", "html": ".html", "jsonl": ".jsonl", "json": ".json",
              "xml": ".xml", "csv": ".csv"}
# what the text and markdown formats print for a page without text (ce_filter.cli._Render)
EMPTY_MARK = "[empty: "
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_MAX_PART = 120  # characters of one file-name part (file systems allow 255 bytes)


def read_input_file(path: str) -> list[str]:
    """The inputs listed in ``path`` (``-`` = stdin): one URL or path a line; blank lines and
    lines starting with ``#`` are skipped. A file that cannot be read, or lists nothing, is a
    UsageError."""
    try:
        if path == "-":
            lines = sys.stdin.read().splitlines()
        else:
            with open(path, encoding="utf-8-sig") as fh:
                lines = fh.read().splitlines()
    except OSError as e:
        raise UsageError(f"--input-file {path}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise UsageError(f"--input-file {path}: not UTF-8 text (one URL or path a line)") from None
    specs = [s for s in (ln.strip() for ln in lines) if s and not s.startswith("#")]
    if not specs:
        raise UsageError(f"--input-file {path}: no URL or path in it (one a line)")
    return specs


def _safe(part: str) -> str:
    """One file-name part made of letters, digits, ``.``, ``_``, ``-`` only (never ``.``/``..``)."""
    s = _UNSAFE.sub("_", part).strip("_")[:_MAX_PART]
    return s if s.strip(".") else "_"


class OutputDir:
    """Where ``extract -o DIR`` writes each input's output: ``DIR/NAME.EXT``. NAME is the
    file's name without its extension, ``HOST_PATH`` for a URL, ``stdin`` for stdin; with
    ``keep_dirs`` the file's folders below the directory it was found in (or its path as given)
    and ``HOST/PATH`` for a URL. Two inputs with the same name get ``-2``, ``-3``, ... in input
    order, so no output overwrites another."""

    def __init__(self, root: str, fmt: str, *, keep_dirs: bool = False, specs: Sequence[str] = ()) -> None:
        if os.path.exists(root) and not os.path.isdir(root):
            raise UsageError(f"--output-dir {root}: exists and is not a directory")
        try:
            os.makedirs(root, exist_ok=True)
        except OSError as e:
            raise UsageError(f"--output-dir {root}: {e.strerror or e}") from None
        if not os.access(root, os.W_OK):
            raise UsageError(f"--output-dir {root}: permission denied")
        self.root, self.keep_dirs = Path(root), keep_dirs
        self.ext = EXTENSIONS.get(fmt, "." + _safe(fmt))
        # the directories given as inputs, deepest first: a walked file's folders count from its own
        self.dirs = sorted((Path(s) for s in specs if s != "-" and "://" not in s and Path(s).is_dir()),
                           key=lambda p: -len(p.parts))
        self.used: set[Path] = set()

    def name(self, page: Any) -> Path:
        """The output path (relative to the root, without the extension) of ``page``, a RawPage."""
        src = page.source_name or page.url or "-"
        if page.source == "fetch" or "://" in src:
            u = urlsplit(src)
            parts = [u.hostname or "url", *(p for p in u.path.split("/") if p)]
            if len(parts) == 1 or u.path.endswith("/"):
                parts.append("index")
            if len(parts) > 1 and "." in parts[-1][1:]:  # story.html -> story (not the host's dots)
                parts[-1] = parts[-1].rsplit(".", 1)[0]
            if u.query:
                parts[-1] += "_" + u.query
            parts = [_safe(p) for p in parts]
            return Path(*parts) if self.keep_dirs else Path("_".join(parts)[:2 * _MAX_PART])
        if src == "-":
            return Path("stdin")
        path = Path(src)
        stem = _safe(path.stem)
        if not self.keep_dirs:
            return Path(stem)
        rel: PurePath
        for d in self.dirs:
            try:
                rel = path.relative_to(d)
                break
            except ValueError:
                continue
        else:  # a file given as such: its path as given, kept inside the output directory
            rel = PurePosixPath(*(p for p in path.parts if p not in ("..", ".") and p != path.anchor))
        folders = [_safe(p) for p in rel.parts[:-1]]
        return Path(*folders, stem)

    def path_for(self, page: Any) -> Path:
        """A fresh output path for ``page`` (one no earlier input of this run was given)."""
        base = self.name(page)
        out, n = self.root / (str(base) + self.ext), 1
        while out in self.used:
            n += 1
            out = self.root / f"{base}-{n}{self.ext}"
        self.used.add(out)
        return out

    def write(self, page: Any, output: str) -> Path:
        """Write ``output`` for ``page``; returns the file written. OSError when it cannot be."""
        out = self.path_for(page)
        out.parent.mkdir(parents=True, exist_ok=True)
        with open(out, "w", encoding="utf-8") as fh:
            fh.write(output)
        return out
