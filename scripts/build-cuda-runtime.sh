#!/bin/bash
# Builds libfp8q_runtime_cuda.so without CMake (nvcc + c++ only), for GPU
# machines that have CUDA but no MLIR or CMake: the GPU runtime's sources
# (lib/Runtime/Gpu) and the kernels (kernels/src, through
# kernels/cuda/hip_on_cuda.h) for sm_90 plus compute_90 PTX.
# Usage: scripts/build-cuda-runtime.sh OUTDIR   (NVCC=... to pick nvcc)
# With CHECK=1 it also builds the CPU runtime and bench/gpu_runtime_check
# and its PTX/cubin inputs into OUTDIR.
set -euo pipefail
OUT=${1:?usage: scripts/build-cuda-runtime.sh OUTDIR}
cd "$(dirname "$0")/.."
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$OUT/obj"
# FP8Q_NVCC_FLAGS: extra nvcc flags (e.g. -DFP8Q_V2_QUANT_MIN_BLOCKS=4 for
# a benchmark variant).
flags=(-std=c++17 -O3 -Xcompiler=-fPIC,-fvisibility=hidden,-fno-exceptions
  -Iinclude -Ikernels/include -Ilib/Runtime/Gpu -Ilib/Runtime/Common
  ${FP8Q_NVCC_FLAGS:-})
gencode=(-gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90)
# Waits for every background job started since the last call; fails if
# any of them failed (a bare `wait` would report success).
pids=()
wait_all() {
  local status=0
  for pid in "${pids[@]}"; do
    wait "$pid" || status=$?
  done
  pids=()
  return "$status"
}
objs=()
for s in GpuOps GpuOpsV2 HostAbi DeviceAbi DeviceRanges MgpuWrappers NcclComm \
  CublasLtGemm; do
  "$NVCC" "${flags[@]}" "${gencode[@]}" -x cu -c "lib/Runtime/Gpu/$s.cpp" \
    -o "$OUT/obj/$s.o" &
  pids+=($!)
  objs+=("$OUT/obj/$s.o")
done
"$NVCC" "${flags[@]}" "${gencode[@]}" -c lib/Runtime/Gpu/LauncherCuda.cu \
  -o "$OUT/obj/LauncherCuda.o" &
pids+=($!)
objs+=("$OUT/obj/LauncherCuda.o")
wait_all
"$NVCC" -shared -cudart=shared "${gencode[@]}" -o "$OUT/libfp8q_runtime_cuda.so" \
  "${objs[@]}" -Xlinker --version-script=lib/Runtime/Gpu/exports.map -ldl
echo "built $OUT/libfp8q_runtime_cuda.so"
if [ "${CHECK:-0}" = 1 ]; then
  c++ -std=c++17 -O2 -fPIC -shared -fvisibility=hidden -ffp-contract=off \
    -pthread -Iinclude -Ilib/Runtime/Common lib/Runtime/Cpu/*.cpp \
    -Wl,--version-script=lib/Runtime/Cpu/exports.map \
    -o "$OUT/libfp8q_runtime_cpu.so" &
  pids+=($!)
  printf '%s\n' 'extern "C" __global__ void fp8q_test_fill(int *p, int n) {' \
    '  int i = blockIdx.x * blockDim.x + threadIdx.x;' \
    '  if (i < n) p[i] = 3 * i + 1;' '}' >"$OUT/fill.cu"
  "$NVCC" -ptx -arch=compute_90 "$OUT/fill.cu" -o "$OUT/fill.ptx" &
  pids+=($!)
  "$NVCC" -cubin -arch=sm_90 "$OUT/fill.cu" -o "$OUT/fill_sm90.cubin" &
  pids+=($!)
  "$NVCC" -cubin -arch=sm_80 "$OUT/fill.cu" -o "$OUT/fill_sm80.cubin" &
  pids+=($!)
  "$NVCC" -std=c++17 -O2 -Iinclude -x cu bench/gpu_runtime_check.cpp \
    -o "$OUT/gpu_runtime_check" -L"$OUT" -lfp8q_runtime_cuda \
    -Xlinker -rpath="$OUT" -ldl &
  pids+=($!)
  wait_all
  echo "built $OUT/gpu_runtime_check"
fi
