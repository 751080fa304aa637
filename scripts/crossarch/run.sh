#!/usr/bin/env bash
# The dense features' bits on x86-64 and on aarch64 (glibc, under qemu-user): the C part's
# compute() built without Python for both, over every corpus page, against the package's own
# matrices. Needs gcc, gcc-aarch64-linux-gnu, libc6-dev-arm64-cross and qemu-user-static
# (Debian packages).  Usage: bash scripts/crossarch/run.sh [DATA_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
DATA=${1:-../shared/data}
PY=${PY:-.venv/bin/python}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
INC=$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
FLAGS=(-O2 -I"$INC" -Ice_filter -static -Wl,--unresolved-symbols=ignore-all -w)
"$PY" scripts/crossarch/pages.py "$DATA" "$OUT"
gcc "${FLAGS[@]}" -ffp-contract=off -o "$OUT/x86" scripts/crossarch/harness.c -lm
aarch64-linux-gnu-gcc "${FLAGS[@]}" -ffp-contract=off -o "$OUT/arm" scripts/crossarch/harness.c -lm
aarch64-linux-gnu-gcc "${FLAGS[@]}" -o "$OUT/arm-fma" scripts/crossarch/harness.c -lm
"$OUT/x86" "$OUT/pages.bin" "$OUT/x86.bin"
qemu-aarch64-static "$OUT/arm" "$OUT/pages.bin" "$OUT/arm.bin"
qemu-aarch64-static "$OUT/arm-fma" "$OUT/pages.bin" "$OUT/arm-fma.bin"
same() { cmp -s "$1" "$2" && echo "identical" || echo "DIFFERENT"; }
echo "x86-64 harness vs the package:          $(same "$OUT/x86.bin" "$OUT/package.bin")"
echo "aarch64 vs x86-64:                      $(same "$OUT/arm.bin" "$OUT/x86.bin")"
echo "aarch64 with fused multiply-add allowed: $(same "$OUT/arm-fma.bin" "$OUT/x86.bin")"
cmp -s "$OUT/x86.bin" "$OUT/package.bin" && cmp -s "$OUT/arm.bin" "$OUT/x86.bin"
