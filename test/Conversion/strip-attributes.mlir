// --fp8q-strip-attributes: nothing of fp8q may survive lowering, or the
// module does not parse in upstream tools (mlir-opt, mlir-runner) that do
// not load the dialect.
//
// RUN: fp8q-opt %s -split-input-file -verify-diagnostics --fp8q-strip-attributes | FileCheck %s
// RUN: fp8q-opt %s -split-input-file -verify-diagnostics --fp8q-strip-attributes | mlir-opt -split-input-file -o /dev/null

// A weight preshuffled at compile time: the global's initial value keeps the
// bytes and loses the encoding (regression: it kept
// #fp8q.weight_layout<preshuffle_16x16> and mlir-runner refused the module).
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

func.func @not_lowered(%x: memref<16x256xbf16>, %q: memref<16x256xf8E4M3FN>, %s: memref<16x2xf32>) {
  // expected-error @below {{'fp8q.buffer.quantize' is left after lowering to the runtime; run --fp8q-bufferize and --fp8q-lower-to-runtime first}}
  fp8q.buffer.quantize %x, %q, %s : memref<16x256xbf16>, memref<16x256xf8E4M3FN>, memref<16x2xf32>
  return
}

// -----

// expected-error @below {{'func.func' still carries an fp8q attribute or type after lowering to the runtime; run --fp8q-bufferize and --fp8q-lower-to-runtime first}}
func.func @typed(%s: tensor<16x2xf32, #fp8q.layout<col_major>>) {
  return
}
