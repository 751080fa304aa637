"""Allocations per page and the garbage collector's share of the time.

Two measurements, both for the speed table's measuring process (``measure.time_tool``):

- ``GcClock``: a ``gc.callbacks`` hook that reads the clock when a collection starts and when
  it stops. It stays installed during the timed passes, so the collector's time is the time
  it took in the very run the speed table reports (two Python calls per collection are what
  it adds; a run with ``gc.disable()`` would instead be a second, differently behaving run to
  subtract, with twice the noise).
- ``count_allocations``: one untimed pass over the same pages with a counting hook on
  CPython's object allocator (``PyObject_Malloc`` / ``PyObject_Calloc``, the allocator every
  Python object comes from: the ``PYMEM_DOMAIN_OBJ`` domain of PEP 445). The hook is a few
  lines of C built at run time with the interpreter's C compiler (``counter``): Python has no
  counter of allocations made (``sys.getallocatedblocks`` and the collector's counts are of
  live blocks, allocations less frees), and ``tracemalloc`` is far slower and keeps only live
  blocks. Where no C compiler or no Python headers are found, the count is not made and the
  report says why.

Only the standard library is imported: a peer's measuring process (in another interpreter
too) imports this module with nothing of ce-filter.
"""

from __future__ import annotations

import ctypes
import functools
import gc
import os
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypedDict

# The hook: wraps the object allocator in force (pymalloc, or whatever was installed before,
# tracemalloc's included) and counts new blocks; frees and resizes pass through uncounted.
_SHIM = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyMemAllocatorEx orig;
static size_t made;
static int on;

static void *c_malloc(void *ctx, size_t n) { made++; return orig.malloc(orig.ctx, n); }
static void *c_calloc(void *ctx, size_t k, size_t n) { made++; return orig.calloc(orig.ctx, k, n); }
static void *c_realloc(void *ctx, void *p, size_t n) {
    if (p == NULL) made++;
    return orig.realloc(orig.ctx, p, n);
}
static void c_free(void *ctx, void *p) { orig.free(orig.ctx, p); }

int ce_alloc_install(void) {
    PyMemAllocatorEx mine = {NULL, c_malloc, c_calloc, c_realloc, c_free};
    if (on) return 0;
    PyMem_GetAllocator(PYMEM_DOMAIN_OBJ, &orig);
    PyMem_SetAllocator(PYMEM_DOMAIN_OBJ, &mine);
    on = 1;
    return 1;
}

void ce_alloc_uninstall(void) {
    if (!on) return;
    PyMem_SetAllocator(PYMEM_DOMAIN_OBJ, &orig);
    on = 0;
}

size_t ce_alloc_made(void) { return made; }
"""


class Counter:
    """The built hook: ``with counter: ...`` counts; ``made()`` is the running total."""

    def __init__(self, lib: ctypes.PyDLL) -> None:
        self._lib = lib
        lib.ce_alloc_made.restype = ctypes.c_size_t
        lib.ce_alloc_install.restype = ctypes.c_int

    def made(self) -> int:
        return int(self._lib.ce_alloc_made())

    def __enter__(self) -> Counter:
        self._lib.ce_alloc_install()
        return self

    def __exit__(self, *exc: object) -> None:
        self._lib.ce_alloc_uninstall()


@functools.cache
def _build() -> tuple[Counter | None, str]:
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()
    include = sysconfig.get_paths()["include"]
    if not Path(include, "Python.h").exists():
        return None, "no Python headers (Python.h) for this interpreter"
    with tempfile.TemporaryDirectory(prefix="ce-bench-allocs-") as tmp:
        src, lib = Path(tmp, "allocs.c"), Path(tmp, "allocs.so")
        src.write_text(_SHIM)
        flags = ["-O2", "-shared", "-fPIC", f"-I{include}"]
        if sys.platform == "darwin":
            flags += ["-undefined", "dynamic_lookup"]
        try:
            r = subprocess.run([*cc, *flags, "-o", str(lib), str(src)], capture_output=True, text=True,
                               timeout=120)
        except (OSError, subprocess.SubprocessError) as e:
            return None, f"no C compiler ({Path(cc[0]).name}: {type(e).__name__})"
        if r.returncode or not lib.exists():
            tail = (r.stderr.replace(tmp + os.sep, "").strip().splitlines() or ["no output"])[-1]
            return None, f"the allocation hook did not build ({tail[:160]})"
        # PyDLL: its calls keep the GIL, which PyMem_SetAllocator needs. Loaded, the file may go.
        return Counter(ctypes.PyDLL(str(lib))), ""


def counter() -> tuple[Counter | None, str]:
    """(the allocation counter, "") once it is built (once per process), else (None, why not)."""
    return _build()


def count_allocations(fn: Callable[[bytes, str | None], object],
                      pages: Sequence[tuple[bytes, str | None]]) -> tuple[list[int] | None, str]:
    """One untimed pass of ``fn`` over ``pages``: (new blocks of the object allocator per page,
    ""), or (None, why they could not be counted). Run it after a warm-up pass: the first call
    of a tool allocates its caches too."""
    c, why = counter()
    if c is None:
        return None, why
    out = []
    with c:
        n0 = c.made()
        base = c.made() - n0  # what reading the counter allocates itself (its int)
        for data, url in pages:
            n0 = c.made()
            fn(data, url)
            out.append(c.made() - n0 - base)
    return out, ""


class GcClock:
    """``with GcClock() as g:`` times every collection (``gc.callbacks``); ``g.take()`` returns
    (seconds, collections per generation) since the previous ``take``."""

    def __init__(self) -> None:
        self._clock = time.perf_counter
        self._t0 = 0.0
        self._secs = 0.0
        self._n = [0, 0, 0]

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._t0 = self._clock()
        else:
            self._secs += self._clock() - self._t0
            g = info.get("generation", 0)
            self._n[min(g, 2)] += 1

    def take(self) -> tuple[float, list[int]]:
        got = self._secs, self._n
        self._secs, self._n = 0.0, [0, 0, 0]
        return got

    def __enter__(self) -> GcClock:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._callback)


class GcSummary(TypedDict):
    """The collector in a timed run: its share of the time, seconds and collections per page."""

    share: float  # seconds in collections ÷ seconds of the pages, over every timed pass
    ms_per_page: float  # mean milliseconds in collections per page and pass
    per_page: list[float]  # collections of generation 0, 1 and 2 per page and pass


def gc_summary(runs: Sequence[Sequence[float]], gc_runs: Sequence[Sequence[float]],
               collections: Sequence[int]) -> GcSummary:
    """From seconds per [pass][page] of the pages and of the collections within them, and the
    collections per generation over the passes."""
    total = sum(map(sum, runs))
    in_gc = sum(map(sum, gc_runs))
    n = sum(len(r) for r in runs)
    return {"share": min(1.0, in_gc / total) if total else 0.0,
            "ms_per_page": 1000 * in_gc / n if n else 0.0,
            "per_page": [c / n if n else 0.0 for c in collections]}
