// RUN: fp8q-opt %s -split-input-file --fp8q-select-kernels | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: fp8q-opt %s -split-input-file --fp8q-select-kernels | fp8q-opt -split-input-file --fp8q-select-kernels | FileCheck %s
// Scales produced col_major already: the contracts hold with no propagation.
// RUN: fp8q-opt %s -split-input-file --fp8q-select-kernels --fp8q-verify-contracts | FileCheck %s

// gfx950 with ROCm 7.2: the bpreshuffle path, weight preshuffle rules.

module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
// One weight shared by three ck_bpreshuffle gemms gets one preshuffle,
// placed where the weight is defined (so it dominates every gemm, also the
// one in the loop), and the tuned-shape gemm keeps the plain weight.
// CHECK-LABEL: func.func @shared_weight(
// CHECK-SAME: %[[X:.*]]: tensor<?x7168xbf16>, %[[W:.*]]: tensor<6144x7168xf8E4M3FN>, %[[WS:.*]]: tensor<48x56xf32>, %[[WT:.*]]: tensor<4096x7168xf8E4M3FN>, %[[WTS:.*]]: tensor<32x56xf32>
// CHECK-NEXT: %[[P:.*]] = fp8q.preshuffle %[[W]] : tensor<6144x7168xf8E4M3FN> -> tensor<6144x7168xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
// CHECK-NOT: fp8q.preshuffle
// CHECK: %[[Q:.*]], %[[S:.*]] = fp8q.quantize %[[X]]
// CHECK: fp8q.gemm %[[Q]], %[[S]], %[[P]], %[[WS]] {kernel = #fp8q.kernel<ck_bpreshuffle>}
// CHECK: fp8q.gemm %[[Q]], %[[S]], %[[P]], %[[WS]] {kernel = #fp8q.kernel<ck_bpreshuffle>}
// CHECK: scf.for
// CHECK:   fp8q.gemm %[[Q]], %[[S]], %[[P]], %[[WS]] {kernel = #fp8q.kernel<ck_bpreshuffle>}
// CHECK: fp8q.gemm %[[Q]], %[[S]], %[[WT]], %[[WTS]] {kernel = #fp8q.kernel<triton>}
// CHECK-NOT: fp8q.preshuffle
// CHECK: return
func.func @shared_weight(%x: tensor<?x7168xbf16>, %w: tensor<6144x7168xf8E4M3FN>, %ws: tensor<48x56xf32>, %wt: tensor<4096x7168xf8E4M3FN>, %wts: tensor<32x56xf32>) -> (tensor<?x6144xbf16>, tensor<?x6144xbf16>, tensor<?x6144xbf16>, tensor<?x4096xbf16>) {
  %q, %s = fp8q.quantize %x : tensor<?x7168xbf16> -> tensor<?x7168xf8E4M3FN>, tensor<?x56xf32, #fp8q.layout<col_major>>
  %a = fp8q.gemm %q, %s, %w, %ws : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32, #fp8q.layout<col_major>>, tensor<6144x7168xf8E4M3FN>, tensor<48x56xf32> -> tensor<?x6144xbf16>
  %b = fp8q.gemm %q, %s, %w, %ws : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32, #fp8q.layout<col_major>>, tensor<6144x7168xf8E4M3FN>, tensor<48x56xf32> -> tensor<?x6144xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %l = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %a) -> (tensor<?x6144xbf16>) {
    %g = fp8q.gemm %q, %s, %w, %ws : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32, #fp8q.layout<col_major>>, tensor<6144x7168xf8E4M3FN>, tensor<48x56xf32> -> tensor<?x6144xbf16>
    scf.yield %g : tensor<?x6144xbf16>
  }
  %t = fp8q.gemm %q, %s, %wt, %wts : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32, #fp8q.layout<col_major>>, tensor<4096x7168xf8E4M3FN>, tensor<32x56xf32> -> tensor<?x4096xbf16>
  return %a, %b, %l, %t : tensor<?x6144xbf16>, tensor<?x6144xbf16>, tensor<?x6144xbf16>, tensor<?x4096xbf16>
}

// An explicit kernel is kept, even one the routing would not pick, and
// only ck_bpreshuffle weights are preshuffled.
// CHECK-LABEL: func.func @explicit_kernels_kept(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg1, %arg2 {kernel = #fp8q.kernel<triton>}
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg1, %arg2 {kernel = #fp8q.kernel<reference>}
// CHECK-NOT: fp8q.preshuffle
// CHECK: return
func.func @explicit_kernels_kept(%x: tensor<?x7168xbf16>, %w: tensor<6144x7168xf8E4M3FN>, %ws: tensor<48x56xf32>) -> (tensor<?x6144xbf16>, tensor<?x6144xbf16>) {
  %q, %s = fp8q.quantize %x : tensor<?x7168xbf16> -> tensor<?x7168xf8E4M3FN>, tensor<?x56xf32, #fp8q.layout<col_major>>
  %a = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<triton>} : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32, #fp8q.layout<col_major>>, tensor<6144x7168xf8E4M3FN>, tensor<48x56xf32> -> tensor<?x6144xbf16>
  %b = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<reference>} : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32, #fp8q.layout<col_major>>, tensor<6144x7168xf8E4M3FN>, tensor<48x56xf32> -> tensor<?x6144xbf16>
  return %a, %b : tensor<?x6144xbf16>, tensor<?x6144xbf16>
}

// A weight that arrives preshuffled is left alone; an explicit
// ck_bpreshuffle gemm reading a plain weight gets it preshuffled, and the
// weight shared with a ck_bpreshuffle and a triton gemm is preshuffled for
// the first only.
// CHECK-LABEL: func.func @already_preshuffled(
// CHECK-SAME: %[[WP:[^:]*]]: tensor<6144x7168xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
// CHECK-SAME: %[[W:[^:]*]]: tensor<7168x2048xf8E4M3FN>
// CHECK-NEXT: %[[P:.*]] = fp8q.preshuffle %[[W]]
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[WP]], %{{.*}} {kernel = #fp8q.kernel<ck_bpreshuffle>}
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[P]], %{{.*}} {kernel = #fp8q.kernel<ck_bpreshuffle>}
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[W]], %{{.*}} {kernel = #fp8q.kernel<triton>}
func.func @already_preshuffled(%x: tensor<?x7168xbf16>, %wp: tensor<6144x7168xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<48x56xf32>, %x2: tensor<?x2048xbf16>, %w: tensor<7168x2048xf8E4M3FN>, %ws2: tensor<56x16xf32>) -> (tensor<?x6144xbf16>, tensor<?x7168xbf16>, tensor<?x7168xbf16>) {
  %q, %s = fp8q.quantize %x : tensor<?x7168xbf16> -> tensor<?x7168xf8E4M3FN>, tensor<?x56xf32, #fp8q.layout<col_major>>
  %a = fp8q.gemm %q, %s, %wp, %ws : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32, #fp8q.layout<col_major>>, tensor<6144x7168xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<48x56xf32> -> tensor<?x6144xbf16>
  %q2, %s2 = fp8q.quantize %x2 : tensor<?x2048xbf16> -> tensor<?x2048xf8E4M3FN>, tensor<?x16xf32, #fp8q.layout<col_major>>
  // 7168x2048 is tuned (Triton), but this gemm asks for ck_bpreshuffle.
  %b = fp8q.gemm %q2, %s2, %w, %ws2 {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x2048xf8E4M3FN>, tensor<?x16xf32, #fp8q.layout<col_major>>, tensor<7168x2048xf8E4M3FN>, tensor<56x16xf32> -> tensor<?x7168xbf16>
  %c = fp8q.gemm %q2, %s2, %w, %ws2 : tensor<?x2048xf8E4M3FN>, tensor<?x16xf32, #fp8q.layout<col_major>>, tensor<7168x2048xf8E4M3FN>, tensor<56x16xf32> -> tensor<?x7168xbf16>
  return %a, %b, %c : tensor<?x6144xbf16>, tensor<?x7168xbf16>, tensor<?x7168xbf16>
}

// A preshuffle the input already has for a weight is reused, not repeated.
// CHECK-LABEL: func.func @existing_preshuffle_reused(
// CHECK: %[[P:.*]] = fp8q.preshuffle %arg1
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[P]], %{{.*}} {kernel = #fp8q.kernel<ck_bpreshuffle>}
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[P]], %{{.*}} {kernel = #fp8q.kernel<ck_bpreshuffle>}
func.func @existing_preshuffle_reused(%x: tensor<?x7168xbf16>, %w: tensor<6144x7168xf8E4M3FN>, %ws: tensor<48x56xf32>) -> (tensor<?x6144xbf16>, tensor<?x6144xbf16>) {
  %p = fp8q.preshuffle %w : tensor<6144x7168xf8E4M3FN> -> tensor<6144x7168xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
  %q, %s = fp8q.quantize %x : tensor<?x7168xbf16> -> tensor<?x7168xf8E4M3FN>, tensor<?x56xf32, #fp8q.layout<col_major>>
  %a = fp8q.gemm %q, %s, %p, %ws : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32, #fp8q.layout<col_major>>, tensor<6144x7168xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<48x56xf32> -> tensor<?x6144xbf16>
  %b = fp8q.gemm %q, %s, %w, %ws : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32, #fp8q.layout<col_major>>, tensor<6144x7168xf8E4M3FN>, tensor<48x56xf32> -> tensor<?x6144xbf16>
  return %a, %b : tensor<?x6144xbf16>, tensor<?x6144xbf16>
}
}

// -----

// Weights defined inside a function body (here by a call) get their
// preshuffle right after the definition.
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
func.func private @load_weight() -> tensor<6144x7168xf8E4M3FN>
// CHECK-LABEL: func.func @weight_from_call(
// CHECK: %[[W:.*]] = call @load_weight()
// CHECK-NEXT: %[[P:.*]] = fp8q.preshuffle %[[W]]
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[P]], %{{.*}} {kernel = #fp8q.kernel<ck_bpreshuffle>}
func.func @weight_from_call(%x: tensor<1x7168xbf16>, %ws: tensor<48x56xf32>) -> tensor<1x6144xbf16> {
  %w = func.call @load_weight() : () -> tensor<6144x7168xf8E4M3FN>
  // M == 1: row_major and col_major address the same bytes.
  %q, %s = fp8q.quantize %x : tensor<1x7168xbf16> -> tensor<1x7168xf8E4M3FN>, tensor<1x56xf32>
  %a = fp8q.gemm %q, %s, %w, %ws : tensor<1x7168xf8E4M3FN>, tensor<1x56xf32>, tensor<6144x7168xf8E4M3FN>, tensor<48x56xf32> -> tensor<1x6144xbf16>
  return %a : tensor<1x6144xbf16>
}
}
