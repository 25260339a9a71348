// Layout propagation over SPEC v2's scales (f8E8M0FNU, f8E4M3FN) and
// padded layouts, for each new kernel and for mixed consumers: fused
// producers, one copy per extra layout, weight scales materialized once.
// RUN: fp8q-opt %s -split-input-file -allow-unregistered-dialect --fp8q-propagate-scale-layout | FileCheck %s
// Idempotent: a second run gives the same IR.
// RUN: fp8q-opt %s -split-input-file -allow-unregistered-dialect --fp8q-propagate-scale-layout \
// RUN:   | fp8q-opt -split-input-file -allow-unregistered-dialect --fp8q-propagate-scale-layout | FileCheck %s
// Every contract holds afterwards.
// RUN: fp8q-opt %s -split-input-file -allow-unregistered-dialect --fp8q-propagate-scale-layout --fp8q-verify-contracts -o /dev/null

// cublas_mx (MXFP8): the quantize writes swizzle_32_4_4 (fused), and the
// public weight scale is re-laid out once, at the function entry, for both
// gemms that read it.
// CHECK-LABEL: func.func @cublas_mx_mxfp8
// CHECK-SAME: %[[WS:[^:]*]]: tensor<64x16xf8E8M0FNU>
// CHECK-NEXT: %[[WSM:.*]] = fp8q.materialize %[[WS]] : tensor<64x16xf8E8M0FNU> -> tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}} -> tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %{{.*}}, %[[S]], %{{.*}}, %[[WSM]] {kernel = #fp8q.kernel<cublas_mx>}
// CHECK: fp8q.gemm %{{.*}}, %[[S]], %{{.*}}, %[[WSM]] {kernel = #fp8q.kernel<cublas_mx>}
module attributes {fp8q.target = #fp8q.target<arch = "sm100">} {
func.func @cublas_mx_mxfp8(%x: tensor<?x512xbf16>, %w: tensor<64x512xf8E4M3FN>, %ws: tensor<64x16xf8E8M0FNU>) -> (tensor<?x64xbf16>, tensor<?x64xbf16>) {
  %q, %s = fp8q.quantize %x {group_size = 32} : tensor<?x512xbf16> -> tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU>
  %a = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<cublas_mx>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU>, tensor<64x512xf8E4M3FN>, tensor<64x16xf8E8M0FNU> -> tensor<?x64xbf16>
  %b = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<cublas_mx>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU>, tensor<64x512xf8E4M3FN>, tensor<64x16xf8E8M0FNU> -> tensor<?x64xbf16>
  return %a, %b : tensor<?x64xbf16>, tensor<?x64xbf16>
}
}

// -----

// An MXFP8 scale read by cublas_mx (swizzle_32_4_4) and by triton (any
// strided layout): one copy. The producer keeps its row-major write (equal
// cost, fewer changes), triton reads it, cublas_mx reads the copy.
// CHECK-LABEL: func.func @mxfp8_cublas_mx_and_triton
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}}, tensor<?x16xf8E8M0FNU>{{$}}
// CHECK-NEXT: %[[M:.*]] = fp8q.materialize %[[S]] : tensor<?x16xf8E8M0FNU> -> tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %{{.*}}, %[[M]], {{.*}}kernel = #fp8q.kernel<cublas_mx>
// CHECK: fp8q.gemm %{{.*}}, %[[S]], {{.*}}kernel = #fp8q.kernel<triton>
module attributes {fp8q.target = #fp8q.target<arch = "sm100">} {
func.func @mxfp8_cublas_mx_and_triton(%x: tensor<?x512xbf16>, %w: tensor<64x512xf8E4M3FN>,
    %wsz: tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, %ws: tensor<64x16xf8E8M0FNU>) -> (tensor<?x64xbf16>, tensor<?x64xbf16>) {
  %q, %s = fp8q.quantize %x {group_size = 32} : tensor<?x512xbf16> -> tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU>
  %a = fp8q.gemm %q, %s, %w, %wsz {kernel = #fp8q.kernel<cublas_mx>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU>, tensor<64x512xf8E4M3FN>, tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x64xbf16>
  %b = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<triton>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU>, tensor<64x512xf8E4M3FN>, tensor<64x16xf8E8M0FNU> -> tensor<?x64xbf16>
  return %a, %b : tensor<?x64xbf16>, tensor<?x64xbf16>
}
}

// -----

// Triton reads strides: a swizzled argument gets one copy to row_major, a
// column-major one none (any strided layout, not row_major by bytes).
// CHECK-LABEL: func.func @triton_strided
// CHECK-SAME: %[[SZ:[^:]*]]: tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
// CHECK-SAME: %[[SC:[^:]*]]: tensor<?x16xf8E8M0FNU, #fp8q.layout<col_major>>
// CHECK-NEXT: %[[R:.*]] = fp8q.materialize %[[SZ]] : tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x16xf8E8M0FNU>
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %{{.*}}, %[[R]], {{.*}}kernel = #fp8q.kernel<triton>
// CHECK: fp8q.gemm %{{.*}}, %[[SC]], {{.*}}kernel = #fp8q.kernel<triton>
func.func @triton_strided(%q: tensor<?x512xf8E4M3FN>, %sz: tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>,
    %sc: tensor<?x16xf8E8M0FNU, #fp8q.layout<col_major>>, %w: tensor<64x512xf8E4M3FN>, %ws: tensor<64x16xf8E8M0FNU>) -> (tensor<?x64xbf16>, tensor<?x64xbf16>) {
  %a = fp8q.gemm %q, %sz, %w, %ws {kernel = #fp8q.kernel<triton>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, tensor<64x512xf8E4M3FN>, tensor<64x16xf8E8M0FNU> -> tensor<?x64xbf16>
  %b = fp8q.gemm %q, %sc, %w, %ws {kernel = #fp8q.kernel<triton>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<col_major>>, tensor<64x512xf8E4M3FN>, tensor<64x16xf8E8M0FNU> -> tensor<?x64xbf16>
  return %a, %b : tensor<?x64xbf16>, tensor<?x64xbf16>
}

// -----

// aiter_mxfp4: the quantize writes cdna4_mx, the weight scale gets one
// copy to cdna4_mx.
// CHECK-LABEL: func.func @aiter_mxfp4
// CHECK-SAME: %[[WS:[^:]*]]: tensor<64x16xf8E8M0FNU>
// CHECK-NEXT: %[[WSM:.*]] = fp8q.materialize %[[WS]] : tensor<64x16xf8E8M0FNU> -> tensor<64x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}} -> tensor<?x512xf4E2M1FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %{{.*}}, %[[S]], %{{.*}}, %[[WSM]] {kernel = #fp8q.kernel<aiter_mxfp4>}
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
func.func @aiter_mxfp4(%x: tensor<?x512xbf16>, %w: tensor<64x512xf4E2M1FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<64x16xf8E8M0FNU>) -> tensor<?x64xbf16> {
  %q, %s = fp8q.quantize %x {group_size = 32} : tensor<?x512xbf16> -> tensor<?x512xf4E2M1FN>, tensor<?x16xf8E8M0FNU>
  %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<aiter_mxfp4>} : tensor<?x512xf4E2M1FN>, tensor<?x16xf8E8M0FNU>, tensor<64x512xf4E2M1FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<64x16xf8E8M0FNU> -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
}

// -----

// An MXFP4 scale read by aiter_mxfp4 and by a row-major consumer (the
// public result): the producer writes row_major, one copy to cdna4_mx.
// CHECK-LABEL: func.func @mxfp4_aiter_and_row_major
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}}, tensor<?x16xf8E8M0FNU>{{$}}
// CHECK-NEXT: %[[M:.*]] = fp8q.materialize %[[S]] : tensor<?x16xf8E8M0FNU> -> tensor<?x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %{{.*}}, %[[M]], {{.*}}kernel = #fp8q.kernel<aiter_mxfp4>
// CHECK: return %{{.*}}, %[[S]]
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
func.func @mxfp4_aiter_and_row_major(%x: tensor<?x512xbf16>, %w: tensor<64x512xf4E2M1FN, #fp8q.weight_layout<preshuffle_16x16>>,
    %ws: tensor<64x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>) -> (tensor<?x64xbf16>, tensor<?x16xf8E8M0FNU>) {
  %q, %s = fp8q.quantize %x {group_size = 32} : tensor<?x512xbf16> -> tensor<?x512xf4E2M1FN>, tensor<?x16xf8E8M0FNU>
  %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<aiter_mxfp4>} : tensor<?x512xf4E2M1FN>, tensor<?x16xf8E8M0FNU>, tensor<64x512xf4E2M1FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<64x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>> -> tensor<?x64xbf16>
  return %y, %s : tensor<?x64xbf16>, tensor<?x16xf8E8M0FNU>
}
}

// -----

// deepgemm_sm100 (UE8M0): the quantize writes the packed layout, the
// per-row weight scale gets one copy to it.
// CHECK-LABEL: func.func @deepgemm_sm100
// CHECK-SAME: %[[WS:[^:]*]]: tensor<256x8xf8E8M0FNU>
// CHECK-NEXT: %[[WSM:.*]] = fp8q.materialize %[[WS]] : tensor<256x8xf8E8M0FNU> -> tensor<256x8xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}} -> tensor<?x1024xf8E4M3FN>, tensor<?x8xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %{{.*}}, %[[S]], %{{.*}}, %[[WSM]] {kernel = #fp8q.kernel<deepgemm_sm100>}
module attributes {fp8q.target = #fp8q.target<arch = "sm100">} {
func.func @deepgemm_sm100(%x: tensor<?x1024xbf16>, %w: tensor<256x1024xf8E4M3FN>, %ws: tensor<256x8xf8E8M0FNU>) -> tensor<?x256xbf16> {
  %q, %s = fp8q.quantize %x {scale_rounding = #fp8q.scale_rounding<pow2_ceil>} : tensor<?x1024xbf16> -> tensor<?x1024xf8E4M3FN>, tensor<?x8xf8E8M0FNU>
  %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<deepgemm_sm100>} : tensor<?x1024xf8E4M3FN>, tensor<?x8xf8E8M0FNU>, tensor<256x1024xf8E4M3FN>, tensor<256x8xf8E8M0FNU> -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}
}

// -----

// With K / 128 = 4 the packed layout is one 32-bit word per row, MN-major:
// the bytes of row_major (pack4 offset (m * 4 + g), allocation 4 * N).
// Layouts are compared by bytes: the weight scale needs no copy.
// CHECK-LABEL: func.func @deepgemm_sm100_one_word
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.quantize %{{.*}} -> tensor<?x512xf8E4M3FN>, tensor<?x4xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm {{.*}} tensor<256x4xf8E8M0FNU> -> tensor<?x256xbf16>
module attributes {fp8q.target = #fp8q.target<arch = "sm100">} {
func.func @deepgemm_sm100_one_word(%x: tensor<?x512xbf16>, %w: tensor<256x512xf8E4M3FN>, %ws: tensor<256x4xf8E8M0FNU>) -> tensor<?x256xbf16> {
  %q, %s = fp8q.quantize %x {scale_rounding = #fp8q.scale_rounding<pow2_ceil>} : tensor<?x512xbf16> -> tensor<?x512xf8E4M3FN>, tensor<?x4xf8E8M0FNU>
  %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<deepgemm_sm100>} : tensor<?x512xf8E4M3FN>, tensor<?x4xf8E8M0FNU>, tensor<256x512xf8E4M3FN>, tensor<256x4xf8E8M0FNU> -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}
}

// -----

// cublas_mx (NVFP4, e4m3 scales and a global scale): the same.
// CHECK-LABEL: func.func @cublas_mx_nvfp4
// CHECK-SAME: %[[WS:[^:]*]]: tensor<32x16xf8E4M3FN>
// CHECK-NEXT: %[[WSM:.*]] = fp8q.materialize %[[WS]] : tensor<32x16xf8E4M3FN> -> tensor<32x16xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}} -> tensor<?x256xf4E2M1FN>, tensor<?x16xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %{{.*}}, %[[S]], %{{.*}}, %[[WSM]] global(%{{.*}} : tensor<f32>) {kernel = #fp8q.kernel<cublas_mx>}
module attributes {fp8q.target = #fp8q.target<arch = "sm100">} {
func.func @cublas_mx_nvfp4(%x: tensor<?x256xbf16>, %g: tensor<f32>, %w: tensor<32x256xf4E2M1FN>, %ws: tensor<32x16xf8E4M3FN>, %gs: tensor<f32>) -> tensor<?x32xbf16> {
  %q, %s = fp8q.quantize %x global(%g : tensor<f32>) {group_size = 16} : tensor<?x256xbf16> -> tensor<?x256xf4E2M1FN>, tensor<?x16xf8E4M3FN>
  %y = fp8q.gemm %q, %s, %w, %ws global(%gs : tensor<f32>) {kernel = #fp8q.kernel<cublas_mx>} : tensor<?x256xf4E2M1FN>, tensor<?x16xf8E4M3FN>, tensor<32x256xf4E2M1FN>, tensor<32x16xf8E4M3FN> -> tensor<?x32xbf16>
  return %y : tensor<?x32xbf16>
}
}

// -----

// A weight scale read inside a loop is re-laid out once, where it is
// defined (outside the loop); the hand-written materialize inside the loop
// is re-decided (fused into the quantize).
// CHECK-LABEL: func.func @weight_scale_once
// CHECK-SAME: %[[WS:[^:]*]]: tensor<64x16xf8E8M0FNU>
// CHECK-NEXT: %[[WSM:.*]] = fp8q.materialize %[[WS]] : tensor<64x16xf8E8M0FNU> -> tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
// CHECK: scf.for
// CHECK: fp8q.quantize %{{.*}} -> tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %{{.*}}, %[[WSM]] {kernel = #fp8q.kernel<cublas_mx>}
func.func @weight_scale_once(%x: tensor<?x512xbf16>, %w: tensor<64x512xf8E4M3FN>, %ws: tensor<64x16xf8E8M0FNU>, %n: index) -> tensor<?x512xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<?x512xbf16>) {
    %q, %s = fp8q.quantize %acc {group_size = 32} : tensor<?x512xbf16> -> tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU>
    %m = fp8q.materialize %s : tensor<?x16xf8E8M0FNU> -> tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
    %y = fp8q.gemm %q, %m, %w, %ws {kernel = #fp8q.kernel<cublas_mx>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, tensor<64x512xf8E4M3FN>, tensor<64x16xf8E8M0FNU> -> tensor<?x64xbf16>
    %z = "test.use"(%y, %acc) : (tensor<?x64xbf16>, tensor<?x512xbf16>) -> tensor<?x512xbf16>
    scf.yield %z : tensor<?x512xbf16>
  }
  return %r : tensor<?x512xbf16>
}
