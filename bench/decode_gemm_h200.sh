#!/bin/bash
# The decode GEMM on an NVIDIA H200 (sm_90), from the repository root:
# nvcc builds kernels/src/DecodeGemm.hip into a shared library, the PyTorch
# script times it against the copy bandwidth and cuBLAS blockwise FP8.
# Usage: OUT=/some/dir bench/decode_gemm_h200.sh [extra nvcc flags]
set -euo pipefail
OUT=${OUT:-/tmp/fp8q-decode}
mkdir -p "$OUT"
nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v,-warn-spills -shared \
  -Xcompiler -fPIC "$@" -Iinclude -Ikernels/include \
  bench/decode_gemm_lib.cu -o "$OUT/libdecode.so" 2>"$OUT/ptxas.txt"
grep -E "decode_gemm|registers|spill" "$OUT/ptxas.txt" | head -20
cuobjdump -sass "$OUT/libdecode.so" | grep -cE "LDG.E.128|LDG.E.ENL2.128" \
  | sed 's/^/16-byte weight or activation loads in SASS: /' || true
python3 bench/decode_gemm_h200.py "$OUT/libdecode.so" ${SHAPES:+--shapes "$SHAPES"} \
  | tee "$OUT/decode.txt"
