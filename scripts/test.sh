#!/usr/bin/env bash
# Sets up and runs every fp8q test from scratch: installs dependencies,
# configures a fresh build, builds everything, runs the lit and unit suites
# (check-fp8q) and prints "N passed, N failed".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FP8Q_BUILD_DIR:-$root/build-test}

"$root/scripts/install-deps.sh"

rm -rf "$build"
cmake -G Ninja -S "$root" -B "$build" >/dev/null
echo "fp8q: building in $build"
ninja -C "$build" all

log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
/usr/lib/llvm-22/bin/lit -v "$build/test" "$build/test/Unit" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

count() { sed -n "s/^ *$1 *: *\([0-9]*\).*/\1/p" "$log" | tail -n 1; }
passed=$(count Passed)
failed=$(count Failed)
echo "fp8q: ${passed:-0} passed, ${failed:-0} failed"
exit "$status"
