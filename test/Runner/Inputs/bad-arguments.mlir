// Entry functions fp8q-run cannot run (see fp8q-run-loop.test).

func.func @rank4(%x: tensor<8x128xbf16>, %w: tensor<1x2x128x128xf8E4M3FN>) -> tensor<8x128xbf16> {
  return %x : tensor<8x128xbf16>
}

// The scale of a stack of two [256, 128] weights is [2, 2, 1].
func.func @stacked_scale(%x: tensor<8x128xbf16>, %w: tensor<2x256x128xf8E4M3FN>, %s: tensor<2x1x2xf32>) -> tensor<8x128xbf16> {
  return %x : tensor<8x128xbf16>
}

func.func @f32_result(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  return %x : tensor<8x128xf32>
}
