// RUN: fp8q-opt %s -split-input-file --fp8q-lower-to-runtime -verify-diagnostics | FileCheck %s

// A SPEC v2 gemm becomes one call of fp8q_rt_gemm_v2 (docs/RuntimeABI.md,
// "v2 GEMM"): q, x_scale, w, w_scale, NVFP4's global product (a scratch
// rank-0 buffer for the other formats), out; then group_size, kernel,
// q_type, scale_type, x_scale layout and align, w_scale layout and align,
// weight layout. Padded scales are strides (0, 0) descriptors; f4E2M1FN
// buffers are declared as bytes like fp8 (their descriptors count codes),
// so one declaration serves every format. Device execution:
// lower-to-runtime-device-gemm-v2.mlir.

// CHECK-LABEL: module
// CHECK: func.func private @fp8q_rt_gemm_v2(memref<?x?xi8, strided<[?, ?], offset: ?>>, memref<?x?xi8, strided<[?, ?], offset: ?>>, memref<?x?xi8, strided<[?, ?], offset: ?>>, memref<?x?xi8, strided<[?, ?], offset: ?>>, memref<f32, strided<[], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, i64, i32, i32, i32, i32, i64, i32, i64, i32) -> i32 attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @nvfp4_swizzled
// CHECK: %[[XS:.*]] = memref.cast %{{.*}} : memref<?x4xf8E4M3FN, strided<[0, 0]>> to memref<?x?xf8E4M3FN, strided<[?, ?], offset: ?>>
// CHECK: %[[G:.*]] = memref.cast %arg4 : memref<f32> to memref<f32, strided<[], offset: ?>>
// Group 16, reference = 5, f4E2M1FN = 3, f8E4M3FN scales = 2,
// swizzle_32_4_4 = 3 (align 1) on both scales, plain weight.
// CHECK: call @fp8q_rt_gemm_v2(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[G]], %{{.*}}, %c16_i64, %c5_i32, %c3_i32, %c2_i32, %c3_i32{{.*}}, %c1_i64{{.*}}, %c3_i32{{.*}}, %c1_i64{{.*}}, %c0_i32)
// CHECK-NOT: fp8q.
func.func @nvfp4_swizzled(%q: memref<?x64xf4E2M1FN>, %xs: memref<?x4xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>,
                          %w: memref<32x64xf4E2M1FN>, %ws: memref<32x4xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>,
                          %g: memref<f32>, %o: memref<?x32xbf16>) {
  fp8q.buffer.gemm %q, %xs, %w, %ws global(%g : memref<f32>), %o {kernel = #fp8q.kernel<reference>}
      : memref<?x64xf4E2M1FN>, memref<?x4xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>,
        memref<32x64xf4E2M1FN>, memref<32x4xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>, memref<?x32xbf16>
  return
}

// -----

// UE8M0: x_scale col_major align 4 pack 4 (layout 2, align 4), a
// row-major [ceil(N / 128), K / 128] weight scale; a scratch global.
// CHECK-LABEL: func.func @ue8m0_pack4
// CHECK: %[[SCRATCH:.*]] = memref.alloca() : memref<f32>
// CHECK: %[[GS:.*]] = memref.cast %[[SCRATCH]]
// CHECK: call @fp8q_rt_gemm_v2(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[GS]], %{{.*}}, %c128_i64, %c5_i32, %c0_i32, %c1_i32, %c2_i32, %c4_i64, %c0_i32{{.*}}, %c1_i64{{.*}}, %c0_i32{{.*}})
func.func @ue8m0_pack4(%q: memref<?x256xf8E4M3FN>, %xs: memref<?x2xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>,
                       %w: memref<160x256xf8E4M3FN>, %ws: memref<2x2xf8E8M0FNU>, %o: memref<?x160xbf16>) {
  fp8q.buffer.gemm %q, %xs, %w, %ws, %o {kernel = #fp8q.kernel<reference>}
      : memref<?x256xf8E4M3FN>, memref<?x2xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>,
        memref<160x256xf8E4M3FN>, memref<2x2xf8E8M0FNU>, memref<?x160xbf16>
  return
}

// -----

// MXFP8 E5M2 (q_type 2) with a column-major x_scale (layout 1, align 1:
// the runtime reads the leading dimension from the strides) and a
// cdna4_mx (4) weight scale.
// CHECK-LABEL: func.func @mxfp8_e5m2
// CHECK: call @fp8q_rt_gemm_v2({{.*}}, %c32_i64, %c5_i32, %c2_i32, %c1_i32{{.*}}, %c1_i32{{.*}}, %c1_i64{{.*}}, %c4_i32, %c1_i64{{.*}}, %c0_i32{{.*}})
func.func @mxfp8_e5m2(%q: memref<?x64xf8E5M2>, %xs: memref<?x2xf8E8M0FNU, strided<[1, ?]>>,
                      %w: memref<32x64xf8E5M2>, %ws: memref<32x2xf8E8M0FNU, #fp8q.layout<cdna4_mx>>, %o: memref<?x32xbf16>) {
  fp8q.buffer.gemm %q, %xs, %w, %ws, %o {kernel = #fp8q.kernel<reference>}
      : memref<?x64xf8E5M2>, memref<?x2xf8E8M0FNU, strided<[1, ?]>>,
        memref<32x64xf8E5M2>, memref<32x2xf8E8M0FNU, #fp8q.layout<cdna4_mx>>, memref<?x32xbf16>
  return
}

// -----

// MXFP4 with the byte-wise preshuffled fp4 weight (weight layout 1).
// CHECK-LABEL: func.func @mxfp4_preshuffled
// CHECK: call @fp8q_rt_gemm_v2({{.*}}, %c32_i64, %c5_i32, %c3_i32, %c1_i32{{.*}}, %c4_i32, %c1_i64{{.*}}, %c4_i32{{.*}}, %c1_i64{{.*}}, %c1_i32{{.*}})
func.func @mxfp4_preshuffled(%q: memref<?x128xf4E2M1FN>, %xs: memref<?x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>>,
                             %w: memref<32x128xf4E2M1FN>, %ws: memref<32x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>>, %o: memref<?x32xbf16>) {
  fp8q.buffer.gemm %q, %xs, %w, %ws, %o {kernel = #fp8q.kernel<reference>, w_layout = #fp8q.weight_layout<preshuffle_16x16>}
      : memref<?x128xf4E2M1FN>, memref<?x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>>,
        memref<32x128xf4E2M1FN>, memref<32x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>>, memref<?x32xbf16>
  return
}

// -----

// An fp4 weight is preshuffled byte-wise: fp8q_rt_preshuffle_v2 with its
// q_type (3, f4E2M1FN) and K in codes; fp8 keeps fp8q_rt_preshuffle.
// CHECK-LABEL: func.func @preshuffle_fp4
// CHECK: call @fp8q_rt_preshuffle_v2({{.*}}, %c3_i32, %c128_i64)
// CHECK: call @fp8q_rt_preshuffle({{.*}}) : (memref<?x?xi8
func.func @preshuffle_fp4(%w: memref<32x128xf4E2M1FN>, %p: memref<32x128xf4E2M1FN>,
                          %w8: memref<32x128xf8E4M3FN>, %p8: memref<32x128xf8E4M3FN>) {
  fp8q.buffer.preshuffle %w, %p : memref<32x128xf4E2M1FN>, memref<32x128xf4E2M1FN>
  fp8q.buffer.preshuffle %w8, %p8 : memref<32x128xf8E4M3FN>, memref<32x128xf8E4M3FN>
  return
}

// -----

// Equal bytes across descriptor kinds: row_major [8, 4] and [16, 4] are
// col_major align 4 pack 4's bytes (one word per row, no padding), which
// deepgemm_sm100 (8) reads; the runtimes take the kind from the
// descriptor, so both scales are passed as padded views (strides (0, 0),
// layout 2, align 4) of the same buffers, nothing copied.
// CHECK-LABEL: func.func @deepgemm_sm100_row_major_is_pack4
// CHECK-SAME: %[[Q:[^:]*]]: memref<8x512xf8E4M3FN>, %[[XS:[^:]*]]: memref<8x4xf8E8M0FNU>, %[[W:[^:]*]]: memref<16x512xf8E4M3FN>, %[[WS:[^:]*]]: memref<16x4xf8E8M0FNU>
// CHECK: %{{.*}}, %[[XOFF:.*]], %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[XS]]
// CHECK: memref.reinterpret_cast %[[XS]] to offset: [%[[XOFF]]], sizes: [8, 4], strides: [0, 0] : memref<8x4xf8E8M0FNU> to memref<8x4xf8E8M0FNU, strided<[0, 0], offset: ?>>
// CHECK: %{{.*}}, %[[WOFF:.*]], %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[WS]]
// CHECK: memref.reinterpret_cast %[[WS]] to offset: [%[[WOFF]]], sizes: [16, 4], strides: [0, 0] : memref<16x4xf8E8M0FNU> to memref<16x4xf8E8M0FNU, strided<[0, 0], offset: ?>>
// CHECK: call @fp8q_rt_gemm_v2({{.*}}, %c128_i64{{[_0-9]*}}, %c8_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c1_i32{{[_0-9]*}}, %c2_i32{{[_0-9]*}}, %c4_i64{{[_0-9]*}}, %c2_i32{{[_0-9]*}}, %c4_i64{{[_0-9]*}}, %c0_i32{{[_0-9]*}})
func.func @deepgemm_sm100_row_major_is_pack4(%q: memref<8x512xf8E4M3FN>, %xs: memref<8x4xf8E8M0FNU>,
                                             %w: memref<16x512xf8E4M3FN>, %ws: memref<16x4xf8E8M0FNU>, %o: memref<8x16xbf16>) {
  fp8q.buffer.gemm %q, %xs, %w, %ws, %o {kernel = #fp8q.kernel<deepgemm_sm100>}
      : memref<8x512xf8E4M3FN>, memref<8x4xf8E8M0FNU>,
        memref<16x512xf8E4M3FN>, memref<16x4xf8E8M0FNU>, memref<8x16xbf16>
  return
}

// -----

// The reverse: triton (2) reads a row_major w_scale, and a padded pack4
// align 4 [8, 4] is its bytes: passed as the strided view (4, 1), layout
// 0. A row_major [6, 4] x_scale is not pack4 align 4's bytes (6 rows pad
// to 8), so nothing is re-described there: triton reads it strided anyway.
// CHECK-LABEL: func.func @triton_pack4_is_row_major
// CHECK-NOT: memref.reinterpret_cast %arg1
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [8, 4], strides: [4, 1] : memref<8x4xf8E8M0FNU, strided<[0, 0]>> to memref<8x4xf8E8M0FNU, strided<[4, 1], offset: ?>>
// CHECK: call @fp8q_rt_gemm_v2({{.*}}, %c32_i64{{[_0-9]*}}, %c2_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c1_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c0_i32{{[_0-9]*}})
func.func @triton_pack4_is_row_major(%q: memref<6x128xf8E4M3FN>, %xs: memref<6x4xf8E8M0FNU>,
                                     %w: memref<8x128xf8E4M3FN>, %ws: memref<8x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>,
                                     %o: memref<6x8xbf16>) {
  fp8q.buffer.gemm %q, %xs, %w, %ws, %o {kernel = #fp8q.kernel<triton>}
      : memref<6x128xf8E4M3FN>, memref<6x4xf8E8M0FNU>,
        memref<8x128xf8E4M3FN>, memref<8x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>, memref<6x8xbf16>
  return
}

// -----

// Not the same bytes: row_major [6, 4] pads to 8 rows as pack4 align 4,
// so it stays a strided row_major descriptor (layout 0) for the runtime to
// reject with what to materialize.
// CHECK-LABEL: func.func @deepgemm_sm100_row_major_not_pack4
// CHECK-NOT: memref.reinterpret_cast
// CHECK: call @fp8q_rt_gemm_v2({{.*}}, %c128_i64{{[_0-9]*}}, %c8_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c1_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c2_i32{{[_0-9]*}}, %c4_i64{{[_0-9]*}}, %c0_i32{{[_0-9]*}})
func.func @deepgemm_sm100_row_major_not_pack4(%q: memref<6x512xf8E4M3FN>, %xs: memref<6x4xf8E8M0FNU>,
                                              %w: memref<16x512xf8E4M3FN>, %ws: memref<16x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>,
                                              %o: memref<6x16xbf16>) {
  fp8q.buffer.gemm %q, %xs, %w, %ws, %o {kernel = #fp8q.kernel<deepgemm_sm100>}
      : memref<6x512xf8E4M3FN>, memref<6x4xf8E8M0FNU>,
        memref<16x512xf8E4M3FN>, memref<16x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>, memref<6x16xbf16>
  return
}
