#!/usr/bin/env bash
# Builds, on a machine with MLIR (this project's build), the artifacts that
# bench/device_step_h200.sh runs on the GPU machine (which has no MLIR):
#   tiny.{device,host}.so          examples/tiny, sm90, cublas kernel
#   glm5-2.{device,host}.so        two full-width GLM-5 layers (TP 1)
#   {tiny,glm5-2}-gfx950.{prepared,device,host}.so   weights prepared at
#                                  load time on the device (see below)
#   {tiny,glm5-2}-dp.{device,host}.so   --dp-attention at TP 1: one-rank
#                                  collectives
#   <model>-{fused,fused-noprod,nofusion,hand}.so   the whole decode step
#                                  at TP 8, dynamic M, unrolled: fp8q with
#                                  fusion, the same without the fused
#                                  elementwise producers, without layout
#                                  fusion, the hand-placed fix
#   <model>-gemms.so               that step's FP8 GEMMs alone
#   <model>-gemms-torchset.so      the GEMMs the PyTorch anchor runs
#   copies.csv                     model,policy,copies: the scale copies
#                                  per step of each policy (the steps
#                                  phase's CSV column)
# for model = glm5 (78 layers) and deepseek (DeepSeek-V3.2, 61 layers).
# The step artifacts take M at run time (--tokens='?'), so one artifact
# serves every M of the steps phase: M = 1, 16, 64, 256 (fp8q-step-run
# --m; fp8q-model-gen also takes --tokens=1 for a static M = 1).
# Usage: bench/device_step_artifacts.sh BUILD OUTDIR
set -euo pipefail
build=${1:?usage: device_step_artifacts.sh BUILD OUTDIR}
out=${2:?usage: device_step_artifacts.sh BUILD OUTDIR}
root=$(cd "$(dirname "$0")/.." && pwd)
gen=$build/bin/fp8q-model-gen opt=$build/bin/fp8q-opt cc=$build/bin/fp8q-compile
mkdir -p "$out/src"
echo "model,policy,copies" >"$out/copies.csv"
device='execution=device sm90-kernel=cublas'
host='sm90-kernel=cublas'
compile() { # NAME MLIR RUNTIME OPTIONS
  /usr/bin/time -f "$1: %e s, %M KB" "$cc" "$2" -o "$out/$1.so" \
    --runtime="$3" --pipeline-options="$4"
}

"$gen" "$root/examples/tiny/config.json" --target=sm90 -o "$out/src/tiny.mlir"
compile tiny.device "$out/src/tiny.mlir" cuda "$device"
compile tiny.host "$out/src/tiny.mlir" cpu "$host"
"$gen" "$root/examples/glm5/config.json" --target=sm90 --layers=2 \
  -o "$out/src/glm5-2.mlir"
compile glm5-2.device "$out/src/glm5-2.mlir" cuda "$device"
compile glm5-2.host "$out/src/glm5-2.mlir" cpu "$host"

# Weights prepared at load time on the device (issue 15): the gfx950 form
# of both (ck_bpreshuffle: preshuffled weights) with its elementwise
# kernels built for sm_90, so that it runs on an NVIDIA GPU through the
# portable GEMM; @decode_step_prepare_weights preshuffles on the device.
#   <m>-gfx950.prepared.so / .device.so / .host.so: prepared device,
#   unprepared device, CPU reference.
for m in tiny glm5-2; do
  layers=
  [ "$m" = glm5-2 ] && layers=--layers=2
  cfg=$root/examples/tiny/config.json
  [ "$m" = glm5-2 ] && cfg=$root/examples/glm5/config.json
  "$gen" "$cfg" --target=gfx950 $layers -o "$out/src/$m-gfx950.mlir"
  compile "$m-gfx950.prepared" "$out/src/$m-gfx950.mlir" cuda \
    "execution=device gpu-chip=sm_90 prepare-weight-args=true"
  compile "$m-gfx950.device" "$out/src/$m-gfx950.mlir" cuda \
    "execution=device gpu-chip=sm_90"
  compile "$m-gfx950.host" "$out/src/$m-gfx950.mlir" cpu ""
done

# Collectives (issue 20) at one rank: --dp-attention at TP 1, whose
# all_gather / reduce_scatter run through NCCL on the GPU (a one-rank
# communicator) and are copies on the CPU runtime.
#   <m>-dp.device.so / .host.so
"$gen" "$root/examples/tiny/config.json" --target=sm90 --dp-attention \
  -o "$out/src/tiny-dp.mlir"
"$gen" "$root/examples/glm5/config.json" --target=sm90 --layers=2 \
  --dp-attention -o "$out/src/glm5-2-dp.mlir"
for m in tiny glm5-2; do
  compile "$m-dp.device" "$out/src/$m-dp.mlir" cuda "$device"
  compile "$m-dp.host" "$out/src/$m-dp.mlir" cpu "$host"
done
# FP8Q_ARTIFACTS=small stops here (the per-model steps below take minutes).
[ "${FP8Q_ARTIFACTS:-all}" = small ] && { ls -la "$out"/*.so; exit 0; }

# FP8Q_STEP_FORM=loop builds the steps with their layers as a loop (fast to
# compile, but a residual add that crosses the loop's back edge is not
# fused into the next layer's norm); the default is the unrolled step.
form=${FP8Q_STEP_FORM:-unrolled}
for model in glm5:glm5 deepseek:deepseek-v3.2; do
  name=${model%%:*} dir=${model#*:}
  # The unrolled step: compiled (the default form), and what the copy
  # counts and the GEMM modules below read.
  unrolled=$out/src/$name-unrolled.mlir
  "$gen" "$root/examples/$dir/config.json" --target=sm90 --tp=8 \
    --tokens='?' -o "$unrolled"
  src=$unrolled
  if [ "$form" = loop ]; then
    src=$out/src/$name.mlir
    "$gen" "$root/examples/$dir/config.json" --target=sm90 --tp=8 \
      --layers-as-loop --tokens='?' -o "$src"
  fi
  compile "$name-fused" "$src" cuda "$device"
  # The same without the fused elementwise producers (residual add into
  # rms_norm_quantize, SiLU x mul into quantize): what they save.
  compile "$name-fused-noprod" "$src" cuda \
    "$device fuse-elementwise-producers=false"
  compile "$name-nofusion" "$src" cuda "$device fuse-producers=false"
  # The historical fix: producers row-major, a copy before every GEMM whose
  # kernel reads another layout, no propagation.
  "$opt" "$src" --fp8q-select-kernels=sm90-kernel=cublas \
    --fp8q-hand-placed-copies -o "$out/src/$name-hand.mlir"
  compile "$name-hand" "$out/src/$name-hand.mlir" cuda \
    "$device skip-propagation=true"
  # Copies per step of each policy, as bench/copies_per_step.py counts them,
  # on the unrolled step (the loop's body runs once per layer, so the
  # per-step counts are the unrolled ones); remarks go to copies.log.
  copies() { # POLICY fp8q-opt-LAYOUT-PASS
    local n
    n=$("$opt" "$unrolled" --fp8q-select-kernels=sm90-kernel=cublas "$2" \
      2>>"$out/src/copies.log" | python3 "$root/bench/step_copies.py" -)
    echo "$name,$1,$n" >>"$out/copies.csv"
  }
  copies fused --fp8q-propagate-scale-layout
  copies fused-noprod --fp8q-propagate-scale-layout
  copies nofusion --fp8q-propagate-scale-layout=fuse-producers=false
  copies hand --fp8q-hand-placed-copies
  python3 "$root/bench/gemm_step.py" "$unrolled" -o "$out/src/$name-gemms.mlir"
  echo "$name,gemms,$(python3 "$root/bench/step_copies.py" \
    "$out/src/$name-gemms.mlir")" >>"$out/copies.csv"
  compile "$name-gemms" "$out/src/$name-gemms.mlir" cuda "$device"
  # The GEMM set of the PyTorch anchor (shared/REFERENCE.md: its scaled_mm
  # refused N x K = 6144 x 256 and 128 x 6144), for bench/gemm_step_torch.py.
  python3 "$root/bench/gemm_step.py" "$unrolled" \
    -o "$out/src/$name-gemms-torchset.mlir" --exclude 6144x256,128x6144
  compile "$name-gemms-torchset" "$out/src/$name-gemms-torchset.mlir" cuda \
    "$device"
done
cat "$out/copies.csv"
ls -la "$out"/*.so
