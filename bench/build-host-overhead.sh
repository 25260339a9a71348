#!/usr/bin/env bash
# Builds bench/host_overhead.cpp (no CMake, no MLIR):
#   OUTDIR/host_overhead_cpu  c++ only; --checks-only (the runtime's operand
#                             checks alone), runs on any machine;
#   OUTDIR/host_overhead      nvcc, linked against libfp8q_runtime_cuda.so
#                             in RUNTIME_DIR (default OUTDIR, where
#                             scripts/build-cuda-runtime.sh OUTDIR puts it;
#                             found through RUNPATH): the GPU measurement,
#                             and --checks-only too.
# Usage: bench/build-host-overhead.sh OUTDIR [RUNTIME_DIR]   (NVCC=..., CXX=...)
# Without nvcc or without the runtime only host_overhead_cpu is built.
set -euo pipefail
out=${1:?usage: bench/build-host-overhead.sh OUTDIR [RUNTIME_DIR]}
rt=${2:-$out}
root=$(cd "$(dirname "$0")/.." && pwd)
src=$root/bench/host_overhead.cpp
includes=(-I"$root/include" -I"$root/lib/Runtime/Common")
mkdir -p "$out"

"${CXX:-c++}" -std=c++17 -O2 -Wall "${includes[@]}" "$src" \
  -o "$out/host_overhead_cpu"
echo "built $out/host_overhead_cpu (--checks-only)"

nvcc=${NVCC:-$(command -v nvcc || true)}
for candidate in "${CUDA_HOME:-}/bin/nvcc" /usr/local/cuda/bin/nvcc; do
  [ -z "$nvcc" ] && [ -x "$candidate" ] && nvcc=$candidate
done
if [ -z "$nvcc" ]; then
  echo "nvcc not found (PATH, \$NVCC, \$CUDA_HOME, /usr/local/cuda): no" \
    "host_overhead GPU build"
  exit 0
fi
if [ ! -f "$rt/libfp8q_runtime_cuda.so" ]; then
  echo "no $rt/libfp8q_runtime_cuda.so: build it first with" \
    "scripts/build-cuda-runtime.sh $rt (no host_overhead GPU build)"
  exit 0
fi
rt=$(cd "$rt" && pwd)
"$nvcc" -std=c++17 -O2 -arch=sm_90 -cudart=shared "${includes[@]}" -x cu "$src" \
  -o "$out/host_overhead" -L"$rt" -lfp8q_runtime_cuda -Xlinker -rpath="$rt"
echo "built $out/host_overhead (against $rt/libfp8q_runtime_cuda.so)"
