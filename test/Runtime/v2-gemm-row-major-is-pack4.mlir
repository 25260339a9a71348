// A deepgemm_sm100 gemm whose scales are row_major [4, 4] and [16, 4]:
// col_major align 4 pack 4's bytes (one 32-bit word per row), so
// propagation inserts no copy, and the lowering passes them as padded
// views; the CPU runtime, which reads the descriptor's kind first, accepts
// them (before, it rejected the strided descriptors with a contract error).
// All-ones inputs: every output is K = 512.
//
// RUN: fp8q-opt %s --fp8q-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%fp8q_libs/libfp8q_runtime_cpu.so,%llvm_libs/libmlir_c_runner_utils.so,%llvm_libs/libmlir_runner_utils.so \
// RUN:   | FileCheck %s

// CHECK-NOT: fp8q runtime error
// CHECK: sizes = [4, 16]
// CHECK-COUNT-4: [512, 512, 512, 512, 512, 512, 512, 512, 512, 512, 512, 512, 512, 512, 512, 512]
module attributes {fp8q.target = #fp8q.target<arch = "sm100">} {
  func.func private @printMemrefF32(memref<*xf32>)
  func.func @step(%x: tensor<4x512xbf16>, %wf: tensor<16x512xbf16>) -> tensor<4x16xbf16> {
    %q, %s = fp8q.quantize %x {scale_rounding = #fp8q.scale_rounding<pow2_ceil>} : tensor<4x512xbf16> -> tensor<4x512xf8E4M3FN>, tensor<4x4xf8E8M0FNU>
    %w, %ws = fp8q.quantize %wf {scale_rounding = #fp8q.scale_rounding<pow2_ceil>} : tensor<16x512xbf16> -> tensor<16x512xf8E4M3FN>, tensor<16x4xf8E8M0FNU>
    %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<deepgemm_sm100>} : tensor<4x512xf8E4M3FN>, tensor<4x4xf8E8M0FNU>, tensor<16x512xf8E4M3FN>, tensor<16x4xf8E8M0FNU> -> tensor<4x16xbf16>
    return %y : tensor<4x16xbf16>
  }
  func.func @main() {
    %c = arith.constant 1.0 : bf16
    %x = tensor.splat %c : tensor<4x512xbf16>
    %wf = tensor.splat %c : tensor<16x512xbf16>
    %y = func.call @step(%x, %wf) : (tensor<4x512xbf16>, tensor<16x512xbf16>) -> tensor<4x16xbf16>
    %f = arith.extf %y : tensor<4x16xbf16> to tensor<4x16xf32>
    %b = bufferization.to_buffer %f : tensor<4x16xf32> to memref<4x16xf32>
    %u = memref.cast %b : memref<4x16xf32> to memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }
}
