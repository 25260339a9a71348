#!/bin/bash
# Sweeps the decode GEMM v2's compile-time knobs (DecodeGemmV2.h) on the
# H200 in one call, from the repository root: builds one library per
# configuration (in parallel), then runs bench/decode_gemm_h200.py --only-v2
# --compact on a short shape list for each, one line per (config, shape, M):
#   TAG NxK M=m R<rows>/split<S>/<blocks>blk v2 <us> <%read>rd <%copy>cp
#   ro <read-only us> PASS|FAIL
# plus per config "TAG copy .. read .. TB/s fails=..". Details (the full
# lines, ptxas) stay in $OUT/<tag>/.
# Knobs (DecodeGemmV2.h, DecodeGemm.hip): FP8Q_DECODE2_TILE_N (16..128),
# FP8Q_DECODE2_STAGES, FP8Q_DECODE2_BLOCKS_PER_SM (split-K target),
# FP8Q_DECODE2_MIN_KB, FP8Q_DECODE2_MAX_SPLITS, FP8Q_DECODE2_L2_PREFETCH
# (0/64/128/256), FP8Q_DECODE2_M{16,32,64}_MIN_BLOCKS (register budget).
# Usage: OUT=/dir [CONFIGS="tag:flags;tag:flags"] [SHAPES=..] [MS=1,16,64]
#        bench/decode_gemm_sweep_h200.sh
set -uo pipefail
OUT=${OUT:-/tmp/fp8q-decode-sweep}
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null || NVCC=/usr/local/cuda/bin/nvcc
SHAPES=${SHAPES:-6144x2048,2048x2048,2112x7168,4096x6144}
MS=${MS:-1,16,64}
ITERS=${ITERS:-15}
CONFIGS=${CONFIGS:-"t64s4b2:-DFP8Q_DECODE2_TILE_N=64 -DFP8Q_DECODE2_STAGES=4 -DFP8Q_DECODE2_BLOCKS_PER_SM=2;t64s6b4:-DFP8Q_DECODE2_TILE_N=64 -DFP8Q_DECODE2_STAGES=6 -DFP8Q_DECODE2_BLOCKS_PER_SM=4;t128s4b2:-DFP8Q_DECODE2_TILE_N=128 -DFP8Q_DECODE2_STAGES=4 -DFP8Q_DECODE2_BLOCKS_PER_SM=2;t64s4b2p256:-DFP8Q_DECODE2_TILE_N=64 -DFP8Q_DECODE2_STAGES=4 -DFP8Q_DECODE2_BLOCKS_PER_SM=2 -DFP8Q_DECODE2_L2_PREFETCH=256"}
IFS=';' read -ra CFG <<<"$CONFIGS"
pids=()
for c in "${CFG[@]}"; do
  tag=${c%%:*} flags=${c#*:}
  mkdir -p "$OUT/$tag"
  # shellcheck disable=SC2086
  "$NVCC" -O3 -std=c++17 -arch=sm_90 -Xptxas -v,-warn-spills -shared \
    -Xcompiler -fPIC $flags -Iinclude -Ikernels/include \
    bench/decode_gemm_lib.cu -o "$OUT/$tag/libdecode.so" \
    2>"$OUT/$tag/ptxas.txt" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || echo "a build failed"; done
for c in "${CFG[@]}"; do
  tag=${c%%:*}
  [ -f "$OUT/$tag/libdecode.so" ] || { echo "$tag BUILD FAILED"; continue; }
  # Registers / spills of the v2 kernels, one line.
  awk -v t="$tag" '/Compiling entry function/ { n = $0;
         sub(/.*function ./, "", n); sub(/. for .*/, "", n) }
       /spill stores/ { split($0, a, " "); sp = a[5] }
       /Used [0-9]+ registers/ { if (n ~ /decode2_gemm_m/) {
         r = $0; sub(/.*Used /, "", r); sub(/ registers.*/, "", r);
         v = n; sub(/.*_m/, "m", v); s = s " " v ":" r "r/" sp "sp" } }
       END { print t " ptxas" s }' "$OUT/$tag/ptxas.txt"
  python3 bench/decode_gemm_h200.py "$OUT/$tag/libdecode.so" --only-v2 \
    --compact "$tag" --shapes "$SHAPES" --ms "$MS" --iters "$ITERS" \
    2>"$OUT/$tag/detail.txt" || echo "$tag run failed (see $OUT/$tag/detail.txt)"
done
