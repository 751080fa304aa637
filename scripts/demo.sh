#!/usr/bin/env bash
# The main job on the embedded defaults: the sample WARC -> filter -> an embedded Kafka-protocol
# broker (started and stopped here) -> a few cleaned records read back and printed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/ce-filter demo "$@"
