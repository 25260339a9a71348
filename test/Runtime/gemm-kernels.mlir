// One quantized activation feeding every kernel family: each reads the
// scale in its own contract layout (ck row-major, deepgemm column-major
// with ld = roundup(5, 4) = 8, cublas and ck_bpreshuffle column-major with
// ld = 5, triton and reference through the strides), N = 160 covers a
// partial 128-row weight-scale block, K = 384 three scale groups. Every
// output must match the double-precision reference.
//
// RUN: fp8q-opt %s --fp8q-pipeline | FileCheck %s --check-prefix=IR
// RUN: fp8q-opt %s --fp8q-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%fp8q_libs/libfp8q_runtime_cpu.so,%llvm_libs/libmlir_c_runner_utils.so,%llvm_libs/libmlir_runner_utils.so \
// RUN:   | %python %S/Inputs/fp8q_ref.py --m 5 --k 384 --n 160 --seed 7 --copies 6 | FileCheck %s
// The same with `main` split into chunk functions (what the
// pipeline does to large functions) gives the same numbers.
// RUN: fp8q-opt %s --fp8q-pipeline=outline-min-loops=0 \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%fp8q_libs/libfp8q_runtime_cpu.so,%llvm_libs/libmlir_c_runner_utils.so,%llvm_libs/libmlir_runner_utils.so \
// RUN:   | %python %S/Inputs/fp8q_ref.py --m 5 --k 384 --n 160 --seed 7 --copies 6 | FileCheck %s
//
// Three layouts are needed: one is fused into the quantize, two are
// materialized.
// IR-COUNT-2: llvm.call @fp8q_rt_materialize(
// IR-NOT: llvm.call @fp8q_rt_materialize(
//
// CHECK: M=5 output 0: elements=800 mismatches=0
// CHECK: M=5 output 1: elements=800 mismatches=0
// CHECK: M=5 output 2: elements=800 mismatches=0
// CHECK: M=5 output 3: elements=800 mismatches=0
// CHECK: M=5 output 4: elements=800 mismatches=0
// CHECK: M=5 output 5: elements=800 mismatches=0
// CHECK-NEXT: PASS

module {
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

  // ((i * 1000003 + j * 7919 + seed) * 2654435761 mod 2^32) >> 16 & 255,
  // mirrored by Inputs/fp8q_ref.py.
  func.func private @hash_byte(%i: index, %j: index, %seed: i64) -> i64 {
    %ii = arith.index_cast %i : index to i64
    %jj = arith.index_cast %j : index to i64
    %a = arith.constant 1000003 : i64
    %b = arith.constant 7919 : i64
    %c = arith.constant 2654435761 : i64
    %mask = arith.constant 4294967295 : i64
    %c16 = arith.constant 16 : i64
    %c255 = arith.constant 255 : i64
    %0 = arith.muli %ii, %a : i64
    %1 = arith.muli %jj, %b : i64
    %2 = arith.addi %0, %1 : i64
    %3 = arith.addi %2, %seed : i64
    %4 = arith.muli %3, %c : i64
    %5 = arith.andi %4, %mask : i64
    %6 = arith.shrui %5, %c16 : i64
    %7 = arith.andi %6, %c255 : i64
    return %7 : i64
  }

  // x[i, j] = (hash - 128) * 2^((i + 2 * (j / 128)) % 5) / 256, exact in
  // bf16: rows and groups get different magnitudes.
  func.func private @gen_x_384(%m: index, %seed: i64) -> tensor<?x384xbf16> {
    %x = tensor.generate %m {
    ^bb0(%i: index, %j: index):
      %h = func.call @hash_byte(%i, %j, %seed) : (index, index, i64) -> i64
      %ii = arith.index_cast %i : index to i64
      %jj = arith.index_cast %j : index to i64
      %c1 = arith.constant 1 : i64
      %c2 = arith.constant 2 : i64
      %c5 = arith.constant 5 : i64
      %c128 = arith.constant 128 : i64
      %jb = arith.divui %jj, %c128 : i64
      %jb2 = arith.muli %jb, %c2 : i64
      %sum = arith.addi %ii, %jb2 : i64
      %e = arith.remui %sum, %c5 : i64
      %p = arith.shli %c1, %e : i64
      %s = arith.subi %h, %c128 : i64
      %prod = arith.muli %s, %p : i64
      %f = arith.sitofp %prod : i64 to f32
      %c256 = arith.constant 256.0 : f32
      %d = arith.divf %f, %c256 : f32
      %v = arith.truncf %d : f32 to bf16
      tensor.yield %v : bf16
    } : tensor<?x384xbf16>
    return %x : tensor<?x384xbf16>
  }

  // FP8 weight bytes: sign, exponent 5..8 and mantissa from the hash.
  func.func private @gen_w_160x384(%seed: i64) -> tensor<160x384xf8E4M3FN> {
    %w = tensor.generate {
    ^bb0(%i: index, %j: index):
      %h = func.call @hash_byte(%i, %j, %seed) : (index, index, i64) -> i64
      %c1 = arith.constant 1 : i64
      %c3 = arith.constant 3 : i64
      %c5 = arith.constant 5 : i64
      %c7 = arith.constant 7 : i64
      %s5 = arith.shrui %h, %c5 : i64
      %sign = arith.andi %s5, %c1 : i64
      %s3 = arith.shrui %h, %c3 : i64
      %e0 = arith.andi %s3, %c3 : i64
      %e = arith.addi %e0, %c5 : i64
      %mant = arith.andi %h, %c7 : i64
      %sh7 = arith.shli %sign, %c7 : i64
      %sh3 = arith.shli %e, %c3 : i64
      %b0 = arith.ori %sh7, %sh3 : i64
      %b1 = arith.ori %b0, %mant : i64
      %byte = arith.trunci %b1 : i64 to i8
      %v = arith.bitcast %byte : i8 to f8E4M3FN
      tensor.yield %v : f8E4M3FN
    } : tensor<160x384xf8E4M3FN>
    return %w : tensor<160x384xf8E4M3FN>
  }

  // ws[i, j] = 2^-(4 + (i + j + seed) % 3).
  func.func private @gen_ws_2x3(%seed: i64) -> tensor<2x3xf32> {
    %ws = tensor.generate {
    ^bb0(%i: index, %j: index):
      %ii = arith.index_cast %i : index to i64
      %jj = arith.index_cast %j : index to i64
      %c1 = arith.constant 1 : i64
      %c3 = arith.constant 3 : i64
      %c4 = arith.constant 4 : i64
      %0 = arith.addi %ii, %jj : i64
      %1 = arith.addi %0, %seed : i64
      %2 = arith.remui %1, %c3 : i64
      %e = arith.addi %2, %c4 : i64
      %p = arith.shli %c1, %e : i64
      %pf = arith.sitofp %p : i64 to f32
      %one = arith.constant 1.0 : f32
      %v = arith.divf %one, %pf : f32
      tensor.yield %v : f32
    } : tensor<2x3xf32>
    return %ws : tensor<2x3xf32>
  }

  // Prints a bf16 [M, 160] result as f32 through printMemrefF32.
  func.func private @print_160(%o: tensor<?x160xbf16>) {
    %c0 = arith.constant 0 : index
    %m = tensor.dim %o, %c0 : tensor<?x160xbf16>
    %f = tensor.generate %m {
    ^bb0(%i: index, %j: index):
      %v = tensor.extract %o[%i, %j] : tensor<?x160xbf16>
      %e = arith.extf %v : bf16 to f32
      tensor.yield %e : f32
    } : tensor<?x160xf32>
    %b = bufferization.to_buffer %f : tensor<?x160xf32> to memref<?x160xf32>
    %u = memref.cast %b : memref<?x160xf32> to memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }

  func.func @main() {
    %m = arith.constant 5 : index
    %seed = arith.constant 7 : i64
    %wseed = arith.constant 17 : i64
    %x = func.call @gen_x_384(%m, %seed) : (index, i64) -> tensor<?x384xbf16>
    %w = func.call @gen_w_160x384(%wseed) : (i64) -> tensor<160x384xf8E4M3FN>
    %ws = func.call @gen_ws_2x3(%seed) : (i64) -> tensor<2x3xf32>
    %q, %s = fp8q.quantize %x : tensor<?x384xbf16> -> tensor<?x384xf8E4M3FN>, tensor<?x3xf32>
    %p = fp8q.preshuffle %w : tensor<160x384xf8E4M3FN> -> tensor<160x384xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
    %o_ck = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<ck>} : tensor<?x384xf8E4M3FN>, tensor<?x3xf32>, tensor<160x384xf8E4M3FN>, tensor<2x3xf32> -> tensor<?x160xbf16>
    func.call @print_160(%o_ck) : (tensor<?x160xbf16>) -> ()
    %o_triton = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<triton>} : tensor<?x384xf8E4M3FN>, tensor<?x3xf32>, tensor<160x384xf8E4M3FN>, tensor<2x3xf32> -> tensor<?x160xbf16>
    func.call @print_160(%o_triton) : (tensor<?x160xbf16>) -> ()
    %o_deepgemm = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<deepgemm>} : tensor<?x384xf8E4M3FN>, tensor<?x3xf32>, tensor<160x384xf8E4M3FN>, tensor<2x3xf32> -> tensor<?x160xbf16>
    func.call @print_160(%o_deepgemm) : (tensor<?x160xbf16>) -> ()
    %o_cublas = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<cublas>} : tensor<?x384xf8E4M3FN>, tensor<?x3xf32>, tensor<160x384xf8E4M3FN>, tensor<2x3xf32> -> tensor<?x160xbf16>
    func.call @print_160(%o_cublas) : (tensor<?x160xbf16>) -> ()
    %o_reference = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<reference>} : tensor<?x384xf8E4M3FN>, tensor<?x3xf32>, tensor<160x384xf8E4M3FN>, tensor<2x3xf32> -> tensor<?x160xbf16>
    func.call @print_160(%o_reference) : (tensor<?x160xbf16>) -> ()
    %o_ck_bpreshuffle = fp8q.gemm %q, %s, %p, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x384xf8E4M3FN>, tensor<?x3xf32>, tensor<160x384xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<2x3xf32> -> tensor<?x160xbf16>
    func.call @print_160(%o_ck_bpreshuffle) : (tensor<?x160xbf16>) -> ()
    return
  }
}
