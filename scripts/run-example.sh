#!/usr/bin/env bash
# fp8q's main job on the bundled example (GLM-5, examples/glm5/config.json):
#   1. installs dependencies and builds from scratch;
#   2. scale copies per decode step for the bundled models on gfx950 and
#      gfx942: the historical hand-placed fix vs fp8q without / with fusion;
#   3. compiles the whole 78-layer GLM-5 decode step the copy table counts
#      (TP 8, M = 16) with --fp8q-pipeline for gfx950 (ROCm 7.2) down to the
#      LLVM dialect;
#   4. runs two GLM-5 layers at full width (M = 16) on the CPU reference
#      runtime against an fp32 reference, with the contract-violating
#      program (no layout propagation) beside it;
#   5. shows the checked runtime stopping that program at the first wrong
#      layout.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FP8Q_BUILD_DIR:-$root/build-example}

"$root/scripts/install-deps.sh"
rm -rf "$build"
cmake -G Ninja -S "$root" -B "$build" >/dev/null
echo "== fp8q: building in $build"
ninja -C "$build" fp8q-opt fp8q-model-gen fp8q-run fp8q_runtime_cpu

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
model=$root/examples/glm5/config.json

echo
echo "== fp8q: scale copies per decode step (bench/copies_per_step.py)"
python3 "$root/bench/copies_per_step.py" "$build" --tokens 16 --tp 8

echo
echo "== fp8q: GLM-5, 78 layers, TP 8, gfx950 ROCm 7.2, M = 16: --fp8q-pipeline to LLVM"
"$build/bin/fp8q-model-gen" "$model" --target=gfx950 --rocm=7.2 --tp=8 \
  --tokens=16 -o "$out/glm5.mlir"
start=$(date +%s)
"$build/bin/fp8q-opt" "$out/glm5.mlir" --fp8q-pipeline -o "$out/glm5.llvm.mlir"
echo "compiled $(grep -c 'fp8q.gemm' "$out/glm5.mlir") FP8 GEMMs in" \
  "$(($(date +%s) - start)) s; runtime calls in the output:" \
  "$(grep -c 'llvm.call @fp8q_rt_gemm(' "$out/glm5.llvm.mlir") gemm," \
  "$(grep -c 'llvm.call @fp8q_rt_materialize(' "$out/glm5.llvm.mlir" || true) materialize"

echo
echo "== fp8q: two GLM-5 layers at full width on the CPU runtime vs fp32"
"$build/bin/fp8q-model-gen" "$model" --target=gfx950 --rocm=7.2 --tokens=16 \
  --layers=2 -o "$out/glm5-2.mlir"
"$build/bin/fp8q-run" "$out/glm5-2.mlir" --compare-unfixed

echo
echo "== fp8q: the same program without propagation, checked runtime"
if "$build/bin/fp8q-run" "$out/glm5-2.mlir" --skip-propagation >/dev/null; then
  echo "fp8q: expected the runtime's contract check to stop this run" >&2
  exit 1
fi
echo "(stopped by the runtime's contract check before writing any output, as intended)"
