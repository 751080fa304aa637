"""Which pages: corpus specs ``dir[:split]`` (a bare name like ``dragnet:test`` is looked up
under the data root), loaded with ``ce_filter.learn.corpus.load_corpus``."""

from __future__ import annotations

import os
from pathlib import Path

from ce_filter.learn.corpus import Doc, load_corpus

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SPEED = ("dragnet:test",)
DEFAULT_QUALITY = ("dragnet:test", "cleaneval-final", "readability", "cleanportaleval")


# Where a bare corpus name is looked up: $CE_FILTER_DATA, else ../shared/data from the current
# directory (the layout beside a checkout, run from its root). Never a path inside the installed
# package: installed from a wheel, that would be a folder in site-packages.
DEFAULT_DATA = Path("..") / "shared" / "data"


def data_root() -> Path:
    return Path(os.environ.get("CE_FILTER_DATA") or DEFAULT_DATA)


def resolve(spec: str) -> tuple[Path, str | None]:
    """``spec`` -> (corpus dir, split or None). Raises FileNotFoundError with a hint."""
    path, _, split = spec.partition(":")
    p = Path(path)
    if not (p / "html").is_dir() and not p.is_absolute() and (data_root() / path / "html").is_dir():
        p = data_root() / path
    if not (p / "html").is_dir():
        raise FileNotFoundError(f"corpus {spec!r}: no html/ under {p} (a corpus is a folder with "
                                f"html/ID.html and gold/ID.txt; bare names are looked up under "
                                f"{data_root()}: set CE_FILTER_DATA or give a path)")
    return p, split or None


def absolute(spec: str) -> str:
    """``spec`` with its corpus as an absolute path: what a measuring child (which runs in
    another directory) is given."""
    p, split = resolve(spec)
    return str(p.resolve()) + (f":{split}" if split else "")


def label(spec: str) -> str:
    p, split = resolve(spec)
    return p.name + (f" {split}" if split else "")


def load(specs: list[str] | tuple[str, ...], limit: int | None = None) -> list[Doc]:
    """The pages of every spec, in a fixed order; ``limit`` applies per spec."""
    docs: list[Doc] = []
    for spec in specs:
        path, split = resolve(spec)
        got = list(load_corpus(path, split, limit))
        if not got and limit != 0:
            where = f" in split {split!r}" if split else ""
            raise FileNotFoundError(f"corpus {spec!r}: no page with both html/ID.html and gold/ID.txt"
                                    f"{where} under {path}")
        docs.extend(got)
    return docs
