// One FP8 linear layer whose arguments carry the names fp8q-model-gen gives
// (locations): fp8q-run --weights binds them to checkpoint tensors
// ("input" as it is, "layers.0..." as "model.layers.0...").
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
  func.func @decode_step(%x: tensor<16x256xbf16> loc("input"),
                         %w: tensor<128x256xf8E4M3FN> loc("layers.0.mlp.down_proj.weight"),
                         %ws: tensor<1x2xf32> loc("layers.0.mlp.down_proj.weight_scale_inv"))
      -> tensor<16x128xbf16> {
    %q, %s = fp8q.quantize %x {group_size = 128}
        : tensor<16x256xbf16> -> tensor<16x256xf8E4M3FN>, tensor<16x2xf32>
    %y = fp8q.gemm %q, %s, %w, %ws
        : tensor<16x256xf8E4M3FN>, tensor<16x2xf32>, tensor<128x256xf8E4M3FN>,
          tensor<1x2xf32> -> tensor<16x128xbf16>
    return %y : tensor<16x128xbf16>
  }
}
