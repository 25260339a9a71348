// RUN: fp8q-opt %s -split-input-file --fp8q-insert-preshuffle | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: fp8q-opt %s -split-input-file --fp8q-insert-preshuffle | fp8q-opt -split-input-file --fp8q-insert-preshuffle | FileCheck %s
// RUN: fp8q-opt %s -split-input-file -verify-diagnostics --fp8q-insert-preshuffle --fp8q-verify-contracts -o /dev/null

// --fp8q-insert-preshuffle reads the kernel each gemm names: one
// fp8q.preshuffle per weight its contract wants preshuffled (two gemms
// share it), a constant folded instead, and other kernels' weights alone.
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
// CHECK-LABEL: func.func @insert(
// CHECK-SAME: %[[W:[^:]*]]: tensor<16x128xf8E4M3FN>
// CHECK-DAG: %[[C:.*]] = arith.constant dense<1.000000e+00> : tensor<16x128xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
// CHECK-DAG: %[[P:.*]] = fp8q.preshuffle %[[W]] : tensor<16x128xf8E4M3FN> -> tensor<16x128xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[P]], %{{.*}} {kernel = #fp8q.kernel<ck_bpreshuffle>}
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[P]], %{{.*}} {kernel = #fp8q.kernel<ck_bpreshuffle>}
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[W]], %{{.*}} {kernel = #fp8q.kernel<triton>}
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[C]], %{{.*}} {kernel = #fp8q.kernel<ck_bpreshuffle>}
func.func @insert(%q: tensor<4x128xf8E4M3FN>, %s: tensor<4x1xf32, #fp8q.layout<col_major>>, %w: tensor<16x128xf8E4M3FN>, %ws: tensor<1x1xf32>) -> (tensor<4x16xbf16>, tensor<4x16xbf16>, tensor<4x16xbf16>, tensor<4x16xbf16>) {
  %c = arith.constant dense<1.0> : tensor<16x128xf8E4M3FN>
  %a = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<4x128xf8E4M3FN>, tensor<4x1xf32, #fp8q.layout<col_major>>, tensor<16x128xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x16xbf16>
  %b = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<4x128xf8E4M3FN>, tensor<4x1xf32, #fp8q.layout<col_major>>, tensor<16x128xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x16xbf16>
  %t = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<triton>} : tensor<4x128xf8E4M3FN>, tensor<4x1xf32, #fp8q.layout<col_major>>, tensor<16x128xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x16xbf16>
  %d = fp8q.gemm %q, %s, %c, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<4x128xf8E4M3FN>, tensor<4x1xf32, #fp8q.layout<col_major>>, tensor<16x128xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x16xbf16>
  return %a, %b, %t, %d : tensor<4x16xbf16>, tensor<4x16xbf16>, tensor<4x16xbf16>, tensor<4x16xbf16>
}
}
