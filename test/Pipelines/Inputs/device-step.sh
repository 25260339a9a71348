#!/usr/bin/env bash
# Compiles one model in device execution for one target and prints what the
# device-execution test checks, one line per fact:
#   linalg=N launches=N        linalg ops left after bufferization (each an
#                              elementwise region after fusion) and kernel
#                              launches after outlining: one per region
#   host-allocs=N              tensor data allocated on the host (must be 0)
#   host-calls=N device-calls=N
#                              fp8q runtime calls of the host ABI (staging
#                              in the HIP runtime) and of the device ABI
#   binaries=N  target=...     embedded gpu.binary ops and their target
#   translated=OK|FAIL         upstream mlir-translate to LLVM IR
# Usage: device-step.sh CONFIG TARGET OUT-PREFIX fp8q-model-gen fp8q-opt
#          'MODEL-GEN ARGS' MLIR-TRANSLATE-COMMAND...
# The mlir-translate command comes last: in the sanitizer build lit makes it
# several words (env LD_PRELOAD=... mlir-translate).
set -euo pipefail
set -f # the model-gen arguments are words, never globs (--tokens=?)
config=$1 target=$2 out=$3 gen=$4 opt=$5 genargs=$6
shift 6
translate=("$@")
mkdir -p "$(dirname "$out")"
# shellcheck disable=SC2086 # the model-gen arguments are words
"$gen" "$config" --target="$target" $genargs -o "$out.mlir"
"$opt" "$out.mlir" --fp8q-pipeline="execution=device sm90-kernel=cublas" \
  --mlir-print-ir-after=fp8q-lower-to-runtime \
  --mlir-print-ir-after=fp8q-device-launches -o "$out.ll.mlir" 2> "$out.stages"
# The two dumps, split at the second header.
awk '/IR Dump After/{n++} n==1' "$out.stages" > "$out.runtime.mlir"
awk '/IR Dump After/{n++} n==2' "$out.stages" > "$out.launches.mlir"
linalg=$(grep -E '^ *linalg\.[a-z_]+ ' "$out.runtime.mlir" | grep -vc 'linalg.yield' || true)
launches=$(grep -c 'gpu.launch_func async' "$out.launches.mlir" || true)
echo "linalg=$linalg launches=$launches"
host_allocs=$(grep -E 'memref\.alloc(a)?\(' "$out.launches.mlir" |
  grep -vcE 'memref<[0-9?x]*(index|i1)>' || true)
echo "host-allocs=$host_allocs"
host_calls=$(grep -cE 'call @fp8q_rt_(quantize|rms|gemm|materialize|preshuffle)' "$out.launches.mlir" || true)
device_calls=$(grep -cE 'call @fp8q_rt_device_(quantize|rms|gemm|materialize|preshuffle)' "$out.launches.mlir" || true)
echo "host-calls=$host_calls device-calls=$device_calls"
binaries=$(grep -c '^ *gpu.binary' "$out.ll.mlir" || true)
tgt=$(grep -o '#\(nvvm\|rocdl\).target<[^>]*>' "$out.ll.mlir" | sort -u | tr '\n' ' ')
echo "binaries=$binaries target=$tgt"
if "${translate[@]}" --mlir-to-llvmir "$out.ll.mlir" -o "$out.ll"; then
  echo "translated=OK"
else
  echo "translated=FAIL"
fi
# Every stream-taking runtime call in the LLVM IR (launches, allocations,
# frees, copies) uses the stream parameter of the function it is in: the
# step's last parameter, passed down to its parts.
python3 - "$out.ll" <<'PY'
import re, sys
calls = bad = 0
fn_stream = None
pos = {"mgpuLaunchKernel": 8, "mgpuMemAlloc": 1, "mgpuMemFree": 1,
       "mgpuMemcpy": 3}
for line in open(sys.argv[1]):
    d = re.match(r"define .*@[\w.]+\((.*)\)", line)
    if d:
        params = re.findall(r"(ptr|i\d+|float|double) (%\w+)", d.group(1))
        fn_stream = params[-1][1] if params and params[-1][0] == "ptr" else None
        continue
    c = re.search(r"call \w+ @(mgpu\w+)\((.*)\)", line)
    if not c or c.group(1) not in pos:
        continue
    args = [a.strip().split()[-1] for a in c.group(2).split(",")]
    calls += 1
    if args[pos[c.group(1)]] != fn_stream:
        bad += 1
print(f"stream-ordered={'OK' if bad == 0 and calls else 'FAIL'} calls={calls} off-stream={bad}")
PY
for f in mgpuStreamCreate mgpuStreamSynchronize mgpuEventSynchronize; do
  if grep -q "call .*@$f" "$out.ll"; then echo "calls $f"; fi
done
