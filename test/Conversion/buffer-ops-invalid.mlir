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

func.func @preshuffle_type(%w: memref<32x64xf8E4M3FN>, %p: memref<32x64xf8E4M3FNUZ>) {
  // expected-error @below {{dest element type 'f8E4M3FNUZ' must match w element type 'f8E4M3FN'}}
  fp8q.buffer.preshuffle %w, %p : memref<32x64xf8E4M3FN>, memref<32x64xf8E4M3FNUZ>
  return
}

// -----

func.func @scale_element(%x: memref<4x256xbf16>, %q: memref<4x256xf8E4M3FN>, %s: memref<4x2xf16>) {
  // expected-error @below {{operand #2 must be 2D memref of 32-bit float values}}
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
