// A small GEMM compiled for gfx950 / ROCm 7.2 and run on the CPU runtime,
// checked against an independent double-precision reference
// (Inputs/fp8q_ref.py recomputes the program from the same hashes).
// Kernel selection picks ck_bpreshuffle and preshuffles the weight;
// propagation fuses the column-major scale write into the quantize, so no
// materialization reaches the runtime.
//
// RUN: fp8q-opt %s --fp8q-pipeline | FileCheck %s --check-prefix=IR
// RUN: fp8q-opt %s --fp8q-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%fp8q_libs/libfp8q_runtime_cpu.so,%llvm_libs/libmlir_c_runner_utils.so,%llvm_libs/libmlir_runner_utils.so \
// RUN:   | %python %S/Inputs/fp8q_ref.py --m 5 --k 256 --n 32 --seed 3 | FileCheck %s
//
// IR-DAG: llvm.func @_mlir_ciface_fp8q_rt_quantize_bf16(!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i32) -> i32
// IR-DAG: llvm.func @_mlir_ciface_fp8q_rt_preshuffle(!llvm.ptr, !llvm.ptr) -> i32
// IR-DAG: llvm.func @_mlir_ciface_fp8q_rt_gemm(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32) -> i32
// IR-NOT: fp8q_rt_materialize
// IR-NOT: fp8q.
//
// CHECK: M=5 output 0: elements=160 mismatches=0
// CHECK-NEXT: PASS

module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
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
  func.func private @gen_x_256(%m: index, %seed: i64) -> tensor<?x256xbf16> {
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
    } : tensor<?x256xbf16>
    return %x : tensor<?x256xbf16>
  }

  // FP8 weight bytes: sign, exponent 5..8 and mantissa from the hash.
  func.func private @gen_w_32x256(%seed: i64) -> tensor<32x256xf8E4M3FN> {
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
    } : tensor<32x256xf8E4M3FN>
    return %w : tensor<32x256xf8E4M3FN>
  }

  // ws[i, j] = 2^-(4 + (i + j + seed) % 3).
  func.func private @gen_ws_1x2(%seed: i64) -> tensor<1x2xf32> {
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
    } : tensor<1x2xf32>
    return %ws : tensor<1x2xf32>
  }

  // Prints a bf16 [M, 32] result as f32 through printMemrefF32.
  func.func private @print_32(%o: tensor<?x32xbf16>) {
    %c0 = arith.constant 0 : index
    %m = tensor.dim %o, %c0 : tensor<?x32xbf16>
    %f = tensor.generate %m {
    ^bb0(%i: index, %j: index):
      %v = tensor.extract %o[%i, %j] : tensor<?x32xbf16>
      %e = arith.extf %v : bf16 to f32
      tensor.yield %e : f32
    } : tensor<?x32xf32>
    %b = bufferization.to_buffer %f : tensor<?x32xf32> to memref<?x32xf32>
    %u = memref.cast %b : memref<?x32xf32> to memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }

  func.func @main() {
    %m = arith.constant 5 : index
    %seed = arith.constant 3 : i64
    %wseed = arith.constant 13 : i64
    %x = func.call @gen_x_256(%m, %seed) : (index, i64) -> tensor<?x256xbf16>
    %w = func.call @gen_w_32x256(%wseed) : (i64) -> tensor<32x256xf8E4M3FN>
    %ws = func.call @gen_ws_1x2(%seed) : (i64) -> tensor<1x2xf32>
    %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
    %o = fp8q.gemm %q, %s, %w, %ws : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<32x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x32xbf16>
    func.call @print_32(%o) : (tensor<?x32xbf16>) -> ()
    return
  }
}
