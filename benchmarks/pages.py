"""Which pages: corpus specs ``dir[:split]`` (a bare name like ``dragnet:test`` is looked up
under the data root), loaded with ``ce_filter.learn.corpus.load_corpus``."""

from __future__ import annotations

import os
from pathlib import Path

from ce_filter.learn.corpus import Doc, load_corpus

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SPEED = ("dragnet:test",)
DEFAULT_QUALITY = ("dragnet:test", "cleaneval-final", "readability", "cleanportaleval")


def data_root() -> Path:
    return Path(os.environ.get("CE_FILTER_DATA", REPO.parent / "shared" / "data"))


def resolve(spec: str) -> tuple[Path, str | None]:
    """``spec`` -> (corpus dir, split or None). Raises FileNotFoundError with a hint."""
    path, _, split = spec.partition(":")
    p = Path(path)
    if not (p / "html").is_dir() and not p.is_absolute() and (data_root() / path / "html").is_dir():
        p = data_root() / path
    if not (p / "html").is_dir():
        raise FileNotFoundError(f"corpus {spec!r}: no html/ under {p} (data root {data_root()}; "
                                "set CE_FILTER_DATA or give a path)")
    return p, split or None


def label(spec: str) -> str:
    p, split = resolve(spec)
    return p.name + (f" {split}" if split else "")


def load(specs: list[str] | tuple[str, ...], limit: int | None = None) -> list[Doc]:
    """The pages of every spec, in a fixed order; ``limit`` applies per spec."""
    docs: list[Doc] = []
    for spec in specs:
        path, split = resolve(spec)
        docs.extend(load_corpus(path, split, limit))
    return docs
