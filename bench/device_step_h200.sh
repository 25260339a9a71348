#!/usr/bin/env bash
# Runs on the GPU machine (CUDA, no MLIR, no CMake needed): builds the CUDA
# runtime and fp8q-step-run from this tree, checks the runtime on the GPU,
# runs the artifacts of bench/device_step_artifacts.sh against the CPU
# runtime, and times decode steps per policy, M and graph / no graph.
# Usage: bench/device_step_h200.sh ARTIFACTS OUT [phase...]
#   phases: check (runtime checks), compare (tiny and two GLM-5 layers vs
#   the CPU runtime), steps:MODEL:M1,M2,... (step times of every policy)
set -uo pipefail
art=${1:?usage: device_step_h200.sh ARTIFACTS OUT [phase...]}
out=${2:?usage: device_step_h200.sh ARTIFACTS OUT [phase...]}
shift 2
phases=("$@")
[ ${#phases[@]} -eq 0 ] && phases=(check compare steps:glm5:16)
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
cd "$root"
t0=$(date +%s)
(CHECK=1 bash scripts/build-cuda-runtime.sh "$out/rt" >"$out/build-rt.log" 2>&1 ||
  echo "runtime build FAILED") &
(bash scripts/build-step-run.sh "$out/sr" >"$out/build-sr.log" 2>&1 ||
  echo "step-run build FAILED") &
wait
echo "build: $(($(date +%s) - t0)) s"
export LD_LIBRARY_PATH="$out/rt${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
run=$out/sr/fp8q-step-run-cuda
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader

for phase in "${phases[@]}"; do
  case $phase in
  check)
    "$out/rt/gpu_runtime_check" "$out/rt" >"$out/gpu_runtime_check.log" 2>&1
    echo "gpu_runtime_check rc=$?"
    grep -iE "cublas|FAIL|gemm" "$out/gpu_runtime_check.log" | head -40
    ;;
  compare)
    for m in tiny glm5-2; do
      for g in "" --graph; do
        echo "== $m $g"
        # fp8q-run's inputs: normal activations, weights quantized per
        # 128x128 block with their scales (what a checkpoint holds).
        "$run" "$art/$m.device.so" --reference "$art/$m.host.so" \
          --inputs fp8q-run-seeds --warmup 5 --iters 50 $g 2>&1 |
          grep -vE "^dynamic|^artifact" | head -12
      done
    done
    ;;
  steps:*)
    IFS=: read -r _ model ms <<<"$phase"
    for m in ${ms//,/ }; do
      for policy in fused nofusion hand gemms; do
        for g in "" --graph; do
          line=$("$run" "$art/$model-$policy.so" --inputs constant --m "$m" \
            --warmup 3 --iters 20 $g 2>&1 | grep -E "^steps:|error" | head -2)
          echo "STEP model=$model m=$m policy=$policy graph=${g:+yes}${g:-no} $line"
        done
      done
    done
    ;;
  esac
  echo "[$phase done at $(($(date +%s) - t0)) s]"
done
