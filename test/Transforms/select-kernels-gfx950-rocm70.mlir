// RUN: fp8q-opt %s -split-input-file --fp8q-select-kernels | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: fp8q-opt %s -split-input-file --fp8q-select-kernels | fp8q-opt -split-input-file --fp8q-select-kernels | FileCheck %s
// Row-major scales satisfy ck and triton: the contracts hold as is.
// RUN: fp8q-opt %s -split-input-file --fp8q-select-kernels --fp8q-verify-contracts | FileCheck %s

// gfx950 with ROCm 7.0 (hipcc miscompiles the bpreshuffle kernel): plain
// ck, triton for tuned shapes or M above the shape's ck safe maximum. With a
// dynamic M that is a run-time choice: both variants under an scf.if on M.

module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.0">} {
// CHECK-LABEL: func.func @dynamic_m_branch(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x4096xbf16>, %[[W:[^:]*]]: tensor<4608x4096xf8E4M3FN>, %[[WS:[^:]*]]: tensor<36x32xf32>
// CHECK: %[[Q:.*]], %[[S:.*]] = fp8q.quantize %[[X]]
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[M:.*]] = tensor.dim %[[Q]], %[[C0]] : tensor<?x4096xf8E4M3FN>
// CHECK: %[[MAX:.*]] = arith.constant 512 : index
// CHECK: %[[BIG:.*]] = arith.cmpi sgt, %[[M]], %[[MAX]] : index
// CHECK: %[[R:.*]] = scf.if %[[BIG]] -> (tensor<?x4608xbf16>) {
// CHECK:   %[[T:.*]] = fp8q.gemm %[[Q]], %[[S]], %[[W]], %[[WS]] {kernel = #fp8q.kernel<triton>}
// CHECK:   scf.yield %[[T]]
// CHECK: } else {
// CHECK:   %[[C:.*]] = fp8q.gemm %[[Q]], %[[S]], %[[W]], %[[WS]] {kernel = #fp8q.kernel<ck>}
// CHECK:   scf.yield %[[C]]
// CHECK: }
// CHECK-NOT: fp8q.preshuffle
// CHECK: return %[[R]]
func.func @dynamic_m_branch(%x: tensor<?x4096xbf16>, %w: tensor<4608x4096xf8E4M3FN>, %ws: tensor<36x32xf32>) -> tensor<?x4608xbf16> {
  %q, %s = fp8q.quantize %x : tensor<?x4096xbf16> -> tensor<?x4096xf8E4M3FN>, tensor<?x32xf32>
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<?x4096xf8E4M3FN>, tensor<?x32xf32>, tensor<4608x4096xf8E4M3FN>, tensor<36x32xf32> -> tensor<?x4608xbf16>
  return %y : tensor<?x4608xbf16>
}

// Two gemms on the same q share one test of M.
// CHECK-LABEL: func.func @shared_m_test(
// CHECK: %[[BIG:.*]] = arith.cmpi sgt
// CHECK-NOT: arith.cmpi
// CHECK: scf.if %[[BIG]]
// CHECK: scf.if %[[BIG]]
// CHECK-NOT: arith.cmpi
// CHECK: return
func.func @shared_m_test(%q: tensor<?x4096xf8E4M3FN>, %s: tensor<?x32xf32>, %w: tensor<4608x4096xf8E4M3FN>, %ws: tensor<36x32xf32>) -> (tensor<?x4608xbf16>, tensor<?x4608xbf16>) {
  %a = fp8q.gemm %q, %s, %w, %ws : tensor<?x4096xf8E4M3FN>, tensor<?x32xf32>, tensor<4608x4096xf8E4M3FN>, tensor<36x32xf32> -> tensor<?x4608xbf16>
  %b = fp8q.gemm %q, %s, %w, %ws : tensor<?x4096xf8E4M3FN>, tensor<?x32xf32>, tensor<4608x4096xf8E4M3FN>, tensor<36x32xf32> -> tensor<?x4608xbf16>
  return %a, %b : tensor<?x4608xbf16>, tensor<?x4608xbf16>
}

// Dynamic M without a safe maximum, or on a tuned shape, needs no branch.
// CHECK-LABEL: func.func @dynamic_m_no_branch(
// CHECK-NOT: scf.if
// CHECK: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<ck>} {{.*}} tensor<6144x4096xf8E4M3FN>
// CHECK: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<triton>} {{.*}} tensor<4608x7168xf8E4M3FN>
// CHECK-NOT: scf.if
// CHECK: return
func.func @dynamic_m_no_branch(%x: tensor<?x4096xbf16>, %w: tensor<6144x4096xf8E4M3FN>, %ws: tensor<48x32xf32>, %x2: tensor<?x7168xbf16>, %w2: tensor<4608x7168xf8E4M3FN>, %ws2: tensor<36x56xf32>) -> (tensor<?x6144xbf16>, tensor<?x4608xbf16>) {
  %q, %s = fp8q.quantize %x : tensor<?x4096xbf16> -> tensor<?x4096xf8E4M3FN>, tensor<?x32xf32>
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<?x4096xf8E4M3FN>, tensor<?x32xf32>, tensor<6144x4096xf8E4M3FN>, tensor<48x32xf32> -> tensor<?x6144xbf16>
  %q2, %s2 = fp8q.quantize %x2 : tensor<?x7168xbf16> -> tensor<?x7168xf8E4M3FN>, tensor<?x56xf32>
  %y2 = fp8q.gemm %q2, %s2, %w2, %ws2 : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32>, tensor<4608x7168xf8E4M3FN>, tensor<36x56xf32> -> tensor<?x4608xbf16>
  return %y, %y2 : tensor<?x6144xbf16>, tensor<?x4608xbf16>
}

// Static M decides at compile time: 512 is within the limit, 2048 is not.
// CHECK-LABEL: func.func @static_m(
// CHECK-NOT: scf.if
// CHECK: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<ck>} : tensor<512x4096xf8E4M3FN>
// CHECK: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<triton>} : tensor<2048x4096xf8E4M3FN>
func.func @static_m(%q: tensor<512x4096xf8E4M3FN>, %s: tensor<512x32xf32>, %q2: tensor<2048x4096xf8E4M3FN>, %s2: tensor<2048x32xf32>, %w: tensor<4608x4096xf8E4M3FN>, %ws: tensor<36x32xf32>) -> (tensor<512x4608xbf16>, tensor<2048x4608xbf16>) {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<512x4096xf8E4M3FN>, tensor<512x32xf32>, tensor<4608x4096xf8E4M3FN>, tensor<36x32xf32> -> tensor<512x4608xbf16>
  %y2 = fp8q.gemm %q2, %s2, %w, %ws : tensor<2048x4096xf8E4M3FN>, tensor<2048x32xf32>, tensor<4608x4096xf8E4M3FN>, tensor<36x32xf32> -> tensor<2048x4608xbf16>
  return %y, %y2 : tensor<512x4608xbf16>, tensor<2048x4608xbf16>
}

}

// -----

// The branch sits inside a loop body where the gemm was.
module attributes {fp8q.target = #fp8q.target<arch = "gfx950">} {
// CHECK-LABEL: func.func @branch_in_loop(
// CHECK: scf.for
// CHECK:   tensor.dim
// CHECK:   arith.cmpi sgt
// CHECK:   scf.if
// CHECK:     kernel = #fp8q.kernel<triton>
// CHECK:   } else {
// CHECK:     kernel = #fp8q.kernel<ck>
func.func @branch_in_loop(%q: tensor<?x4096xf8E4M3FN>, %s: tensor<?x32xf32>, %w: tensor<4608x4096xf8E4M3FN>, %ws: tensor<36x32xf32>, %init: tensor<?x4608xbf16>) -> tensor<?x4608xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %init) -> (tensor<?x4608xbf16>) {
    %y = fp8q.gemm %q, %s, %w, %ws : tensor<?x4096xf8E4M3FN>, tensor<?x32xf32>, tensor<4608x4096xf8E4M3FN>, tensor<36x32xf32> -> tensor<?x4608xbf16>
    scf.yield %y : tensor<?x4608xbf16>
  }
  return %r : tensor<?x4608xbf16>
}
}
