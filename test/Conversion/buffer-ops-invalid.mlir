// RUN: fp8q-opt %s -split-input-file -verify-diagnostics

func.func @quantize_group(%x: memref<4x256xbf16>, %q: memref<4x256xf8E4M3FN>, %s: memref<4x2xf32>) {
  // expected-error @below {{group_size 96 must divide K = 256}}
  fp8q.buffer.quantize %x, %q, %s {group_size = 96 : i64} : memref<4x256xbf16>, memref<4x256xf8E4M3FN>, memref<4x2xf32>
  return
}

// -----

func.func @quantize_group_zero(%x: memref<4x256xbf16>, %q: memref<4x256xf8E4M3FN>, %s: memref<4x2xf32>) {
  // expected-error @below {{group_size must be positive, got 0}}
  fp8q.buffer.quantize %x, %q, %s {group_size = 0 : i64} : memref<4x256xbf16>, memref<4x256xf8E4M3FN>, memref<4x2xf32>
  return
}

// -----

func.func @quantize_scale_shape(%x: memref<?x256xbf16>, %q: memref<?x256xf8E4M3FN>, %s: memref<?x4xf32>) {
  // expected-error @below {{scale must have shape [?x2], got [?x4]}}
  fp8q.buffer.quantize %x, %q, %s : memref<?x256xbf16>, memref<?x256xf8E4M3FN>, memref<?x4xf32>
  return
}

// -----

func.func @quantize_q_shape(%x: memref<4x256xbf16>, %q: memref<8x256xf8E4M3FN>, %s: memref<4x2xf32>) {
  // expected-error @below {{q must have shape [4x256], got [8x256]}}
  fp8q.buffer.quantize %x, %q, %s : memref<4x256xbf16>, memref<8x256xf8E4M3FN>, memref<4x2xf32>
  return
}

// -----

func.func @quantize_dynamic_k(%x: memref<4x?xbf16>, %q: memref<4x?xf8E4M3FN>, %s: memref<4x2xf32>) {
  // expected-error @below {{K (dim 1 of x) must be static}}
  fp8q.buffer.quantize %x, %q, %s : memref<4x?xbf16>, memref<4x?xf8E4M3FN>, memref<4x2xf32>
  return
}

// -----

func.func @norm_gamma(%x: memref<4x256xbf16>, %g: memref<128xbf16>, %q: memref<4x256xf8E4M3FN>, %s: memref<4x2xf32>) {
  // expected-error @below {{gamma must have shape [256], got [128]}}
  fp8q.buffer.rms_norm_quantize %x, %g, %q, %s : memref<4x256xbf16>, memref<128xbf16>, memref<4x256xf8E4M3FN>, memref<4x2xf32>
  return
}

// -----

func.func @norm_gamma_type(%x: memref<4x256xbf16>, %g: memref<256xf32>, %q: memref<4x256xf8E4M3FN>, %s: memref<4x2xf32>) {
  // expected-error @below {{gamma element type 'f32' must match x element type 'bf16'}}
  fp8q.buffer.rms_norm_quantize %x, %g, %q, %s : memref<4x256xbf16>, memref<256xf32>, memref<4x256xf8E4M3FN>, memref<4x2xf32>
  return
}

// -----

func.func @norm_y(%x: memref<4x256xbf16>, %g: memref<256xbf16>, %q: memref<4x256xf8E4M3FN>, %s: memref<4x2xf32>, %y: memref<4x256xf32>) {
  // expected-error @below {{unquantized element type 'f32' must match x element type 'bf16'}}
  fp8q.buffer.rms_norm_quantize %x, %g, %q, %s, %y : memref<4x256xbf16>, memref<256xbf16>, memref<4x256xf8E4M3FN>, memref<4x2xf32>, memref<4x256xf32>
  return
}

// -----

func.func @gemm_k(%q: memref<4x64xf8E4M3FN>, %s: memref<4x1xf32>, %w: memref<32x64xf8E4M3FN>, %ws: memref<1x1xf32>, %o: memref<4x32xbf16>) {
  // expected-error @below {{K (dim 1 of q) must be a static multiple of 128, got 64}}
  fp8q.buffer.gemm %q, %s, %w, %ws, %o {kernel = #fp8q.kernel<ck>} : memref<4x64xf8E4M3FN>, memref<4x1xf32>, memref<32x64xf8E4M3FN>, memref<1x1xf32>, memref<4x32xbf16>
  return
}

// -----

func.func @gemm_w_dynamic(%q: memref<4x256xf8E4M3FN>, %s: memref<4x2xf32>, %w: memref<?x256xf8E4M3FN>, %ws: memref<1x2xf32>, %o: memref<4x32xbf16>) {
  // expected-error @below {{w must have a static shape [N, K], got [?x256]}}
  fp8q.buffer.gemm %q, %s, %w, %ws, %o {kernel = #fp8q.kernel<ck>} : memref<4x256xf8E4M3FN>, memref<4x2xf32>, memref<?x256xf8E4M3FN>, memref<1x2xf32>, memref<4x32xbf16>
  return
}

// -----

func.func @gemm_flavour(%q: memref<4x256xf8E4M3FN>, %s: memref<4x2xf32>, %w: memref<32x256xf8E4M3FNUZ>, %ws: memref<1x2xf32>, %o: memref<4x32xbf16>) {
  // expected-error @below {{w element type 'f8E4M3FNUZ' must match q element type 'f8E4M3FN'}}
  fp8q.buffer.gemm %q, %s, %w, %ws, %o {kernel = #fp8q.kernel<ck>} : memref<4x256xf8E4M3FN>, memref<4x2xf32>, memref<32x256xf8E4M3FNUZ>, memref<1x2xf32>, memref<4x32xbf16>
  return
}

// -----

func.func @gemm_preshuffle_n(%q: memref<4x256xf8E4M3FN>, %s: memref<4x2xf32>, %w: memref<40x256xf8E4M3FN>, %ws: memref<1x2xf32>, %o: memref<4x40xbf16>) {
  // expected-error @below {{preshuffle_16x16 needs N % 16 == 0 and K % 32 == 0, got N = 40, K = 256}}
  fp8q.buffer.gemm %q, %s, %w, %ws, %o {kernel = #fp8q.kernel<ck_bpreshuffle>, w_layout = #fp8q.weight_layout<preshuffle_16x16>} : memref<4x256xf8E4M3FN>, memref<4x2xf32>, memref<40x256xf8E4M3FN>, memref<1x2xf32>, memref<4x40xbf16>
  return
}

// -----

func.func @gemm_wscale(%q: memref<4x256xf8E4M3FN>, %s: memref<4x2xf32>, %w: memref<256x256xf8E4M3FN>, %ws: memref<1x2xf32>, %o: memref<4x256xbf16>) {
  // expected-error @below {{w_scale must have shape [2x2], got [1x2]}}
  fp8q.buffer.gemm %q, %s, %w, %ws, %o {kernel = #fp8q.kernel<ck>} : memref<4x256xf8E4M3FN>, memref<4x2xf32>, memref<256x256xf8E4M3FN>, memref<1x2xf32>, memref<4x256xbf16>
  return
}

// -----

func.func @gemm_out(%q: memref<4x256xf8E4M3FN>, %s: memref<4x2xf32>, %w: memref<32x256xf8E4M3FN>, %ws: memref<1x2xf32>, %o: memref<4x16xbf16>) {
  // expected-error @below {{out must have shape [4x32], got [4x16]}}
  fp8q.buffer.gemm %q, %s, %w, %ws, %o {kernel = #fp8q.kernel<ck>} : memref<4x256xf8E4M3FN>, memref<4x2xf32>, memref<32x256xf8E4M3FN>, memref<1x2xf32>, memref<4x16xbf16>
  return
}

// -----

func.func @materialize_shape(%a: memref<4x2xf32>, %b: memref<8x2xf32, strided<[1, 8]>>) {
  // expected-error @below {{dest must have shape [4x2], got [8x2]}}
  fp8q.buffer.materialize %a, %b : memref<4x2xf32>, memref<8x2xf32, strided<[1, 8]>>
  return
}

// -----

func.func @preshuffle_k(%w: memref<32x48xf8E4M3FN>, %p: memref<32x48xf8E4M3FN>) {
  // expected-error @below {{preshuffle_16x16 needs N % 16 == 0 and K % 32 == 0, got N = 32, K = 48}}
  fp8q.buffer.preshuffle %w, %p : memref<32x48xf8E4M3FN>, memref<32x48xf8E4M3FN>
  return
}

// -----

func.func @preshuffle_fp4_k(%w: memref<32x96xf4E2M1FN>, %p: memref<32x96xf4E2M1FN>) {
  // expected-error @below {{preshuffle_16x16 of an f4E2M1FN weight permutes its [N, K / 2] bytes and needs N % 16 == 0 and K % 64 == 0, got N = 32, K = 96}}
  fp8q.buffer.preshuffle %w, %p : memref<32x96xf4E2M1FN>, memref<32x96xf4E2M1FN>
  return
}

// -----

func.func @preshuffle_type(%w: memref<32x64xf8E4M3FN>, %p: memref<32x64xf8E4M3FNUZ>) {
  // expected-error @below {{dest element type 'f8E4M3FNUZ' must match w element type 'f8E4M3FN'}}
  fp8q.buffer.preshuffle %w, %p : memref<32x64xf8E4M3FN>, memref<32x64xf8E4M3FNUZ>
  return
}

// -----

func.func @scale_element(%x: memref<4x256xbf16>, %q: memref<4x256xf8E4M3FN>, %s: memref<4x2xf16>) {
  // expected-error @below {{must be 2D memref of scale element (f32, f8E8M0FNU or f8E4M3FN) values, but got 'memref<4x2xf16>'}}
  fp8q.buffer.quantize %x, %q, %s : memref<4x256xbf16>, memref<4x256xf8E4M3FN>, memref<4x2xf16>
  return
}

// -----

func.func @silu_gate_element(%x: memref<4x256xbf16>, %g: memref<4x256xf16>, %q: memref<4x256xf8E4M3FN>, %s: memref<4x2xf32>) {
  // expected-error @below {{silu_gate element type 'f16' must match x element type 'bf16'}}
  fp8q.buffer.quantize %x silu_gate(%g : memref<4x256xf16>), %q, %s : memref<4x256xbf16>, memref<4x256xf8E4M3FN>, memref<4x2xf32>
  return
}

// -----

func.func @residual_without_sum(%x: memref<4x256xbf16>, %g: memref<256xbf16>, %q: memref<4x256xf8E4M3FN>, %s: memref<4x2xf32>, %r: memref<4x256xbf16>) {
  // expected-error @below {{residual and residual_sum buffers come together}}
  "fp8q.buffer.rms_norm_quantize"(%x, %g, %q, %s, %r) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 0>}> : (memref<4x256xbf16>, memref<256xbf16>, memref<4x256xf8E4M3FN>, memref<4x2xf32>, memref<4x256xbf16>) -> ()
  return
}

// -----

func.func @residual_sum_shape(%x: memref<4x256xbf16>, %g: memref<256xbf16>, %q: memref<4x256xf8E4M3FN>, %s: memref<4x2xf32>, %r: memref<4x256xbf16>, %sum: memref<4x128xbf16>) {
  // expected-error @below {{residual_sum must have shape [4x256], got [4x128]}}
  fp8q.buffer.rms_norm_quantize %x, %g, %q, %s residual(%r : memref<4x256xbf16> -> %sum : memref<4x128xbf16>) : memref<4x256xbf16>, memref<256xbf16>, memref<4x256xf8E4M3FN>, memref<4x2xf32>
  return
}

// -----

// SPEC v2 buffers.

func.func @padded_f32(%x: memref<4x256xbf16>, %q: memref<4x256xf8E4M3FN>, %s: memref<4x2xf32, #fp8q.layout<cdna4_mx>>) {
  // expected-error @below {{scale: a padded scale layout holds 1-byte scales (f8E8M0FNU or f8E4M3FN), got 'f32'}}
  fp8q.buffer.quantize %x, %q, %s : memref<4x256xbf16>, memref<4x256xf8E4M3FN>, memref<4x2xf32, #fp8q.layout<cdna4_mx>>
  return
}

// -----

// expected-error @below {{#fp8q.layout<col_major> is a tensor encoding; a memref states a strided scale layout with strided<[...]>}}
func.func @strided_fp8q_layout(%s: memref<4x2xf32, #fp8q.layout<col_major>>) {
  return
}

// -----

func.func @nvfp4_without_global(%x: memref<4x64xf32>, %q: memref<4x64xf4E2M1FN>, %s: memref<4x4xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>) {
  // expected-error @below {{NVFP4 needs the global_scale operand}}
  fp8q.buffer.quantize %x, %q, %s {group_size = 16 : i64} : memref<4x64xf32>, memref<4x64xf4E2M1FN>, memref<4x4xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>
  return
}

// -----

func.func @global_not_nvfp4(%x: memref<4x64xf32>, %g: memref<f32>, %q: memref<4x64xf4E2M1FN>, %s: memref<4x2xf8E8M0FNU>) {
  // expected-error @below {{global_scale is NVFP4's (f4E2M1FN q, f8E4M3FN scale) only}}
  fp8q.buffer.quantize %x global(%g : memref<f32>), %q, %s {group_size = 32 : i64} : memref<4x64xf32>, memref<4x64xf4E2M1FN>, memref<4x2xf8E8M0FNU>
  return
}

// -----

func.func @rounding_not_of_format(%x: memref<4x64xf32>, %q: memref<4x64xf4E2M1FN>, %s: memref<4x2xf8E8M0FNU>) {
  // expected-error @below {{scale_rounding exact is not a rule of MXFP4}}
  fp8q.buffer.quantize %x, %q, %s {group_size = 32 : i64, scale_rounding = #fp8q.scale_rounding<exact>} : memref<4x64xf32>, memref<4x64xf4E2M1FN>, memref<4x2xf8E8M0FNU>
  return
}

// -----

func.func @silu_v2(%x: memref<4x64xf32>, %g: memref<4x64xf32>, %q: memref<4x64xf4E2M1FN>, %s: memref<4x2xf8E8M0FNU>) {
  // expected-error @below {{silu_gate is fused for FP8 1x128 with exact f32 scales only}}
  fp8q.buffer.quantize %x silu_gate(%g : memref<4x64xf32>), %q, %s {group_size = 32 : i64} : memref<4x64xf32>, memref<4x64xf4E2M1FN>, memref<4x2xf8E8M0FNU>
  return
}

// -----

func.func @materialize_element(%a: memref<4x2xf8E8M0FNU, #fp8q.layout<cdna4_mx>>, %b: memref<4x2xf8E4M3FN>) {
  // expected-error @below {{dest element type 'f8E4M3FN' must match source element type 'f8E8M0FNU'}}
  fp8q.buffer.materialize %a, %b : memref<4x2xf8E8M0FNU, #fp8q.layout<cdna4_mx>>, memref<4x2xf8E4M3FN>
  return
}

// -----

func.func @gemm_formats_differ(%q: memref<4x64xf8E4M3FN>, %xs: memref<4x2xf8E8M0FNU>, %w: memref<32x64xf4E2M1FN>, %ws: memref<32x2xf8E8M0FNU>, %o: memref<4x32xbf16>) {
  // expected-error @below {{operand formats differ: q / x_scale are MXFP8 but w / w_scale are not; give both operands one format}}
  fp8q.buffer.gemm %q, %xs, %w, %ws, %o : memref<4x64xf8E4M3FN>, memref<4x2xf8E8M0FNU>, memref<32x64xf4E2M1FN>, memref<32x2xf8E8M0FNU>, memref<4x32xbf16>
  return
}

// -----

func.func @gemm_nvfp4_no_global(%q: memref<4x64xf4E2M1FN>, %xs: memref<4x4xf8E4M3FN>, %w: memref<32x64xf4E2M1FN>, %ws: memref<32x4xf8E4M3FN>, %o: memref<4x32xbf16>) {
  // expected-error @below {{NVFP4 (f4E2M1FN q and w, f8E4M3FN scales) needs the rank-0 f32 global_scale operand}}
  fp8q.buffer.gemm %q, %xs, %w, %ws, %o : memref<4x64xf4E2M1FN>, memref<4x4xf8E4M3FN>, memref<32x64xf4E2M1FN>, memref<32x4xf8E4M3FN>, memref<4x32xbf16>
  return
}

// -----

func.func @gemm_mxfp4_global(%q: memref<4x64xf4E2M1FN>, %xs: memref<4x2xf8E8M0FNU>, %w: memref<32x64xf4E2M1FN>, %ws: memref<32x2xf8E8M0FNU>, %g: memref<f32>, %o: memref<4x32xbf16>) {
  // expected-error @below {{global_scale (the product of NVFP4's two global scales) applies only to an NVFP4 gemm; drop it for MXFP4}}
  fp8q.buffer.gemm %q, %xs, %w, %ws global(%g : memref<f32>), %o : memref<4x64xf4E2M1FN>, memref<4x2xf8E8M0FNU>, memref<32x64xf4E2M1FN>, memref<32x2xf8E8M0FNU>, memref<4x32xbf16>
  return
}

// -----

func.func @gemm_fp8_global(%q: memref<4x256xf8E4M3FN>, %s: memref<4x2xf32>, %w: memref<32x256xf8E4M3FN>, %ws: memref<1x2xf32>, %g: memref<f32>, %o: memref<4x32xbf16>) {
  // expected-error @below {{applies only to an NVFP4 gemm; drop it for FP8 1x128}}
  fp8q.buffer.gemm %q, %s, %w, %ws global(%g : memref<f32>), %o {kernel = #fp8q.kernel<ck>} : memref<4x256xf8E4M3FN>, memref<4x2xf32>, memref<32x256xf8E4M3FN>, memref<1x2xf32>, memref<4x32xbf16>
  return
}

// -----

func.func @all_gather_element(%q: memref<4x256xf8E4M3FN>, %g: memref<8x256xf8E5M2>) {
  // expected-error @below {{dest element type 'f8E5M2' must match input element type 'f8E4M3FN'}}
  fp8q.buffer.all_gather %q, %g ranks(2) : memref<4x256xf8E4M3FN>, memref<8x256xf8E5M2>
  return
}

// -----

func.func @all_gather_strided(%s: memref<4x2xf32, strided<[1, 4]>>, %g: memref<8x2xf32>) {
  // expected-error @below {{input must be a contiguous row-major buffer (a collective moves whole rows of bytes), got 'memref<4x2xf32, strided<[1, 4]>>'}}
  fp8q.buffer.all_gather %s, %g ranks(2) : memref<4x2xf32, strided<[1, 4]>>, memref<8x2xf32>
  return
}

// -----

func.func @all_gather_columns(%q: memref<4x256xf8E4M3FN>, %g: memref<8x128xf8E4M3FN>) {
  // expected-error @below {{input and dest must have the same static number of columns, got [4x256] and [8x128]}}
  fp8q.buffer.all_gather %q, %g ranks(2) : memref<4x256xf8E4M3FN>, memref<8x128xf8E4M3FN>
  return
}

// -----

func.func @all_gather_rows(%q: memref<4x256xf8E4M3FN>, %g: memref<4x256xf8E4M3FN>) {
  // expected-error @below {{dest must have shape [8x256], got [4x256]}}
  fp8q.buffer.all_gather %q, %g ranks(2) : memref<4x256xf8E4M3FN>, memref<4x256xf8E4M3FN>
  return
}

// -----

func.func @reduce_scatter_divisible(%y: memref<6x64xbf16>, %r: memref<?x64xbf16>) {
  // expected-error @below {{input rows (6) must be a multiple of ranks (4)}}
  fp8q.buffer.reduce_scatter %y, %r ranks(4) : memref<6x64xbf16>, memref<?x64xbf16>
  return
}

// -----

func.func @ranks_positive(%y: memref<4x64xbf16>, %r: memref<4x64xbf16>) {
  // expected-error @below {{attribute 'ranks' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1}}
  fp8q.buffer.reduce_scatter %y, %r ranks(0) : memref<4x64xbf16>, memref<4x64xbf16>
  return
}
