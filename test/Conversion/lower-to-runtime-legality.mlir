// --fp8q-lower-to-runtime is a full conversion whose target admits nothing
// of fp8q: the lowered module parses in upstream tools (mlir-opt,
// mlir-runner) that do not load the dialect, or the pass fails with an
// error at the op that is left (without printing it).
//
// RUN: fp8q-opt %s -split-input-file -verify-diagnostics --fp8q-lower-to-runtime | FileCheck %s
// RUN: fp8q-opt %s -split-input-file -verify-diagnostics --fp8q-lower-to-runtime | mlir-opt -split-input-file -o /dev/null

// The module's fp8q.target goes. A weight preshuffled at compile time: the
// global's initial value keeps the bytes and loses the encoding
// (regression: it kept #fp8q.weight_layout<preshuffle_16x16> and
// mlir-runner refused the module).
// CHECK-NOT: fp8q.target
// (The custom form prints no initializer type when it is the global's.)
// CHECK-LABEL: memref.global "private" constant @w : memref<32x32xf8E4M3FN> = dense<1.000000e+00> {alignment = 64 : i64}
// CHECK-NOT: fp8q
// CHECK-LABEL: func.func @uses_w
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
  "memref.global"() <{sym_name = "w", sym_visibility = "private", type = memref<32x32xf8E4M3FN>, initial_value = dense<1.0> : tensor<32x32xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, constant, alignment = 64 : i64}> : () -> ()
  func.func @uses_w() -> memref<32x32xf8E4M3FN> {
    %0 = memref.get_global @w : memref<32x32xf8E4M3FN>
    return %0 : memref<32x32xf8E4M3FN>
  }
}

// -----

// A non-splat constant keeps its values.
// CHECK-LABEL: memref.global "private" constant @ws : memref<2x2xf32> = dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]>
"memref.global"() <{sym_name = "ws", sym_visibility = "private", type = memref<2x2xf32>, initial_value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32, #fp8q.layout<col_major>>, constant}> : () -> ()

// -----

// A signature that still names a layout gets the memref bufferization
// gives it (the type converter's mapping), at calls and returns too.
// CHECK-LABEL: func.func private @callee(memref<16x2xf32, strided<[1, 16]>>) -> memref<16x2xf32, strided<[1, 16]>>
// CHECK-LABEL: func.func @typed(%arg0: memref<16x2xf32, strided<[1, 16]>>, %arg1: memref<32x256xf8E4M3FN>) -> memref<16x2xf32, strided<[1, 16]>>
// CHECK: %[[R:.*]] = call @callee(%arg0) : (memref<16x2xf32, strided<[1, 16]>>) -> memref<16x2xf32, strided<[1, 16]>>
// CHECK: return %[[R]] : memref<16x2xf32, strided<[1, 16]>>
func.func private @callee(tensor<16x2xf32, #fp8q.layout<col_major>>) -> tensor<16x2xf32, #fp8q.layout<col_major>>
func.func @typed(%s: tensor<16x2xf32, #fp8q.layout<col_major>>, %w: tensor<32x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>) -> tensor<16x2xf32, #fp8q.layout<col_major>> {
  %r = call @callee(%s) : (tensor<16x2xf32, #fp8q.layout<col_major>>) -> tensor<16x2xf32, #fp8q.layout<col_major>>
  return %r : tensor<16x2xf32, #fp8q.layout<col_major>>
}

// -----

// A tensor-level fp8q op has no runtime call.
func.func @not_bufferized(%s: tensor<16x2xf32>) {
  // expected-error @below {{'fp8q.materialize' op has no runtime call; only fp8q.buffer.* ops are lowered to the runtime: run --fp8q-bufferize first}}
  %c = fp8q.materialize %s : tensor<16x2xf32> -> tensor<16x2xf32, #fp8q.layout<col_major>>
  return
}

// -----

// A value of an fp8q-encoded type used by an op that is not converted.
func.func @used(%s: tensor<16x2xf32, #fp8q.layout<col_major>>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'tensor.extract' op holds an fp8q type or attribute that has no lowered form; run --fp8q-bufferize first}}
  %e = tensor.extract %s[%c0, %c0] : tensor<16x2xf32, #fp8q.layout<col_major>>
  return %e : f32
}

// -----

// A constant whose value is an encoded tensor: dropping the encoding of its
// attribute alone would not make it legal (its result keeps the type).
func.func @constant() -> tensor<2x2xf32, #fp8q.layout<col_major>> {
  // expected-error @below {{'arith.constant' op holds an fp8q type or attribute that has no lowered form; run --fp8q-bufferize first}}
  %c = arith.constant dense<1.0> : tensor<2x2xf32, #fp8q.layout<col_major>>
  return %c : tensor<2x2xf32, #fp8q.layout<col_major>>
}

// -----

// Only fp8q.* discardable attributes are dropped: an fp8q attribute under
// another name is an error.
// expected-error @below {{'func.func' op holds an fp8q type or attribute that has no lowered form; run --fp8q-bufferize first}}
func.func @attr() attributes {my.layout = #fp8q.layout<col_major>} {
  return
}
