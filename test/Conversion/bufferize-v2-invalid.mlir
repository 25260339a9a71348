// RUN: fp8q-opt %s -split-input-file --fp8q-bufferize -verify-diagnostics

// Storage only fp8q ops can address (a padded scale: no strided form; f4:
// packed two per byte) never reaches an op that would bufferize it to a
// strided view and misread it: a located error instead.

func.func @slice_of_padded(%s: tensor<256x8xf8E8M0FNU, #fp8q.layout<cdna4_mx>>) -> tensor<16x8xf8E8M0FNU, #fp8q.layout<cdna4_mx>> {
  // expected-error @+1 {{'tensor.extract_slice' op has a scale in the padded layout #fp8q.layout<cdna4_mx> (it has no strided form); only fp8q ops, calls, returns and structured control flow carry it: materialize a scale to row_major or col_major, keep f4E2M1FN data between fp8q ops}}
  %t = tensor.extract_slice %s[0, 0] [16, 8] [1, 1] : tensor<256x8xf8E8M0FNU, #fp8q.layout<cdna4_mx>> to tensor<16x8xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
  return %t : tensor<16x8xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
}

// -----

func.func @elementwise_on_fp4(%q: tensor<4x64xf4E2M1FN>) -> tensor<4x64xi4> {
  // expected-error @+1 {{'arith.bitcast' op has an f4E2M1FN tensor (packed two values per byte); only fp8q ops}}
  %b = arith.bitcast %q : tensor<4x64xf4E2M1FN> to tensor<4x64xi4>
  return %b : tensor<4x64xi4>
}

// -----

// fp8q.gemm verifies without NVFP4's global scale (passes over tensor IR
// keep working); bufferization, which must pass it to the runtime,
// rejects it.
func.func @gemm_nvfp4_no_global(%q: tensor<4x64xf4E2M1FN>, %s: tensor<4x4xf8E4M3FN>,
                                %w: tensor<32x64xf4E2M1FN>, %ws: tensor<32x4xf8E4M3FN>) -> tensor<4x32xbf16> {
  // expected-error @+2 {{failed to bufferize op}}
  // expected-error @+1 {{'fp8q.gemm' op NVFP4 (f4E2M1FN q and w, f8E4M3FN scales) needs the rank-0 f32 global_scale operand to be bufferized: the product of the activation and weight global scales (out = global_scale * sum_g x_scale * w_scale * dot)}}
  %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<reference>} : tensor<4x64xf4E2M1FN>, tensor<4x4xf8E4M3FN>, tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN> -> tensor<4x32xbf16>
  return %y : tensor<4x32xbf16>
}
