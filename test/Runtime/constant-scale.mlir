// Constant weight scales laid out at compile time (issue 17): an MXFP8
// gemm on sm100 (cublas_mx reads both scales swizzle_32_4_4) whose weight
// and weight scale are constants. Propagation materializes the row-major
// constant scale into swizzle_32_4_4; bufferization folds that copy into a
// private constant global holding the 128x4 tile bytes (padding 0), so no
// materialize call is left, and the run reads the right value per (n, g).
//
// RUN: fp8q-opt %s --fp8q-pipeline -o %t.mlir 2>/dev/null
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=IR
// RUN: mlir-runner %t.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%fp8q_libs/libfp8q_runtime_cpu.so,%llvm_libs/libmlir_c_runner_utils.so,%llvm_libs/libmlir_runner_utils.so \
// RUN:   | FileCheck %s
//
// The stored bytes: swizzle_32_4_4 of [32, 2] allocates roundup(32, 128) *
// roundup(2, 4) = 512 bytes.
// IR: llvm.mlir.global private constant @__fp8q_scale{{.*}} : !llvm.array<512 x i8>
// IR-NOT: fp8q_rt_materialize
// IR-NOT: fp8q.
//
// x[m, k] = m + 1 (MXFP8 quantizes it exactly: scale 2^-8 or 2^-7, q 256
// or 384), w = 1, ws[n, g] = 2^((n + g) % 4) over two groups of 32:
// out[m, n] = (m + 1) * 32 * (2^(n % 4) + 2^((n + 1) % 4)).
// CHECK: rank = 2 offset = 0 sizes = [3, 32]
// CHECK: [96,   192,   384,   288,   96,   192,   384,   288,   96,   192,   384,   288,   96,   192,   384,   288,   96,   192,   384,   288,   96,   192,   384,   288,   96,   192,   384,   288,   96,   192,   384,   288]
// CHECK-NEXT: [192,   384,   768,   576,   192,   384,   768,   576,   192,   384,   768,   576,   192,   384,   768,   576,   192,   384,   768,   576,   192,   384,   768,   576,   192,   384,   768,   576,   192,   384,   768,   576]
// CHECK-NEXT: [288,   576,   1152,   864,   288,   576,   1152,   864,   288,   576,   1152,   864,   288,   576,   1152,   864,   288,   576,   1152,   864,   288,   576,   1152,   864,   288,   576,   1152,   864,   288,   576,   1152,   864]

module attributes {fp8q.target = #fp8q.target<arch = "sm100">} {
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

  func.func @main() {
    %x = tensor.generate {
    ^bb0(%i: index, %j: index):
      %i1 = arith.index_cast %i : index to i32
      %one = arith.constant 1 : i32
      %v = arith.addi %i1, %one : i32
      %f = arith.sitofp %v : i32 to bf16
      tensor.yield %f : bf16
    } : tensor<3x64xbf16>
    %w = arith.constant dense<1.0> : tensor<32x64xf8E4M3FN>
    %ws = arith.constant dense<[[1.0, 2.0], [2.0, 4.0], [4.0, 8.0], [8.0, 1.0], [1.0, 2.0], [2.0, 4.0], [4.0, 8.0], [8.0, 1.0], [1.0, 2.0], [2.0, 4.0], [4.0, 8.0], [8.0, 1.0], [1.0, 2.0], [2.0, 4.0], [4.0, 8.0], [8.0, 1.0], [1.0, 2.0], [2.0, 4.0], [4.0, 8.0], [8.0, 1.0], [1.0, 2.0], [2.0, 4.0], [4.0, 8.0], [8.0, 1.0], [1.0, 2.0], [2.0, 4.0], [4.0, 8.0], [8.0, 1.0], [1.0, 2.0], [2.0, 4.0], [4.0, 8.0], [8.0, 1.0]]> : tensor<32x2xf8E8M0FNU>
    %q, %s = fp8q.quantize %x {group_size = 32} : tensor<3x64xbf16> -> tensor<3x64xf8E4M3FN>, tensor<3x2xf8E8M0FNU>
    %o = fp8q.gemm %q, %s, %w, %ws : tensor<3x64xf8E4M3FN>, tensor<3x2xf8E8M0FNU>, tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU> -> tensor<3x32xbf16>
    %of = arith.extf %o : tensor<3x32xbf16> to tensor<3x32xf32>
    %buf = bufferization.to_buffer %of : tensor<3x32xf32> to memref<3x32xf32>
    %u = memref.cast %buf : memref<3x32xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }
}
