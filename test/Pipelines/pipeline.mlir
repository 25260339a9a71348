// The whole pipeline, tensor IR to the LLVM dialect, through fp8q-opt and
// through upstream mlir-opt with the plugin, and its options.
//
// RUN: fp8q-opt %s --fp8q-pipeline | FileCheck %s
// RUN: mlir-opt %s --load-dialect-plugin=%fp8q_plugin --load-pass-plugin=%fp8q_plugin \
// RUN:   --pass-pipeline="builtin.module(fp8q-pipeline)" | FileCheck %s
// RUN: fp8q-opt %s --fp8q-pipeline=fuse-producers=false | FileCheck %s --check-prefix=NOFUSE
// RUN: fp8q-opt %s --fp8q-pipeline=skip-propagation | FileCheck %s --check-prefix=SKIP
// Upstream mlir-opt reads every output without the fp8q dialect.
// RUN: fp8q-opt %s --fp8q-pipeline | mlir-opt -o /dev/null
// RUN: fp8q-opt %s --fp8q-pipeline=fuse-producers=false | mlir-opt -o /dev/null
// RUN: fp8q-opt %s --fp8q-pipeline=skip-propagation | mlir-opt -o /dev/null

// Only LLVM dialect remains; the fp8q target attribute is gone, so
// mlir-runner can parse the module without the fp8q dialect.
// CHECK-NOT: fp8q.target
// CHECK-DAG: llvm.func @_mlir_ciface_fp8q_rt_quantize_bf16(!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i32) -> i32
// CHECK-DAG: llvm.func @_mlir_ciface_fp8q_rt_preshuffle(!llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func @_mlir_ciface_fp8q_rt_gemm(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32) -> i32
// The public function keeps its ABI: x, w, ws in, the output out (as
// expanded memref descriptors), and a C interface wrapper.
// CHECK-LABEL: llvm.func @layer(
// CHECK-DAG: llvm.call @fp8q_rt_preshuffle(
// CHECK-DAG: llvm.call @fp8q_rt_quantize_bf16(
// CHECK: llvm.call @fp8q_rt_gemm(
// CHECK: llvm.call @free
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @_mlir_ciface_layer(
// CHECK-NOT: fp8q_rt_materialize
// CHECK-NOT: fp8q.

// Without fusion the quantize writes row-major and one materialization
// feeds ck_bpreshuffle.
// NOFUSE-COUNT-1: llvm.call @fp8q_rt_materialize(
// NOFUSE-NOT: llvm.call @fp8q_rt_materialize(

// Skipping propagation (the historical flow) compiles the row-major scale
// straight into the gemm call: the runtime's contract check is all that
// is left.
// SKIP-NOT: fp8q_rt_materialize
// SKIP: llvm.call @fp8q_rt_gemm(
// SKIP-NOT: fp8q_rt_materialize

module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
  func.func @layer(%x: tensor<?x256xbf16>, %w: tensor<32x256xf8E4M3FN>, %ws: tensor<1x2xf32>) -> tensor<?x32xbf16>
      attributes {llvm.emit_c_interface} {
    %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
    %o = fp8q.gemm %q, %s, %w, %ws : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<32x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x32xbf16>
    return %o : tensor<?x32xbf16>
  }
}
