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
                           %w: tensor<32x256xf4E2M1FN>, %ws: tensor<32x16xf8E4M3FN>, %gs: tensor<f32>) -> tensor<?x32xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws global(%gs : tensor<f32>) {kernel = #fp8q.kernel<reference>} : tensor<?x256xf4E2M1FN>, tensor<?x16xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>, tensor<32x256xf4E2M1FN>, tensor<32x16xf8E4M3FN> -> tensor<?x32xbf16>
  return %y : tensor<?x32xbf16>
}
}

// -----

// SPEC v2 x_scale layouts: cublas_mx reads swizzle_32_4_4.
module attributes {fp8q.target = #fp8q.target<arch = "sm100">} {
func.func @mxfp8_row_major_x(%q: tensor<?x512xf8E4M3FN>, %s: tensor<?x16xf8E8M0FNU>,
                             %w: tensor<64x512xf8E4M3FN>, %ws: tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>) -> tensor<?x64xbf16> {
  // expected-error @+1 {{'fp8q.gemm' op x_scale breaks the cublas_mx contract: kernel cublas_mx requires #fp8q.layout<swizzle_32_4_4> (128x4 tiles of 512 bytes), got #fp8q.layout<row_major> for shape 'tensor<?x16xf8E8M0FNU>'}}
  %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<cublas_mx>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU>, tensor<64x512xf8E4M3FN>, tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
}

// -----

// w_scale layouts are part of SPEC v2's contracts: aiter_mxfp4 reads the
// weight scale e8m0_shuffle'd too.
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
func.func @mxfp4_row_major_w(%q: tensor<?x512xf4E2M1FN>, %s: tensor<?x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>,
                             %w: tensor<64x512xf4E2M1FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<64x16xf8E8M0FNU>) -> tensor<?x64xbf16> {
  // expected-error @+1 {{'fp8q.gemm' op w_scale breaks the aiter_mxfp4 contract: kernel aiter_mxfp4 requires #fp8q.layout<cdna4_mx> (AITER e8m0_shuffle), got #fp8q.layout<row_major> for shape 'tensor<64x16xf8E8M0FNU>'}}
  %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<aiter_mxfp4>} : tensor<?x512xf4E2M1FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>, tensor<64x512xf4E2M1FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<64x16xf8E8M0FNU> -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
}

// -----

// Triton takes strides: a swizzled scale is not one.
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
func.func @mxfp8_triton_swizzled(%q: tensor<?x512xf8E4M3FN>, %s: tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>,
                                 %w: tensor<64x512xf8E4M3FN>, %ws: tensor<64x16xf8E8M0FNU>) -> tensor<?x64xbf16> {
  // expected-error @+1 {{'fp8q.gemm' op x_scale breaks the triton contract: kernel triton requires a strided layout (row_major, col_major or col_major align; not pack = 4 or a swizzle), got #fp8q.layout<swizzle_32_4_4>}}
  %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<triton>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, tensor<64x512xf8E4M3FN>, tensor<64x16xf8E8M0FNU> -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
}

// -----

// deepgemm_sm100 reads one UE8M0 weight scale per weight row (DeepGEMM
// broadcasts the 128x128 block scales on the host for sm100).
module attributes {fp8q.target = #fp8q.target<arch = "sm100">} {
func.func @ue8m0_block_w(%q: tensor<?x512xf8E4M3FN>, %s: tensor<?x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>,
                         %w: tensor<256x512xf8E4M3FN>, %ws: tensor<2x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>) -> tensor<?x256xbf16> {
  // expected-error @+1 {{'fp8q.gemm' op w_scale breaks the deepgemm_sm100 contract: kernel deepgemm_sm100 reads one UE8M0 weight scale per weight row and 128 K ([N, K/128] = [256, 4]), got [2, 4]; broadcast each 128x128 block scale over its 128 rows (DeepGEMM does it on the host for sm100)}}
  %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<deepgemm_sm100>} : tensor<?x512xf8E4M3FN>, tensor<?x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>, tensor<256x512xf8E4M3FN>, tensor<2x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>> -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}
}

// -----

// The other kernels read UE8M0 weight scales per 128x128 block.
func.func @ue8m0_per_row_reference(%q: tensor<?x512xf8E4M3FN>, %s: tensor<?x4xf8E8M0FNU>,
                                   %w: tensor<256x512xf8E4M3FN>, %ws: tensor<256x4xf8E8M0FNU>) -> tensor<?x256xbf16> {
  // expected-error @+1 {{'fp8q.gemm' op w_scale breaks the reference contract: kernel reference reads UE8M0 weight scales per 128x128 block ([ceil(N/128), K/128] = [2, 4]), got one per weight row [256, 4]}}
  %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<reference>} : tensor<?x512xf8E4M3FN>, tensor<?x4xf8E8M0FNU>, tensor<256x512xf8E4M3FN>, tensor<256x4xf8E8M0FNU> -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}

// -----

// deepgemm_sm100 with its contract met: no error.
module attributes {fp8q.target = #fp8q.target<arch = "sm100">} {
func.func @ue8m0_ok(%q: tensor<?x512xf8E4M3FN>, %s: tensor<?x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>,
                    %w: tensor<256x512xf8E4M3FN>, %ws: tensor<256x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>) -> tensor<?x256xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<deepgemm_sm100>} : tensor<?x512xf8E4M3FN>, tensor<?x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>, tensor<256x512xf8E4M3FN>, tensor<256x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>> -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}
}
