"""``ce-filter bench``: adds the subcommand to the CLI (the work is in ``run``)."""

from __future__ import annotations

import argparse

from . import run


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="speed and quality side by side with the peers (needs the bench extra)",
                       description="Benchmark ce-filter against trafilatura, resiliparse, readability-lxml, "
                                   "jusText, boilerpy3 and html-text: pages/s on one core, memory, and "
                                   "token P/R/F1 on labelled corpora. The tables are printed, and written "
                                   "into docs/BENCHMARKS.md when run in a checkout (--out FILE elsewhere).")
    run.add_arguments(p)
    p.set_defaults(fn=run.run, extras=("bench",))
