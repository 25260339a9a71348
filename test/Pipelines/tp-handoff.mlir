// Regression (issue 13, item 1): a private function returning its scale
// argument unchanged (the TP handoff), between a quantize and a
// ck_bpreshuffle gemm. With fusion the scale is column-major across the
// call; deallocation cloned the returned argument and upstream could not
// lower the clone of a strided buffer. Now the equivalent result is dropped.
//
// RUN: fp8q-opt %s --fp8q-pipeline -o %t.fused.mlir
// RUN: FileCheck %s --input-file=%t.fused.mlir
// RUN: mlir-opt %t.fused.mlir -o /dev/null
// RUN: fp8q-opt %s --fp8q-pipeline=fuse-producers=false -o %t.unfused.mlir
// RUN: FileCheck %s --input-file=%t.unfused.mlir --check-prefix=NOFUSE
// RUN: mlir-opt %t.unfused.mlir -o /dev/null

// The handoff returns nothing: its caller keeps using its own buffer.
// CHECK-LABEL: llvm.func @handoff(
// CHECK-SAME: %arg6: i64) attributes {sym_visibility = "private"}
// CHECK-LABEL: llvm.func @layer(
// CHECK: llvm.call @fp8q_rt_quantize_bf16(
// CHECK: llvm.call @handoff(
// CHECK-NOT: fp8q_rt_materialize
// CHECK: llvm.call @fp8q_rt_gemm(
// CHECK-LABEL: llvm.func @pass_through(
// CHECK: llvm.call @malloc(
// CHECK: llvm.return
// NOFUSE-LABEL: llvm.func @layer(
// NOFUSE-COUNT-1: llvm.call @fp8q_rt_materialize(
// NOFUSE: llvm.call @fp8q_rt_gemm(

module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
  func.func private @handoff(%s: tensor<16x2xf32>) -> tensor<16x2xf32> {
    return %s : tensor<16x2xf32>
  }
  func.func @layer(%x: tensor<16x256xbf16>, %w: tensor<32x256xf8E4M3FN>, %ws: tensor<1x2xf32>) -> tensor<16x32xbf16> {
    %q, %s = fp8q.quantize %x : tensor<16x256xbf16> -> tensor<16x256xf8E4M3FN>, tensor<16x2xf32>
    %h = func.call @handoff(%s) : (tensor<16x2xf32>) -> tensor<16x2xf32>
    %o = fp8q.gemm %q, %h, %w, %ws : tensor<16x256xf8E4M3FN>, tensor<16x2xf32>, tensor<32x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<16x32xbf16>
    return %o : tensor<16x32xbf16>
  }
  // A public function returning a column-major scale argument: the clone
  // deallocation makes of it is lowered (fp8q-lower-strided-clones).
  func.func @pass_through(%s: tensor<?x2xf32, #fp8q.layout<col_major>>) -> tensor<?x2xf32, #fp8q.layout<col_major>> {
    return %s : tensor<?x2xf32, #fp8q.layout<col_major>>
  }
}

