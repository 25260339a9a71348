#!/usr/bin/env bash
# The v2 GPU kernels on an NVIDIA GPU (H200), from the repository working
# tree with nvcc and c++ only (no CMake, no MLIR): builds
# libfp8q_runtime_cuda.so (scripts/build-cuda-runtime.sh), the CPU
# reference runtime and bench/gpu_v2_check.cu, then
#  1. the bit-exact check of every device quantize_v2 / materialize_v2
#     variant against the CPU runtime (v2_check.log, ends with
#     "v2 check: N PASS, M FAIL"), and
#  2. the bandwidth bench (v2_bench.log: GB/s per format x layout at
#     M = 16384, K = 7168 against a D2D copy, time at M <= 64 against an
#     empty kernel, materialize_v2 against a copy).
#     The check runs twice: as the runtime picks kernels, and with
#     FP8Q_V2_QUANT_WORDS=1 FP8Q_MX_GEMM=portable (v2_check_words.log), so
#     that the raw-word quantize kernels and the MX GEMM's portable kernel
#     meet every case too (its launches counted in v2_check_words.trace).
# Usage: bash bench/v2_kernels_h200.sh      (OUT=DIR keeps the logs there,
# default /tmp/fp8q-v2; FP8Q_V2_BUILD=DIR keeps the build, default a
# temporary folder). Files in OUT: build.log, v2_check.log, v2_check_words.log,
# v2_check_words.trace, v2_bench.log.
# A/B of issue 18's element encoders (QuantizeV2Common.h): FP8Q_NVCC_FLAGS
# reaches nvcc through scripts/build-cuda-runtime.sh, so
#   FP8Q_NVCC_FLAGS="-DFP8Q_V2_FNUZ_HW=0 -DFP8Q_V2_E2M1_MAGIC=0 \
#     -DFP8Q_V2_FN_RAW=0" OUT=/tmp/fp8q-v2-old bash bench/v2_kernels_h200.sh
# builds and times the earlier encoders (use a fresh FP8Q_V2_BUILD).
# Exit status: 0 when everything built and every check passed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
out=${OUT:-/tmp/fp8q-v2}
mkdir -p "$out"
build=${FP8Q_V2_BUILD:-$(mktemp -d /tmp/fp8q-v2-build.XXXXXX)}
mkdir -p "$build"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
t0=$(date +%s)
status=0
{
  bash scripts/build-cuda-runtime.sh "$build" &
  rt=$!
  c++ -std=c++17 -O2 -fPIC -shared -fvisibility=hidden -ffp-contract=off \
    -pthread -Iinclude -Ilib/Runtime/Common lib/Runtime/Cpu/*.cpp \
    -Wl,--version-script=lib/Runtime/Cpu/exports.map \
    -o "$build/libfp8q_runtime_cpu.so" &
  cpu=$!
  wait "$rt" && wait "$cpu" &&
    "$NVCC" -std=c++17 -O2 -Iinclude -x cu bench/gpu_v2_check.cu \
      -o "$build/gpu_v2_check" -L"$build" -lfp8q_runtime_cuda \
      -Xlinker -rpath="$build" -ldl
} >"$out/build.log" 2>&1 || {
  echo "build FAILED (see $out/build.log):"
  tail -20 "$out/build.log"
  exit 1
}
echo "build: $(($(date +%s) - t0)) s ($build)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem \
  --format=csv,noheader 2>/dev/null
"$build/gpu_v2_check" "$build" >"$out/v2_check.log" 2>&1 || status=1
grep -m 20 '^FAIL' "$out/v2_check.log"
tail -1 "$out/v2_check.log"
# The check's shapes are small, where the runtime picks the fp32-value
# quantize kernel; the raw-word kernels (large launches) are checked on the
# same cases by forcing them. The same run sends the MX-eligible gemm_v2
# cases to the MX GEMM's portable kernel (FP8Q_MX_GEMM=portable: GemmMx.hip's
# index math, which gfx950's scaled-MFMA kernels share) and counts its
# launches in the runtime's launch trace: one per eligible case.
FP8Q_V2_QUANT_WORDS=1 FP8Q_MX_GEMM=portable FP8Q_RT_TRACE_LAUNCHES=1 \
  "$build/gpu_v2_check" "$build" >"$out/v2_check_words.log" \
  2>"$out/v2_check_words.trace" || status=1
grep -m 20 '^FAIL' "$out/v2_check_words.log"
echo "raw-word kernels and portable MX GEMM forced: $(tail -1 "$out/v2_check_words.log")"
mx_want=$(sed -n 's/^gemm_v2 MX-eligible cases: //p' "$out/v2_check_words.log")
mx_got=$(grep -c '^fp8q launch fp8q_kernel_gemm_mx_portable ' \
  "$out/v2_check_words.trace")
if [ -n "$mx_want" ] && [ "$mx_want" -gt 0 ] && [ "$mx_got" = "$mx_want" ]; then
  echo "MX GEMM portable kernel: $mx_got launches for $mx_want eligible cases"
else
  echo "FAIL: MX GEMM portable kernel launched ${mx_got:-0} times for ${mx_want:-?} eligible cases"
  status=1
fi
grep -v '^fp8q launch ' "$out/v2_check_words.trace" | head -20
"$build/gpu_v2_check" "$build" --bench >"$out/v2_bench.log" 2>&1 || status=1
cat "$out/v2_bench.log"
echo "logs: $out/{build,v2_check,v2_check_words,v2_bench}.log; total $(($(date +%s) - t0)) s"
exit $status
