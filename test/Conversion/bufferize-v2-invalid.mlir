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
