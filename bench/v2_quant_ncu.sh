#!/bin/bash
# Nsight Compute on single quantize_v2 launches at M = 16384, K = 7168
# (bf16 in), from the repository root on the NVIDIA device machine: the
# issue-18 diagnosis of why a format / layout runs below copy bandwidth
# (issue, memory and stall figures per case, side by side).
# Builds the CUDA runtime and bench/gpu_v2_check.cu as bench/v2_kernels_h200.sh
# does (FP8Q_V2_BUILD=DIR reuses a build there), then for each case runs
#   ncu --launch-skip 3 --launch-count 1 gpu_v2_check DIR --bench-only CASE
# (the bench's three warm-up calls skipped). CASE is FORMAT/LAYOUT as the
# bench prints them, e.g. "mxfp8-e4m3-ceil/row_major".
# Usage: OUT=/dir CASES="a/b;c/d" bash bench/v2_quant_ncu.sh
# Files in OUT: <n>.txt per case (ncu's details page), summary.txt (the
# chosen metrics of every case).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
out=${OUT:-/tmp/fp8q-v2-ncu}
mkdir -p "$out"
CASES=${CASES:-"fp8-1x128-pow2-f32/row_major;mxfp8-e4m3-ceil/row_major;mxfp8-e4m3-ceil/col_major;mxfp4-ceil/row_major;nvfp4/row_major"}
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
build=${FP8Q_V2_BUILD:-$(mktemp -d /tmp/fp8q-v2-build.XXXXXX)}
if [ ! -x "$build/gpu_v2_check" ]; then
  FP8Q_V2_BUILD=$build OUT=$out/v2 bash bench/v2_kernels_h200.sh \
    >"$out/v2_kernels.log" 2>&1
  [ -x "$build/gpu_v2_check" ] || {
    echo "build FAILED ($out/v2_kernels.log)"
    exit 1
  }
fi
metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_not_selected.ratio,smsp__average_warp_latency_issue_stalled_selected.ratio,launch__registers_per_thread,launch__occupancy_limit_registers
: >"$out/summary.txt"
n=0
IFS=';' read -ra list <<<"$CASES"
for c in "${list[@]}"; do
  n=$((n + 1))
  "$NCU" --launch-skip 3 --launch-count 1 -k regex:quantize_v2 \
    --metrics "$metrics" "$build/gpu_v2_check" "$build" --bench-only "$c" \
    >"$out/$n.txt" 2>&1
  {
    echo "== $c"
    grep -E "^\s+(gpu__|dram__|sm__|smsp__|l1tex__|launch__)" "$out/$n.txt"
  } >>"$out/summary.txt"
done
cat "$out/summary.txt"
