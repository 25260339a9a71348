// RUN: fp8q-opt %s -split-input-file -verify-diagnostics --fp8q-check-fp8-type
// RUN: fp8q-opt %s -split-input-file --fp8q-check-fp8-type="fix-fp8-type=true" | FileCheck %s --check-prefix=FIX
// Idempotent: a second run changes nothing.
// RUN: fp8q-opt %s -split-input-file --fp8q-check-fp8-type="fix-fp8-type=true" | fp8q-opt -split-input-file --fp8q-check-fp8-type="fix-fp8-type=true" | FileCheck %s --check-prefix=FIX

// --fp8q-check-fp8-type reads the kernel each gemm names (it routes
// nothing) and reports, or with fix-fp8-type repairs, the flavour.
module attributes {fp8q.target = #fp8q.target<arch = "gfx942", rocm = "6.4">} {
// FIX-LABEL: func.func @retype_producer(
// FIX: fp8q.quantize {{.*}} -> tensor<4x128xf8E4M3FNUZ>, tensor<4x1xf32>
// FIX: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<triton>} : tensor<4x128xf8E4M3FNUZ>, tensor<4x1xf32>, tensor<16x128xf8E4M3FNUZ>
func.func @retype_producer(%x: tensor<4x128xbf16>, %ws: tensor<1x1xf32>) -> tensor<4x16xbf16> {
  %w = arith.constant dense<1.0> : tensor<16x128xf8E4M3FN>
  // expected-error @below {{produces 'f8E4M3FN' but target gfx942 reads 'f8E4M3FNUZ'; set fix-fp8-type to quantize to 'f8E4M3FNUZ'}}
  %q, %s = fp8q.quantize %x : tensor<4x128xbf16> -> tensor<4x128xf8E4M3FN>, tensor<4x1xf32>
  %o = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<triton>} : tensor<4x128xf8E4M3FN>, tensor<4x1xf32>, tensor<16x128xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x16xbf16>
  return %o : tensor<4x16xbf16>
}
}

// -----

// A module without a target has no flavour to check: left alone.
// FIX-LABEL: func.func @no_target(
// FIX: fp8q.gemm {{.*}} : tensor<4x128xf8E4M3FNUZ>
func.func @no_target(%q: tensor<4x128xf8E4M3FNUZ>, %s: tensor<4x1xf32>, %w: tensor<16x128xf8E4M3FNUZ>, %ws: tensor<1x1xf32>) -> tensor<4x16xbf16> {
  %o = fp8q.gemm %q, %s, %w, %ws : tensor<4x128xf8E4M3FNUZ>, tensor<4x1xf32>, tensor<16x128xf8E4M3FNUZ>, tensor<1x1xf32> -> tensor<4x16xbf16>
  return %o : tensor<4x16xbf16>
}
