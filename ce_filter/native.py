"""The compiled parts (C extensions, each beside the module it serves): loading one. Most are the
one implementation of their step (``REQUIRED``: loaded by ``required``, their Python or numpy
twins are test oracles under tests/oracles). The others still have a Python version in the
package (the walk, which Windows runs in Python): those are loaded by ``probed``, which sets
aside a part that disagrees with its Python version on a probe, so that an install without
them, or with a broken build, still gives the same results."""

from __future__ import annotations

import importlib
import os
import sys
import warnings
from collections.abc import Callable
from types import ModuleType

# Every C part setup.py builds on this platform: all ten on Linux and macOS; on Windows all but
# the walk, which reaches Lexbor through selectolax's module (dlopen) and finds no function of it
# exported there. A wheel holds each of these.
PARTS: tuple[str, ...] = (
    *(() if sys.platform == "win32" else ("read._segment",)),
    "read._precheck", "read._mojibake", "_pass",
    "score.features._leaves", "score.site._memory",
    "score.site._stage", "keep._articles", "keep._render", "keep._metadata",
)
# the parts with no Python version in the package: an install needs them (``required``)
REQUIRED: frozenset[str] = frozenset((
    "read._precheck", "read._mojibake", "_pass", "score.features._leaves",
    "score.site._memory", "score.site._stage", "keep._articles", "keep._render", "keep._metadata",
))


def load(name: str) -> ModuleType | None:
    """The extension ``ce_filter.<name>`` (one with a Python version), or None where it is not
    built or ``CE_FILTER_PURE_PYTHON`` is set (the Python version runs instead). Its functions are untyped:
    the caller gives the module the type of a Protocol of the functions it calls."""
    if os.environ.get("CE_FILTER_PURE_PYTHON"):
        return None
    try:
        return importlib.import_module(f"ce_filter.{name}")
    except ImportError:
        return None


def _imports(name: str) -> bool:
    try:
        importlib.import_module(f"ce_filter.{name}")
    except ImportError:
        return False
    return True


def required(name: str) -> ModuleType:
    """The extension ``ce_filter.<name>`` that is the one implementation of its step (no
    reference to fall back on): ImportError saying how to get it where it is not built."""
    try:
        return importlib.import_module(f"ce_filter.{name}")
    except ImportError as e:
        raise ImportError(f"ce_filter.{name} is not built: install ce-filter from a wheel, or "
                          "from source with a C compiler") from e


def distrust(name: str, reference: str) -> None:
    """Warn that ``ce_filter.<name>`` gave other values than ``reference`` on its probe page
    (the caller then uses the reference only)."""
    warnings.warn(f"ce_filter.{name} disagrees with {reference}; using {reference}",
                  RuntimeWarning, stacklevel=3)


_PROBED: dict[tuple[str, str], ModuleType | None] = {}


def probed(name: str, reference: str, agrees: Callable[[ModuleType], bool]) -> ModuleType | None:
    """``ce_filter.<name>`` once ``agrees(module)`` has found it giving its reference's values
    on a probe (an error in the probe counts as disagreeing: ``distrust``), else None; probed
    once per process and reference (a module whose functions stand in for several references
    is probed for each)."""
    key = (name, reference)
    if key not in _PROBED:
        mod = load(name)
        if mod is not None:
            try:
                same = agrees(mod)
            except (TypeError, ValueError):
                same = False
            if not same:
                distrust(name, reference)
                mod = None
        _PROBED[key] = mod
    return _PROBED[key]


def active() -> dict[str, bool]:
    """Each of ``PARTS`` and whether it runs in this process rather than a Python version: a
    required part where it imports; another where built, not switched off
    (``CE_FILTER_PURE_PYTHON``) and not set aside by a probe so far (a part probed at first
    use and not used yet counts as running where it loads: its probe is still to come)."""
    out = {name: _imports(name) if name in REQUIRED else load(name) is not None for name in PARTS}
    for (name, _), mod in _PROBED.items():
        if mod is None and name in out:
            out[name] = False
    return out
