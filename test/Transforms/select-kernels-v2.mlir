// RUN: fp8q-opt %s -split-input-file --fp8q-select-kernels -verify-diagnostics

// SPEC v2 formats are routed from the contract table's `formats`: a format
// no kernel of the target reads is a located error.

module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
func.func @mxfp4_gfx950(%q: tensor<?x512xf4E2M1FN>, %s: tensor<?x16xf8E8M0FNU>,
                        %w: tensor<64x512xf4E2M1FN>, %ws: tensor<64x16xf8E8M0FNU>) -> tensor<?x64xbf16> {
  // expected-error @+1 {{'fp8q.gemm' op reads MXFP4 (q 'f4E2M1FN', x_scale 'f8E8M0FNU'), and no kernel of the contract table reads it on gfx950; set `kernel = #fp8q.kernel<reference>` to run it on the CPU reference, or target an architecture with such a kernel}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<?x512xf4E2M1FN>, tensor<?x16xf8E8M0FNU>, tensor<64x512xf4E2M1FN>, tensor<64x16xf8E8M0FNU> -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
}

// -----

module attributes {fp8q.target = #fp8q.target<arch = "sm100">} {
func.func @fp8_sm100(%q: tensor<?x512xf8E4M3FN>, %s: tensor<?x4xf32>,
                     %w: tensor<256x512xf8E4M3FN>, %ws: tensor<2x4xf32>) -> tensor<?x256xbf16> {
  // expected-error @+1 {{'fp8q.gemm' op reads FP8 1x128 (q 'f8E4M3FN', x_scale 'f32'), and no kernel of the contract table reads it on sm100}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<?x512xf8E4M3FN>, tensor<?x4xf32>, tensor<256x512xf8E4M3FN>, tensor<2x4xf32> -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}
}

// -----

// A gemm that already names a kernel is left alone.
module attributes {fp8q.target = #fp8q.target<arch = "sm100">} {
func.func @nvfp4_reference(%q: tensor<?x256xf4E2M1FN>, %s: tensor<?x16xf8E4M3FN>,
                           %w: tensor<32x256xf4E2M1FN>, %ws: tensor<32x16xf8E4M3FN>) -> tensor<?x32xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<reference>} : tensor<?x256xf4E2M1FN>, tensor<?x16xf8E4M3FN>, tensor<32x256xf4E2M1FN>, tensor<32x16xf8E4M3FN> -> tensor<?x32xbf16>
  return %y : tensor<?x32xbf16>
}
}
