// RUN: fp8q-opt %s -split-input-file | fp8q-opt -split-input-file | FileCheck %s
// RUN: fp8q-opt %s -split-input-file -mlir-print-op-generic | fp8q-opt -split-input-file | FileCheck %s

// SPEC v2's formats, scale layouts and attributes round-trip through the
// custom and the generic form.

// CHECK-LABEL: func.func @layouts
// CHECK-SAME: tensor<?x56xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>
// CHECK-SAME: tensor<?x56xf8E8M0FNU, #fp8q.layout<col_major, pack = 4>>
// CHECK-SAME: tensor<?x224xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
// CHECK-SAME: tensor<?x224xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
// CHECK-SAME: tensor<?x448xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>
// CHECK-SAME: tensor<?x56xf32, #fp8q.layout<col_major, align = 4>>
func.func @layouts(
    %a: tensor<?x56xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>,
    %b: tensor<?x56xf8E8M0FNU, #fp8q.layout<col_major, align = 1, pack = 4>>,
    %c: tensor<?x224xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>,
    %d: tensor<?x224xf8E8M0FNU, #fp8q.layout<cdna4_mx>>,
    %e: tensor<?x448xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>,
    %f: tensor<?x56xf32, #fp8q.layout<col_major, align = 4, pack = 1>>) {
  return
}

// -----

// CHECK-LABEL: func.func @mxfp8
// CHECK: fp8q.quantize %{{.*}} {group_size = 32 : i64, scale_rounding = #fp8q.scale_rounding<pow2_floor>} : tensor<?x7168xbf16> -> tensor<?x7168xf8E5M2>, tensor<?x224xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
// CHECK: fp8q.gemm
// CHECK-SAME: {kernel = #fp8q.kernel<reference>}
// CHECK-SAME: tensor<?x7168xf8E5M2>, tensor<?x224xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, tensor<256x7168xf8E5M2>, tensor<256x224xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x256xbf16>
func.func @mxfp8(%x: tensor<?x7168xbf16>, %w: tensor<256x7168xf8E5M2>,
                 %ws: tensor<256x224xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>)
    -> tensor<?x256xbf16> {
  %q, %s = fp8q.quantize %x {group_size = 32, scale_rounding = #fp8q.scale_rounding<pow2_floor>}
      : tensor<?x7168xbf16> -> tensor<?x7168xf8E5M2>,
        tensor<?x224xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
  %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<reference>}
      : tensor<?x7168xf8E5M2>, tensor<?x224xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>,
        tensor<256x7168xf8E5M2>, tensor<256x224xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
        -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}

// -----

// CHECK-LABEL: func.func @mxfp4
// CHECK: fp8q.quantize %{{.*}} {group_size = 32 : i64} : tensor<?x512xf32> -> tensor<?x512xf4E2M1FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
// CHECK: fp8q.gemm
func.func @mxfp4(%x: tensor<?x512xf32>, %w: tensor<64x512xf4E2M1FN>,
                 %ws: tensor<64x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>)
    -> tensor<?x64xbf16> {
  %q, %s = fp8q.quantize %x {group_size = 32}
      : tensor<?x512xf32> -> tensor<?x512xf4E2M1FN>,
        tensor<?x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
  %y = fp8q.gemm %q, %s, %w, %ws
      : tensor<?x512xf4E2M1FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>,
        tensor<64x512xf4E2M1FN>, tensor<64x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
        -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}

// -----

// CHECK-LABEL: func.func @nvfp4
// CHECK: fp8q.quantize %{{.*}} global(%{{.*}} : tensor<f32>) {group_size = 16 : i64, scale_rounding = #fp8q.scale_rounding<e4m3>} : tensor<?x256xbf16> -> tensor<?x256xf4E2M1FN>, tensor<?x16xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>
// CHECK: fp8q.materialize %{{.*}} : tensor<?x16xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x16xf8E4M3FN>
func.func @nvfp4(%x: tensor<?x256xbf16>, %g: tensor<f32>, %w: tensor<32x256xf4E2M1FN>,
                 %ws: tensor<32x16xf8E4M3FN>) -> tensor<?x32xbf16> {
  %q, %s = fp8q.quantize %x global(%g : tensor<f32>) {group_size = 16, scale_rounding = #fp8q.scale_rounding<e4m3>}
      : tensor<?x256xbf16> -> tensor<?x256xf4E2M1FN>,
        tensor<?x16xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>
  %r = fp8q.materialize %s : tensor<?x16xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x16xf8E4M3FN>
  %y = fp8q.gemm %q, %r, %w, %ws global(%g : tensor<f32>)
      : tensor<?x256xf4E2M1FN>, tensor<?x16xf8E4M3FN>,
        tensor<32x256xf4E2M1FN>, tensor<32x16xf8E4M3FN> -> tensor<?x32xbf16>
  return %y : tensor<?x32xbf16>
}

// -----

// FP8 1x128 with UE8M0 scales: the weight scale keeps FP8 1x128's
// [ceil(N / 128), K / 128].
// CHECK-LABEL: func.func @ue8m0
// CHECK: fp8q.quantize %{{.*}} {scale_rounding = #fp8q.scale_rounding<pow2_ceil>} : tensor<?x512xbf16> -> tensor<?x512xf8E4M3FN>, tensor<?x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>
func.func @ue8m0(%x: tensor<?x512xbf16>, %w: tensor<256x512xf8E4M3FN>,
                 %ws: tensor<2x4xf8E8M0FNU>) -> tensor<?x256xbf16> {
  %q, %s = fp8q.quantize %x {scale_rounding = #fp8q.scale_rounding<pow2_ceil>}
      : tensor<?x512xbf16> -> tensor<?x512xf8E4M3FN>,
        tensor<?x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>
  %y = fp8q.gemm %q, %s, %w, %ws
      : tensor<?x512xf8E4M3FN>, tensor<?x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>,
        tensor<256x512xf8E4M3FN>, tensor<2x4xf8E8M0FNU> -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}

// -----

// ... or one scale per weight row, [N, K / 128]: what DeepGEMM reads on
// sm100 (the deepgemm_sm100 contract).
// CHECK-LABEL: func.func @ue8m0_per_row
// CHECK: fp8q.gemm {{.*}} tensor<256x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>> -> tensor<?x256xbf16>
func.func @ue8m0_per_row(%q: tensor<?x512xf8E4M3FN>, %s: tensor<?x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>,
                         %w: tensor<256x512xf8E4M3FN>,
                         %ws: tensor<256x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>) -> tensor<?x256xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<deepgemm_sm100>}
      : tensor<?x512xf8E4M3FN>, tensor<?x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>,
        tensor<256x512xf8E4M3FN>, tensor<256x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>> -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}

// -----

// An f4E2M1FN weight preshuffled byte-wise (K % 64 == 0), for aiter_mxfp4,
// and SPEC v2's kernel names.
// CHECK-LABEL: func.func @fp4_preshuffle
// CHECK: fp8q.preshuffle %{{.*}} : tensor<64x512xf4E2M1FN> -> tensor<64x512xf4E2M1FN, #fp8q.weight_layout<preshuffle_16x16>>
// CHECK: kernel = #fp8q.kernel<aiter_mxfp4>
// CHECK: kernel = #fp8q.kernel<cublas_mx>
func.func @fp4_preshuffle(%q: tensor<?x512xf4E2M1FN>, %s: tensor<?x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>,
                          %w: tensor<64x512xf4E2M1FN>, %ws: tensor<64x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>,
                          %q8: tensor<?x512xf8E4M3FN>, %s8: tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>,
                          %w8: tensor<64x512xf8E4M3FN>, %ws8: tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>) -> (tensor<?x64xbf16>, tensor<?x64xbf16>) {
  %p = fp8q.preshuffle %w : tensor<64x512xf4E2M1FN> -> tensor<64x512xf4E2M1FN, #fp8q.weight_layout<preshuffle_16x16>>
  %y = fp8q.gemm %q, %s, %p, %ws {kernel = #fp8q.kernel<aiter_mxfp4>}
      : tensor<?x512xf4E2M1FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>,
        tensor<64x512xf4E2M1FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<64x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>> -> tensor<?x64xbf16>
  %z = fp8q.gemm %q8, %s8, %w8, %ws8 {kernel = #fp8q.kernel<cublas_mx>}
      : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>,
        tensor<64x512xf8E4M3FN>, tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x64xbf16>
  return %y, %z : tensor<?x64xbf16>, tensor<?x64xbf16>
}

// -----

// FP8 1x128 with f32 power-of-two scales.
// CHECK-LABEL: func.func @pow2_f32
// CHECK: scale_rounding = #fp8q.scale_rounding<pow2_ceil>
func.func @pow2_f32(%x: tensor<4x256xbf16>) -> tensor<4x2xf32> {
  %q, %s = fp8q.quantize %x {scale_rounding = #fp8q.scale_rounding<pow2_ceil>}
      : tensor<4x256xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>
  return %s : tensor<4x2xf32>
}

// -----

// CHECK: module attributes {fp8q.target = #fp8q.target<arch = "sm100">}
module attributes {fp8q.target = #fp8q.target<arch = "sm100">} {
}

// -----

// The generic form of every new attribute parses.
// CHECK-LABEL: func.func @generic
// CHECK: fp8q.quantize %{{.*}} global(%{{.*}} : tensor<f32>) {group_size = 16 : i64, scale_rounding = #fp8q.scale_rounding<e4m3>}
func.func @generic(%x: tensor<8x32xf32>, %g: tensor<f32>) -> tensor<8x2xf8E4M3FN, #fp8q.layout<cdna4_mx>> {
  %q, %s = "fp8q.quantize"(%x, %g) <{group_size = 16 : i64, operandSegmentSizes = array<i32: 1, 0, 1>, scale_rounding = #fp8q.scale_rounding<e4m3>}>
      : (tensor<8x32xf32>, tensor<f32>) -> (tensor<8x32xf4E2M1FN>, tensor<8x2xf8E4M3FN, #fp8q.layout<cdna4_mx>>)
  return %s : tensor<8x2xf8E4M3FN, #fp8q.layout<cdna4_mx>>
}

// -----

// NVFP4's gemm takes the product of the activation and weight global
// scales; in the generic form it is the fifth operand.
// CHECK-LABEL: func.func @nvfp4_gemm_global
// CHECK: %[[G:.*]] = arith.mulf
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} global(%[[G]] : tensor<f32>) {kernel = #fp8q.kernel<reference>}
func.func @nvfp4_gemm_global(%q: tensor<?x64xf4E2M1FN>, %s: tensor<?x4xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>,
                             %w: tensor<32x64xf4E2M1FN>, %ws: tensor<32x4xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>,
                             %gx: tensor<f32>, %gw: tensor<f32>) -> tensor<?x32xbf16> {
  %g = arith.mulf %gx, %gw : tensor<f32>
  %y = fp8q.gemm %q, %s, %w, %ws global(%g : tensor<f32>) {kernel = #fp8q.kernel<reference>}
      : tensor<?x64xf4E2M1FN>, tensor<?x4xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>,
        tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x32xbf16>
  return %y : tensor<?x32xbf16>
}
