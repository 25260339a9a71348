// Regression (issue 13, item 4): diagnostics carry a location and notes,
// never the IR. Module-level errors printed the whole module (1.4-1.7 MB of
// stderr for GLM-5) and every remark printed its op with the enclosing
// function (time quadratic in the number of remarks). MLIR's own
// "see current operation" dump must not appear, and no op is printed.
//
// RUN: not fp8q-opt %s -allow-unregistered-dialect --fp8q-select-kernels 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not fp8q-opt %s -allow-unregistered-dialect --fp8q-select-kernels=sm90-kernel=foo 2>&1 | FileCheck %s --check-prefix=KERNEL
// RUN: not fp8q-opt %s -allow-unregistered-dialect --fp8q-select-kernels=tuned-table=%t.missing 2>&1 | FileCheck %s --check-prefix=TABLE
// RUN: fp8q-opt %s -allow-unregistered-dialect --fp8q-propagate-scale-layout="report-counts=true fuse-producers=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// TARGET-NOT: see current operation
// TARGET: error: module has no 'fp8q.target' attribute, needed to choose kernels for 4 fp8q.gemm op(s)
// At most three located notes, then a count (GLM-5 printed 1824 notes).
// TARGET-COUNT-3: note: this gemm has no kernel
// TARGET-NEXT: fp8q.gemm
// TARGET-NEXT: ^
// TARGET-NEXT: note: and 1 more fp8q.gemm op(s) without `kernel`
// TARGET-NOT: see current operation
// TARGET-NOT: "func.func"
// TARGET-NOT: func.func @

// KERNEL-NOT: see current operation
// KERNEL: error: sm90-kernel 'foo' is not a kernel that runs on sm90
// KERNEL-NOT: see current operation
// KERNEL-NOT: func.func @

// TABLE-NOT: see current operation
// TABLE: error: {{.*}}missing
// TABLE-NOT: see current operation
// TABLE-NOT: func.func @

// REMARK-NOT: see current operation
// REMARK: remark: operand #0 gets row_major: unknown scale consumer
// REMARK-NOT: see current operation
// REMARK: remark: scale materialized to #fp8q.layout<col_major> (copy) for 1 consumer
// REMARK-NOT: see current operation
// REMARK: remark: fp8q-propagate-scale-layout: 1 materializations inserted
// REMARK-NOT: see current operation
// REMARK-NOT: func.func @

func.func @layer(%x: tensor<16x256xbf16>, %w: tensor<32x256xf8E4M3FN>, %ws: tensor<1x2xf32>) -> tensor<16x32xbf16> {
  %q, %s = fp8q.quantize %x : tensor<16x256xbf16> -> tensor<16x256xf8E4M3FN>, tensor<16x2xf32>
  %u = "test.use"(%s) : (tensor<16x2xf32>) -> tensor<16x2xf32>
  %o = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<16x256xf8E4M3FN>, tensor<16x2xf32>, tensor<32x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<16x32xbf16>
  return %o : tensor<16x32xbf16>
}

// A gemm without kernel: selection needs the module's target.
func.func @unrouted(%q: tensor<16x256xf8E4M3FN>, %s: tensor<16x2xf32>, %w: tensor<32x256xf8E4M3FN>, %ws: tensor<1x2xf32>) -> tensor<16x32xbf16> {
  %o = fp8q.gemm %q, %s, %w, %ws : tensor<16x256xf8E4M3FN>, tensor<16x2xf32>, tensor<32x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<16x32xbf16>
  return %o : tensor<16x32xbf16>
}

func.func @unrouted_more(%q: tensor<16x256xf8E4M3FN>, %s: tensor<16x2xf32>, %w: tensor<32x256xf8E4M3FN>, %ws: tensor<1x2xf32>) -> (tensor<16x32xbf16>, tensor<16x32xbf16>, tensor<16x32xbf16>) {
  %a = fp8q.gemm %q, %s, %w, %ws : tensor<16x256xf8E4M3FN>, tensor<16x2xf32>, tensor<32x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<16x32xbf16>
  %b = fp8q.gemm %q, %s, %w, %ws : tensor<16x256xf8E4M3FN>, tensor<16x2xf32>, tensor<32x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<16x32xbf16>
  %c = fp8q.gemm %q, %s, %w, %ws : tensor<16x256xf8E4M3FN>, tensor<16x2xf32>, tensor<32x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<16x32xbf16>
  return %a, %b, %c : tensor<16x32xbf16>, tensor<16x32xbf16>, tensor<16x32xbf16>
}
