// RUN: fp8q-opt %s --fp8q-select-kernels | FileCheck %s
// RUN: fp8q-opt %s --fp8q-select-kernels | fp8q-opt --fp8q-select-kernels | FileCheck %s
// RUN: fp8q-opt %s --fp8q-select-kernels --fp8q-verify-contracts | FileCheck %s

// Without fp8q.target the pass has nothing to route by, which is fine when
// every gemm already names its kernel: kernels are kept, and the
// ck_bpreshuffle weight still gets its preshuffle (the contract needs it on
// any target).

// CHECK-LABEL: func.func @all_explicit(
// CHECK-SAME: %[[W:[^:]*]]: tensor<6144x7168xf8E4M3FN>
// CHECK-NEXT: %[[P:.*]] = fp8q.preshuffle %[[W]]
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[P]], %{{.*}} {kernel = #fp8q.kernel<ck_bpreshuffle>}
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[W]], %{{.*}} {kernel = #fp8q.kernel<reference>}
func.func @all_explicit(%x: tensor<?x7168xbf16>, %w: tensor<6144x7168xf8E4M3FN>, %ws: tensor<48x56xf32>) -> (tensor<?x6144xbf16>, tensor<?x6144xbf16>) {
  %q, %s = fp8q.quantize %x : tensor<?x7168xbf16> -> tensor<?x7168xf8E4M3FN>, tensor<?x56xf32, #fp8q.layout<col_major>>
  %a = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32, #fp8q.layout<col_major>>, tensor<6144x7168xf8E4M3FN>, tensor<48x56xf32> -> tensor<?x6144xbf16>
  %b = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<reference>} : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32, #fp8q.layout<col_major>>, tensor<6144x7168xf8E4M3FN>, tensor<48x56xf32> -> tensor<?x6144xbf16>
  return %a, %b : tensor<?x6144xbf16>, tensor<?x6144xbf16>
}
