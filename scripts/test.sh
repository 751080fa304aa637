#!/usr/bin/env bash
# The test command: set up, lint, run the whole suite (corpus checks skip where ../shared is absent).
# Set up = scripts/setup.sh: .venv with the test extra from PyPI; run as root with apt-get, also
# the Debian packages kcat, chromium and fonts-liberation (it says so; CE_FILTER_NO_APT=1 leaves
# them out, and the tests that need them skip with the reason). Under CI=true a skip fails the
# run (CI has every tool and the corpora), except the reviewed ALLOWED_SKIPS in tests/conftest.py.
# Arguments go to pytest: `bash scripts/test.sh -m "not slow"` leaves out the wheel-install test,
# `-n 0` runs the tests in one process (default: two worker processes, pytest-xdist).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# the walk's build with Lexbor compiled in (the one Windows needs) is tested too: Lexbor's source,
# fetched once into .cache/ (scripts/lexbor_source.py, checked against its SHA-256)
CE_FILTER_LEXBOR_SRC="${CE_FILTER_LEXBOR_SRC:-$(.venv/bin/python scripts/lexbor_source.py "$PWD/.cache/lexbor")}"
export CE_FILTER_LEXBOR_SRC
.venv/bin/ruff check .
.venv/bin/python scripts/typecheck.py  # mypy and the import contracts on the installed layout
.venv/bin/python -m pytest -q -rs -n 2 "$@"
