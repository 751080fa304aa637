#!/usr/bin/env bash
# Creates .venv with the project installed editable. Idempotent; safe to rerun.
#   bash scripts/setup.sh          # the test tools and every extra the tests use (what test.sh runs)
#   bash scripts/setup.sh demo     # only what `ce-filter demo` needs (what demo.sh runs)
#   bash scripts/setup.sh EXTRAS   # any comma list of the extras in pyproject.toml
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS=${1:-test}
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e ".[$EXTRAS]"
# kcat: an independent Kafka client the tests use to cross-check topics (optional).
if [[ ",$EXTRAS," == *,test,* ]] && ! command -v kcat >/dev/null 2>&1 && [ "$(id -u)" = 0 ] \
   && command -v apt-get >/dev/null; then
  (apt-get update -qq && apt-get install -y -qq kcat) >/dev/null 2>&1 || echo "note: kcat not installed"
fi
