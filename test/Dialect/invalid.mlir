// RUN: fp8q-opt %s -split-input-file -verify-diagnostics

// Every verifier message of the fp8q dialect, one case each.

func.func @group_size_zero(%x: tensor<4x256xbf16>) {
  // expected-error @+1 {{group_size must be positive, got 0}}
  %q, %s = fp8q.quantize %x {group_size = 0} : tensor<4x256xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>
  return
}

// -----

func.func @group_size_negative(%x: tensor<4x256xbf16>) {
  // expected-error @+1 {{group_size must be positive, got -128}}
  %q, %s = fp8q.quantize %x {group_size = -128} : tensor<4x256xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>
  return
}

// -----

func.func @group_size_not_dividing(%x: tensor<4x200xbf16>) {
  // expected-error @+1 {{group_size 128 must divide K = 200}}
  %q, %s = fp8q.quantize %x : tensor<4x200xbf16> -> tensor<4x200xf8E4M3FN>, tensor<4x1xf32>
  return
}

// -----

func.func @dynamic_k(%x: tensor<4x?xbf16>) {
  // expected-error @+1 {{K (dim 1 of x) must be static}}
  %q, %s = fp8q.quantize %x : tensor<4x?xbf16> -> tensor<4x?xf8E4M3FN>, tensor<4x2xf32>
  return
}

// -----

func.func @scale_shape(%x: tensor<4x256xbf16>) {
  // expected-error @+1 {{scale must have shape [M, K / group_size] = [4x2], got [4x3]}}
  %q, %s = fp8q.quantize %x : tensor<4x256xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x3xf32>
  return
}

// -----

func.func @scale_m_mismatch(%x: tensor<?x256xbf16>) {
  // expected-error @+1 {{scale must have shape [M, K / group_size] = [?x2], got [4x2]}}
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<4x2xf32>
  return
}

// -----

func.func @q_shape(%x: tensor<4x256xbf16>) {
  // expected-error @+1 {{q must have the shape of x [4x256], got [8x256]}}
  %q, %s = fp8q.quantize %x : tensor<4x256xbf16> -> tensor<8x256xf8E4M3FN>, tensor<4x2xf32>
  return
}

// -----

func.func @q_not_fp8(%x: tensor<4x256xbf16>) {
  // expected-error @+1 {{result #0 must be 2D tensor of quantized element (f8E4M3FN, f8E4M3FNUZ, f8E5M2 or f4E2M1FN) values}}
  %q, %s = fp8q.quantize %x : tensor<4x256xbf16> -> tensor<4x256xi8>, tensor<4x2xf32>
  return
}

// -----

func.func @x_wrong_rank(%x: tensor<4x2x128xbf16>) {
  // expected-error @+1 {{operand #0 must be 2D tensor of bfloat16 type or 16-bit float or 32-bit float values}}
  %q, %s = fp8q.quantize %x : tensor<4x2x128xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>
  return
}

// -----

func.func @m_zero(%x: tensor<0x256xbf16>) {
  // expected-error @+1 {{x has a zero extent [0x256]; fp8q tensors must be non-empty}}
  %q, %s = fp8q.quantize %x : tensor<0x256xbf16> -> tensor<0x256xf8E4M3FN>, tensor<0x2xf32>
  return
}

// -----

func.func @overflow(%x: tensor<9223372036854775807x256xbf16>) {
  // expected-error @+1 {{x shape [9223372036854775807x256] overflows a 64-bit element count}}
  %q, %s = fp8q.quantize %x : tensor<9223372036854775807x256xbf16> -> tensor<9223372036854775807x256xf8E4M3FN>, tensor<9223372036854775807x2xf32>
  return
}

// -----

func.func @encoding_on_q(%x: tensor<16x256xbf16>) {
  // expected-error @+1 {{q must not carry an encoding, got #fp8q.weight_layout<preshuffle_16x16>}}
  %q, %s = fp8q.quantize %x : tensor<16x256xbf16> -> tensor<16x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<16x2xf32>
  return
}

// -----

func.func @foreign_encoding_on_scale(%x: tensor<4x256xbf16>) {
  // expected-error @+1 {{scale encoding must be #fp8q.layout, got "foo"}}
  %q, %s = fp8q.quantize %x : tensor<4x256xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32, "foo">
  return
}

// -----

// expected-error @+1 {{#fp8q.layout encodes activation scales and must be on a rank-2 f32 tensor, got rank 2 of 'bf16'}}
func.func @layout_on_data(%x: tensor<4x256xbf16, #fp8q.layout<col_major>>)

// -----

// expected-error @+1 {{#fp8q.layout encodes activation scales and must be on a rank-2 f32 tensor, got rank 1 of 'f32'}}
func.func @layout_on_rank1(%x: tensor<4xf32, #fp8q.layout<col_major>>)

// -----

// expected-error @+1 {{layout align must be a positive integer, got 0}}
func.func @align_zero(%x: tensor<4x2xf32, #fp8q.layout<col_major, align = 0>>)

// -----

// expected-error @+1 {{layout align must be a positive integer, got -4}}
func.func @align_negative(%x: tensor<4x2xf32, #fp8q.layout<col_major, align = -4>>)

// -----

// expected-error @+1 {{align applies only to col_major layouts}}
func.func @align_row_major(%x: tensor<4x2xf32, #fp8q.layout<row_major, align = 4>>)

// -----

// expected-error @+1 {{expected one of row_major, col_major, swizzle_32_4_4, cdna4_mx; got 'diagonal'}}
func.func @unknown_layout(%x: tensor<4x2xf32, #fp8q.layout<diagonal>>)

// -----

// expected-error @+2 {{expected ::fp8q::Kernel to be one of: ck_bpreshuffle, ck, triton, deepgemm, cublas, reference}}
// expected-error @+1 {{failed to parse Fp8q_KernelAttr parameter 'value'}}
func.func @unknown_kernel() attributes {k = #fp8q.kernel<cutlass>}

// -----

// expected-error @+1 {{unknown target arch 'gfx1100'; expected one of gfx942, gfx950, sm90}}
module attributes {fp8q.target = #fp8q.target<arch = "gfx1100">} {}

// -----

// expected-error @+1 {{malformed rocm version 'seven'; expected MAJOR.MINOR, e.g. "7.2"}}
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "seven">} {}

// -----

// expected-error @+1 {{rocm version given for the NVIDIA target sm90}}
module attributes {fp8q.target = #fp8q.target<arch = "sm90", rocm = "7.2">} {}

// -----

// expected-error @+1 {{#fp8q.weight_layout must be on a rank-2 fp8 or f4E2M1FN weight tensor, got rank 2 of 'f32'}}
func.func @weight_layout_on_f32(%w: tensor<32x32xf32, #fp8q.weight_layout<preshuffle_16x16>>)

// -----

// expected-error @+1 {{preshuffle_16x16 needs N % 16 == 0 and K % 32 == 0, got N = 24, K = 256}}
func.func @weight_layout_bad_n(%w: tensor<24x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>)

// -----

// expected-error @+1 {{preshuffle_16x16 needs a static weight shape}}
func.func @weight_layout_dynamic(%w: tensor<?x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>)

// -----

func.func @rms_gamma_shape(%x: tensor<4x256xbf16>, %g: tensor<128xbf16>) {
  // expected-error @+1 {{gamma must have shape [K] = [256], got [128]}}
  %q, %s = fp8q.rms_norm_quantize %x, %g : tensor<4x256xbf16>, tensor<128xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>
  return
}

// -----

func.func @rms_gamma_type(%x: tensor<4x256xbf16>, %g: tensor<256xf32>) {
  // expected-error @+1 {{gamma element type 'f32' must match x element type 'bf16'}}
  %q, %s = fp8q.rms_norm_quantize %x, %g : tensor<4x256xbf16>, tensor<256xf32> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>
  return
}

// -----

func.func @rms_epsilon(%x: tensor<4x256xbf16>, %g: tensor<256xbf16>) {
  // expected-error @+1 {{epsilon must be finite and non-negative, got -1.000000e+00}}
  %q, %s = fp8q.rms_norm_quantize %x, %g {epsilon = -1.0 : f32} : tensor<4x256xbf16>, tensor<256xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>
  return
}

// -----

func.func @rms_keep_without_result(%x: tensor<4x256xbf16>, %g: tensor<256xbf16>) {
  // expected-error @+1 {{keep_unquantized requires a third result, the unquantized normalized x}}
  %q, %s = fp8q.rms_norm_quantize %x, %g {keep_unquantized} : tensor<4x256xbf16>, tensor<256xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>
  return
}

// -----

func.func @rms_result_without_keep(%x: tensor<4x256xbf16>, %g: tensor<256xbf16>) {
  // expected-error @+1 {{has a third (unquantized) result but no keep_unquantized attribute}}
  %q, %s, %y = fp8q.rms_norm_quantize %x, %g : tensor<4x256xbf16>, tensor<256xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<4x256xbf16>
  return
}

// -----

func.func @rms_unquantized_type(%x: tensor<4x256xbf16>, %g: tensor<256xbf16>) {
  // expected-error @+1 {{unquantized result must have the type of x 'tensor<4x256xbf16>', got 'tensor<4x256xf32>'}}
  %q, %s, %y = fp8q.rms_norm_quantize %x, %g {keep_unquantized} : tensor<4x256xbf16>, tensor<256xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<4x256xf32>
  return
}

// -----

func.func @gemm_k_block(%q: tensor<4x192xf8E4M3FN>, %s: tensor<4x1xf32>, %w: tensor<128x192xf8E4M3FN>, %ws: tensor<1x1xf32>) {
  // expected-error @+1 {{K = 192 must be a multiple of the 128-wide scale block}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<4x192xf8E4M3FN>, tensor<4x1xf32>, tensor<128x192xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x128xbf16>
  return
}

// -----

func.func @gemm_dynamic_k(%q: tensor<4x?xf8E4M3FN>, %s: tensor<4x2xf32>, %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  // expected-error @+1 {{K (dim 1 of q) must be static}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<4x?xf8E4M3FN>, tensor<4x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<4x128xbf16>
  return
}

// -----

func.func @gemm_dynamic_n(%q: tensor<4x256xf8E4M3FN>, %s: tensor<4x2xf32>, %w: tensor<?x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  // expected-error @+1 {{w must have a static shape [N, K], got [?x256]}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<?x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<4x128xbf16>
  return
}

// -----

func.func @gemm_w_k(%q: tensor<4x256xf8E4M3FN>, %s: tensor<4x2xf32>, %w: tensor<128x384xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  // expected-error @+1 {{w must have shape [128x256], got [128x384]}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<128x384xf8E4M3FN>, tensor<1x2xf32> -> tensor<4x128xbf16>
  return
}

// -----

func.func @gemm_x_scale(%q: tensor<4x256xf8E4M3FN>, %s: tensor<4x4xf32>, %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  // expected-error @+1 {{x_scale must have shape [4x2], got [4x4]}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<4x256xf8E4M3FN>, tensor<4x4xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<4x128xbf16>
  return
}

// -----

func.func @gemm_w_scale(%q: tensor<4x256xf8E4M3FN>, %s: tensor<4x2xf32>, %w: tensor<320x256xf8E4M3FN>, %ws: tensor<2x2xf32>) {
  // expected-error @+1 {{w_scale must have shape [3x2], got [2x2]}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<320x256xf8E4M3FN>, tensor<2x2xf32> -> tensor<4x320xbf16>
  return
}

// -----

func.func @gemm_w_scale_col(%q: tensor<4x256xf8E4M3FN>, %s: tensor<4x2xf32>, %w: tensor<320x256xf8E4M3FN>, %ws: tensor<3x2xf32, #fp8q.layout<col_major>>) {
  // expected-error @+1 {{w_scale must be row-major for every kernel}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<320x256xf8E4M3FN>, tensor<3x2xf32, #fp8q.layout<col_major>> -> tensor<4x320xbf16>
  return
}

// -----

func.func @gemm_out(%q: tensor<4x256xf8E4M3FN>, %s: tensor<4x2xf32>, %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  // expected-error @+1 {{out must have shape [4x128], got [4x256]}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<4x256xbf16>
  return
}

// -----

func.func @gemm_out_type(%q: tensor<4x256xf8E4M3FN>, %s: tensor<4x2xf32>, %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  // expected-error @+1 {{result #0 must be 2D tensor of bfloat16 type values}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<4x128xf32>
  return
}

// -----

func.func @gemm_mixed_fp8(%q: tensor<4x256xf8E4M3FN>, %s: tensor<4x2xf32>, %w: tensor<128x256xf8E4M3FNUZ>, %ws: tensor<1x2xf32>) {
  // expected-error @+1 {{w element type 'f8E4M3FNUZ' must match q element type 'f8E4M3FN'}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<128x256xf8E4M3FNUZ>, tensor<1x2xf32> -> tensor<4x128xbf16>
  return
}

// -----

func.func @gemm_w_foreign_encoding(%q: tensor<4x256xf8E4M3FN>, %s: tensor<4x2xf32>, %w: tensor<128x256xf8E4M3FN, "x">, %ws: tensor<1x2xf32>) {
  // expected-error @+1 {{w encoding must be #fp8q.weight_layout, got "x"}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<128x256xf8E4M3FN, "x">, tensor<1x2xf32> -> tensor<4x128xbf16>
  return
}

// -----

func.func @gemm_m_zero(%q: tensor<0x256xf8E4M3FN>, %s: tensor<0x2xf32>, %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  // expected-error @+1 {{q has a zero extent [0x256]; fp8q tensors must be non-empty}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<0x256xf8E4M3FN>, tensor<0x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<0x128xbf16>
  return
}

// -----

func.func @materialize_shape(%s: tensor<4x2xf32>) {
  // expected-error @+1 {{must keep the shape, got [4x2] -> [2x4]}}
  %c = fp8q.materialize %s : tensor<4x2xf32> -> tensor<2x4xf32, #fp8q.layout<col_major>>
  return
}

// -----

func.func @materialize_element_type(%s: tensor<4x2xf32>) {
  // expected-error @+1 {{result #0 must be 2D tensor of scale element (f32, f8E8M0FNU or f8E4M3FN) values}}
  %c = fp8q.materialize %s : tensor<4x2xf32> -> tensor<4x2xf16>
  return
}

// -----

func.func @preshuffle_twice(%w: tensor<32x64xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>) {
  // expected-error @+1 {{operand is already preshuffled}}
  %p = fp8q.preshuffle %w : tensor<32x64xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>> -> tensor<32x64xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
  return
}

// -----

func.func @preshuffle_no_encoding(%w: tensor<32x64xf8E4M3FN>) {
  // expected-error @+1 {{result must carry #fp8q.weight_layout<preshuffle_16x16>}}
  %p = fp8q.preshuffle %w : tensor<32x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  return
}

// -----

func.func @preshuffle_shape(%w: tensor<32x64xf8E4M3FN>) {
  // expected-error @+1 {{must keep shape and element type, got 'tensor<32x64xf8E4M3FN>' -> 'tensor<16x64xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>'}}
  %p = fp8q.preshuffle %w : tensor<32x64xf8E4M3FN> -> tensor<16x64xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
  return
}

// -----

func.func @silu_gate_type(%x: tensor<4x256xbf16>, %g: tensor<4x256xf32>) {
  // expected-error @+1 {{silu_gate must have the type of x 'tensor<4x256xbf16>', got 'tensor<4x256xf32>'}}
  %q, %s = fp8q.quantize %x silu_gate(%g : tensor<4x256xf32>) : tensor<4x256xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>
  return
}

// -----

func.func @silu_gate_format(%x: tensor<4x256xbf16>, %g: tensor<4x256xbf16>) {
  // expected-error @+1 {{silu_gate is fused only into FP8 quantization with f32 scales (SPEC v1), got MXFP8; quantize silu(gate) * x computed separately instead}}
  %q, %s = fp8q.quantize %x silu_gate(%g : tensor<4x256xbf16>) {group_size = 32 : i64} : tensor<4x256xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x8xf8E8M0FNU>
  return
}

// -----

func.func @residual_without_sum(%x: tensor<4x256xbf16>, %g: tensor<256xbf16>, %r: tensor<4x256xbf16>) {
  // expected-error @+1 {{residual operand and residual_sum result come together (sum = x + residual is returned)}}
  %q, %s = "fp8q.rms_norm_quantize"(%x, %g, %r) <{epsilon = 1.0e-06 : f32, group_size = 128 : i64, resultSegmentSizes = array<i32: 1, 1, 0, 0>}> : (tensor<4x256xbf16>, tensor<256xbf16>, tensor<4x256xbf16>) -> (tensor<4x256xf8E4M3FN>, tensor<4x2xf32>)
  return
}

// -----

func.func @residual_type(%x: tensor<4x256xbf16>, %g: tensor<256xbf16>, %r: tensor<4x256xf16>) {
  // expected-error @+1 {{residual must have the type of x 'tensor<4x256xbf16>', got 'tensor<4x256xf16>'}}
  %q, %s, %sum = fp8q.rms_norm_quantize %x, %g residual(%r : tensor<4x256xf16> -> tensor<4x256xbf16>) : tensor<4x256xbf16>, tensor<256xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>
  return
}

// -----

func.func @residual_sum_type(%x: tensor<4x256xbf16>, %g: tensor<256xbf16>, %r: tensor<4x256xbf16>) {
  // expected-error @+1 {{residual_sum result must have the type of x 'tensor<4x256xbf16>', got 'tensor<8x256xbf16>'}}
  %q, %s, %sum = fp8q.rms_norm_quantize %x, %g residual(%r : tensor<4x256xbf16> -> tensor<8x256xbf16>) : tensor<4x256xbf16>, tensor<256xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>
  return
}
