// RUN: fp8q-opt %s -split-input-file -verify-diagnostics --fp8q-select-kernels="fix-fp8-type=true"

// fix-fp8-type converts constant weights only; an argument weight must be
// converted where it is loaded.
module attributes {fp8q.target = #fp8q.target<arch = "gfx942">} {
func.func @weight_argument(%x: tensor<?x7168xbf16>, %w: tensor<6144x7168xf8E4M3FN>, %ws: tensor<48x56xf32>) -> tensor<?x6144xbf16> {
  %q, %s = fp8q.quantize %x : tensor<?x7168xbf16> -> tensor<?x7168xf8E4M3FN>, tensor<?x56xf32>
  // expected-error@+1 {{'fp8q.gemm' op w has 'f8E4M3FN' but 'f8E4M3FNUZ' is needed, and fix-fp8-type converts only plain dense constant weights; convert this weight to 'f8E4M3FNUZ' where it is loaded}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32>, tensor<6144x7168xf8E4M3FN>, tensor<48x56xf32> -> tensor<?x6144xbf16>
  return %y : tensor<?x6144xbf16>
}
}

// -----

// A q that escapes to something other than a gemm cannot be retyped.
module attributes {fp8q.target = #fp8q.target<arch = "gfx942">} {
func.func @q_escapes(%x: tensor<?x7168xbf16>) -> tensor<?x7168xf8E4M3FN> {
  %q, %s = fp8q.quantize %x : tensor<?x7168xbf16> -> tensor<?x7168xf8E4M3FN>, tensor<?x56xf32>
  // expected-error@+1 {{'func.return' op reads q of a producer that fix-fp8-type must move to 'f8E4M3FNUZ'; only q values read by fp8q.gemm ops alone can be retyped}}
  return %q : tensor<?x7168xf8E4M3FN>
}
}

// -----

// E4M3FNUZ -> E4M3FN keeps values; the smallest E4M3FNUZ subnormal (2^-10)
// has no E4M3FN value.
module attributes {fp8q.target = #fp8q.target<arch = "sm90">} {
func.func @inexact(%x: tensor<?x128xbf16>, %ws: tensor<1x1xf32>) -> tensor<?x16xbf16> {
  %w = arith.constant dense<9.765625e-04> : tensor<16x128xf8E4M3FNUZ>
  %q, %s = fp8q.quantize %x : tensor<?x128xbf16> -> tensor<?x128xf8E4M3FNUZ>, tensor<?x1xf32>
  // expected-error@+1 {{'fp8q.gemm' op w element 0 (9.765625E-4) has no exact 'f8E4M3FN' value}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<?x128xf8E4M3FNUZ>, tensor<?x1xf32>, tensor<16x128xf8E4M3FNUZ>, tensor<1x1xf32> -> tensor<?x16xbf16>
  return %y : tensor<?x16xbf16>
}
}
