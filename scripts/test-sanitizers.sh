#!/usr/bin/env bash
# Robustness suite (issue 8): builds fp8q with AddressSanitizer + UBSan and
# the libFuzzer targets, runs every lit and unit test on that build, then
# fuzzes for bounded runs (about a minute each): parse + verify + the whole
# --fp8q-pipeline on a corpus seeded from the lit tests, and the runtime C
# ABI entry points of the CPU runtime (and of the HIP runtime's checks where
# it is built). Any sanitizer report or harness finding fails the run.
# Prints "fp8q-sanitizers: N passed, N failed" (each fuzzer counts as one).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FP8Q_ASAN_BUILD_DIR:-$root/build-sanitizers}
# A fixed seed and run count keep CI's fuzzing deterministic (about 60 s
# each on a 2-core machine); raise them for longer campaigns.
fuzz_runs=${FP8Q_FUZZ_RUNS:-9000}
rt_fuzz_runs=${FP8Q_RT_FUZZ_RUNS:-200000}
fuzz_seconds=${FP8Q_FUZZ_SECONDS:-600}

"$root/scripts/install-deps.sh"
rm -rf "$build"
cmake -G Ninja -S "$root" -B "$build" -DFP8Q_ENABLE_SANITIZERS=ON \
  -DFP8Q_ENABLE_FUZZER=ON >/dev/null
echo "fp8q-sanitizers: building in $build"
runtime_fuzzers=fp8q-runtime-fuzz
if ninja -C "$build" -t targets all | grep -q '^fp8q-hip-runtime-fuzz:'; then
  runtime_fuzzers="$runtime_fuzzers fp8q-hip-runtime-fuzz"
fi
ninja -C "$build" all fp8q-fuzz $runtime_fuzzers

# LLVM header code compiled into our instrumented objects poisons allocator
# memory that the uninstrumented libMLIR.so then uses: honour only the
# compiler's poisoning.
export ASAN_OPTIONS=allow_user_poisoning=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
log=$(mktemp)
corpus=$(mktemp -d)
trap 'rm -rf "$log" "$corpus"' EXIT
set +e
/usr/lib/llvm-22/bin/lit -v "$build/test" "$build/test/Unit" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

# Seed corpus: every -split-input-file chunk of the lit tests.
python3 - "$root/test" "$corpus" <<'PY'
import glob, os, sys
root, out = sys.argv[1], sys.argv[2]
n = 0
for path in sorted(glob.glob(os.path.join(root, "**", "*.mlir"), recursive=True)):
    if "/Inputs/" in path:
        continue
    for i, chunk in enumerate(open(path).read().split("// -----")):
        if len(chunk) <= 20000:
            with open(os.path.join(out, f"{n:04d}.mlir"), "w") as f:
                f.write(chunk)
            n += 1
print(f"fp8q-sanitizers: fuzz corpus of {n} inputs")
PY
echo "fp8q-sanitizers: fuzzing ${fuzz_runs} inputs (seed 1, at most ${fuzz_seconds} s)"
fuzz_log=$build/fuzz.log
set +e
# Replay every input that once crashed the fuzzer, then fuzz.
(cd "$build" && ./bin/fp8q-fuzz "$root"/test/Fuzz/Inputs/*) >"$fuzz_log" 2>&1
replay_status=$?
(cd "$build" && ./bin/fp8q-fuzz "$corpus" -seed=1 -runs="$fuzz_runs" \
  -max_total_time="$fuzz_seconds" -max_len=8192 -timeout=30 \
  -rss_limit_mb=4096 -print_final_stats=1) \
  >>"$fuzz_log" 2>&1
fuzz_status=$?
[ "$replay_status" -eq 0 ] || fuzz_status=$replay_status
set -e
grep -E "^stat::number_of_executed_units|^#[0-9]+ +DONE" "$fuzz_log" || true
if [ "$fuzz_status" -ne 0 ]; then
  tail -n 60 "$fuzz_log"
  echo "fp8q-sanitizers: the fuzzer found a crash (inputs saved in $build)"
fi

# The runtime ABI: no seed corpus (the harness decodes descriptors from any
# bytes); the runtime's error messages go to a log of their own.
fuzz_failures=0
[ "$fuzz_status" -eq 0 ] || fuzz_failures=1
fuzzers_run=1
for fuzzer in $runtime_fuzzers; do
  rt_corpus=$(mktemp -d)
  rt_log=$build/$fuzzer.log
  echo "fp8q-sanitizers: $fuzzer: ${rt_fuzz_runs} inputs (seed 1, at most ${fuzz_seconds} s)"
  set +e
  (cd "$build" && ./bin/$fuzzer "$rt_corpus" -seed=1 -runs="$rt_fuzz_runs" \
    -max_total_time="$fuzz_seconds" -max_len=512 -timeout=30 \
    -rss_limit_mb=4096 -print_final_stats=1) >"$rt_log" 2>&1
  rt_status=$?
  set -e
  rm -rf "$rt_corpus"
  grep -E "^stat::number_of_executed_units" "$rt_log" || true
  fuzzers_run=$((fuzzers_run + 1))
  if [ "$rt_status" -ne 0 ]; then
    grep -v "^fp8q runtime error" "$rt_log" | tail -n 60
    echo "fp8q-sanitizers: $fuzzer found a crash (input saved in $build)"
    fuzz_failures=$((fuzz_failures + 1))
  fi
done

count() { sed -n "s/^ *$1 *: *\([0-9]*\).*/\1/p" "$log" | tail -n 1; }
passed=$(count Passed)
failed=$(count Failed)
passed=$((${passed:-0} + fuzzers_run - fuzz_failures))
failed=$((${failed:-0} + fuzz_failures))
echo "fp8q-sanitizers: ${passed} passed, ${failed} failed"
[ "$status" -eq 0 ] && [ "$fuzz_failures" -eq 0 ]
