#!/bin/bash
# The device collectives on one H200 (or any sm_90 GPU), without CMake or
# MLIR: builds libfp8q_runtime_cuda.so with scripts/build-cuda-runtime.sh,
# then bench/nccl_one_rank_check.cpp against it, finds libnccl.so.2 and
# runs the check (all_gather elem_bytes 1, 2, 4 and reduce_scatter_bf16 at
# ranks == 1, eager and from a CUDA graph, without a communicator and on a
# one-rank NCCL communicator; one PASS / FAIL line per check, the NCCL
# version, exit status = failures).
# Usage (from anywhere): OUT=/tmp/fp8q-nccl bench/nccl_one_rank_h200.sh
# NCCL: $FP8Q_NCCL_LIBRARY if set, else $NCCL_HOME/lib/libnccl.so.2, else
# the nvidia-nccl-cu13 wheel's (python3 site-packages nvidia/nccl/lib),
# else the CUDA toolkit's or the system's, else the loader's search
# (dlopen("libnccl.so.2")).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/fp8q-nccl}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$OUT"
NVCC=$NVCC scripts/build-cuda-runtime.sh "$OUT"
"$NVCC" -std=c++17 -O2 -Iinclude -x cu bench/nccl_one_rank_check.cpp \
  -o "$OUT/nccl_one_rank_check" -L"$OUT" -lfp8q_runtime_cuda \
  -Xlinker -rpath="$OUT"
echo "built $OUT/nccl_one_rank_check"

# Prints the nvidia-nccl wheel's libnccl.so* paths, if any.
find_wheel='
import glob, os, site, sys
dirs = list(sys.path)
try:
    dirs += site.getsitepackages() + [site.getusersitepackages()]
except Exception:
    pass
try:
    import nvidia.nccl as m
    dirs += [os.path.dirname(os.path.dirname(p)) for p in m.__path__]
except Exception:
    pass
seen = set()
for d in dirs:
    for p in sorted(glob.glob(os.path.join(d, "nvidia", "nccl", "lib", "libnccl.so*"))):
        if p not in seen:
            seen.add(p)
            print(p)
'
if [ -z "${FP8Q_NCCL_LIBRARY:-}" ]; then
  candidates=()
  if [ -n "${NCCL_HOME:-}" ]; then
    candidates+=("$NCCL_HOME/lib/libnccl.so.2" "$NCCL_HOME/lib64/libnccl.so.2")
  fi
  # The pip wheel (nvidia-nccl-cu13): nvidia/nccl/lib under site-packages.
  while IFS= read -r c; do
    if [ -n "$c" ]; then candidates+=("$c"); fi
  done < <(python3 -c "$find_wheel" 2>/dev/null || true)
  candidates+=(/usr/local/cuda/lib64/libnccl.so.2 /usr/local/cuda/lib/libnccl.so.2
    /usr/lib/x86_64-linux-gnu/libnccl.so.2)
  for c in "${candidates[@]}"; do
    if [ -e "$c" ]; then
      export FP8Q_NCCL_LIBRARY=$c
      break
    fi
  done
fi
echo "FP8Q_NCCL_LIBRARY=${FP8Q_NCCL_LIBRARY:-(none found, the loader searches libnccl.so.2)}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
# NCCL_DEBUG=WARN unless the caller asks for more.
export NCCL_DEBUG=${NCCL_DEBUG:-WARN}
status=0
"$OUT/nccl_one_rank_check" | tee "$OUT/nccl_one_rank.txt" || status=$?
echo "nccl_one_rank_check exit status $status (log: $OUT/nccl_one_rank.txt)"
exit "$status"
