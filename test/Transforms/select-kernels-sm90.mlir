// RUN: fp8q-opt %s --fp8q-select-kernels | FileCheck %s --check-prefix=DEEPGEMM
// RUN: fp8q-opt %s --fp8q-select-kernels="sm90-kernel=cublas" | FileCheck %s --check-prefix=CUBLAS
// Idempotent: a second run changes nothing.
// RUN: fp8q-opt %s --fp8q-select-kernels | fp8q-opt --fp8q-select-kernels | FileCheck %s --check-prefix=DEEPGEMM
// RUN: fp8q-opt %s --fp8q-select-kernels="sm90-kernel=cublas" | fp8q-opt --fp8q-select-kernels | FileCheck %s --check-prefix=CUBLAS
// A scale stored col_major align 4 meets DeepGEMM's contract; col_major
// with M a static multiple of 4 meets both.
// RUN: fp8q-opt %s --fp8q-select-kernels --fp8q-verify-contracts | FileCheck %s --check-prefix=DEEPGEMM
// The same pass from upstream mlir-opt through the plugin.
// RUN: mlir-opt %s --load-dialect-plugin=%fp8q_plugin --load-pass-plugin=%fp8q_plugin \
// RUN:   --pass-pipeline="builtin.module(fp8q-select-kernels{sm90-kernel=cublas})" | FileCheck %s --check-prefix=CUBLAS
// RUN: not fp8q-opt %s --fp8q-select-kernels="sm90-kernel=ck" 2>&1 | FileCheck %s --check-prefix=BADKERNEL
// RUN: not fp8q-opt %s --fp8q-select-kernels="sm90-kernel=fast" 2>&1 | FileCheck %s --check-prefix=BADKERNEL

// sm90 routes to DeepGEMM, or to cuBLAS blockwise with sm90-kernel=cublas;
// no weight is preshuffled, explicit kernels are kept.

// BADKERNEL: error: sm90-kernel '{{ck|fast}}' is not a kernel that runs on sm90; expected deepgemm, cublas or reference

module attributes {fp8q.target = #fp8q.target<arch = "sm90">} {
// DEEPGEMM-LABEL: func.func @sm90(
// DEEPGEMM-NOT: fp8q.preshuffle
// DEEPGEMM: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<deepgemm>} : tensor<16x7168xf8E4M3FN>, tensor<16x56xf32, #fp8q.layout<col_major, align = 4>>, tensor<2112x7168xf8E4M3FN>
// DEEPGEMM: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<deepgemm>} : tensor<16x7168xf8E4M3FN>, tensor<16x56xf32, #fp8q.layout<col_major>>, tensor<6144x7168xf8E4M3FN>
// DEEPGEMM: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<cublas>}
// DEEPGEMM-NOT: fp8q.preshuffle
// CUBLAS-LABEL: func.func @sm90(
// CUBLAS-NOT: fp8q.preshuffle
// CUBLAS: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<cublas>} : tensor<16x7168xf8E4M3FN>, tensor<16x56xf32, #fp8q.layout<col_major, align = 4>>, tensor<2112x7168xf8E4M3FN>
// CUBLAS: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<cublas>} : tensor<16x7168xf8E4M3FN>, tensor<16x56xf32, #fp8q.layout<col_major>>, tensor<6144x7168xf8E4M3FN>
// CUBLAS: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<cublas>}
// CUBLAS-NOT: fp8q.preshuffle
func.func @sm90(%x: tensor<16x7168xbf16>, %w: tensor<2112x7168xf8E4M3FN>, %ws: tensor<17x56xf32>, %w2: tensor<6144x7168xf8E4M3FN>, %ws2: tensor<48x56xf32>) -> (tensor<16x2112xbf16>, tensor<16x6144xbf16>, tensor<16x6144xbf16>) {
  %q, %s = fp8q.quantize %x : tensor<16x7168xbf16> -> tensor<16x7168xf8E4M3FN>, tensor<16x56xf32, #fp8q.layout<col_major, align = 4>>
  %a = fp8q.gemm %q, %s, %w, %ws : tensor<16x7168xf8E4M3FN>, tensor<16x56xf32, #fp8q.layout<col_major, align = 4>>, tensor<2112x7168xf8E4M3FN>, tensor<17x56xf32> -> tensor<16x2112xbf16>
  %q2, %s2 = fp8q.quantize %x : tensor<16x7168xbf16> -> tensor<16x7168xf8E4M3FN>, tensor<16x56xf32, #fp8q.layout<col_major>>
  %b = fp8q.gemm %q2, %s2, %w2, %ws2 : tensor<16x7168xf8E4M3FN>, tensor<16x56xf32, #fp8q.layout<col_major>>, tensor<6144x7168xf8E4M3FN>, tensor<48x56xf32> -> tensor<16x6144xbf16>
  %c = fp8q.gemm %q2, %s2, %w2, %ws2 {kernel = #fp8q.kernel<cublas>} : tensor<16x7168xf8E4M3FN>, tensor<16x56xf32, #fp8q.layout<col_major>>, tensor<6144x7168xf8E4M3FN>, tensor<48x56xf32> -> tensor<16x6144xbf16>
  return %a, %b, %c : tensor<16x2112xbf16>, tensor<16x6144xbf16>, tensor<16x6144xbf16>
}
}
