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
# (FP8Q_DECODE2_SPLIT_FLOOR, FP8Q_DECODE2_SCALES_LDS: see DecodeGemmV2.h.)
# KERNEL=v1 sweeps the first kernel's knobs instead (DecodeGemm.h:
# FP8Q_DECODE_PREFETCH_X, FP8Q_DECODE_UNROLL, FP8Q_DECODE_M{8,16}_MIN_BLOCKS):
# every config times v1 and cuBLAS (--no-v2), "v1 <us>" is the figure.
# Usage: OUT=/dir [CONFIGS="tag:flags;tag:flags"] [SHAPES=..] [MS=1,16,64]
#        [V1TAG=tag: that config also times v1 and cuBLAS] [KERNEL=v1]
#        bench/decode_gemm_sweep_h200.sh
set -uo pipefail
OUT=${OUT:-/tmp/fp8q-decode-sweep}
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null || NVCC=/usr/local/cuda/bin/nvcc
SHAPES=${SHAPES:-6144x2048,2048x2048,4096x6144,24576x1536}
MS=${MS:-1,16,64}
ITERS=${ITERS:-15}
# One knob per config against the defaults (which since session 20 are the
# H200 v2 diagnosis' "best": scales in LDS, MIN_KB 8, floor splits;
# bench/RESULTS.md):
#  base:    the defaults.
#  nosplit: no split-K.
#  kb4:     splits of at least 4 K blocks (faster on 2048 x 2048 and
#           2112 x 7168 in session 20, slower on small ragged shapes).
#  ceil:    split count rounded up (a partial second wave of blocks).
#  gscales: block scales read from global memory after each stage's barrier.
#  t128:    128-row tiles (8 waves per block).
CONFIGS=${CONFIGS:-"base:;nosplit:-DFP8Q_DECODE2_MAX_SPLITS=1;kb4:-DFP8Q_DECODE2_MIN_KB=4;ceil:-DFP8Q_DECODE2_SPLIT_FLOOR=0;gscales:-DFP8Q_DECODE2_SCALES_LDS=0;t128:-DFP8Q_DECODE2_TILE_N=128"}
# The config whose lines also time v1 (DecodeGemm.h) and cuBLAS ("" for
# none): without --only-v2, its compact lines end "v1 <us> cublas <us>".
V1TAG=${V1TAG-base}
KERNEL=${KERNEL:-v2}
kre=decode2_gemm_m
[ "$KERNEL" = v1 ] && kre=decode_gemm_m
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
  awk -v t="$tag" -v kre="$kre" '/Compiling entry function/ { n = $0;
         sub(/.*function ./, "", n); sub(/. for .*/, "", n) }
       /spill stores/ { split($0, a, " "); sp = a[5] }
       /Used [0-9]+ registers/ { if (n ~ kre) {
         r = $0; sub(/.*Used /, "", r); sub(/ registers.*/, "", r);
         v = n; sub(/.*_m/, "m", v); s = s " " v ":" r "r/" sp "sp" } }
       END { print t " ptxas" s }' "$OUT/$tag/ptxas.txt"
  only=--only-v2
  [ "$tag" = "$V1TAG" ] && only=
  [ "$KERNEL" = v1 ] && only=--no-v2
  # shellcheck disable=SC2086
  python3 bench/decode_gemm_h200.py "$OUT/$tag/libdecode.so" $only \
    --compact "$tag" --shapes "$SHAPES" --ms "$MS" --iters "$ITERS" \
    2>"$OUT/$tag/detail.txt" || echo "$tag run failed (see $OUT/$tag/detail.txt)"
done
