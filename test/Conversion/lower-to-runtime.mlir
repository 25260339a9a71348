// RUN: fp8q-opt %s -split-input-file --fp8q-lower-to-runtime -verify-diagnostics | FileCheck %s

// Every fp8q.buffer.* op becomes one call of the runtime ABI; memrefs are
// cast to the fully dynamic strided form so their strides travel. fp8
// operands are declared as bytes (i8) whatever their flavour: the flavour
// travels only in the fp8_type argument.

// CHECK-LABEL: module
// CHECK-DAG: func.func private @fp8q_rt_quantize_bf16(memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xi8, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64, i32) -> i32 attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @fp8q_rt_gemm(memref<?x?xi8, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xi8, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, i32, i32, i32) -> i32 attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @fp8q_rt_materialize(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> i32 attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @fp8q_rt_preshuffle(
// CHECK-LABEL: func.func @chain
func.func @chain(%x: memref<?x256xbf16>, %q: memref<?x256xf8E4M3FN>,
                 %s: memref<?x2xf32>, %sc: memref<?x2xf32, strided<[1, ?]>>,
                 %w: memref<32x256xf8E4M3FN>, %p: memref<32x256xf8E4M3FN>,
                 %ws: memref<1x2xf32>, %o: memref<?x32xbf16>) {
  // CHECK: %[[X:.*]] = memref.cast %arg0 : memref<?x256xbf16> to memref<?x?xbf16, strided<[?, ?], offset: ?>>
  // CHECK: %[[Q:.*]] = memref.cast %arg1 : memref<?x256xf8E4M3FN> to memref<?x?xf8E4M3FN, strided<[?, ?], offset: ?>>
  // CHECK: %[[QB:.*]] = builtin.unrealized_conversion_cast %[[Q]] : memref<?x?xf8E4M3FN, strided<[?, ?], offset: ?>> to memref<?x?xi8, strided<[?, ?], offset: ?>>
  // CHECK: %[[S:.*]] = memref.cast %arg2 : memref<?x2xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  // CHECK: call @fp8q_rt_quantize_bf16(%[[X]], %[[QB]], %[[S]], %c128_i64, %c0_i32)
  fp8q.buffer.quantize %x, %q, %s {group_size = 128 : i64} : memref<?x256xbf16>, memref<?x256xf8E4M3FN>, memref<?x2xf32>
  // CHECK: %[[SC:.*]] = memref.cast %arg3 : memref<?x2xf32, strided<[1, ?]>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  // CHECK: call @fp8q_rt_materialize(%{{.*}}, %[[SC]])
  fp8q.buffer.materialize %s, %sc : memref<?x2xf32>, memref<?x2xf32, strided<[1, ?]>>
  // CHECK: call @fp8q_rt_preshuffle
  fp8q.buffer.preshuffle %w, %p : memref<32x256xf8E4M3FN>, memref<32x256xf8E4M3FN>
  // Kernel ck_bpreshuffle = 0, fp8 E4M3FN = 0, weight layout preshuffle = 1.
  // CHECK-DAG: %[[K0:.*]] = arith.constant 0 : i32
  // CHECK-DAG: %[[WL:.*]] = arith.constant 1 : i32
  // CHECK: call @fp8q_rt_gemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[K0]], %{{.*}}, %[[WL]])
  fp8q.buffer.gemm %q, %sc, %p, %ws, %o {kernel = #fp8q.kernel<ck_bpreshuffle>, w_layout = #fp8q.weight_layout<preshuffle_16x16>} : memref<?x256xf8E4M3FN>, memref<?x2xf32, strided<[1, ?]>>, memref<32x256xf8E4M3FN>, memref<1x2xf32>, memref<?x32xbf16>
  // CHECK-NOT: fp8q.buffer
  return
}

// -----

// rms_norm_quantize without the unquantized output passes x for y with
// keep_unquantized = 0; E4M3FNUZ is fp8 type 1; ck is kernel 1.
// CHECK-LABEL: func.func @norm_fnuz
func.func @norm_fnuz(%x: memref<4x256xf16>, %g: memref<256xf16>, %q: memref<4x256xf8E4M3FNUZ>,
                     %s: memref<4x2xf32>, %w: memref<32x256xf8E4M3FNUZ>, %ws: memref<1x2xf32>,
                     %o: memref<4x32xbf16>) {
  // CHECK: %[[X:.*]] = memref.cast %arg0
  // CHECK: %[[G:.*]] = memref.cast %arg1 : memref<256xf16> to memref<?xf16, strided<[?], offset: ?>>
  // CHECK: call @fp8q_rt_rms_norm_quantize_f16(%[[X]], %[[G]], %{{.*}}, %{{.*}}, %[[X]], %{{.*}}, %c128_i64, %c1_i32, %c0_i32)
  fp8q.buffer.rms_norm_quantize %x, %g, %q, %s {epsilon = 1.0e-5 : f32, group_size = 128 : i64} : memref<4x256xf16>, memref<256xf16>, memref<4x256xf8E4M3FNUZ>, memref<4x2xf32>
  // CHECK: call @fp8q_rt_gemm({{.*}}, %c1_i32{{.*}}, %c1_i32{{.*}}, %c0_i32{{.*}})
  fp8q.buffer.gemm %q, %s, %w, %ws, %o {kernel = #fp8q.kernel<ck>} : memref<4x256xf8E4M3FNUZ>, memref<4x2xf32>, memref<32x256xf8E4M3FNUZ>, memref<1x2xf32>, memref<4x32xbf16>
  return
}

// -----

// Both flavours in one module share one declaration per symbol (fp8 as
// bytes); the fp8_type argument tells them apart.
// CHECK-LABEL: module
// CHECK: func.func private @fp8q_rt_quantize_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xi8, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64, i32) -> i32
// CHECK-NOT: func.func private @fp8q_rt_quantize_f32
// CHECK-LABEL: func.func @flavours
// CHECK: call @fp8q_rt_quantize_f32({{.*}}, %c0_i32)
// CHECK: call @fp8q_rt_quantize_f32({{.*}}, %c1_i32)
func.func @flavours(%x: memref<4x256xf32>, %q: memref<4x256xf8E4M3FN>, %r: memref<4x256xf8E4M3FNUZ>, %s: memref<4x2xf32>) {
  fp8q.buffer.quantize %x, %q, %s : memref<4x256xf32>, memref<4x256xf8E4M3FN>, memref<4x2xf32>
  fp8q.buffer.quantize %x, %r, %s : memref<4x256xf32>, memref<4x256xf8E4M3FNUZ>, memref<4x2xf32>
  return
}

// -----

// A declaration the module already has may type fp8 operands with their
// flavour: the call bridges the element type.
// CHECK-LABEL: func.func private @fp8q_rt_preshuffle(memref<?x?xf8E4M3FNUZ, strided<[?, ?], offset: ?>>, memref<?x?xf8E4M3FNUZ, strided<[?, ?], offset: ?>>) -> i32
func.func private @fp8q_rt_preshuffle(memref<?x?xf8E4M3FNUZ, strided<[?, ?], offset: ?>>, memref<?x?xf8E4M3FNUZ, strided<[?, ?], offset: ?>>) -> i32
// CHECK-LABEL: func.func @declared
// CHECK: %[[W:.*]] = memref.cast %arg0
// CHECK: %[[WB:.*]] = builtin.unrealized_conversion_cast %[[W]] : memref<?x?xf8E4M3FN, strided<[?, ?], offset: ?>> to memref<?x?xi8, strided<[?, ?], offset: ?>>
// CHECK: %[[WD:.*]] = builtin.unrealized_conversion_cast %[[WB]] : memref<?x?xi8, strided<[?, ?], offset: ?>> to memref<?x?xf8E4M3FNUZ, strided<[?, ?], offset: ?>>
// CHECK: call @fp8q_rt_preshuffle(%[[WD]],
func.func @declared(%w: memref<32x256xf8E4M3FN>, %p: memref<32x256xf8E4M3FN>) {
  fp8q.buffer.preshuffle %w, %p : memref<32x256xf8E4M3FN>, memref<32x256xf8E4M3FN>
  return
}

// -----

func.func @no_kernel(%q: memref<4x256xf8E4M3FN>, %s: memref<4x2xf32>, %w: memref<32x256xf8E4M3FN>,
                     %ws: memref<1x2xf32>, %o: memref<4x32xbf16>) {
  // expected-error @below {{'fp8q.buffer.gemm' op has no kernel; run --fp8q-select-kernels or name one with kernel = #fp8q.kernel<...> before lowering to the runtime}}
  fp8q.buffer.gemm %q, %s, %w, %ws, %o : memref<4x256xf8E4M3FN>, memref<4x2xf32>, memref<32x256xf8E4M3FN>, memref<1x2xf32>, memref<4x32xbf16>
  return
}

// -----

// expected-note @below {{defined here}}
func.func private @fp8q_rt_materialize(i32)

func.func @clash(%a: memref<4x2xf32>, %b: memref<4x2xf32, strided<[1, 4]>>) {
  // expected-error @below {{cannot call runtime entry point @fp8q_rt_materialize: the module already defines that symbol with an incompatible signature}}
  fp8q.buffer.materialize %a, %b : memref<4x2xf32>, memref<4x2xf32, strided<[1, 4]>>
  return
}

// -----

// The fused producers call their own entry points: the residual add
// passes residual and sum after x, the SiLU x mul passes the gate first.
// CHECK-LABEL: func.func @fused_producers
func.func @fused_producers(%x: memref<4x256xbf16>, %g: memref<256xbf16>, %r: memref<4x256xbf16>,
                           %sum: memref<4x256xbf16>, %q: memref<4x256xf8E4M3FN>, %s: memref<4x2xf32>,
                           %gate: memref<4x256xbf16, strided<[512, 1]>>) {
  // CHECK-DAG: %[[X:.*]] = memref.cast %arg0
  // CHECK-DAG: %[[R:.*]] = memref.cast %arg2
  // CHECK-DAG: %[[SUM:.*]] = memref.cast %arg3
  // CHECK: call @fp8q_rt_add_rms_norm_quantize_bf16(%[[X]], %[[R]], %{{.*}}, %{{.*}}, %{{.*}}, %[[X]], %[[SUM]], %{{.*}}, %c128_i64{{.*}}, %c0_i32{{.*}}, %c0_i32{{.*}})
  fp8q.buffer.rms_norm_quantize %x, %g, %q, %s residual(%r : memref<4x256xbf16> -> %sum : memref<4x256xbf16>) : memref<4x256xbf16>, memref<256xbf16>, memref<4x256xf8E4M3FN>, memref<4x2xf32>
  // CHECK: %[[GATE:.*]] = memref.cast %arg6
  // CHECK: %[[UP:.*]] = memref.cast %arg0
  // CHECK: call @fp8q_rt_silu_mul_quantize_bf16(%[[GATE]], %[[UP]], %{{.*}}, %{{.*}}, %c128_i64{{.*}}, %c0_i32{{.*}})
  fp8q.buffer.quantize %x silu_gate(%gate : memref<4x256xbf16, strided<[512, 1]>>), %q, %s : memref<4x256xbf16>, memref<4x256xf8E4M3FN>, memref<4x2xf32>
  return
}
