// RUN: fp8q-opt %s -split-input-file -verify-diagnostics

// Every verifier message of SPEC v2's formats and layouts, one case each.

// expected-error @+1 {{swizzle_32_4_4 holds 1-byte scales (f8E8M0FNU or f8E4M3FN) only, got 'f32'; use row_major or col_major for an f32 scale}}
func.func @swizzle_f32(%s: tensor<128x4xf32, #fp8q.layout<swizzle_32_4_4>>) {
  return
}

// -----

// expected-error @+1 {{cdna4_mx holds 1-byte scales (f8E8M0FNU or f8E4M3FN) only, got 'f32'}}
func.func @cdna4_f32(%s: tensor<256x8xf32, #fp8q.layout<cdna4_mx>>) {
  return
}

// -----

// expected-error @+1 {{col_major pack = 4 packs four 1-byte scales per 32-bit word and cannot hold 'f32' (4-byte) scales; use f8E8M0FNU scales or drop pack = 4}}
func.func @pack_f32(%s: tensor<?x4xf32, #fp8q.layout<col_major, align = 4, pack = 4>>) {
  return
}

// -----

// expected-error @+1 {{layout pack must be 4 (four 1-byte scales per 32-bit word), got 2}}
func.func @pack_two(%s: tensor<?x4xf8E8M0FNU, #fp8q.layout<col_major, pack = 2>>) {
  return
}

// -----

// expected-error @+1 {{pack applies only to col_major layouts (col_major, align = a, pack = 4)}}
func.func @pack_row_major(%s: tensor<?x4xf8E8M0FNU, #fp8q.layout<row_major, pack = 4>>) {
  return
}

// -----

// expected-error @+1 {{align applies only to col_major layouts}}
func.func @align_swizzle(%s: tensor<?x4xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4, align = 4>>) {
  return
}

// -----

func.func @mx_group(%x: tensor<4x256xbf16>) {
  // expected-error @+1 {{MXFP8 (f8E5M2 q) needs group_size 32, got group_size 128}}
  %q, %s = fp8q.quantize %x : tensor<4x256xbf16> -> tensor<4x256xf8E5M2>, tensor<4x2xf8E8M0FNU>
  return
}

// -----

func.func @mx_e4m3_group(%x: tensor<4x256xbf16>) {
  // expected-error @+1 {{f8E4M3FN q with f8E8M0FNU scales is MXFP8 (group_size 32) or FP8 1x128 UE8M0 (group_size 128), got group_size 64}}
  %q, %s = fp8q.quantize %x {group_size = 64} : tensor<4x256xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x4xf8E8M0FNU>
  return
}

// -----

func.func @mxfp4_group(%x: tensor<4x256xbf16>) {
  // expected-error @+1 {{MXFP4 (f4E2M1FN q, f8E8M0FNU scales) needs group_size 32, got group_size 16}}
  %q, %s = fp8q.quantize %x {group_size = 16} : tensor<4x256xbf16> -> tensor<4x256xf4E2M1FN>, tensor<4x16xf8E8M0FNU>
  return
}

// -----

func.func @nvfp4_group(%x: tensor<4x256xbf16>, %g: tensor<f32>) {
  // expected-error @+1 {{NVFP4 (f4E2M1FN q, f8E4M3FN scales) needs group_size 16, got group_size 32}}
  %q, %s = fp8q.quantize %x global(%g : tensor<f32>) {group_size = 32} : tensor<4x256xbf16> -> tensor<4x256xf4E2M1FN>, tensor<4x8xf8E4M3FN>
  return
}

// -----

func.func @fp4_f32_scale(%x: tensor<4x256xbf16>) {
  // expected-error @+1 {{f4E2M1FN q needs a 1-byte scale: f8E8M0FNU (MX, group_size 32) or, for f4E2M1FN, f8E4M3FN (NVFP4, group_size 16); f32 scales are FP8 1x128's}}
  %q, %s = fp8q.quantize %x {group_size = 32} : tensor<4x256xbf16> -> tensor<4x256xf4E2M1FN>, tensor<4x8xf32>
  return
}

// -----

func.func @e4m3_scale_fp8_q(%x: tensor<4x256xbf16>) {
  // expected-error @+1 {{f8E4M3FN scales are NVFP4's and need f4E2M1FN q, got f8E4M3FN q}}
  %q, %s = fp8q.quantize %x {group_size = 16} : tensor<4x256xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x16xf8E4M3FN>
  return
}

// -----

func.func @fnuz_e8m0(%x: tensor<4x256xbf16>) {
  // expected-error @+1 {{f8E4M3FNUZ q takes f32 scales only (FP8 1x128); f8E8M0FNU scales need f8E4M3FN, f8E5M2 or f4E2M1FN q}}
  %q, %s = fp8q.quantize %x {group_size = 32} : tensor<4x256xbf16> -> tensor<4x256xf8E4M3FNUZ>, tensor<4x8xf8E8M0FNU>
  return
}

// -----

func.func @fp4_odd_k(%x: tensor<4x33xbf16>) {
  // expected-error @+1 {{f4E2M1FN q is stored two values per byte and needs an even K, got K = 33}}
  %q, %s = fp8q.quantize %x {group_size = 1} : tensor<4x33xbf16> -> tensor<4x33xf4E2M1FN>, tensor<4x33xf8E8M0FNU>
  return
}

// -----

func.func @rounding_exact_mx(%x: tensor<4x256xbf16>) {
  // expected-error @+1 {{scale_rounding exact is not allowed for MXFP8 ('f8E4M3FN' q, 'f8E8M0FNU' scales); use pow2_ceil or pow2_floor, or drop it for the default pow2_ceil}}
  %q, %s = fp8q.quantize %x {group_size = 32, scale_rounding = #fp8q.scale_rounding<exact>} : tensor<4x256xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x8xf8E8M0FNU>
  return
}

// -----

func.func @rounding_e4m3_fp8(%x: tensor<4x256xbf16>) {
  // expected-error @+1 {{scale_rounding e4m3 is not allowed for FP8 1x128 ('f8E4M3FN' q, 'f32' scales); use exact or pow2_ceil, or drop it for the default exact}}
  %q, %s = fp8q.quantize %x {scale_rounding = #fp8q.scale_rounding<e4m3>} : tensor<4x256xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>
  return
}

// -----

func.func @rounding_floor_nvfp4(%x: tensor<4x256xbf16>, %g: tensor<f32>) {
  // expected-error @+1 {{scale_rounding pow2_floor is not allowed for NVFP4 ('f4E2M1FN' q, 'f8E4M3FN' scales); use e4m3, or drop it for the default e4m3}}
  %q, %s = fp8q.quantize %x global(%g : tensor<f32>) {group_size = 16, scale_rounding = #fp8q.scale_rounding<pow2_floor>} : tensor<4x256xbf16> -> tensor<4x256xf4E2M1FN>, tensor<4x16xf8E4M3FN>
  return
}

// -----

func.func @global_on_mx(%x: tensor<4x256xbf16>, %g: tensor<f32>) {
  // expected-error @+1 {{global_scale applies only to NVFP4 (f4E2M1FN q, f8E4M3FN scales); drop it for MXFP4}}
  %q, %s = fp8q.quantize %x global(%g : tensor<f32>) {group_size = 32} : tensor<4x256xbf16> -> tensor<4x256xf4E2M1FN>, tensor<4x8xf8E8M0FNU>
  return
}

// -----

func.func @nvfp4_no_global(%x: tensor<4x256xbf16>) {
  // expected-error @+1 {{NVFP4 (f4E2M1FN q, f8E4M3FN scales) needs the rank-0 f32 global_scale operand: q = rne(x / (scale * global))}}
  %q, %s = fp8q.quantize %x {group_size = 16} : tensor<4x256xbf16> -> tensor<4x256xf4E2M1FN>, tensor<4x16xf8E4M3FN>
  return
}

// -----

func.func @global_rank(%x: tensor<4x256xbf16>, %g: tensor<1xf32>) {
  // expected-error @+1 {{operand #1 must be 0D tensor of 32-bit float values}}
  %q, %s = "fp8q.quantize"(%x, %g) <{group_size = 16 : i64, operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<4x256xbf16>, tensor<1xf32>) -> (tensor<4x256xf4E2M1FN>, tensor<4x16xf8E4M3FN>)
  return
}

// -----

func.func @gemm_mixed_formats(%q: tensor<4x256xf8E4M3FN>, %s: tensor<4x8xf8E8M0FNU>,
                              %w: tensor<64x256xf4E2M1FN>, %ws: tensor<64x8xf8E8M0FNU>) {
  // expected-error @+1 {{operand formats differ: q / x_scale are MXFP8 ('f8E4M3FN', 'f8E8M0FNU', group 32) but w / w_scale are MXFP4 ('f4E2M1FN', 'f8E8M0FNU'); give both operands one format}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<4x256xf8E4M3FN>, tensor<4x8xf8E8M0FNU>, tensor<64x256xf4E2M1FN>, tensor<64x8xf8E8M0FNU> -> tensor<4x64xbf16>
  return
}

// -----

func.func @gemm_mixed_scales(%q: tensor<4x256xf8E4M3FN>, %s: tensor<4x8xf8E8M0FNU>,
                             %w: tensor<64x256xf8E4M3FN>, %ws: tensor<64x8xf32>) {
  // expected-error @+1 {{operand formats differ: q / x_scale are MXFP8 ('f8E4M3FN', 'f8E8M0FNU', group 32) but w / w_scale are FP8 1x128 ('f8E4M3FN', 'f32'); give both operands one format}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<4x256xf8E4M3FN>, tensor<4x8xf8E8M0FNU>, tensor<64x256xf8E4M3FN>, tensor<64x8xf32> -> tensor<4x64xbf16>
  return
}

// -----

func.func @gemm_mxfp8_e4m3_e5m2(%q: tensor<4x256xf8E4M3FN>, %s: tensor<4x8xf8E8M0FNU>,
                                %w: tensor<64x256xf8E5M2>, %ws: tensor<64x8xf8E8M0FNU>) {
  // expected-error @+1 {{operand formats differ: q / x_scale are MXFP8 ('f8E4M3FN', 'f8E8M0FNU', group 32) but w / w_scale are MXFP8 ('f8E5M2', 'f8E8M0FNU'); give both operands one format}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<4x256xf8E4M3FN>, tensor<4x8xf8E8M0FNU>, tensor<64x256xf8E5M2>, tensor<64x8xf8E8M0FNU> -> tensor<4x64xbf16>
  return
}

// -----

func.func @gemm_q_format(%q: tensor<4x256xf4E2M1FN>, %s: tensor<4x8xf8E4M3FN>,
                         %w: tensor<64x256xf4E2M1FN>, %ws: tensor<64x8xf8E4M3FN>) {
  // expected-error @+1 {{q / x_scale: NVFP4 (f4E2M1FN q, f8E4M3FN scales) needs group_size 16, got group_size 32}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<4x256xf4E2M1FN>, tensor<4x8xf8E4M3FN>, tensor<64x256xf4E2M1FN>, tensor<64x8xf8E4M3FN> -> tensor<4x64xbf16>
  return
}

// -----

func.func @gemm_mx_w_scale_shape(%q: tensor<4x256xf4E2M1FN>, %s: tensor<4x8xf8E8M0FNU>,
                                 %w: tensor<64x256xf4E2M1FN>, %ws: tensor<1x8xf8E8M0FNU>) {
  // expected-error @+1 {{w_scale must have shape [64x8], got [1x8]}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<4x256xf4E2M1FN>, tensor<4x8xf8E8M0FNU>, tensor<64x256xf4E2M1FN>, tensor<1x8xf8E8M0FNU> -> tensor<4x64xbf16>
  return
}

// -----

func.func @gemm_groups(%q: tensor<4x256xf4E2M1FN>, %s: tensor<4x7xf8E8M0FNU>,
                       %w: tensor<64x256xf4E2M1FN>, %ws: tensor<64x7xf8E8M0FNU>) {
  // expected-error @+1 {{x_scale must have a static K / group_size columns dividing K = 256, got [4x7]}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<4x256xf4E2M1FN>, tensor<4x7xf8E8M0FNU>, tensor<64x256xf4E2M1FN>, tensor<64x7xf8E8M0FNU> -> tensor<4x64xbf16>
  return
}

// -----

func.func @gemm_mxfp8_global(%q: tensor<4x64xf8E4M3FN>, %s: tensor<4x2xf8E8M0FNU>,
                             %w: tensor<32x64xf8E4M3FN>, %ws: tensor<32x2xf8E8M0FNU>,
                             %g: tensor<f32>) {
  // expected-error @+1 {{global_scale (the product of NVFP4's two global scales) applies only to an NVFP4 gemm; drop it for MXFP8}}
  %y = fp8q.gemm %q, %s, %w, %ws global(%g : tensor<f32>) : tensor<4x64xf8E4M3FN>, tensor<4x2xf8E8M0FNU>, tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU> -> tensor<4x32xbf16>
  return
}

// -----

// The generic form: the optional global_scale is the fifth operand.
func.func @gemm_fp8_global(%q: tensor<4x256xf8E4M3FN>, %s: tensor<4x2xf32>,
                           %w: tensor<32x256xf8E4M3FN>, %ws: tensor<1x2xf32>,
                           %g: tensor<f32>) {
  // expected-error @+1 {{global_scale (the product of NVFP4's two global scales) applies only to an NVFP4 gemm; drop it for FP8 1x128}}
  %y = "fp8q.gemm"(%q, %s, %w, %ws, %g) : (tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<32x256xf8E4M3FN>, tensor<1x2xf32>, tensor<f32>) -> tensor<4x32xbf16>
  return
}

// -----

func.func @materialize_element(%s: tensor<4x8xf8E8M0FNU>) {
  // expected-error @+1 {{must keep the scale element type, got 'f8E8M0FNU' -> 'f8E4M3FN'}}
  %c = fp8q.materialize %s : tensor<4x8xf8E8M0FNU> -> tensor<4x8xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>
  return
}

// -----

// expected-error @+1 {{unknown target arch 'sm120'; expected one of gfx942, gfx950, sm90, sm100}}
module attributes {fp8q.target = #fp8q.target<arch = "sm120">} {}

// -----

// expected-error @+1 {{rocm version given for the NVIDIA target sm100}}
module attributes {fp8q.target = #fp8q.target<arch = "sm100", rocm = "7.0">} {}

// -----

// f4E2M1FN weights are preshuffled byte-wise: K = 32 fp4 is 16 bytes.
// expected-error @+1 {{preshuffle_16x16 of an f4E2M1FN weight shuffles its [N, K/2] bytes and needs N % 16 == 0 and K % 64 == 0, got N = 64, K = 32}}
func.func @fp4_weight_k32(%w: tensor<64x32xf4E2M1FN, #fp8q.weight_layout<preshuffle_16x16>>) {
  return
}

// -----

func.func @gemm_nvfp4_no_global(%q: tensor<4x64xf4E2M1FN>, %s: tensor<4x4xf8E4M3FN>,
                                %w: tensor<32x64xf4E2M1FN>, %ws: tensor<32x4xf8E4M3FN>) -> tensor<4x32xbf16> {
  // expected-error @+1 {{'fp8q.gemm' op NVFP4 (f4E2M1FN q and w, f8E4M3FN scales) needs the rank-0 f32 global_scale operand: the product of the activation and weight global scales (out = global_scale * sum_g x_scale * w_scale * dot)}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<4x64xf4E2M1FN>, tensor<4x4xf8E4M3FN>, tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN> -> tensor<4x32xbf16>
  return %y : tensor<4x32xbf16>
}
