"""The compiled parts (C extensions, each beside the module it serves): loading one. Every part
is the one implementation of its step, on every platform (loaded by ``required``; their Python
or numpy twins are test oracles under tests/oracles)."""

from __future__ import annotations

import importlib
from types import ModuleType

# Every C part setup.py builds, all eight on every platform: a wheel holds each of these, and an
# install needs them. (The walk reaches Lexbor through selectolax's module on Linux and macOS,
# and has Lexbor compiled in on Windows: setup.py.)
PARTS: tuple[str, ...] = (
    "read._segment", "read._precheck", "read._mojibake", "_pass",
    "score.features._leaves", "score.site._memory",
    "score.site._stage", "keep._metadata",
)


def _imports(name: str) -> bool:
    try:
        importlib.import_module(f"ce_filter.{name}")
    except ImportError:
        return False
    return True


def required(name: str) -> ModuleType:
    """The extension ``ce_filter.<name>``: ImportError saying how to get it where it is not
    built (there is no Python version to fall back on). Its functions are untyped: the caller
    gives the module the type of a Protocol of the functions it calls."""
    try:
        return importlib.import_module(f"ce_filter.{name}")
    except ImportError as e:
        raise ImportError(f"ce_filter.{name} does not import ({e}): install ce-filter from a "
                          "wheel, or from source with a C compiler") from e


def active() -> dict[str, bool]:
    """Each of ``PARTS`` and whether it imports in this process."""
    return {name: _imports(name) for name in PARTS}
