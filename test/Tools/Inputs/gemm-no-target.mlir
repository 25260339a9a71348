// A gemm without a kernel in a module without a target: a pass error.
func.func @no_target(%q: tensor<16x7168xf8E4M3FN>, %s: tensor<16x56xf32>, %w: tensor<6144x7168xf8E4M3FN>, %ws: tensor<48x56xf32>) -> tensor<16x6144xbf16> {
  %a = fp8q.gemm %q, %s, %w, %ws : tensor<16x7168xf8E4M3FN>, tensor<16x56xf32>, tensor<6144x7168xf8E4M3FN>, tensor<48x56xf32> -> tensor<16x6144xbf16>
  return %a : tensor<16x6144xbf16>
}
