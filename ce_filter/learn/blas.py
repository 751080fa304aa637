"""The BLAS kernel a model is fitted with, pinned so that the model file rebuilds to the byte.

OpenBLAS (numpy's and scipy's) picks its kernels by CPU when it loads, and two kernels sum in
different orders: the shipped content model fitted with the AVX-512 kernels ("SkylakeX") and
with the AVX2 ones ("Haswell") differs in the ninth significant digit of most weights, which
the rounding to nine digits cannot hide. `OPENBLAS_CORETYPE` chooses the kernel, but only
before the library loads, so the pin is an environment for the training process:

    eval "$(python -m ce_filter.learn.blas)"   # scripts/train_models.sh adds --force

Haswell's kernels run on every x86-64 CPU with AVX2 and FMA (2013 on); elsewhere nothing is
pinned, and the kernel in use is written into the model file's ``meta.libraries`` either way,
so a rebuild on another kernel is known for what it is.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Mapping

KERNEL = "Haswell"
VAR = "OPENBLAS_CORETYPE"


def _cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def can_pin() -> bool:
    """The pinned kernel runs here (x86-64 with AVX2 and FMA)."""
    return platform.machine() in ("x86_64", "AMD64") and {"avx2", "fma"} <= _cpu_flags()


def pinned_env(env: Mapping[str, str] | None = None, *, force: bool = False) -> dict[str, str]:
    """``env`` (default: this process's) with the kernel pinned where it can be and is not
    chosen already; ``force``: whatever it chose (the shipped models' rebuild)."""
    out = dict(os.environ if env is None else env)
    if (force or VAR not in out) and can_pin():
        out[VAR] = KERNEL
    return out


def kernels() -> str:
    """The BLAS libraries loaded in this process and the kernel each runs ('' if unknown)."""
    from threadpoolctl import threadpool_info

    seen = sorted({f"{i.get('internal_api')} {i.get('version')} {i.get('architecture')}"
                   for i in threadpool_info() if i.get("user_api") == "blas"})
    return "; ".join(seen)


def vector_unit() -> str:
    """The widest vector instructions this CPU gives numpy (``avx512``, ``avx2``, or the
    machine's name elsewhere). With the BLAS kernel pinned, weights fitted on an AVX-512 CPU and
    on an AVX2 one still differ in their tenth digit (rebuilt on both), so a model file rebuilds
    to the byte on a CPU of the kind it records."""
    import importlib

    try:
        umath = importlib.import_module("numpy._core._multiarray_umath")
    except ImportError:  # numpy < 2
        umath = importlib.import_module("numpy.core._multiarray_umath")
    features: dict[str, bool] = getattr(umath, "__cpu_features__", {})
    if features.get("AVX512F"):
        return "avx512"
    if features.get("AVX2") and features.get("FMA3"):
        return "avx2"
    return platform.machine() or "unknown"


def unpinned_note() -> str:
    """A line for the training log where the kernel could be pinned and is not ('' otherwise)."""
    if VAR in os.environ or not can_pin():
        return ""
    return (f"note: BLAS kernels as this CPU chose them ({kernels() or 'unknown'}); for a model file "
            f"that rebuilds to the byte on any x86-64 machine, train with {VAR}={KERNEL} "
            "(scripts/train_models.sh does)")


def main(argv: list[str] | None = None) -> int:
    """The shell line that pins the kernel (``--force``: over the environment's own choice)."""
    env = pinned_env(force="--force" in (argv or []))
    if env.get(VAR) != os.environ.get(VAR):
        print(f"export {VAR}={env[VAR]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
