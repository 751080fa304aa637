#!/usr/bin/env bash
# Creates .venv312: a Python 3.12 venv for the bench peer whose wheels need Python >= 3.12
# (rs-trafilatura, through its binding trafipy). `ce-filter bench` measures that peer in this
# interpreter; where there is none, the tables say "not available". Idempotent; safe to rerun.
#   bash scripts/bench_py312.sh
# The interpreter it starts from: $CE_FILTER_BENCH_PY312, else python3.12 on PATH, else the
# newest 3.12 under pyenv ($PYENV_ROOT, default ~/.pyenv). What it installs, from PyPI, into
# .venv312 only: trafipy, and w3lib (the decoder the bench gives every tool that takes only str).
# ce-filter is not installed there: that measuring process imports the standard library, the
# harness's benchmarks/ folder and the tool, nothing else.
# Exit status 3: no Python 3.12 interpreter was found (nothing was changed).
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "bench_py312: $*" >&2; }
new_enough() { "$1" -c 'import sys; sys.exit(sys.version_info[:2] < (3, 12))' >/dev/null 2>&1; }

# One run at a time (two test processes may call it together): a lock on this script's own file.
if command -v flock >/dev/null 2>&1; then
  exec 9<"$0"
  flock 9
fi

find_python() {
  local c
  if [ -n "${CE_FILTER_BENCH_PY312:-}" ]; then
    if new_enough "$CE_FILTER_BENCH_PY312"; then echo "$CE_FILTER_BENCH_PY312"; return 0; fi
    say "CE_FILTER_BENCH_PY312=$CE_FILTER_BENCH_PY312 is not a Python >= 3.12; looking further"
  fi
  c=$(command -v python3.12 || true)
  if [ -n "$c" ] && new_enough "$c"; then echo "$c"; return 0; fi
  local root=${PYENV_ROOT:-$HOME/.pyenv}
  if [ -d "$root/versions" ]; then
    while IFS= read -r c; do
      if new_enough "$c/bin/python"; then echo "$c/bin/python"; return 0; fi
    done < <(find "$root/versions" -maxdepth 1 -name '3.12*' | sort -rV)
  fi
  return 1
}

if [ -x .venv312/bin/python ] && new_enough .venv312/bin/python; then
  say "using .venv312 ($(.venv312/bin/python --version 2>&1))"
else
  if ! PY=$(find_python); then
    say "no Python 3.12 found (CE_FILTER_BENCH_PY312, python3.12 on PATH, pyenv's versions):" \
        "rs-trafilatura stays 'not available' in the bench"
    exit 3
  fi
  say "creating .venv312 with $("$PY" --version 2>&1) ($PY)"
  rm -rf .venv312
  "$PY" -m venv .venv312
  echo '*' > .venv312/.gitignore  # as virtualenv does: git, ruff and the rest leave it alone
fi
say "installing into .venv312 from PyPI: trafipy w3lib"
.venv312/bin/python -m pip install -q --disable-pip-version-check trafipy w3lib
say "rs-trafilatura ready: trafipy $(.venv312/bin/python -c \
  'from importlib.metadata import version; print(version("trafipy"))') in .venv312"
