#!/bin/bash
# Nsight Compute on the decode GEMM (issue 21's diagnosis), from the
# repository root on the NVIDIA device machine: one launch of the first
# kernel (DecodeGemm.h, plain weight) and of cuBLAS's blockwise FP8 GEMM per
# (shape, M), at the device's own clocks (--clock-control none), L2 flushed
# before each (ncu's default cache control: the weight comes from HBM, as
# in the timed benchmark's ring). Per kernel: time, DRAM and L2 throughput,
# bytes, issue activity, achieved occupancy and the stall reasons per
# issued instruction, side by side in summary.txt.
# With the second design (DecodeGemmV2.h) too unless NOV2=1.
# Usage: OUT=/dir [SHAPES=4096x6144,...] [MS=1,16,64] [NOV2=1] bash bench/decode_gemm_ncu.sh [nvcc flags]
# Files in OUT: libdecode.so, ptxas.txt, app.txt (which launches were
# profiled), ncu.csv (raw), summary.txt.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
out=${OUT:-/tmp/fp8q-decode-ncu}
mkdir -p "$out"
SHAPES=${SHAPES:-4096x6144,24576x1536,7168x2048,2048x2048}
MS=${MS:-1,16,64}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
"$NVCC" -O3 -std=c++17 -arch=sm_90 -Xptxas -v -shared -Xcompiler -fPIC "$@" \
  -Iinclude -Ikernels/include bench/decode_gemm_lib.cu \
  -o "$out/libdecode.so" 2>"$out/ptxas.txt" || {
  echo "build FAILED ($out/ptxas.txt)"
  exit 1
}
stall=smsp__average_warp_latency_issue_stalled
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__occupancy_limit_registers
for s in long_scoreboard lg_throttle wait barrier mio_throttle short_scoreboard math_pipe_throttle membar no_instruction not_selected selected drain; do
  metrics+=",$stall"_"$s.ratio"
done
"$NCU" --profile-from-start off --clock-control none --csv --page raw \
  --log-file "$out/ncu.csv" --metrics "$metrics" \
  python3 bench/decode_gemm_h200.py "$out/libdecode.so" --profile ${NOV2:+--no-v2} \
  --shapes "$SHAPES" --ms "$MS" >"$out/app.txt" 2>&1
rc=$?
cat "$out/app.txt"
python3 - "$out/ncu.csv" "$out/app.txt" >"$out/summary.txt" <<'EOF'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows:
    sys.exit("no profiler rows")
head, data = rows[0], [r for r in rows[1:] if r[0].isdigit()]
col = {h: i for i, h in enumerate(head)}
labels = [l.split("PROFILED ")[1] for l in open(sys.argv[2])
          if l.startswith("PROFILED")]
short = {"gpu__time_duration.sum": "us", "dram__bytes_read.sum": "dramMB",
         "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram%",
         "lts__t_bytes.sum": "l2MB",
         "lts__throughput.avg.pct_of_peak_sustained_elapsed": "l2%",
         "l1tex__throughput.avg.pct_of_peak_sustained_active": "l1%",
         "sm__throughput.avg.pct_of_peak_sustained_elapsed": "sm%",
         "smsp__inst_executed.sum": "inst",
         "smsp__issue_active.avg.pct_of_peak_sustained_active": "issue%",
         "sm__warps_active.avg.pct_of_peak_sustained_active": "occ%",
         "launch__registers_per_thread": "regs",
         "launch__grid_size": "grid"}
keys = [h for h in head if h in short or "stalled" in h]
def name(h):
    return short.get(h) or h.split("stalled_")[1].replace(".ratio", "")
units = rows[1] if not rows[1][0].isdigit() else [""] * len(head)
scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1, "us": 1, "msecond": 1e3,
         "ms": 1e3, "byte": 1e-6,
         "Kbyte": 1e-3, "Mbyte": 1, "Gbyte": 1e3}
def val(r, h):
    v = r[col[h]].replace(",", "")
    try:
        f = float(v)
    except ValueError:
        return v
    # time in us, bytes in MB, whatever unit the raw page chose
    return f"{f * scale.get(units[col[h]], 1):.3g}"
cur = "?"
li = 0
for r in data:
    kn = r[col["Kernel Name"]]
    tag = ("fp8q" if "decode_gemm" in kn else
           "v2" if "decode2_gemm" in kn else "cublas")
    if tag == "fp8q" and li < len(labels):
        cur = labels[li].split(" fp8q")[0]
        li += 1
    print(f"== {cur} {tag} {kn[:60]}")
    print("   " + " ".join(f"{name(h)}={val(r, h)}" for h in keys))
EOF
cat "$out/summary.txt"
exit $rc
