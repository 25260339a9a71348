#!/usr/bin/env bash
# Compiles the first two layers of a bundled model with --fp8q-pipeline for
# every target, TP 1, 2 and 8, with fusion on and off, and checks that the
# output holds LLVM dialect only and parses in upstream mlir-opt (no fp8q
# type or attribute left). Prints one line per configuration.
# Usage: compile-matrix.sh CONFIG.json OUT_DIR FP8Q_MODEL_GEN FP8Q_OPT MLIR_OPT...
# (the upstream mlir-opt command comes last: in a sanitizer build lit spells
# it `env LD_PRELOAD=... mlir-opt`).
set -euo pipefail
config=$1
out=$2
model_gen=$3
opt=$4
shift 4
mlir_opt=("$@")
mkdir -p "$out"
targets=("gfx950 --rocm=7.2" "gfx950 --rocm=7.0" "gfx942" "sm90")
for tp in 1 2 8; do
  for target in "${targets[@]}"; do
    # shellcheck disable=SC2086
    "$model_gen" "$config" --target=$target --tp=$tp --layers=2 \
      -o "$out/step.mlir"
    for fuse in true false; do
      name="tp=$tp target=${target// /,} fuse-producers=$fuse"
      if ! "$opt" "$out/step.mlir" --fp8q-pipeline=fuse-producers=$fuse \
        -o "$out/step.llvm.mlir" 2>"$out/err.txt"; then
        echo "FAIL $name: $(head -c 400 "$out/err.txt")"
        continue
      fi
      if ! "${mlir_opt[@]}" "$out/step.llvm.mlir" -o /dev/null 2>"$out/err.txt"; then
        echo "UNREADABLE $name: $(head -c 400 "$out/err.txt")"
        continue
      fi
      gemms=$(grep -c "fp8q.gemm" "$out/step.mlir")
      calls=$(grep -c "llvm.call @fp8q_rt_gemm(" "$out/step.llvm.mlir" || true)
      echo "OK $name gemms=$gemms calls=$calls"
    done
  done
done
