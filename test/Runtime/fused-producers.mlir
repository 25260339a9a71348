// The fused producers are bit-exact with the unfused program on the CPU
// runtime, as MLIR lowers the unfused program (the host tail's passes:
// arith-expand with bf16, then convert-to-llvm): the residual add as
// arith.addf on bf16 (f16 through sed) before fp8q_rt_rms_norm_quantize, and
// SiLU x mul as extf, negf, math.exp, addf 1.0, divf, mulf in f32 before
// fp8q_rt_quantize_f32, against fp8q_rt_add_rms_norm_quantize /
// fp8q_rt_silu_mul_quantize. Infinities, NaNs (signed, with payloads),
// f16 overflow and exp over/underflow are part of the data; gate and up are
// the two column halves of one [M, 2K] buffer. Every byte of sum, q, scale
// and y is compared.
// Two NaNs of sum and y count as equal whatever their payloads: the unfused
// program's f32 -> bf16 truncation is the host's (vcvtneps2bf16 keeps the
// payload's high bits, LLVM's soft __truncsfbf2 on a CPU without
// AVX512-BF16, e.g. AMD Zen 3, returns the default NaN), while the fused
// call always keeps it; the fused bits are checked at the special elements.

// RUN: mlir-opt %s --convert-scf-to-cf --expand-strided-metadata \
// RUN:   --lower-affine --arith-expand="include-bf16=true" --convert-to-llvm \
// RUN:   --reconcile-unrealized-casts > %t.bf16.mlir
// RUN: mlir-runner %t.bf16.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%fp8q_libs/libfp8q_runtime_cpu.so,%llvm_libs/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s --check-prefixes=CHECK,BF16
// RUN: sed -e 's/bf16/f16/g' %s | mlir-opt --convert-scf-to-cf \
// RUN:   --expand-strided-metadata --lower-affine \
// RUN:   --arith-expand="include-bf16=true" --convert-to-llvm \
// RUN:   --reconcile-unrealized-casts > %t.f16.mlir
// RUN: mlir-runner %t.f16.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%fp8q_libs/libfp8q_runtime_cpu.so,%llvm_libs/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s --check-prefixes=CHECK,F16

// Status of the unfused and the fused calls, then the number of differing
// elements of sum, q, scale and y (add_rms_norm_quantize), then the bits of
// the sums at the special elements (inf + -inf: x86's default NaN; -NaN
// with a payload + r; r + a signaling NaN, quieted; 60000 + 10000: a bf16
// tie rounded to even, an f16 overflow to inf), then for silu: statuses,
// differing q and scale.
// CHECK-COUNT-6: {{^}}0{{$}}
// BF16-NEXT: {{^}}65472{{$}}
// BF16-NEXT: {{^}}65473{{$}}
// BF16-NEXT: {{^}}32705{{$}}
// BF16-NEXT: {{^}}18312{{$}}
// F16-NEXT: {{^}}65024{{$}}
// F16-NEXT: {{^}}65473{{$}}
// F16-NEXT: {{^}}32641{{$}}
// F16-NEXT: {{^}}31744{{$}}
// CHECK-COUNT-4: {{^}}0{{$}}
// CHECK-NOT: {{.}}

!act = memref<?x?xbf16, strided<[?, ?], offset: ?>>
!vec = memref<?xbf16, strided<[?], offset: ?>>
!q8 = memref<?x?xi8, strided<[?, ?], offset: ?>>
!f32m = memref<?x?xf32, strided<[?, ?], offset: ?>>

func.func private @fp8q_rt_rms_norm_quantize_bf16(!act, !vec, !q8, !f32m,
    !act, f32, i64, i32, i32) -> i32 attributes {llvm.emit_c_interface}
func.func private @fp8q_rt_add_rms_norm_quantize_bf16(!act, !act, !vec, !q8,
    !f32m, !act, !act, f32, i64, i32, i32) -> i32
    attributes {llvm.emit_c_interface}
func.func private @fp8q_rt_quantize_f32(!f32m, !q8, !f32m, i64, i32) -> i32
    attributes {llvm.emit_c_interface}
func.func private @fp8q_rt_silu_mul_quantize_bf16(!act, !act, !q8, !f32m, i64,
    i32) -> i32 attributes {llvm.emit_c_interface}
func.func private @printI64(i64)
func.func private @printNewline()

func.func @print(%v: i64) {
  func.call @printI64(%v) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @printStatus(%s: i32) {
  %v = arith.extsi %s : i32 to i64
  func.call @print(%v) : (i64) -> ()
  return
}

/// A deterministic value in about [-lim, lim] for element i.
func.func @value(%i: index, %mul: index, %mod: index, %step: f32) -> f32 {
  %c2 = arith.constant 2 : index
  %p = arith.muli %i, %mul : index
  %r = arith.remui %p, %mod : index
  %h = arith.divui %mod, %c2 : index
  %d = arith.subi %r, %h : index
  %di = arith.index_cast %d : index to i64
  %f = arith.sitofp %di : i64 to f32
  %v = arith.mulf %f, %step : f32
  return %v : f32
}

/// Element (m, k) of bits `b` (i16) as bf16.
func.func @setBits(%buf: memref<4x256xbf16>, %m: index, %k: index, %b: i16) {
  %v = arith.bitcast %b : i16 to bf16
  memref.store %v, %buf[%m, %k] : memref<4x256xbf16>
  return
}

func.func @setF32(%buf: memref<4x256xbf16>, %m: index, %k: index, %f: f32) {
  %v = arith.truncf %f : f32 to bf16
  memref.store %v, %buf[%m, %k] : memref<4x256xbf16>
  return
}

/// Prints the bits of element (m, k).
func.func @printBits(%buf: memref<4x256xbf16>, %m: index, %k: index) {
  %v = memref.load %buf[%m, %k] : memref<4x256xbf16>
  %b = arith.bitcast %v : bf16 to i16
  %e = arith.extui %b : i16 to i64
  func.call @print(%e) : (i64) -> ()
  return
}

/// Elements of a and b (bf16 [4, 256]) whose bits differ, unless both are
/// NaN.
func.func @diff16(%a: memref<4x256xbf16>, %b: memref<4x256xbf16>) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %n = scf.for %m = %c0 to %c4 step %c1 iter_args(%acc = %z) -> i64 {
    %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%a2 = %acc) -> i64 {
      %x = memref.load %a[%m, %k] : memref<4x256xbf16>
      %y = memref.load %b[%m, %k] : memref<4x256xbf16>
      %xb = arith.bitcast %x : bf16 to i16
      %yb = arith.bitcast %y : bf16 to i16
      %bitsNe = arith.cmpi ne, %xb, %yb : i16
      %xNan = arith.cmpf uno, %x, %x : bf16
      %yNan = arith.cmpf uno, %y, %y : bf16
      %bothNan = arith.andi %xNan, %yNan : i1
      %true = arith.constant true
      %notBoth = arith.xori %bothNan, %true : i1
      %ne = arith.andi %bitsNe, %notBoth : i1
      %inc = arith.select %ne, %one, %z : i64
      %s = arith.addi %a2, %inc : i64
      scf.yield %s : i64
    }
    scf.yield %r : i64
  }
  return %n : i64
}

func.func @diff8(%a: memref<4x256xi8>, %b: memref<4x256xi8>) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %n = scf.for %m = %c0 to %c4 step %c1 iter_args(%acc = %z) -> i64 {
    %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%a2 = %acc) -> i64 {
      %x = memref.load %a[%m, %k] : memref<4x256xi8>
      %y = memref.load %b[%m, %k] : memref<4x256xi8>
      %ne = arith.cmpi ne, %x, %y : i8
      %inc = arith.select %ne, %one, %z : i64
      %s = arith.addi %a2, %inc : i64
      scf.yield %s : i64
    }
    scf.yield %r : i64
  }
  return %n : i64
}

func.func @diffScale(%a: memref<4x2xf32>, %b: memref<4x2xf32>) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %n = scf.for %m = %c0 to %c4 step %c1 iter_args(%acc = %z) -> i64 {
    %r = scf.for %g = %c0 to %c2 step %c1 iter_args(%a2 = %acc) -> i64 {
      %x = memref.load %a[%m, %g] : memref<4x2xf32>
      %y = memref.load %b[%m, %g] : memref<4x2xf32>
      %xb = arith.bitcast %x : f32 to i32
      %yb = arith.bitcast %y : f32 to i32
      %ne = arith.cmpi ne, %xb, %yb : i32
      %inc = arith.select %ne, %one, %z : i64
      %s = arith.addi %a2, %inc : i64
      scf.yield %s : i64
    }
    scf.yield %r : i64
  }
  return %n : i64
}

func.func @act(%b: memref<4x256xbf16>) -> !act {
  %r = memref.cast %b : memref<4x256xbf16> to !act
  return %r : !act
}
func.func @q8(%b: memref<4x256xi8>) -> !q8 {
  %r = memref.cast %b : memref<4x256xi8> to !q8
  return %r : !q8
}
func.func @sc(%b: memref<4x2xf32>) -> !f32m {
  %r = memref.cast %b : memref<4x2xf32> to !f32m
  return %r : !f32m
}

func.func @residualAdd() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %x = memref.alloc() : memref<4x256xbf16>
  %r = memref.alloc() : memref<4x256xbf16>
  %gamma = memref.alloc() : memref<256xbf16>
  %m37 = arith.constant 37 : index
  %m53 = arith.constant 53 : index
  %m13 = arith.constant 13 : index
  %d97 = arith.constant 97 : index
  %d89 = arith.constant 89 : index
  %d7 = arith.constant 7 : index
  %sx = arith.constant 0.0371 : f32
  %sr = arith.constant 0.0173 : f32
  %sg = arith.constant 0.05 : f32
  %one = arith.constant 1.0 : f32
  scf.for %m = %c0 to %c4 step %c1 {
    scf.for %k = %c0 to %c256 step %c1 {
      %i0 = arith.muli %m, %c256 : index
      %i = arith.addi %i0, %k : index
      %xv = func.call @value(%i, %m37, %d97, %sx)
          : (index, index, index, f32) -> f32
      %rv = func.call @value(%i, %m53, %d89, %sr)
          : (index, index, index, f32) -> f32
      func.call @setF32(%x, %m, %k, %xv)
          : (memref<4x256xbf16>, index, index, f32) -> ()
      func.call @setF32(%r, %m, %k, %rv)
          : (memref<4x256xbf16>, index, index, f32) -> ()
    }
  }
  scf.for %k = %c0 to %c256 step %c1 {
    %gv = func.call @value(%k, %m13, %d7, %sg)
        : (index, index, index, f32) -> f32
    %g1 = arith.addf %gv, %one : f32
    %g = arith.truncf %g1 : f32 to bf16
    memref.store %g, %gamma[%k] : memref<256xbf16>
  }
  // Rows 1 and 2: inf + -inf, signed NaNs with payloads, a signaling
  // pattern, and (f16) a sum that overflows to inf. Rows 0 and 3 are finite.
  %inf = arith.constant 0x7F800000 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %big = arith.constant 60000.0 : f32
  %big2 = arith.constant 10000.0 : f32
  %c5 = arith.constant 5 : index
  %c9 = arith.constant 9 : index
  %c100 = arith.constant 100 : index
  %c200 = arith.constant 200 : index
  func.call @setF32(%x, %c1, %c5, %inf) : (memref<4x256xbf16>, index, index, f32) -> ()
  func.call @setF32(%r, %c1, %c5, %ninf) : (memref<4x256xbf16>, index, index, f32) -> ()
  %nnan = arith.constant -63 : i16      // 0xFFC1
  %snan = arith.constant 32641 : i16    // 0x7F81
  func.call @setBits(%x, %c1, %c9, %nnan) : (memref<4x256xbf16>, index, index, i16) -> ()
  func.call @setBits(%r, %c2, %c9, %snan) : (memref<4x256xbf16>, index, index, i16) -> ()
  func.call @setF32(%x, %c2, %c100, %big) : (memref<4x256xbf16>, index, index, f32) -> ()
  func.call @setF32(%r, %c2, %c100, %big2) : (memref<4x256xbf16>, index, index, f32) -> ()
  func.call @setF32(%x, %c2, %c200, %ninf) : (memref<4x256xbf16>, index, index, f32) -> ()

  // Unfused: the add as the host lowers arith.addf on bf16, then the norm.
  %sumU = memref.alloc() : memref<4x256xbf16>
  scf.for %m = %c0 to %c4 step %c1 {
    scf.for %k = %c0 to %c256 step %c1 {
      %a = memref.load %x[%m, %k] : memref<4x256xbf16>
      %b = memref.load %r[%m, %k] : memref<4x256xbf16>
      %s = arith.addf %a, %b : bf16
      memref.store %s, %sumU[%m, %k] : memref<4x256xbf16>
    }
  }
  %qU = memref.alloc() : memref<4x256xi8>
  %sU = memref.alloc() : memref<4x2xf32>
  %yU = memref.alloc() : memref<4x256xbf16>
  %qF = memref.alloc() : memref<4x256xi8>
  %sF = memref.alloc() : memref<4x2xf32>
  %yF = memref.alloc() : memref<4x256xbf16>
  %sumF = memref.alloc() : memref<4x256xbf16>
  %eps = arith.constant 1.0e-6 : f32
  %g128 = arith.constant 128 : i64
  %e4m3 = arith.constant 0 : i32
  %keep = arith.constant 1 : i32
  %gammaD = memref.cast %gamma : memref<256xbf16> to !vec
  %sumUD = func.call @act(%sumU) : (memref<4x256xbf16>) -> !act
  %qUD = func.call @q8(%qU) : (memref<4x256xi8>) -> !q8
  %sUD = func.call @sc(%sU) : (memref<4x2xf32>) -> !f32m
  %yUD = func.call @act(%yU) : (memref<4x256xbf16>) -> !act
  %st0 = func.call @fp8q_rt_rms_norm_quantize_bf16(%sumUD, %gammaD, %qUD,
      %sUD, %yUD, %eps, %g128, %e4m3, %keep)
      : (!act, !vec, !q8, !f32m, !act, f32, i64, i32, i32) -> i32
  %xD = func.call @act(%x) : (memref<4x256xbf16>) -> !act
  %rD = func.call @act(%r) : (memref<4x256xbf16>) -> !act
  %qFD = func.call @q8(%qF) : (memref<4x256xi8>) -> !q8
  %sFD = func.call @sc(%sF) : (memref<4x2xf32>) -> !f32m
  %yFD = func.call @act(%yF) : (memref<4x256xbf16>) -> !act
  %sumFD = func.call @act(%sumF) : (memref<4x256xbf16>) -> !act
  %st1 = func.call @fp8q_rt_add_rms_norm_quantize_bf16(%xD, %rD, %gammaD,
      %qFD, %sFD, %yFD, %sumFD, %eps, %g128, %e4m3, %keep)
      : (!act, !act, !vec, !q8, !f32m, !act, !act, f32, i64, i32, i32) -> i32
  func.call @printStatus(%st0) : (i32) -> ()
  func.call @printStatus(%st1) : (i32) -> ()
  %d0 = func.call @diff16(%sumU, %sumF)
      : (memref<4x256xbf16>, memref<4x256xbf16>) -> i64
  %d1 = func.call @diff8(%qU, %qF) : (memref<4x256xi8>, memref<4x256xi8>) -> i64
  %d2 = func.call @diffScale(%sU, %sF) : (memref<4x2xf32>, memref<4x2xf32>) -> i64
  %d3 = func.call @diff16(%yU, %yF)
      : (memref<4x256xbf16>, memref<4x256xbf16>) -> i64
  func.call @print(%d0) : (i64) -> ()
  func.call @print(%d1) : (i64) -> ()
  func.call @print(%d2) : (i64) -> ()
  func.call @print(%d3) : (i64) -> ()
  func.call @printBits(%sumF, %c1, %c5)
      : (memref<4x256xbf16>, index, index) -> ()
  func.call @printBits(%sumF, %c1, %c9)
      : (memref<4x256xbf16>, index, index) -> ()
  func.call @printBits(%sumF, %c2, %c9)
      : (memref<4x256xbf16>, index, index) -> ()
  func.call @printBits(%sumF, %c2, %c100)
      : (memref<4x256xbf16>, index, index) -> ()
  return
}

func.func @siluMul() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  %gu = memref.alloc() : memref<4x512xbf16>
  %m41 = arith.constant 41 : index
  %d113 = arith.constant 113 : index
  %s = arith.constant 0.11 : f32
  scf.for %m = %c0 to %c4 step %c1 {
    scf.for %k = %c0 to %c512 step %c1 {
      %i0 = arith.muli %m, %c512 : index
      %i = arith.addi %i0, %k : index
      %v = func.call @value(%i, %m41, %d113, %s)
          : (index, index, index, f32) -> f32
      %b = arith.truncf %v : f32 to bf16
      memref.store %b, %gu[%m, %k] : memref<4x512xbf16>
    }
  }
  // Gates whose exp overflows (-100) or underflows (+100), infinities and
  // a NaN (rows 1 and 2; rows 0 and 3 are finite and moderate).
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %c130 = arith.constant 130 : index
  %vneg = arith.constant -100.0 : f32
  %vpos = arith.constant 100.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %nan = arith.constant -63 : i16
  %bneg = arith.truncf %vneg : f32 to bf16
  %bpos = arith.truncf %vpos : f32 to bf16
  %binf = arith.truncf %inf : f32 to bf16
  %bninf = arith.truncf %ninf : f32 to bf16
  %bnan = arith.bitcast %nan : i16 to bf16
  memref.store %bneg, %gu[%c1, %c3] : memref<4x512xbf16>
  memref.store %bpos, %gu[%c1, %c7] : memref<4x512xbf16>
  memref.store %binf, %gu[%c2, %c3] : memref<4x512xbf16>
  memref.store %bninf, %gu[%c2, %c130] : memref<4x512xbf16>
  memref.store %bnan, %gu[%c2, %c11] : memref<4x512xbf16>
  %gate = memref.subview %gu[0, 0] [4, 256] [1, 1]
      : memref<4x512xbf16> to memref<4x256xbf16, strided<[512, 1]>>
  %up = memref.subview %gu[0, 256] [4, 256] [1, 1]
      : memref<4x512xbf16> to memref<4x256xbf16, strided<[512, 1], offset: 256>>

  // Unfused: a in f32, exactly as the model builds it, then quantize_f32.
  %a = memref.alloc() : memref<4x256xf32>
  %one = arith.constant 1.0 : f32
  scf.for %m = %c0 to %c4 step %c1 {
    scf.for %k = %c0 to %c256 step %c1 {
      %gb = memref.load %gate[%m, %k] : memref<4x256xbf16, strided<[512, 1]>>
      %ub = memref.load %up[%m, %k]
          : memref<4x256xbf16, strided<[512, 1], offset: 256>>
      %g = arith.extf %gb : bf16 to f32
      %u = arith.extf %ub : bf16 to f32
      %ng = arith.negf %g : f32
      %t = math.exp %ng : f32
      %d = arith.addf %one, %t : f32
      %sl = arith.divf %g, %d : f32
      %av = arith.mulf %sl, %u : f32
      memref.store %av, %a[%m, %k] : memref<4x256xf32>
    }
  }
  %qU = memref.alloc() : memref<4x256xi8>
  %sU = memref.alloc() : memref<4x2xf32>
  %qF = memref.alloc() : memref<4x256xi8>
  %sF = memref.alloc() : memref<4x2xf32>
  %g128 = arith.constant 128 : i64
  %e4m3 = arith.constant 0 : i32
  %aD = memref.cast %a : memref<4x256xf32> to !f32m
  %qUD = func.call @q8(%qU) : (memref<4x256xi8>) -> !q8
  %sUD = func.call @sc(%sU) : (memref<4x2xf32>) -> !f32m
  %st0 = func.call @fp8q_rt_quantize_f32(%aD, %qUD, %sUD, %g128, %e4m3)
      : (!f32m, !q8, !f32m, i64, i32) -> i32
  %gD = memref.cast %gate : memref<4x256xbf16, strided<[512, 1]>> to !act
  %uD = memref.cast %up
      : memref<4x256xbf16, strided<[512, 1], offset: 256>> to !act
  %qFD = func.call @q8(%qF) : (memref<4x256xi8>) -> !q8
  %sFD = func.call @sc(%sF) : (memref<4x2xf32>) -> !f32m
  %st1 = func.call @fp8q_rt_silu_mul_quantize_bf16(%gD, %uD, %qFD, %sFD,
      %g128, %e4m3) : (!act, !act, !q8, !f32m, i64, i32) -> i32
  func.call @printStatus(%st0) : (i32) -> ()
  func.call @printStatus(%st1) : (i32) -> ()
  %d1 = func.call @diff8(%qU, %qF) : (memref<4x256xi8>, memref<4x256xi8>) -> i64
  %d2 = func.call @diffScale(%sU, %sF) : (memref<4x2xf32>, memref<4x2xf32>) -> i64
  func.call @print(%d1) : (i64) -> ()
  func.call @print(%d2) : (i64) -> ()
  return
}

func.func @main() {
  func.call @residualAdd() : () -> ()
  func.call @siluMul() : () -> ()
  return
}
