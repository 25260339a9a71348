// RUN: fp8q-opt %s -split-input-file --fp8q-bufferize | FileCheck %s
// RUN: fp8q-opt %s -split-input-file --fp8q-bufferize | fp8q-opt -split-input-file | FileCheck %s

// SPEC v2 formats and padded scale layouts bufferize to what their bytes
// are: a padded scale is a dense rank-1 allocation of the layout's
// fp8q_scale_layout_alloc elements viewed as the logical [M, G] scale with
// the layout as its memref layout (strides (0, 0)); an f4E2M1FN buffer is
// M * K / 2 bytes viewed as the logical element buffer.

// CHECK-LABEL: func.func @mxfp4_cdna4
// CHECK-SAME: (%[[X:.*]]: memref<?x256xbf16>) -> memref<?x8xf8E8M0FNU>
// CHECK: %[[M:.*]] = memref.dim %[[X]]
// CHECK: %[[QB:.*]] = arith.muli %[[M]], %c128
// CHECK: %[[QRAW:.*]] = memref.alloc(%[[QB]]) {{.*}} : memref<?xi8>
// CHECK: %[[Q:.*]] = memref.view %[[QRAW]][%{{.*}}][%[[M]]] : memref<?xi8> to memref<?x256xf4E2M1FN>
// roundup(M, 256) * roundup(8, 8) = ((M + 255) / 256) * 2048
// CHECK: arith.addi %{{.*}}, %c255
// CHECK: arith.divui %{{.*}}, %c256
// CHECK: %[[SN:.*]] = arith.muli %{{.*}}, %c2048
// CHECK: %[[SRAW:.*]] = memref.alloc(%[[SN]]) {{.*}} : memref<?xf8E8M0FNU>
// CHECK: %[[S:.*]] = memref.reinterpret_cast %[[SRAW]] to offset: [0], sizes: [%{{.*}}, 8], strides: [0, 0] : memref<?xf8E8M0FNU> to memref<?x8xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
// CHECK: fp8q.buffer.quantize %[[X]], %[[Q]], %[[S]] {group_size = 32 : i64}
// CHECK: %[[R:.*]] = memref.alloc(%{{.*}}) {{.*}} : memref<?x8xf8E8M0FNU>
// CHECK: fp8q.buffer.materialize %[[S]], %[[R]] : memref<?x8xf8E8M0FNU, #fp8q.layout<cdna4_mx>>, memref<?x8xf8E8M0FNU>
func.func @mxfp4_cdna4(%x: tensor<?x256xbf16>) -> tensor<?x8xf8E8M0FNU> {
  %q, %s = fp8q.quantize %x {group_size = 32}
      : tensor<?x256xbf16> -> tensor<?x256xf4E2M1FN>,
        tensor<?x8xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
  %r = fp8q.materialize %s : tensor<?x8xf8E8M0FNU, #fp8q.layout<cdna4_mx>> -> tensor<?x8xf8E8M0FNU>
  return %r : tensor<?x8xf8E8M0FNU>
}

// -----

// A static NVFP4 quantize: swizzle_32_4_4 of [4, 4] allocates
// roundup(4, 128) * roundup(4, 4) = 512 bytes; the global scale is passed.
// CHECK-LABEL: func.func @nvfp4_swizzle
// CHECK-SAME: (%[[X:.*]]: memref<4x64xf32>, %[[G:.*]]: memref<f32>) -> memref<4x4xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>
// CHECK: memref.alloc() {{.*}} : memref<128xi8>
// CHECK: memref.view {{.*}} : memref<128xi8> to memref<4x64xf4E2M1FN>
// CHECK: memref.alloc() {{.*}} : memref<512xf8E4M3FN>
// CHECK: memref.reinterpret_cast {{.*}} sizes: [4, 4], strides: [0, 0] : memref<512xf8E4M3FN> to memref<4x4xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>
// CHECK: fp8q.buffer.quantize %[[X]] global(%[[G]] : memref<f32>), {{.*}} {group_size = 16 : i64, scale_rounding = #fp8q.scale_rounding<e4m3>}
func.func @nvfp4_swizzle(%x: tensor<4x64xf32>, %g: tensor<f32>)
    -> tensor<4x4xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>> {
  %q, %s = fp8q.quantize %x global(%g : tensor<f32>) {group_size = 16, scale_rounding = #fp8q.scale_rounding<e4m3>}
      : tensor<4x64xf32> -> tensor<4x64xf4E2M1FN>,
        tensor<4x4xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>
  return %s : tensor<4x4xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>
}

// -----

// DeepGEMM sm100's packed UE8M0 layout, align 4, dynamic M:
// roundup(4, 4) * roundup(M, 4) elements. A padded function argument keeps
// its layout in the signature.
// CHECK-LABEL: func.func @ue8m0_pack4
// CHECK-SAME: %{{.*}}: memref<?x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>
// CHECK: arith.addi %{{.*}}, %c3
// CHECK: arith.divui %{{.*}}, %c4
// CHECK: arith.muli %{{.*}}, %c16
// CHECK: fp8q.buffer.quantize {{.*}} {scale_rounding = #fp8q.scale_rounding<pow2_ceil>} : memref<?x512xbf16>, memref<?x512xf8E4M3FN>, memref<?x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>
// CHECK: fp8q.buffer.materialize %{{.*}}, %{{.*}} : memref<?x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>, memref<?x4xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
func.func @ue8m0_pack4(%x: tensor<?x512xbf16>,
                       %in: tensor<?x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>)
    -> (tensor<?x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>,
        tensor<?x4xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>) {
  %q, %s = fp8q.quantize %x {scale_rounding = #fp8q.scale_rounding<pow2_ceil>}
      : tensor<?x512xbf16> -> tensor<?x512xf8E4M3FN>,
        tensor<?x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>
  %t = fp8q.materialize %in : tensor<?x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>> -> tensor<?x4xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
  return %s, %t : tensor<?x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>,
                  tensor<?x4xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
}

// -----

// An NVFP4 gemm: its global scale (the product of the two global scales)
// is read like the other inputs and travels as a memref<f32> operand.
// CHECK-LABEL: func.func @nvfp4_gemm
// CHECK-SAME: %[[G:[^:]*]]: memref<f32>
// CHECK: %[[O:.*]] = memref.alloc() {{.*}} : memref<4x32xbf16>
// CHECK: fp8q.buffer.gemm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} global(%[[G]] : memref<f32>), %[[O]] {kernel = #fp8q.kernel<reference>} : memref<4x64xf4E2M1FN>, memref<4x4xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>, memref<32x64xf4E2M1FN>, memref<32x4xf8E4M3FN>, memref<4x32xbf16>
func.func @nvfp4_gemm(%q: tensor<4x64xf4E2M1FN>, %s: tensor<4x4xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>,
                      %w: tensor<32x64xf4E2M1FN>, %ws: tensor<32x4xf8E4M3FN>, %g: tensor<f32>)
    -> tensor<4x32xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws global(%g : tensor<f32>) {kernel = #fp8q.kernel<reference>}
      : tensor<4x64xf4E2M1FN>, tensor<4x4xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>,
        tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN> -> tensor<4x32xbf16>
  return %y : tensor<4x32xbf16>
}

// -----

// A constant weight scale materialized into a kernel's padded layout and
// read only by a gemm is laid out at compile time: a private constant
// global of the layout's whole allocation (cdna4_mx of [32, 4]:
// roundup(32, 256) * roundup(4, 8) = 2048 bytes), viewed in the layout; no
// fp8q.buffer.materialize is left for it.
// CHECK: memref.global "private" constant @__fp8q_scale : memref<2048xf8E8M0FNU> = dense<
// CHECK-NOT: @__constant_32x4
// CHECK-LABEL: func.func @constant_w_scale
// CHECK: %[[G:.*]] = memref.get_global @__fp8q_scale : memref<2048xf8E8M0FNU>
// CHECK: %[[WS:.*]] = memref.reinterpret_cast %[[G]] to offset: [0], sizes: [32, 4], strides: [0, 0] : memref<2048xf8E8M0FNU> to memref<32x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
// CHECK-NOT: fp8q.buffer.materialize
// CHECK: fp8q.buffer.gemm %{{.*}}, %{{.*}}, %{{.*}}, %[[WS]], %{{.*}} {kernel = #fp8q.kernel<reference>}
func.func @constant_w_scale(%q: tensor<4x128xf4E2M1FN>, %xs: tensor<4x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>>,
                            %w: tensor<32x128xf4E2M1FN>) -> tensor<4x32xbf16> {
  %c = arith.constant dense<2.0> : tensor<32x4xf8E8M0FNU>
  %ws = fp8q.materialize %c : tensor<32x4xf8E8M0FNU> -> tensor<32x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
  %y = fp8q.gemm %q, %xs, %w, %ws {kernel = #fp8q.kernel<reference>}
      : tensor<4x128xf4E2M1FN>, tensor<4x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>>,
        tensor<32x128xf4E2M1FN>, tensor<32x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>> -> tensor<4x32xbf16>
  return %y : tensor<4x32xbf16>
}

// -----

// A constant scale whose materialization escapes (returned: the caller
// may write it) stays a copy into a fresh allocation.
// CHECK-NOT: @__fp8q_scale
// CHECK-LABEL: func.func @constant_scale_returned
// CHECK-NOT: @__fp8q_scale
// CHECK: fp8q.buffer.materialize
func.func @constant_scale_returned() -> tensor<32x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>> {
  %c = arith.constant dense<2.0> : tensor<32x4xf8E8M0FNU>
  %ws = fp8q.materialize %c : tensor<32x4xf8E8M0FNU> -> tensor<32x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
  return %ws : tensor<32x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
}
