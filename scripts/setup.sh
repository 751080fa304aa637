#!/usr/bin/env bash
# Creates .venv with the project and its test tools. Idempotent; safe to rerun.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e ".[test]"
# kcat: an independent Kafka client the tests use to cross-check topics (optional).
if ! command -v kcat >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  (apt-get update -qq && apt-get install -y -qq kcat) >/dev/null 2>&1 || echo "note: kcat not installed"
fi
