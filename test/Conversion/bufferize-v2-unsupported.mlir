// RUN: fp8q-opt %s -split-input-file --fp8q-bufferize -verify-diagnostics

// SPEC v2's formats and padded layouts are not lowered yet: a located
// error, never a crash or a misread strided view.

func.func @swizzled_result(%x: tensor<?x512xbf16>) -> tensor<?x16xf8E8M0FNU> {
  // expected-error @+1 {{'fp8q.quantize' op a result has SPEC v2 element type f4E2M1FN, and v2 formats and scale layouts are not lowered yet}}
  %q, %s = fp8q.quantize %x {group_size = 32}
      : tensor<?x512xbf16> -> tensor<?x512xf4E2M1FN>,
        tensor<?x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
  %r = fp8q.materialize %s : tensor<?x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>> -> tensor<?x16xf8E8M0FNU>
  return %r : tensor<?x16xf8E8M0FNU>
}

// -----

// expected-error @+1 {{'func.func' op an argument has SPEC v2 scale layout #fp8q.layout<swizzle_32_4_4>, and v2 formats and scale layouts are not lowered yet: --fp8q-bufferize handles row_major / col_major f32 scales with f8E4M3FN / f8E4M3FNUZ data only}}
func.func @swizzled_argument(%s: tensor<128x4xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>) {
  return
}

// -----

func.func @packed(%x: tensor<?x512xbf16>) -> tensor<?x512xf8E4M3FN> {
  // expected-error @+1 {{'fp8q.quantize' op a result has SPEC v2 scale layout #fp8q.layout<col_major, align = 4, pack = 4>}}
  %q, %s = fp8q.quantize %x
      : tensor<?x512xbf16> -> tensor<?x512xf8E4M3FN>,
        tensor<?x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>
  return %q : tensor<?x512xf8E4M3FN>
}
