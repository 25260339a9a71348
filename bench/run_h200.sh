#!/bin/bash
# Builds and runs the fp8q HIP kernels on an NVIDIA GPU (sm_90) from the
# repository root: the CPU reference runtime with g++, the kernels, the
# HIP runtime ABI and the harness with nvcc through kernels/cuda/hip_on_cuda.h,
# then correctness, benchmarks and the PyTorch eager baselines in one go.
# Usage: OUT=/some/dir bench/run_h200.sh
# Kernel variants instead (quantize checks and rows only, one binary per
# set of nvcc flags, e.g. -DFP8Q_QUANT_GROUPS_PER_TEAM=1):
#   OUT=/some/dir VARIANTS="flags1;flags2" bench/run_h200.sh
set -euo pipefail
OUT=${OUT:-/tmp/fp8q-h200}
mkdir -p "$OUT"
g++ -O2 -std=c++17 -shared -fPIC -fvisibility=hidden -ffp-contract=off \
  -Iinclude lib/Runtime/Cpu/*.cpp -o "$OUT/libfp8q_runtime_cpu.so" \
  -lpthread &
build() { # build <output> <extra nvcc flags...>
  local o=$1
  shift
  nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -warn-spills "$@" \
    -Iinclude -Ikernels/include -Ilib/Runtime/Gpu -Ilib/Runtime/Common \
    -x cu lib/Runtime/Gpu/LauncherCuda.cu \
    -x cu lib/Runtime/Gpu/GpuOps.cpp -x cu lib/Runtime/Gpu/GpuOpsV2.cpp \
    -x cu lib/Runtime/Gpu/HostAbi.cpp \
    -x cu lib/Runtime/Gpu/DeviceAbi.cpp -x cu lib/Runtime/Gpu/DeviceRanges.cpp \
    -x cu lib/Runtime/Gpu/MgpuWrappers.cpp -x cu lib/Runtime/Gpu/NcclComm.cpp \
    -x cu lib/Runtime/Gpu/CublasLtGemm.cpp \
    -x cu bench/hip_kernels_h200.cu -o "$o" -ldl
}
if [ -n "${VARIANTS:-}" ]; then
  IFS=';' read -ra vs <<<"$VARIANTS"
  for i in "${!vs[@]}"; do
    # shellcheck disable=SC2086
    build "$OUT/variant$i" ${vs[$i]} &
  done
  wait
  for i in "${!vs[@]}"; do
    echo "== variant $i: nvcc ${vs[$i]}"
    "$OUT/variant$i" "$OUT/libfp8q_runtime_cpu.so" \
      "$([ "$i" = 0 ] && echo --quant || echo --quant-bench)" |
      tee "$OUT/variant$i.txt"
  done
  exit 0
fi
build "$OUT/hip_kernels_h200"
wait
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem \
  --format=csv,noheader
"$OUT/hip_kernels_h200" "$OUT/libfp8q_runtime_cpu.so" | tee "$OUT/kernels.txt"
python3 bench/torch_eager_h200.py | tee "$OUT/torch.txt"
