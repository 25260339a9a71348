// Calls the runtime ABI (include/fp8q/Runtime/fp8q_runtime.h) from
// hand-written memref IR through llvm.emit_c_interface, as
// --fp8q-lower-to-runtime does: descriptors carry the real strides, a
// column-major scale written by materialize is what ck_bpreshuffle reads,
// and a row-major scale handed to ck_bpreshuffle stops the program (checked)
// or is read scrambled (FP8Q_RT_UNCHECKED=1).

// RUN: mlir-opt %s --pass-pipeline="builtin.module(convert-linalg-to-loops,convert-scf-to-cf,convert-to-llvm,reconcile-unrealized-casts)" -o %t.ll.mlir
// RUN: mlir-runner %t.ll.mlir -e main -entry-point-result=void -shared-libs=%fp8q_libs/libfp8q_runtime_cpu.so,%llvm_libs/libmlir_runner_utils.so,%llvm_libs/libmlir_c_runner_utils.so | FileCheck %s --check-prefix=GOOD
// RUN: not mlir-runner %t.ll.mlir -e main_bad -entry-point-result=void -shared-libs=%fp8q_libs/libfp8q_runtime_cpu.so,%llvm_libs/libmlir_runner_utils.so,%llvm_libs/libmlir_c_runner_utils.so 2>&1 | FileCheck %s --check-prefix=CHECKED
// RUN: env FP8Q_RT_UNCHECKED=1 mlir-runner %t.ll.mlir -e main_bad -entry-point-result=void -shared-libs=%fp8q_libs/libfp8q_runtime_cpu.so,%llvm_libs/libmlir_runner_utils.so,%llvm_libs/libmlir_c_runner_utils.so 2>&1 | FileCheck %s --check-prefix=UNCHECKED

// GOOD: status 0
// GOOD-NEXT: mismatches 0
// GOOD-NEXT: nonzero {{[1-9][0-9]*}}

// CHECKED: fp8q runtime error: fp8q_rt_gemm: operand x_scale of kernel ck_bpreshuffle must be col_major (strides (1, 4)) but has strides (2, 1) [M=4, G=2]
// CHECKED-NOT: mismatches

// UNCHECKED: fp8q runtime warning: fp8q_rt_gemm: operand x_scale of kernel ck_bpreshuffle must be col_major (strides (1, 4)) but has strides (2, 1)
// UNCHECKED: status 0
// UNCHECKED-NEXT: mismatches {{[1-9][0-9]*}}

!f32d = memref<?x?xf32, strided<[?, ?], offset: ?>>
!f8d = memref<?x?xf8E4M3FN, strided<[?, ?], offset: ?>>
!bf16d = memref<?x?xbf16, strided<[?, ?], offset: ?>>

func.func private @fp8q_rt_quantize_f32(!f32d, !f8d, !f32d, i64, i32) -> i32 attributes {llvm.emit_c_interface}
func.func private @fp8q_rt_materialize(!f32d, !f32d) -> i32 attributes {llvm.emit_c_interface}
func.func private @fp8q_rt_preshuffle(!f8d, !f8d) -> i32 attributes {llvm.emit_c_interface}
func.func private @fp8q_rt_gemm(!f8d, !f32d, !f8d, !f32d, !bf16d, i32, i32, i32) -> i32 attributes {llvm.emit_c_interface}

// Fills a [R, C] f32 buffer with ((i * 7 + j * 3) mod 17 - 8) * (i + 1) / 8.
func.func @fill(%m: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = memref.dim %m, %c0 : memref<?x?xf32>
  %c = memref.dim %m, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %r step %c1 {
    scf.for %j = %c0 to %c step %c1 {
      %ii = arith.index_cast %i : index to i32
      %jj = arith.index_cast %j : index to i32
      %c7 = arith.constant 7 : i32
      %c3 = arith.constant 3 : i32
      %c17 = arith.constant 17 : i32
      %c8 = arith.constant 8 : i32
      %one = arith.constant 1 : i32
      %a = arith.muli %ii, %c7 : i32
      %b = arith.muli %jj, %c3 : i32
      %s = arith.addi %a, %b : i32
      %md = arith.remui %s, %c17 : i32
      %v = arith.subi %md, %c8 : i32
      %ip = arith.addi %ii, %one : i32
      %vv = arith.muli %v, %ip : i32
      %f = arith.sitofp %vv : i32 to f32
      %eighth = arith.constant 0.125 : f32
      %ff = arith.mulf %f, %eighth : f32
      memref.store %ff, %m[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

// Counts elements whose bits differ between two [M, N] bf16 buffers.
func.func @mismatches(%a: memref<4x32xbf16>, %b: memref<4x32xbf16>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %n = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %c0) -> index {
    %n2 = scf.for %j = %c0 to %c32 step %c1 iter_args(%acc2 = %acc) -> index {
      %x = memref.load %a[%i, %j] : memref<4x32xbf16>
      %y = memref.load %b[%i, %j] : memref<4x32xbf16>
      %xi = arith.bitcast %x : bf16 to i16
      %yi = arith.bitcast %y : bf16 to i16
      %ne = arith.cmpi ne, %xi, %yi : i16
      %inc = arith.addi %acc2, %c1 : index
      %r = arith.select %ne, %inc, %acc2 : index
      scf.yield %r : index
    }
    scf.yield %n2 : index
  }
  return %n : index
}

// Quantizes x [4, 256] (row-major scale) and w [32, 256], then runs the
// reference kernel and ck_bpreshuffle. With %bad, ck_bpreshuffle gets the
// row-major scale instead of the column-major one.
func.func @run(%bad: i1) {
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %g = arith.constant 128 : i64
  %fn = arith.constant 0 : i32
  %kref = arith.constant 5 : i32
  %kck = arith.constant 0 : i32
  %plain = arith.constant 0 : i32
  %shuf = arith.constant 1 : i32
  %x = memref.alloc(%c4, %c256) : memref<?x?xf32>
  %w = memref.alloc(%c32, %c256) : memref<?x?xf32>
  func.call @fill(%x) : (memref<?x?xf32>) -> ()
  func.call @fill(%w) : (memref<?x?xf32>) -> ()
  %q = memref.alloc() : memref<4x256xf8E4M3FN>
  %xs = memref.alloc() : memref<4x2xf32>
  %wq = memref.alloc() : memref<32x256xf8E4M3FN>
  %wrs = memref.alloc() : memref<32x2xf32>
  %wp = memref.alloc() : memref<32x256xf8E4M3FN>
  %ws = memref.alloc() : memref<1x2xf32>
  %one = arith.constant 0.5 : f32
  linalg.fill ins(%one : f32) outs(%ws : memref<1x2xf32>)
  %xsflat = memref.alloc() : memref<8xf32>
  %xsc = memref.reinterpret_cast %xsflat to offset: [0], sizes: [4, 2], strides: [1, 4] : memref<8xf32> to memref<4x2xf32, strided<[1, 4]>>
  %oref = memref.alloc() : memref<4x32xbf16>
  %ock = memref.alloc() : memref<4x32xbf16>

  %xd = memref.cast %x : memref<?x?xf32> to !f32d
  %wd = memref.cast %w : memref<?x?xf32> to !f32d
  %qd = memref.cast %q : memref<4x256xf8E4M3FN> to !f8d
  %xsd = memref.cast %xs : memref<4x2xf32> to !f32d
  %wqd = memref.cast %wq : memref<32x256xf8E4M3FN> to !f8d
  %wrsd = memref.cast %wrs : memref<32x2xf32> to !f32d
  %wpd = memref.cast %wp : memref<32x256xf8E4M3FN> to !f8d
  %wsd = memref.cast %ws : memref<1x2xf32> to !f32d
  %xscd = memref.cast %xsc : memref<4x2xf32, strided<[1, 4]>> to !f32d
  %orefd = memref.cast %oref : memref<4x32xbf16> to !bf16d
  %ockd = memref.cast %ock : memref<4x32xbf16> to !bf16d

  %s0 = func.call @fp8q_rt_quantize_f32(%xd, %qd, %xsd, %g, %fn) : (!f32d, !f8d, !f32d, i64, i32) -> i32
  %s1 = func.call @fp8q_rt_quantize_f32(%wd, %wqd, %wrsd, %g, %fn) : (!f32d, !f8d, !f32d, i64, i32) -> i32
  %s2 = func.call @fp8q_rt_preshuffle(%wqd, %wpd) : (!f8d, !f8d) -> i32
  %s3 = func.call @fp8q_rt_materialize(%xsd, %xscd) : (!f32d, !f32d) -> i32
  %s4 = func.call @fp8q_rt_gemm(%qd, %xsd, %wqd, %wsd, %orefd, %kref, %fn, %plain) : (!f8d, !f32d, !f8d, !f32d, !bf16d, i32, i32, i32) -> i32
  %xsk = arith.select %bad, %xsd, %xscd : !f32d
  %s5 = func.call @fp8q_rt_gemm(%qd, %xsk, %wpd, %wsd, %ockd, %kck, %fn, %shuf) : (!f8d, !f32d, !f8d, !f32d, !bf16d, i32, i32, i32) -> i32
  vector.print str "status "
  vector.print %s5 : i32
  %n = func.call @mismatches(%oref, %ock) : (memref<4x32xbf16>, memref<4x32xbf16>) -> index
  vector.print str "mismatches "
  vector.print %n : index
  %zero = memref.alloc() : memref<4x32xbf16>
  %z = arith.constant 0.0 : bf16
  linalg.fill ins(%z : bf16) outs(%zero : memref<4x32xbf16>)
  %nz = func.call @mismatches(%oref, %zero) : (memref<4x32xbf16>, memref<4x32xbf16>) -> index
  vector.print str "nonzero "
  vector.print %nz : index
  return
}

func.func @main() {
  %f = arith.constant false
  func.call @run(%f) : (i1) -> ()
  return
}

func.func @main_bad() {
  %t = arith.constant true
  func.call @run(%t) : (i1) -> ()
  return
}
