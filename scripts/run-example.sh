#!/usr/bin/env bash
# Sets up and runs fp8q's main job on the bundled example: installs
# dependencies, builds from scratch, generates the GLM-5 decode step from
# examples/glm5/config.json for gfx950 and checks every kernel contract.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FP8Q_BUILD_DIR:-$root/build-example}

"$root/scripts/install-deps.sh"
rm -rf "$build"
cmake -G Ninja -S "$root" -B "$build" >/dev/null
echo "fp8q: building in $build"
ninja -C "$build" fp8q-opt fp8q-model-gen

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
model=$root/examples/glm5/config.json
echo "fp8q: generating the GLM-5 decode step (gfx950, ROCm 7.2, M = 16)"
"$build/bin/fp8q-model-gen" "$model" --target=gfx950 --rocm=7.2 --tokens=16 \
  -o "$out/glm5.mlir"
echo "fp8q: $(grep -c 'fp8q.gemm' "$out/glm5.mlir") FP8 GEMMs," \
  "$(grep -c 'fp8q.rms_norm_quantize\|fp8q.quantize' "$out/glm5.mlir") quantize producers"
"$build/bin/fp8q-opt" "$out/glm5.mlir" -o /dev/null
echo "fp8q: module verifies"
