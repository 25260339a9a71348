#!/usr/bin/env bash
# Generates the first two layers of one model family at its serving TP / EP,
# compiles them with --fp8q-pipeline (fusion on) for gfx950, gfx942 and sm90,
# and counts the fp8q.materialize ops left after --fp8q-select-kernels
# --fp8q-propagate-scale-layout (the scale copies of bench/copies_per_step.py).
# Prints one line per target.
# LAYERS (default 2) sets --layers.
# Usage: family-matrix.sh CONFIG.json OUT_DIR FP8Q_MODEL_GEN FP8Q_OPT GEN_FLAGS...
set -euo pipefail
config=$1
out=$2
model_gen=$3
opt=$4
shift 4
mkdir -p "$out"
for target in "gfx950 --rocm=7.2" "gfx942" "sm90"; do
  name="target=${target// /,} $*"
  # shellcheck disable=SC2086
  "$model_gen" "$config" --target=$target --layers="${LAYERS:-2}" "$@" \
    -o "$out/step.mlir"
  if ! "$opt" "$out/step.mlir" --fp8q-pipeline -o "$out/step.llvm.mlir" \
    2>"$out/err.txt"; then
    echo "FAIL $name: $(head -c 400 "$out/err.txt")"
    continue
  fi
  "$opt" "$out/step.mlir" \
    "--pass-pipeline=builtin.module(fp8q-select-kernels,fp8q-propagate-scale-layout,fp8q-verify-contracts)" \
    -o "$out/placed.mlir"
  gemms=$(grep -c "fp8q.gemm" "$out/step.mlir")
  copies=$(grep -c "fp8q.materialize" "$out/placed.mlir" || true)
  calls=$(grep -c "llvm.call @fp8q_rt_gemm(" "$out/step.llvm.mlir" || true)
  echo "OK $name gemms=$gemms calls=$calls copies=$copies"
done
