"""``ce-filter bench``: the speed and quality benchmark (issue 4). The work is done by the
``benchmarks`` package of a source checkout; this module only adds the subcommand."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

_REPO = Path(__file__).resolve().parents[1]


def _benchmarks_run():  # type: ignore[no-untyped-def]
    """``benchmarks.run``, or None when this is not a source checkout."""
    if (_REPO / "benchmarks" / "__init__.py").exists() and str(_REPO) not in sys.path:
        sys.path.insert(0, str(_REPO))
    try:
        from benchmarks import run
    except ModuleNotFoundError as e:
        if e.name not in ("benchmarks", "benchmarks.run"):
            raise
        return None
    return run


def _missing(_a: argparse.Namespace) -> int:
    print("ce-filter bench: the benchmarks/ package is not here; run it from a source checkout "
          "(pip install -e '.[bench]')", file=sys.stderr)
    return 2


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="speed and quality side by side with the peers (docs/BENCHMARKS.md)",
                       description="Benchmark ce-filter against trafilatura, resiliparse, readability-lxml, "
                                   "jusText, boilerpy3 and html-text; writes docs/BENCHMARKS.md.")
    run = _benchmarks_run()
    if run is None:
        p.set_defaults(fn=_missing)
        return
    run.add_arguments(p)
    p.set_defaults(fn=run.run)
