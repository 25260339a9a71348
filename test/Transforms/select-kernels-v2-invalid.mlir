// RUN: fp8q-opt %s -split-input-file --fp8q-select-kernels -verify-diagnostics

// A format no kernel of the target reads is a located error naming the
// format and the target; one case per target and format.

module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
func.func @nvfp4_gfx950(%q: tensor<?x256xf4E2M1FN>, %s: tensor<?x16xf8E4M3FN>,
                        %w: tensor<32x256xf4E2M1FN>, %ws: tensor<32x16xf8E4M3FN>, %gs: tensor<f32>) -> tensor<?x32xbf16> {
  // expected-error @+1 {{'fp8q.gemm' op reads NVFP4 (q 'f4E2M1FN', x_scale 'f8E4M3FN'), and no kernel of the contract table reads it on gfx950; set `kernel = #fp8q.kernel<reference>` to run it on the CPU reference, or target an architecture with such a kernel}}
  %y = fp8q.gemm %q, %s, %w, %ws global(%gs : tensor<f32>) : tensor<?x256xf4E2M1FN>, tensor<?x16xf8E4M3FN>, tensor<32x256xf4E2M1FN>, tensor<32x16xf8E4M3FN> -> tensor<?x32xbf16>
  return %y : tensor<?x32xbf16>
}
}

// -----

module attributes {fp8q.target = #fp8q.target<arch = "sm90">} {
func.func @ue8m0_sm90(%q: tensor<?x512xf8E4M3FN>, %s: tensor<?x4xf8E8M0FNU>,
                      %w: tensor<256x512xf8E4M3FN>, %ws: tensor<2x4xf8E8M0FNU>) -> tensor<?x256xbf16> {
  // expected-error @+1 {{'fp8q.gemm' op reads FP8 1x128 UE8M0 (q 'f8E4M3FN', x_scale 'f8E8M0FNU'), and no kernel of the contract table reads it on sm90}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<?x512xf8E4M3FN>, tensor<?x4xf8E8M0FNU>, tensor<256x512xf8E4M3FN>, tensor<2x4xf8E8M0FNU> -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}
}

// -----

// An explicit aiter_mxfp4 gemm whose fp4 weight preshuffle_16x16 cannot
// hold: fp4 is shuffled byte-wise, so K must be a multiple of 64.
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
func.func @unshufflable_fp4(%q: tensor<?x32xf4E2M1FN>, %s: tensor<?x1xf8E8M0FNU, #fp8q.layout<cdna4_mx>>,
                            %w: tensor<64x32xf4E2M1FN>, %ws: tensor<64x1xf8E8M0FNU, #fp8q.layout<cdna4_mx>>) -> tensor<?x64xbf16> {
  // expected-error @+1 {{'fp8q.gemm' op reads a [64, 32] weight that aiter_mxfp4 needs preshuffled, but preshuffle_16x16 needs N % 16 == 0 and K % 64 == 0}}
  %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<aiter_mxfp4>} : tensor<?x32xf4E2M1FN>, tensor<?x1xf8E8M0FNU, #fp8q.layout<cdna4_mx>>, tensor<64x32xf4E2M1FN>, tensor<64x1xf8E8M0FNU, #fp8q.layout<cdna4_mx>> -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
}
