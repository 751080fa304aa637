#!/usr/bin/env bash
# Rebuilds the shipped models from the data (deterministic: same data + versions -> same bytes).
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${CE_FILTER_DATA:-../shared/data}
PY=${PY:-python3}
[ -x .venv/bin/python ] && PY=.venv/bin/python
for target in content comments; do
  "$PY" -m ce_filter.cli train "$DATA/dragnet:train" "$DATA/cleaneval-dev" --target "$target" \
    --out "ce_filter/models/$target.json"
done
