// RUN: fp8q-opt %s -split-input-file --fp8q-select-kernels | FileCheck %s
// RUN: fp8q-opt %s -split-input-file --fp8q-select-kernels --fp8q-select-kernels | FileCheck %s

// SPEC v2 formats are routed from the contract table (formats, targets,
// ROCm version) in the router's order of preference; the errors are in
// select-kernels-v2-invalid.mlir.

// MXFP4 on gfx950 with ROCm >= 7.0: AITER's kernel, its fp4 weight
// preshuffled byte-wise.
// CHECK-LABEL: func.func @mxfp4_gfx950
// CHECK: %[[P:.*]] = fp8q.preshuffle %{{.*}} : tensor<64x512xf4E2M1FN> -> tensor<64x512xf4E2M1FN, #fp8q.weight_layout<preshuffle_16x16>>
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[P]], %{{.*}} {kernel = #fp8q.kernel<aiter_mxfp4>}
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.0">} {
func.func @mxfp4_gfx950(%q: tensor<?x512xf4E2M1FN>, %s: tensor<?x16xf8E8M0FNU>,
                        %w: tensor<64x512xf4E2M1FN>, %ws: tensor<64x16xf8E8M0FNU>) -> tensor<?x64xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<?x512xf4E2M1FN>, tensor<?x16xf8E8M0FNU>, tensor<64x512xf4E2M1FN>, tensor<64x16xf8E8M0FNU> -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
}

// -----

// Before ROCm 7.0 (or without a ROCm version) aiter_mxfp4 does not run:
// Triton, which reads MX with strided scales.
// CHECK-LABEL: func.func @mxfp4_gfx950_rocm64
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<triton>}
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "6.4">} {
func.func @mxfp4_gfx950_rocm64(%q: tensor<?x512xf4E2M1FN>, %s: tensor<?x16xf8E8M0FNU>,
                               %w: tensor<64x512xf4E2M1FN>, %ws: tensor<64x16xf8E8M0FNU>) -> tensor<?x64xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<?x512xf4E2M1FN>, tensor<?x16xf8E8M0FNU>, tensor<64x512xf4E2M1FN>, tensor<64x16xf8E8M0FNU> -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
}

// -----

// A weight preshuffle_16x16 cannot hold (K = 32 fp4 is 16 bytes per row,
// not a multiple of 32): Triton.
// CHECK-LABEL: func.func @mxfp4_unshufflable
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<triton>}
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
func.func @mxfp4_unshufflable(%q: tensor<?x32xf4E2M1FN>, %s: tensor<?x1xf8E8M0FNU>,
                              %w: tensor<64x32xf4E2M1FN>, %ws: tensor<64x1xf8E8M0FNU>) -> tensor<?x64xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<?x32xf4E2M1FN>, tensor<?x1xf8E8M0FNU>, tensor<64x32xf4E2M1FN>, tensor<64x1xf8E8M0FNU> -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
}

// -----

// MXFP8 on gfx950 and on gfx942: Triton. gfx942's FP8 1x128 flavour
// (f8E4M3FNUZ) does not apply to OCP MX's f8E4M3FN.
// CHECK-LABEL: func.func @mxfp8_gfx942
// CHECK: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<triton>}
module attributes {fp8q.target = #fp8q.target<arch = "gfx942">} {
func.func @mxfp8_gfx942(%x: tensor<?x512xbf16>, %w: tensor<64x512xf8E4M3FN>, %ws: tensor<64x16xf8E8M0FNU>) -> tensor<?x64xbf16> {
  %q, %s = fp8q.quantize %x {group_size = 32} : tensor<?x512xbf16> -> tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU>
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU>, tensor<64x512xf8E4M3FN>, tensor<64x16xf8E8M0FNU> -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
}

// -----

// sm100: cuBLASLt block-scaled for MXFP8 and NVFP4, DeepGEMM for FP8
// 1x128 with UE8M0 scales, Triton for FP8 1x128 with f32 scales.
// CHECK-LABEL: func.func @sm100
// CHECK: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<cublas_mx>} : tensor<?x512xf8E5M2>
// CHECK: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<cublas_mx>} : tensor<?x256xf4E2M1FN>
// CHECK: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<deepgemm_sm100>} : tensor<?x512xf8E4M3FN>, tensor<?x4xf8E8M0FNU>
// CHECK: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<triton>} : tensor<?x512xf8E4M3FN>, tensor<?x4xf32>
// CHECK: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<triton>} : tensor<?x512xf4E2M1FN>
module attributes {fp8q.target = #fp8q.target<arch = "sm100">} {
func.func @sm100(%q8: tensor<?x512xf8E5M2>, %s8: tensor<?x16xf8E8M0FNU>,
                 %w8: tensor<64x512xf8E5M2>, %ws8: tensor<64x16xf8E8M0FNU>,
                 %q4: tensor<?x256xf4E2M1FN>, %s4: tensor<?x16xf8E4M3FN>,
                 %w4: tensor<32x256xf4E2M1FN>, %ws4: tensor<32x16xf8E4M3FN>,
                 %qu: tensor<?x512xf8E4M3FN>, %su: tensor<?x4xf8E8M0FNU>,
                 %wu: tensor<256x512xf8E4M3FN>, %wsu: tensor<256x4xf8E8M0FNU>,
                 %sf: tensor<?x4xf32>, %wsf: tensor<2x4xf32>,
                 %qm: tensor<?x512xf4E2M1FN>, %sm: tensor<?x16xf8E8M0FNU>,
                 %wm: tensor<64x512xf4E2M1FN>, %wsm: tensor<64x16xf8E8M0FNU>, %gs: tensor<f32>)
    -> (tensor<?x64xbf16>, tensor<?x32xbf16>, tensor<?x256xbf16>, tensor<?x256xbf16>, tensor<?x64xbf16>) {
  %a = fp8q.gemm %q8, %s8, %w8, %ws8 : tensor<?x512xf8E5M2>, tensor<?x16xf8E8M0FNU>, tensor<64x512xf8E5M2>, tensor<64x16xf8E8M0FNU> -> tensor<?x64xbf16>
  %b = fp8q.gemm %q4, %s4, %w4, %ws4 global(%gs : tensor<f32>) : tensor<?x256xf4E2M1FN>, tensor<?x16xf8E4M3FN>, tensor<32x256xf4E2M1FN>, tensor<32x16xf8E4M3FN> -> tensor<?x32xbf16>
  %c = fp8q.gemm %qu, %su, %wu, %wsu : tensor<?x512xf8E4M3FN>, tensor<?x4xf8E8M0FNU>, tensor<256x512xf8E4M3FN>, tensor<256x4xf8E8M0FNU> -> tensor<?x256xbf16>
  %d = fp8q.gemm %qu, %sf, %wu, %wsf : tensor<?x512xf8E4M3FN>, tensor<?x4xf32>, tensor<256x512xf8E4M3FN>, tensor<2x4xf32> -> tensor<?x256xbf16>
  %e = fp8q.gemm %qm, %sm, %wm, %wsm : tensor<?x512xf4E2M1FN>, tensor<?x16xf8E8M0FNU>, tensor<64x512xf4E2M1FN>, tensor<64x16xf8E8M0FNU> -> tensor<?x64xbf16>
  return %a, %b, %c, %d, %e : tensor<?x64xbf16>, tensor<?x32xbf16>, tensor<?x256xbf16>, tensor<?x256xbf16>, tensor<?x64xbf16>
}
}

// -----

// MX on sm90: Triton.
// CHECK-LABEL: func.func @mxfp8_sm90
// CHECK: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<triton>}
module attributes {fp8q.target = #fp8q.target<arch = "sm90">} {
func.func @mxfp8_sm90(%q: tensor<?x512xf8E4M3FN>, %s: tensor<?x16xf8E8M0FNU>,
                      %w: tensor<64x512xf8E4M3FN>, %ws: tensor<64x16xf8E8M0FNU>) -> tensor<?x64xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU>, tensor<64x512xf8E4M3FN>, tensor<64x16xf8E8M0FNU> -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
}

// -----

// A gemm that already names a kernel is left alone.
// CHECK-LABEL: func.func @nvfp4_reference
// CHECK: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<reference>}
module attributes {fp8q.target = #fp8q.target<arch = "sm100">} {
func.func @nvfp4_reference(%q: tensor<?x256xf4E2M1FN>, %s: tensor<?x16xf8E4M3FN>,
                           %w: tensor<32x256xf4E2M1FN>, %ws: tensor<32x16xf8E4M3FN>, %gs: tensor<f32>) -> tensor<?x32xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws global(%gs : tensor<f32>) {kernel = #fp8q.kernel<reference>} : tensor<?x256xf4E2M1FN>, tensor<?x16xf8E4M3FN>, tensor<32x256xf4E2M1FN>, tensor<32x16xf8E4M3FN> -> tensor<?x32xbf16>
  return %y : tensor<?x32xbf16>
}
}
