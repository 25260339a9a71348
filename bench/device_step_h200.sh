#!/usr/bin/env bash
# Runs on the GPU machine (CUDA, no MLIR, no CMake needed): builds the CUDA
# runtime and fp8q-step-run from this tree, checks the runtime on the GPU,
# runs the artifacts of bench/device_step_artifacts.sh against the CPU
# runtime, and times decode steps per policy, M and graph / no graph.
# Usage: bench/device_step_h200.sh ARTIFACTS OUT [phase...]
#   phases: check (runtime checks), compare (tiny and two GLM-5 layers vs
#   the CPU runtime), steps:MODEL[:M1,M2,...] (step times of every policy;
#   M = 1,16,64,256 unless given), host[:MODEL[:M]] (the host's cost:
#   bench/host_overhead.cpp per runtime call, and the per-step host enqueue
#   time of MODEL's fused step, default glm5 at M = 16)
#   torch:MODEL[:Ms] (the PyTorch anchor of the GEMMs alone, bench/
#   gemm_step_torch.py, beside the gemms and gemms-torchset artifacts),
#   prepared (weights prepared at load time on the device, gfx950 form
#   through the portable GEMM), collectives (--dp-attention at TP 1:
#   one-rank NCCL all_gather / reduce_scatter; FP8Q_NCCL_LIBRARY or the
#   pip nvidia-nccl package)
#   (default: check compare steps:glm5:1,16 host)
# The steps phase appends one CSV line per run to OUT/step_time.csv
# (bench/plot_step_time.py draws it); the host phase writes
# OUT/host_overhead.{txt,csv}.
# No `set -e`: a failing phase is reported and the next one runs.
set -uo pipefail
art=${1:?usage: device_step_h200.sh ARTIFACTS OUT [phase...]}
out=${2:?usage: device_step_h200.sh ARTIFACTS OUT [phase...]}
shift 2
phases=("$@")
[ ${#phases[@]} -eq 0 ] && phases=(check compare "steps:glm5:1,16" host)
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
cd "$root" || exit 1
want_host=0
for phase in "${phases[@]}"; do
  case $phase in host | host:*) want_host=1 ;; esac
done
t0=$(date +%s)
# FP8Q_H200_BUILD=DIR keeps the builds in DIR/rt and DIR/sr (default OUT)
# and reuses those already there, e.g. across device calls of one session
# (remove DIR to rebuild).
bdir=${FP8Q_H200_BUILD:-$out}
mkdir -p "$bdir"
if [ -x "$bdir/sr/fp8q-step-run-cuda" ] && [ -x "$bdir/rt/gpu_runtime_check" ]; then
  echo "build: reusing $bdir/rt and $bdir/sr"
  if [ "$want_host" = 1 ] && [ ! -x "$bdir/rt/host_overhead" ]; then
    bash bench/build-host-overhead.sh "$bdir/rt" >>"$out/build-rt.log" 2>&1 ||
      echo "host_overhead build FAILED"
  fi
else
  # bench/host_overhead links the runtime just built, so it comes after it.
  (CHECK=1 bash scripts/build-cuda-runtime.sh "$bdir/rt" >"$out/build-rt.log" 2>&1 ||
    echo "runtime build FAILED"
    if [ "$want_host" = 1 ]; then
      bash bench/build-host-overhead.sh "$bdir/rt" >>"$out/build-rt.log" 2>&1 ||
        echo "host_overhead build FAILED"
    fi) &
  (bash scripts/build-step-run.sh "$bdir/sr" >"$out/build-sr.log" 2>&1 ||
    echo "step-run build FAILED") &
  wait
  echo "build: $(($(date +%s) - t0)) s"
fi
export LD_LIBRARY_PATH="$bdir/rt${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
run=$bdir/sr/fp8q-step-run-cuda
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader

# "min A us, median B us, max C us" after LABEL in TEXT -> "A,B,C" (",,"
# when TEXT has no such line).
spread() { # LABEL TEXT
  local v
  v=$(grep -m1 "^$1 min " <<<"$2" |
    sed -nE 's/^.* min ([0-9.]+) us, median ([0-9.]+) us, max ([0-9.]+) us.*$/\1,\2,\3/p')
  echo "${v:-,,}"
}
# The copies per step of MODEL's POLICY, from the artifacts' copies.csv.
copies_of() { # MODEL POLICY
  [ -f "$art/copies.csv" ] && awk -F, -v m="$1" -v p="$2" \
    '$1 == m && $2 == p { print $3 }' "$art/copies.csv"
}
csv=$out/step_time.csv
[ -s "$csv" ] || echo "model,policy,m,graph,min_us,median_us,max_us,copies,host_min_us,host_median_us,host_max_us,steps" >"$csv"

for phase in "${phases[@]}"; do
  case $phase in
  check)
    "$bdir/rt/gpu_runtime_check" "$bdir/rt" >"$out/gpu_runtime_check.log" 2>&1
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
  prepared)
    # Weights prepared once on the device (gfx950 form, portable GEMM):
    # against the CPU runtime, and byte for byte against the unprepared
    # device artifact.
    for m in tiny glm5-2; do
      for g in "" --graph; do
        echo "== $m-gfx950 prepared $g"
        "$run" "$art/$m-gfx950.prepared.so" --reference "$art/$m-gfx950.host.so" \
          --inputs fp8q-run-seeds --warmup 3 --iters 20 $g \
          --dump-results "$out/$m-prepared" 2>&1 |
          grep -vE "^dynamic|^artifact" | head -12
      done
      "$run" "$art/$m-gfx950.device.so" --inputs fp8q-run-seeds --warmup 0 \
        --iters 1 --dump-results "$out/$m-unprepared" 2>&1 | grep -E "error" | head -3
      if cmp "$out/$m-prepared.0.f32" "$out/$m-unprepared.0.f32"; then
        echo "PREPARED $m: output byte for byte the unprepared device step's"
      else
        echo "PREPARED $m: output DIFFERS from the unprepared device step's"
      fi
    done
    ;;
  collectives)
    # One-rank collectives through NCCL: --dp-attention at TP 1 against the
    # CPU runtime, and byte for byte against the plain device step.
    if [ -z "${FP8Q_NCCL_LIBRARY:-}" ]; then
      lib=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null)
      [ -n "$lib" ] && [ -f "$lib" ] && export FP8Q_NCCL_LIBRARY=$lib
    fi
    echo "FP8Q_NCCL_LIBRARY=${FP8Q_NCCL_LIBRARY:-(default libnccl.so.2)}"
    for m in tiny glm5-2; do
      for g in "" --graph; do
        echo "== $m-dp $g"
        "$run" "$art/$m-dp.device.so" --reference "$art/$m-dp.host.so" \
          --inputs fp8q-run-seeds --warmup 3 --iters 20 $g \
          --dump-results "$out/$m-dp" 2>&1 |
          grep -vE "^dynamic|^artifact" | head -12
      done
      "$run" "$art/$m.device.so" --inputs fp8q-run-seeds --warmup 3 \
        --iters 20 --graph --dump-results "$out/$m-plain" 2>&1 |
        grep -E "^steps:|error" | head -3
      if cmp "$out/$m-dp.0.f32" "$out/$m-plain.0.f32"; then
        echo "COLLECTIVES $m: output byte for byte the plain device step's"
      else
        echo "COLLECTIVES $m: output DIFFERS from the plain device step's"
      fi
    done
    ;;
  steps:*)
    IFS=: read -r _ model ms <<<"$phase"
    for m in $(tr , ' ' <<<"${ms:-1,16,64,256}"); do
      warmup=3 iters=20
      if [ "$m" -lt 16 ]; then
        # Below M = 16 cuBLASLt refuses some shapes; the runtime retries
        # them padded to M = 16, and what it still refuses runs the
        # portable GEMM (0.6-1.7 ms per GEMM, seconds per step, warned as
        # "cuBLASLt refuses"), so one probe step decides how many steps
        # each run gets.
        probe=$("$run" "$art/$model-fused.so" --inputs constant --m "$m" \
          --warmup 0 --iters 1 2>&1)
        refused=$(grep -c "cuBLASLt refuses" <<<"$probe")
        if [ "$refused" -gt 0 ]; then
          warmup=1 iters=3
          echo "NOTE model=$model m=$m: cuBLASLt refuses $refused GEMM" \
            "shapes (the portable GEMM runs them): $iters steps per run"
          grep -m3 "cuBLASLt refuses" <<<"$probe"
        fi
      fi
      for policy in fused fused-noprod nofusion hand gemms gemms-torchset; do
        [ -f "$art/$model-$policy.so" ] || continue
        # FP8Q_STEP_GRAPH=only: the graph runs alone (shorter A/B runs).
        modes=("" --graph)
        [ "${FP8Q_STEP_GRAPH:-both}" = only ] && modes=(--graph)
        for g in "${modes[@]}"; do
          graph=no
          [ -n "$g" ] && graph=yes
          text=$("$run" "$art/$model-$policy.so" --inputs constant --m "$m" \
            --warmup "$warmup" --iters "$iters" $g 2>&1)
          line=$(grep -E "^steps:|error" <<<"$text" | head -2)
          host=$(grep -m1 "^host enqueue:" <<<"$text")
          echo "STEP model=$model m=$m policy=$policy graph=$graph $line${host:+ | $host}"
          times=$(spread "steps:" "$text")
          [ "$times" = ",," ] && continue
          echo "$model,$policy,$m,$graph,$times,$(copies_of "$model" "$policy"),$(spread "host enqueue:" "$text"),$iters" >>"$csv"
        done
      done
    done
    echo "step times: $csv"
    ;;
  host | host:*)
    IFS=: read -r _ model m <<<"$phase"
    model=${model:-glm5} m=${m:-16}
    # The baseline first: every operand asked about (no range cache).
    FP8Q_RT_RANGE_CACHE=0 "$bdir/rt/host_overhead" --m "$m" \
      --csv "$out/host_overhead-nocache.csv" \
      >"$out/host_overhead-nocache.txt" 2>"$out/host_overhead-nocache.err"
    echo "host_overhead (FP8Q_RT_RANGE_CACHE=0) rc=$?"
    grep -v "^wrote " "$out/host_overhead-nocache.txt"
    text=$(FP8Q_RT_RANGE_CACHE=0 "$run" "$art/$model-fused.so" --inputs constant \
      --m "$m" --warmup 3 --iters 20 2>&1)
    echo "== $model-fused m=$m (no graph, FP8Q_RT_RANGE_CACHE=0)"
    grep -E "^steps:|^host enqueue:|error" <<<"$text"
    "$bdir/rt/host_overhead" --m "$m" --csv "$out/host_overhead.csv" \
      >"$out/host_overhead.txt" 2>"$out/host_overhead.err"
    echo "host_overhead rc=$?"
    grep -v "^wrote " "$out/host_overhead.txt"
    summary=$(grep -m1 "^SUMMARY " "$out/host_overhead.txt")
    declare -A step=()
    for g in "" --graph; do
      text=$("$run" "$art/$model-fused.so" --inputs constant --m "$m" \
        --warmup 3 --iters 20 $g 2>&1)
      echo "== $model-fused m=$m ${g:-(no graph)}"
      grep -E "^steps:|^host enqueue:|error" <<<"$text"
      if [ -n "$g" ]; then
        step[graph]=$(spread "steps:" "$text")
      else
        step[eager]=$(spread "steps:" "$text")
        step[host]=$(spread "host enqueue:" "$text")
      fi
    done
    # The last word: host time per step and per call against the GPU.
    awk -v s="$summary" -v host="${step[host]}" -v eager="${step[eager]}" \
      -v graph="${step[graph]}" -v model="$model" -v m="$m" 'BEGIN {
      n = split(s, kv, " ")
      for (i = 2; i <= n; ++i) { split(kv[i], p, "="); f[p[1]] = p[2] }
      split(host, h, ","); split(eager, e, ","); split(graph, g, ",")
      if (h[2] == "" || g[2] == "" || f["kernel_us"] == "") {
        print "HOST SUMMARY incomplete (see the lines above)"; exit 1 }
      printf "HOST SUMMARY model=%s policy=fused m=%s host_step_median_us=%s device_step_eager_median_us=%s device_step_graph_median_us=%s host_step_over_graph_step=%.3f cheapest_kernel=%s kernel_us=%s host_step_over_cheapest_kernel=%.0f host_call_us=%s-%s host_call_over_cheapest_kernel=%s-%s\n",
        model, m, h[2], e[2], g[2], h[2] / g[2], f["cheapest_kernel"],
        f["kernel_us"], h[2] / f["kernel_us"], f["host_us_min"],
        f["host_us_max"], f["ratio_min"], f["ratio_max"]
      printf "At M = %s the host needs %.2f ms to enqueue one %s step (fused, no graph; %.2f ms on the GPU from one graph, %.2f ms eager): %.2fx the graph step. One runtime call costs the host %s-%s us, %s-%sx the cheapest kernel (%s, %s us on the GPU).\n",
        m, h[2] / 1e3, model, g[2] / 1e3, e[2] / 1e3, h[2] / g[2],
        f["host_us_min"], f["host_us_max"], f["ratio_min"], f["ratio_max"],
        f["cheapest_kernel"], f["kernel_us"]
    }'
    ;;
  torch:*)
    # The PyTorch anchor of the GEMMs alone, beside fp8q's GEMM artifacts
    # on the same GPU in the same run (one graph each).
    IFS=: read -r _ model ms <<<"$phase"
    for m in $(tr , ' ' <<<"${ms:-16,64,256}"); do
      python3 bench/gemm_step_torch.py "$art/src/$model-unrolled.mlir" --m "$m" 2>&1 |
        grep -vE "^\s*$" | head -8
      for policy in gemms gemms-torchset; do
        text=$("$run" "$art/$model-$policy.so" --inputs constant --m "$m" \
          --warmup 3 --iters 20 --graph 2>&1)
        echo "FP8Q model=$model m=$m policy=$policy graph=yes $(grep -E "^steps:|error" <<<"$text" | head -2)"
      done
    done
    ;;
  *)
    echo "unknown phase '$phase' (check, compare, prepared, collectives, steps:MODEL[:Ms], host[:MODEL[:M]], torch:MODEL[:Ms])"
    ;;
  esac
  echo "[$phase done at $(($(date +%s) - t0)) s]"
done
