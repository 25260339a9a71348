#!/bin/bash
# The decode GEMM on an NVIDIA H200 (sm_90), from the repository root:
# nvcc builds kernels/src/DecodeGemm.hip (both designs: DecodeGemm.h and
# DecodeGemmV2.h) into a shared library, the PyTorch script times both
# against the copy bandwidth, a read-only kernel and cuBLAS blockwise FP8.
# Usage: OUT=/some/dir bench/decode_gemm_h200.sh [extra nvcc flags]
#   SHAPES=6144x2048,... restricts the shapes, PYARGS passes more options
#   to bench/decode_gemm_h200.py (e.g. "--ms 1,16 --iters 20").
set -euo pipefail
OUT=${OUT:-/tmp/fp8q-decode}
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null || NVCC=/usr/local/cuda/bin/nvcc
mkdir -p "$OUT"
"$NVCC" -O3 -std=c++17 -arch=sm_90 -Xptxas -v,-warn-spills -shared \
  -Xcompiler -fPIC "$@" -Iinclude -Ikernels/include \
  bench/decode_gemm_lib.cu -o "$OUT/libdecode.so" 2>"$OUT/ptxas.txt"
# One line per decode kernel: registers, spills, shared memory.
awk '/Compiling entry function/ { match($0, /.[a-z0-9_]+.$/); n = $0;
       sub(/.*function ./, "", n); sub(/. for .*/, "", n) }
     /spill stores/ { split($0, a, ","); sp = a[2] }
     /Used [0-9]+ registers/ { if (n ~ /decode/) {
       r = $0; sub(/.*Used /, "", r); sub(/ registers.*/, "", r);
       printf "ptxas %s: %s registers,%s\n", n, r, sp } }' "$OUT/ptxas.txt"
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass "$OUT/libdecode.so" | grep -cE "LDG.E.128|LDG.E.ENL2.128" \
    | sed 's/^/16-byte global loads in SASS (v1): /' || true
  cuobjdump -sass "$OUT/libdecode.so" | grep -cE "LDGSTS.E.BYPASS.128" \
    | sed 's/^/16-byte cp.async (LDGSTS) in SASS (v2): /' || true
fi
python3 bench/decode_gemm_h200.py "$OUT/libdecode.so" \
  ${SHAPES:+--shapes "$SHAPES"} ${PYARGS:-} | tee "$OUT/decode.txt"
