"""``ce-filter extract`` over many inputs: the input list of ``-i FILE`` and the one output file
per input of ``-o DIR`` (named from the input, the extension by format; ``--keep-dirs`` keeps
the input's folders). ``write_file`` writes one file the same way (``explain``'s view): never
through a link, never over a file without ``overwrite``."""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePath, PurePosixPath
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from .options import UsageError

if TYPE_CHECKING:
    from .read.rawpage import RawPage

# a file's extension by output format (a format not listed gets its own name)
EXTENSIONS = {"text": ".txt", "markdown": ".md", "html": ".html", "jsonl": ".jsonl", "json": ".json",
              "xml": ".xml", "csv": ".csv"}
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
    order, so no output overwrites another, and so does a name a file already has (unless
    ``overwrite``). Output never goes through a symbolic link below the root."""

    def __init__(self, root: str, fmt: str, *, keep_dirs: bool = False, specs: Sequence[str] = (),
                 overwrite: bool = False) -> None:
        if os.path.exists(root) and not os.path.isdir(root):
            raise UsageError(f"--output-dir {root}: exists and is not a directory")
        try:
            os.makedirs(root, exist_ok=True)
        except OSError as e:
            raise UsageError(f"--output-dir {root}: {e.strerror or e}") from None
        if not os.access(root, os.W_OK):
            raise UsageError(f"--output-dir {root}: permission denied")
        self.root, self.keep_dirs, self.overwrite = Path(root), keep_dirs, overwrite
        self.ext = EXTENSIONS.get(fmt, "." + _safe(fmt))
        # the directories given as inputs, deepest first: a walked file's folders count from its own
        self.dirs = sorted((Path(s) for s in specs if s != "-" and "://" not in s and Path(s).is_dir()),
                           key=lambda p: -len(p.parts))
        self.used: set[Path] = set()

    def name(self, page: RawPage) -> Path:
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

    def path_for(self, page: RawPage) -> Path:
        """A fresh output path for ``page`` (one no earlier input of this run was given)."""
        base = self.name(page)
        out = next(p for p in (self.root / base.parent / n for n in _numbered(base.name, self.ext))
                   if p not in self.used)
        self.used.add(out)
        return out

    def write(self, page: RawPage, output: str) -> tuple[Path, bool]:
        """Write ``output`` for ``page``; returns the file written, and whether its first name was
        taken by a file already there (so it got the next free one). Nothing below the root is
        reached through a symbolic link (a link is never followed, a file never replaced unless
        ``overwrite``). OSError when it cannot be written."""
        dfd = self._open_folder(self.name(page).parent)
        try:
            return _write_first_free(dfd, iter(lambda: self.path_for(page), None), output,
                                     overwrite=self.overwrite)
        finally:
            os.close(dfd)

    def _open_folder(self, folder: Path) -> int:
        """A descriptor of ``folder`` below the root, made where missing, each part opened
        without following a link (a link there is an error, never a way out of the root)."""
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for part in folder.parts:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, dir_fd=fd)
                try:
                    nfd = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                except OSError as e:
                    if e.errno in (errno.ELOOP, errno.ENOTDIR):
                        raise OSError(e.errno, f"{self.root / folder}: a symbolic link or a file where the "
                                               "output's folder goes (links are not followed)") from None
                    raise
                os.close(fd)
                fd = nfd
        except BaseException:
            os.close(fd)
            raise
        return fd


def _create(dfd: int, name: str, output: str, *, overwrite: bool) -> bool:
    """Write ``name`` in the folder ``dfd`` as a new file; False when the name is taken (and
    not ``overwrite``): a link with that name is never followed. With ``overwrite`` the new
    file replaces the name itself: a link there is replaced, not written through."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    target = name
    if overwrite:
        target = f".{name}.{os.getpid()}.tmp"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(target, dir_fd=dfd)
    try:
        fd = os.open(target, flags, 0o666, dir_fd=dfd)
    except FileExistsError:
        return False
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(output)
        if target != name:
            os.replace(target, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(target, dir_fd=dfd)
        raise
    return True


def _numbered(base: str, ext: str) -> Iterator[str]:
    """The names an output takes in turn: ``BASE.EXT``, then ``BASE-2.EXT``, ``BASE-3.EXT``, ..."""
    yield base + ext
    for n in itertools.count(2):
        yield f"{base}-{n}{ext}"


def _write_first_free(dfd: int, paths: Iterator[Path], output: str, *, overwrite: bool) -> tuple[Path, bool]:
    """Write ``output`` in the folder ``dfd`` under the name of the first of ``paths`` no file
    has yet (with ``overwrite``: the first of them), by ``_create``; returns that path, and
    whether an earlier one was taken by a file already there."""
    renamed = False
    for path in paths:
        if _create(dfd, path.name, output, overwrite=overwrite):
            return path, renamed
        renamed = True
    raise FileExistsError(errno.EEXIST, "no free name")  # paths never end


def write_file(path: str | Path, output: str, *, ext: str = "", overwrite: bool = False) -> tuple[Path, bool]:
    """Write ``output`` to ``path`` + ``ext`` as ``-o DIR`` writes its files: never through a
    symbolic link with that name, and a file already there is never replaced unless
    ``overwrite`` (then the name itself is replaced: a link's target stays as it was); a taken
    name gives the next free one, ``PATH-2`` + ``ext``, ``PATH-3`` + ``ext``, ... Returns the
    file written and whether its first name was taken. The folder of ``path`` is opened as
    given, as ``-o DIR`` itself is. OSError when it cannot be written."""
    path = Path(path)
    dfd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    try:
        paths = (path.parent / n for n in _numbered(path.name, ext))
        return _write_first_free(dfd, paths, output, overwrite=overwrite)
    finally:
        os.close(dfd)
