// RUN: fp8q-opt %s -split-input-file | fp8q-opt -split-input-file | FileCheck %s
// RUN: fp8q-opt %s -split-input-file -mlir-print-op-generic | fp8q-opt -split-input-file | FileCheck %s

// Every op and attribute round-trips through the custom and the generic form.

// CHECK: module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">}
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
// CHECK-LABEL: func.func @quantize_layouts
func.func @quantize_layouts(%x: tensor<?x7168xbf16>) {
  // CHECK: fp8q.quantize %{{.*}} : tensor<?x7168xbf16> -> tensor<?x7168xf8E4M3FN>, tensor<?x56xf32>
  %q0, %s0 = fp8q.quantize %x : tensor<?x7168xbf16> -> tensor<?x7168xf8E4M3FN>, tensor<?x56xf32>
  // CHECK: tensor<?x56xf32, #fp8q.layout<col_major>>
  %q1, %s1 = fp8q.quantize %x {group_size = 128} : tensor<?x7168xbf16> -> tensor<?x7168xf8E4M3FN>, tensor<?x56xf32, #fp8q.layout<col_major>>
  // CHECK: tensor<?x56xf32, #fp8q.layout<col_major, align = 4>>
  %q2, %s2 = fp8q.quantize %x : tensor<?x7168xbf16> -> tensor<?x7168xf8E4M3FN>, tensor<?x56xf32, #fp8q.layout<col_major, align = 4>>
  // CHECK: {group_size = 64 : i64} : tensor<?x7168xbf16> -> tensor<?x7168xf8E4M3FNUZ>, tensor<?x112xf32, #fp8q.layout<row_major>>
  %q3, %s3 = fp8q.quantize %x {group_size = 64} : tensor<?x7168xbf16> -> tensor<?x7168xf8E4M3FNUZ>, tensor<?x112xf32, #fp8q.layout<row_major>>
  return
}
}

// -----

// CHECK-LABEL: func.func @rms_norm_quantize
func.func @rms_norm_quantize(%x: tensor<4x256xf16>, %g: tensor<256xf16>) {
  // CHECK: fp8q.rms_norm_quantize %{{.*}}, %{{.*}} {epsilon = 9.99999974E-6 : f32} : tensor<4x256xf16>, tensor<256xf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>
  %q, %s = fp8q.rms_norm_quantize %x, %g {epsilon = 1.0e-5 : f32} : tensor<4x256xf16>, tensor<256xf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>
  // CHECK: fp8q.rms_norm_quantize %{{.*}}, %{{.*}} {keep_unquantized} : tensor<4x256xf16>, tensor<256xf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32, #fp8q.layout<col_major>>, tensor<4x256xf16>
  %q2, %s2, %y = fp8q.rms_norm_quantize %x, %g {keep_unquantized} : tensor<4x256xf16>, tensor<256xf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32, #fp8q.layout<col_major>>, tensor<4x256xf16>
  return
}

// -----

// CHECK-LABEL: func.func @gemm_kernels
func.func @gemm_kernels(%q: tensor<?x256xf8E4M3FN>, %s: tensor<?x2xf32>,
                        %sc: tensor<?x2xf32, #fp8q.layout<col_major>>,
                        %w: tensor<320x256xf8E4M3FN>, %ws: tensor<3x2xf32>) {
  // CHECK: fp8q.gemm %{{.*}} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<320x256xf8E4M3FN>, tensor<3x2xf32> -> tensor<?x320xbf16>
  %y0 = fp8q.gemm %q, %s, %w, %ws : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<320x256xf8E4M3FN>, tensor<3x2xf32> -> tensor<?x320xbf16>
  // CHECK: {kernel = #fp8q.kernel<ck>}
  %y1 = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<ck>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<320x256xf8E4M3FN>, tensor<3x2xf32> -> tensor<?x320xbf16>
  // CHECK: {kernel = #fp8q.kernel<triton>}
  %y2 = fp8q.gemm %q, %sc, %w, %ws {kernel = #fp8q.kernel<triton>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<320x256xf8E4M3FN>, tensor<3x2xf32> -> tensor<?x320xbf16>
  // CHECK: {kernel = #fp8q.kernel<deepgemm>}
  %y3 = fp8q.gemm %q, %sc, %w, %ws {kernel = #fp8q.kernel<deepgemm>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<320x256xf8E4M3FN>, tensor<3x2xf32> -> tensor<?x320xbf16>
  // CHECK: {kernel = #fp8q.kernel<cublas>}
  %y4 = fp8q.gemm %q, %sc, %w, %ws {kernel = #fp8q.kernel<cublas>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<320x256xf8E4M3FN>, tensor<3x2xf32> -> tensor<?x320xbf16>
  // CHECK: {kernel = #fp8q.kernel<reference>}
  %y5 = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<reference>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<320x256xf8E4M3FN>, tensor<3x2xf32> -> tensor<?x320xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @preshuffle_and_bpreshuffle
func.func @preshuffle_and_bpreshuffle(%q: tensor<1x256xf8E4M3FN>, %s: tensor<1x2xf32, #fp8q.layout<col_major>>,
                                      %w: tensor<320x256xf8E4M3FN>, %ws: tensor<3x2xf32>) -> tensor<1x320xbf16> {
  // CHECK: fp8q.preshuffle %{{.*}} : tensor<320x256xf8E4M3FN> -> tensor<320x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
  %p = fp8q.preshuffle %w : tensor<320x256xf8E4M3FN> -> tensor<320x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
  // CHECK: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<ck_bpreshuffle>}
  %y = fp8q.gemm %q, %s, %p, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<1x256xf8E4M3FN>, tensor<1x2xf32, #fp8q.layout<col_major>>, tensor<320x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<3x2xf32> -> tensor<1x320xbf16>
  return %y : tensor<1x320xbf16>
}

// -----

// CHECK-LABEL: func.func @materialize
func.func @materialize(%s: tensor<?x56xf32>) -> tensor<?x56xf32, #fp8q.layout<col_major, align = 4>> {
  // CHECK: fp8q.materialize %{{.*}} : tensor<?x56xf32> -> tensor<?x56xf32, #fp8q.layout<col_major, align = 4>>
  %c = fp8q.materialize %s : tensor<?x56xf32> -> tensor<?x56xf32, #fp8q.layout<col_major, align = 4>>
  return %c : tensor<?x56xf32, #fp8q.layout<col_major, align = 4>>
}

// -----

// The targets of SPEC, with and without a ROCm version.
// CHECK-LABEL: module @targets
// CHECK: #fp8q.target<arch = "gfx942">
// CHECK: #fp8q.target<arch = "sm90">
module @targets attributes {test.a = #fp8q.target<arch = "gfx942">, test.b = #fp8q.target<arch = "sm90">} {}

// -----

// The fused elementwise producers round-trip (custom and generic forms).
// CHECK-LABEL: func.func @fused_producers
// CHECK: fp8q.rms_norm_quantize %arg0, %arg1 residual(%arg2 : tensor<?x256xbf16> -> tensor<?x256xbf16>) {keep_unquantized} : tensor<?x256xbf16>, tensor<256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<?x256xbf16>
// CHECK: fp8q.quantize %arg0 silu_gate(%arg2 : tensor<?x256xbf16>) : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>
func.func @fused_producers(%x: tensor<?x256xbf16>, %g: tensor<256xbf16>, %r: tensor<?x256xbf16>) {
  %q, %s, %y, %sum = fp8q.rms_norm_quantize %x, %g residual(%r : tensor<?x256xbf16> -> tensor<?x256xbf16>) {keep_unquantized}
      : tensor<?x256xbf16>, tensor<256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<?x256xbf16>
  %q2, %s2 = fp8q.quantize %x silu_gate(%r : tensor<?x256xbf16>)
      : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>
  return
}
