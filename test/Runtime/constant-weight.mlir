// Regression (issue 13, item 3): a weight constant preshuffled at compile
// time for gfx950 / ROCm 7.2 kept #fp8q.weight_layout in its llvm.mlir.global
// and upstream mlir-runner refused the module. This is also the `main` that
// README's mlir-runner command runs: a public function without arguments
// that builds its inputs and prints the result through printMemrefF32.
//
// RUN: fp8q-opt %s --fp8q-pipeline -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=IR
// RUN: mlir-runner %t.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%fp8q_libs/libfp8q_runtime_cpu.so,%llvm_libs/libmlir_c_runner_utils.so,%llvm_libs/libmlir_runner_utils.so \
// RUN:   | FileCheck %s
//
// IR: llvm.mlir.global private constant @{{.*}}(dense<1.000000e+00> : tensor<16x256xf8E4M3FN>)
// IR-NOT: fp8q.
//
// x[m, k] = m + 1 and w = 1 exactly (amax m + 1 -> q = 448, scale
// (m + 1) / 448), w_scale 0.5: out[m, n] = 0.5 * 256 * (m + 1).
// CHECK: rank = 2 offset = 0 sizes = [2, 16]
// CHECK-NEXT: [128,   128,   128,   128,   128,   128,   128,   128,   128,   128,   128,   128,   128,   128,   128,   128]
// CHECK-NEXT: [256,   256,   256,   256,   256,   256,   256,   256,   256,   256,   256,   256,   256,   256,   256,   256]

module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

  func.func @main() {
    %x = tensor.generate {
    ^bb0(%i: index, %j: index):
      %i1 = arith.index_cast %i : index to i32
      %one = arith.constant 1 : i32
      %v = arith.addi %i1, %one : i32
      %f = arith.sitofp %v : i32 to bf16
      tensor.yield %f : bf16
    } : tensor<2x256xbf16>
    %w = arith.constant dense<1.0> : tensor<16x256xf8E4M3FN>
    %ws = arith.constant dense<0.5> : tensor<1x2xf32>
    %q, %s = fp8q.quantize %x : tensor<2x256xbf16> -> tensor<2x256xf8E4M3FN>, tensor<2x2xf32>
    %o = fp8q.gemm %q, %s, %w, %ws : tensor<2x256xf8E4M3FN>, tensor<2x2xf32>, tensor<16x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<2x16xbf16>
    %of = arith.extf %o : tensor<2x16xbf16> to tensor<2x16xf32>
    %buf = bufferization.to_buffer %of : tensor<2x16xf32> to memref<2x16xf32>
    %u = memref.cast %buf : memref<2x16xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }
}
