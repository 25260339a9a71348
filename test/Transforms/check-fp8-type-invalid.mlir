// RUN: fp8q-opt %s -split-input-file -verify-diagnostics --fp8q-check-fp8-type
// RUN: fp8q-opt %s -split-input-file -verify-diagnostics --fp8q-check-fp8-type="fix-fp8-type=true"

// Run alone, the pass needs routed gemms.
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
func.func @unrouted(%q: tensor<4x128xf8E4M3FN>, %s: tensor<4x1xf32>, %w: tensor<16x128xf8E4M3FN>, %ws: tensor<1x1xf32>) -> tensor<4x16xbf16> {
  // expected-error @below {{has no kernel, so no fp8 flavour to check; run --fp8q-route-kernels first}}
  %o = fp8q.gemm %q, %s, %w, %ws : tensor<4x128xf8E4M3FN>, tensor<4x1xf32>, tensor<16x128xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x16xbf16>
  return %o : tensor<4x16xbf16>
}
}
