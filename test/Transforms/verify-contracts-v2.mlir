// RUN: fp8q-opt %s -split-input-file --fp8q-verify-contracts -verify-diagnostics

// The contract table's `formats`: a kernel that does not read the gemm's
// format breaks its contract; the reference reads every format.

func.func @mx_on_ck(%q: tensor<?x512xf8E4M3FN>, %s: tensor<?x16xf8E8M0FNU>,
                    %w: tensor<64x512xf8E4M3FN>, %ws: tensor<64x16xf8E8M0FNU>) -> tensor<?x64xbf16> {
  // expected-error @+1 {{'fp8q.gemm' op breaks the ck contract: kernel ck reads FP8 1x128, got MXFP8 (q 'f8E4M3FN', x_scale 'f8E8M0FNU')}}
  %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<ck>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU>, tensor<64x512xf8E4M3FN>, tensor<64x16xf8E8M0FNU> -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}

// -----

module attributes {fp8q.target = #fp8q.target<arch = "sm100">} {
func.func @nvfp4_reference(%q: tensor<?x256xf4E2M1FN>, %s: tensor<?x16xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>,
                           %w: tensor<32x256xf4E2M1FN>, %ws: tensor<32x16xf8E4M3FN>) -> tensor<?x32xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<reference>} : tensor<?x256xf4E2M1FN>, tensor<?x16xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>, tensor<32x256xf4E2M1FN>, tensor<32x16xf8E4M3FN> -> tensor<?x32xbf16>
  return %y : tensor<?x32xbf16>
}
}
