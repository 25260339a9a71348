#!/bin/bash
# Builds fp8q-step-run without CMake or MLIR, e.g. on the GPU machine:
#   bash scripts/build-step-run.sh OUTDIR
# Always the host-only OUTDIR/fp8q-step-run (c++); with CUDA's nvcc (PATH,
# $CUDA_HOME or /usr/local/cuda) also OUTDIR/fp8q-step-run-cuda, the device
# build against the CUDA runtime (HIP names through kernels/cuda).
set -euo pipefail
out=${1:?usage: build-step-run.sh OUTDIR}
src=$(cd "$(dirname "$0")/.." && pwd)
dir=$src/tools/fp8q-step-run
sources=("$dir/fp8q-step-run.cpp" "$dir/Manifest.cpp" "$dir/Tensors.cpp"
         "$dir/HostRun.cpp" "$dir/DeviceRun.cpp")
includes=(-I"$src/include" -I"$src/kernels/cuda")
mkdir -p "$out"

cxx=${CXX:-c++}
"$cxx" -std=c++17 -O2 -Wall "${includes[@]}" "${sources[@]}" -ldl \
  -o "$out/fp8q-step-run"
echo "built $out/fp8q-step-run"

nvcc=$(command -v nvcc || true)
for candidate in "${CUDA_HOME:-}/bin/nvcc" /usr/local/cuda/bin/nvcc; do
  [ -z "$nvcc" ] && [ -x "$candidate" ] && nvcc=$candidate
done
if [ -n "$nvcc" ]; then
  # Host code only (no kernels): nvcc drives the host compiler and links
  # the CUDA runtime.
  "$nvcc" -std=c++17 -O2 -x cu -DFP8Q_STEP_RUN_CUDA=1 "${includes[@]}" \
    "${sources[@]}" -ldl -lcudart -o "$out/fp8q-step-run-cuda"
  echo "built $out/fp8q-step-run-cuda"
else
  echo "nvcc not found: no fp8q-step-run-cuda"
fi
