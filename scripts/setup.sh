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
# Debian packages the tests use where they are present (each test skips with a reason where
# not): kcat, an independent Kafka client to cross-check topics; chromium, the headless
# browser that opens the explain view and screenshots it. Installed only as root with apt.
if [[ ",$EXTRAS," == *,test,* ]] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  missing=()
  command -v kcat >/dev/null 2>&1 || missing+=(kcat)
  command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
    || missing+=("chromium fonts-liberation")  # the fonts: a screenshot needs legible text
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq >/dev/null 2>&1 || true
    for pkgs in "${missing[@]}"; do
      # shellcheck disable=SC2086  # a group of packages, split on purpose
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $pkgs \
        >/dev/null 2>&1 || echo "note: $pkgs not installed (the tests that need it skip)"
    done
  fi
fi
