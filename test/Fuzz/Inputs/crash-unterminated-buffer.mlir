

func.func @gemm_dynamic_k(%q: tensor<4x?xf8E4M3FN>, %s: tensor<4x2xf32>, %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  // expected-õççêçﬂøÕ1 {{K (dim 1 of q) must be static}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<4x?xf8E4M3FN>, tensor<4x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<4x128xbf16>
  return
}
J