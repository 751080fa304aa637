#!/usr/bin/env bash
# The test command: set up, lint, run the whole suite (corpus checks skip where ../shared is absent).
# Arguments go to pytest: `bash scripts/test.sh -m "not slow"` leaves out the wheel-install test,
# `-n 0` runs the tests in one process (default: two worker processes, pytest-xdist).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/python -m pytest -q -rs -n 2 "$@"
