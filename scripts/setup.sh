#!/usr/bin/env bash
# Creates .venv with the project installed editable. Idempotent; safe to rerun.
#   bash scripts/setup.sh          # the test tools and every extra the tests use (what test.sh runs)
#   bash scripts/setup.sh demo     # only what `ce-filter demo` needs (what demo.sh runs)
#   bash scripts/setup.sh EXTRAS   # any comma list of the extras in pyproject.toml
# What it installs, and says so as it goes: Python packages from PyPI into .venv, nothing else;
# with the test extra, run as root where apt-get exists, also the Debian packages some tests use
# (kcat, chromium, fonts-liberation), unless CE_FILTER_NO_APT=1. Without them those tests skip
# and say why, and under CI=true (where every tool is expected) the skip fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS=${1:-test}
PY=${PYTHON:-python3}
say() { echo "setup: $*" >&2; }
if [ ! -x .venv/bin/python ]; then
  say "creating .venv with $("$PY" --version 2>&1)"
  "$PY" -m venv .venv
fi
say "installing into .venv from PyPI: ce-filter (editable) with the extras [$EXTRAS] (pyproject.toml)"
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e ".[$EXTRAS]"
# Debian packages the tests use where they are present (each test skips with a reason where
# not): kcat, an independent Kafka client to cross-check topics; chromium, the headless
# browser that opens the explain view and screenshots it. Installed only as root with apt.
if [[ ",$EXTRAS," == *,test,* ]]; then
  missing=()
  command -v kcat >/dev/null 2>&1 || missing+=(kcat)
  command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
    || missing+=("chromium fonts-liberation")  # the fonts: a screenshot needs legible text
  if [ ${#missing[@]} -eq 0 ]; then
    say "system packages the tests use are present (kcat, chromium)"
  elif [ "${CE_FILTER_NO_APT:-0}" != 0 ] || [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    say "not installed: ${missing[*]} (system packages; the tests that need them skip and say why," \
        "which fails the run under CI=true; as root with apt-get this script installs them," \
        "CE_FILTER_NO_APT=1 leaves them out)"
  else
    say "installing system packages with apt-get (as root; CE_FILTER_NO_APT=1 leaves them out): ${missing[*]}"
    apt-get update -qq >/dev/null 2>&1 || true
    for pkgs in "${missing[@]}"; do
      # shellcheck disable=SC2086  # a group of packages, split on purpose
      if DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $pkgs \
          >/dev/null 2>&1; then
        say "installed: $pkgs"
      else
        say "note: $pkgs not installed (the tests that need it skip, which fails the run under CI=true)"
      fi
    done
  fi
fi
