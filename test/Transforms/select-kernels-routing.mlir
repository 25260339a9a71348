// RUN: fp8q-opt %s -split-input-file --fp8q-select-kernels | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: fp8q-opt %s -split-input-file --fp8q-select-kernels | fp8q-opt -split-input-file --fp8q-select-kernels | FileCheck %s

// Routing of every weight shape REFERENCE.md lists (the 14 tuned gfx950
// Triton shapes) and of untuned model shapes (GLM-5 kv_b 28672x512, q_b
// 16384x2048, down 6144x12288, AITER's 6144x4096, 4608x4096 with its ck
// safe maximum M 512), for each target. Generated from the REFERENCE lists;
// M = 16 unless the name says otherwise.

module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
// CHECK-LABEL: func.func @gfx950_r72_tuned_n1024_k8192(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r72_tuned_n1024_k8192(%q: tensor<16x8192xf8E4M3FN>, %s: tensor<16x64xf32>, %w: tensor<1024x8192xf8E4M3FN>, %ws: tensor<8x64xf32>) -> tensor<16x1024xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x8192xf8E4M3FN>, tensor<16x64xf32>, tensor<1024x8192xf8E4M3FN>, tensor<8x64xf32> -> tensor<16x1024xbf16>
  return %y : tensor<16x1024xbf16>
}
// CHECK-LABEL: func.func @gfx950_r72_tuned_n16384_k1536(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r72_tuned_n16384_k1536(%q: tensor<16x1536xf8E4M3FN>, %s: tensor<16x12xf32>, %w: tensor<16384x1536xf8E4M3FN>, %ws: tensor<128x12xf32>) -> tensor<16x16384xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x1536xf8E4M3FN>, tensor<16x12xf32>, tensor<16384x1536xf8E4M3FN>, tensor<128x12xf32> -> tensor<16x16384xbf16>
  return %y : tensor<16x16384xbf16>
}
// CHECK-LABEL: func.func @gfx950_r72_tuned_n2112_k7168(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r72_tuned_n2112_k7168(%q: tensor<16x7168xf8E4M3FN>, %s: tensor<16x56xf32>, %w: tensor<2112x7168xf8E4M3FN>, %ws: tensor<17x56xf32>) -> tensor<16x2112xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x7168xf8E4M3FN>, tensor<16x56xf32>, tensor<2112x7168xf8E4M3FN>, tensor<17x56xf32> -> tensor<16x2112xbf16>
  return %y : tensor<16x2112xbf16>
}
// CHECK-LABEL: func.func @gfx950_r72_tuned_n3072_k1536(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r72_tuned_n3072_k1536(%q: tensor<16x1536xf8E4M3FN>, %s: tensor<16x12xf32>, %w: tensor<3072x1536xf8E4M3FN>, %ws: tensor<24x12xf32>) -> tensor<16x3072xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x1536xf8E4M3FN>, tensor<16x12xf32>, tensor<3072x1536xf8E4M3FN>, tensor<24x12xf32> -> tensor<16x3072xbf16>
  return %y : tensor<16x3072xbf16>
}
// CHECK-LABEL: func.func @gfx950_r72_tuned_n32768_k8192(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r72_tuned_n32768_k8192(%q: tensor<16x8192xf8E4M3FN>, %s: tensor<16x64xf32>, %w: tensor<32768x8192xf8E4M3FN>, %ws: tensor<256x64xf32>) -> tensor<16x32768xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x8192xf8E4M3FN>, tensor<16x64xf32>, tensor<32768x8192xf8E4M3FN>, tensor<256x64xf32> -> tensor<16x32768xbf16>
  return %y : tensor<16x32768xbf16>
}
// CHECK-LABEL: func.func @gfx950_r72_tuned_n4096_k7168(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r72_tuned_n4096_k7168(%q: tensor<16x7168xf8E4M3FN>, %s: tensor<16x56xf32>, %w: tensor<4096x7168xf8E4M3FN>, %ws: tensor<32x56xf32>) -> tensor<16x4096xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x7168xf8E4M3FN>, tensor<16x56xf32>, tensor<4096x7168xf8E4M3FN>, tensor<32x56xf32> -> tensor<16x4096xbf16>
  return %y : tensor<16x4096xbf16>
}
// CHECK-LABEL: func.func @gfx950_r72_tuned_n4608_k7168(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r72_tuned_n4608_k7168(%q: tensor<16x7168xf8E4M3FN>, %s: tensor<16x56xf32>, %w: tensor<4608x7168xf8E4M3FN>, %ws: tensor<36x56xf32>) -> tensor<16x4608xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x7168xf8E4M3FN>, tensor<16x56xf32>, tensor<4608x7168xf8E4M3FN>, tensor<36x56xf32> -> tensor<16x4608xbf16>
  return %y : tensor<16x4608xbf16>
}
// CHECK-LABEL: func.func @gfx950_r72_tuned_n512_k7168(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r72_tuned_n512_k7168(%q: tensor<16x7168xf8E4M3FN>, %s: tensor<16x56xf32>, %w: tensor<512x7168xf8E4M3FN>, %ws: tensor<4x56xf32>) -> tensor<16x512xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x7168xf8E4M3FN>, tensor<16x56xf32>, tensor<512x7168xf8E4M3FN>, tensor<4x56xf32> -> tensor<16x512xbf16>
  return %y : tensor<16x512xbf16>
}
// CHECK-LABEL: func.func @gfx950_r72_tuned_n7168_k2048(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r72_tuned_n7168_k2048(%q: tensor<16x2048xf8E4M3FN>, %s: tensor<16x16xf32>, %w: tensor<7168x2048xf8E4M3FN>, %ws: tensor<56x16xf32>) -> tensor<16x7168xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x2048xf8E4M3FN>, tensor<16x16xf32>, tensor<7168x2048xf8E4M3FN>, tensor<56x16xf32> -> tensor<16x7168xbf16>
  return %y : tensor<16x7168xbf16>
}
// CHECK-LABEL: func.func @gfx950_r72_tuned_n7168_k2304(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r72_tuned_n7168_k2304(%q: tensor<16x2304xf8E4M3FN>, %s: tensor<16x18xf32>, %w: tensor<7168x2304xf8E4M3FN>, %ws: tensor<56x18xf32>) -> tensor<16x7168xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x2304xf8E4M3FN>, tensor<16x18xf32>, tensor<7168x2304xf8E4M3FN>, tensor<56x18xf32> -> tensor<16x7168xbf16>
  return %y : tensor<16x7168xbf16>
}
// CHECK-LABEL: func.func @gfx950_r72_tuned_n7168_k16384(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r72_tuned_n7168_k16384(%q: tensor<16x16384xf8E4M3FN>, %s: tensor<16x128xf32>, %w: tensor<7168x16384xf8E4M3FN>, %ws: tensor<56x128xf32>) -> tensor<16x7168xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x16384xf8E4M3FN>, tensor<16x128xf32>, tensor<7168x16384xf8E4M3FN>, tensor<56x128xf32> -> tensor<16x7168xbf16>
  return %y : tensor<16x7168xbf16>
}
// CHECK-LABEL: func.func @gfx950_r72_tuned_n7168_k256(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r72_tuned_n7168_k256(%q: tensor<16x256xf8E4M3FN>, %s: tensor<16x2xf32>, %w: tensor<7168x256xf8E4M3FN>, %ws: tensor<56x2xf32>) -> tensor<16x7168xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x256xf8E4M3FN>, tensor<16x2xf32>, tensor<7168x256xf8E4M3FN>, tensor<56x2xf32> -> tensor<16x7168xbf16>
  return %y : tensor<16x7168xbf16>
}
// CHECK-LABEL: func.func @gfx950_r72_tuned_n8192_k1024(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r72_tuned_n8192_k1024(%q: tensor<16x1024xf8E4M3FN>, %s: tensor<16x8xf32>, %w: tensor<8192x1024xf8E4M3FN>, %ws: tensor<64x8xf32>) -> tensor<16x8192xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x1024xf8E4M3FN>, tensor<16x8xf32>, tensor<8192x1024xf8E4M3FN>, tensor<64x8xf32> -> tensor<16x8192xbf16>
  return %y : tensor<16x8192xbf16>
}
// CHECK-LABEL: func.func @gfx950_r72_tuned_n8192_k32768(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r72_tuned_n8192_k32768(%q: tensor<16x32768xf8E4M3FN>, %s: tensor<16x256xf32>, %w: tensor<8192x32768xf8E4M3FN>, %ws: tensor<64x256xf32>) -> tensor<16x8192xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x32768xf8E4M3FN>, tensor<16x256xf32>, tensor<8192x32768xf8E4M3FN>, tensor<64x256xf32> -> tensor<16x8192xbf16>
  return %y : tensor<16x8192xbf16>
}
// CHECK-LABEL: func.func @gfx950_r72_n28672_k512(
// CHECK: %[[W:.*]] = fp8q.preshuffle %arg2 : tensor<28672x512xf8E4M3FN> -> tensor<28672x512xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[W]], %arg3 {kernel = #fp8q.kernel<ck_bpreshuffle>}
func.func @gfx950_r72_n28672_k512(%q: tensor<16x512xf8E4M3FN>, %s: tensor<16x4xf32>, %w: tensor<28672x512xf8E4M3FN>, %ws: tensor<224x4xf32>) -> tensor<16x28672xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x512xf8E4M3FN>, tensor<16x4xf32>, tensor<28672x512xf8E4M3FN>, tensor<224x4xf32> -> tensor<16x28672xbf16>
  return %y : tensor<16x28672xbf16>
}
// CHECK-LABEL: func.func @gfx950_r72_n16384_k2048(
// CHECK: %[[W:.*]] = fp8q.preshuffle %arg2 : tensor<16384x2048xf8E4M3FN> -> tensor<16384x2048xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[W]], %arg3 {kernel = #fp8q.kernel<ck_bpreshuffle>}
func.func @gfx950_r72_n16384_k2048(%q: tensor<16x2048xf8E4M3FN>, %s: tensor<16x16xf32>, %w: tensor<16384x2048xf8E4M3FN>, %ws: tensor<128x16xf32>) -> tensor<16x16384xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x2048xf8E4M3FN>, tensor<16x16xf32>, tensor<16384x2048xf8E4M3FN>, tensor<128x16xf32> -> tensor<16x16384xbf16>
  return %y : tensor<16x16384xbf16>
}
// CHECK-LABEL: func.func @gfx950_r72_n6144_k12288(
// CHECK: %[[W:.*]] = fp8q.preshuffle %arg2 : tensor<6144x12288xf8E4M3FN> -> tensor<6144x12288xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[W]], %arg3 {kernel = #fp8q.kernel<ck_bpreshuffle>}
func.func @gfx950_r72_n6144_k12288(%q: tensor<16x12288xf8E4M3FN>, %s: tensor<16x96xf32>, %w: tensor<6144x12288xf8E4M3FN>, %ws: tensor<48x96xf32>) -> tensor<16x6144xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x12288xf8E4M3FN>, tensor<16x96xf32>, tensor<6144x12288xf8E4M3FN>, tensor<48x96xf32> -> tensor<16x6144xbf16>
  return %y : tensor<16x6144xbf16>
}
// CHECK-LABEL: func.func @gfx950_r72_n4608_k4096(
// CHECK: %[[W:.*]] = fp8q.preshuffle %arg2 : tensor<4608x4096xf8E4M3FN> -> tensor<4608x4096xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[W]], %arg3 {kernel = #fp8q.kernel<ck_bpreshuffle>}
func.func @gfx950_r72_n4608_k4096(%q: tensor<16x4096xf8E4M3FN>, %s: tensor<16x32xf32>, %w: tensor<4608x4096xf8E4M3FN>, %ws: tensor<36x32xf32>) -> tensor<16x4608xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x4096xf8E4M3FN>, tensor<16x32xf32>, tensor<4608x4096xf8E4M3FN>, tensor<36x32xf32> -> tensor<16x4608xbf16>
  return %y : tensor<16x4608xbf16>
}
// CHECK-LABEL: func.func @gfx950_r72_n6144_k4096(
// CHECK: %[[W:.*]] = fp8q.preshuffle %arg2 : tensor<6144x4096xf8E4M3FN> -> tensor<6144x4096xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[W]], %arg3 {kernel = #fp8q.kernel<ck_bpreshuffle>}
func.func @gfx950_r72_n6144_k4096(%q: tensor<16x4096xf8E4M3FN>, %s: tensor<16x32xf32>, %w: tensor<6144x4096xf8E4M3FN>, %ws: tensor<48x32xf32>) -> tensor<16x6144xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x4096xf8E4M3FN>, tensor<16x32xf32>, tensor<6144x4096xf8E4M3FN>, tensor<48x32xf32> -> tensor<16x6144xbf16>
  return %y : tensor<16x6144xbf16>
}
// N % 16 != 0: preshuffle_16x16 cannot hold the weight, so Triton.
// CHECK-LABEL: func.func @gfx950_r72_n200_k256(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r72_n200_k256(%q: tensor<16x256xf8E4M3FN>, %s: tensor<16x2xf32>, %w: tensor<200x256xf8E4M3FN>, %ws: tensor<2x2xf32>) -> tensor<16x200xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x256xf8E4M3FN>, tensor<16x2xf32>, tensor<200x256xf8E4M3FN>, tensor<2x2xf32> -> tensor<16x200xbf16>
  return %y : tensor<16x200xbf16>
}
// A large M changes nothing with ROCm 7.2.
// CHECK-LABEL: func.func @gfx950_r72_n4608_k4096_m1024(
// CHECK: %[[W:.*]] = fp8q.preshuffle %arg2 : tensor<4608x4096xf8E4M3FN> -> tensor<4608x4096xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[W]], %arg3 {kernel = #fp8q.kernel<ck_bpreshuffle>}
func.func @gfx950_r72_n4608_k4096_m1024(%q: tensor<1024x4096xf8E4M3FN>, %s: tensor<1024x32xf32>, %w: tensor<4608x4096xf8E4M3FN>, %ws: tensor<36x32xf32>) -> tensor<1024x4608xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<1024x4096xf8E4M3FN>, tensor<1024x32xf32>, tensor<4608x4096xf8E4M3FN>, tensor<36x32xf32> -> tensor<1024x4608xbf16>
  return %y : tensor<1024x4608xbf16>
}
}

// -----

module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "8.0">} {
// CHECK-LABEL: func.func @gfx950_r80_n28672_k512(
// CHECK: %[[W:.*]] = fp8q.preshuffle %arg2 : tensor<28672x512xf8E4M3FN> -> tensor<28672x512xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[W]], %arg3 {kernel = #fp8q.kernel<ck_bpreshuffle>}
func.func @gfx950_r80_n28672_k512(%q: tensor<16x512xf8E4M3FN>, %s: tensor<16x4xf32>, %w: tensor<28672x512xf8E4M3FN>, %ws: tensor<224x4xf32>) -> tensor<16x28672xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x512xf8E4M3FN>, tensor<16x4xf32>, tensor<28672x512xf8E4M3FN>, tensor<224x4xf32> -> tensor<16x28672xbf16>
  return %y : tensor<16x28672xbf16>
}
// CHECK-LABEL: func.func @gfx950_r80_tuned_n7168_k256(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r80_tuned_n7168_k256(%q: tensor<16x256xf8E4M3FN>, %s: tensor<16x2xf32>, %w: tensor<7168x256xf8E4M3FN>, %ws: tensor<56x2xf32>) -> tensor<16x7168xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x256xf8E4M3FN>, tensor<16x2xf32>, tensor<7168x256xf8E4M3FN>, tensor<56x2xf32> -> tensor<16x7168xbf16>
  return %y : tensor<16x7168xbf16>
}
}

// -----

module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.0">} {
// CHECK-LABEL: func.func @gfx950_r70_tuned_n1024_k8192(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r70_tuned_n1024_k8192(%q: tensor<16x8192xf8E4M3FN>, %s: tensor<16x64xf32>, %w: tensor<1024x8192xf8E4M3FN>, %ws: tensor<8x64xf32>) -> tensor<16x1024xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x8192xf8E4M3FN>, tensor<16x64xf32>, tensor<1024x8192xf8E4M3FN>, tensor<8x64xf32> -> tensor<16x1024xbf16>
  return %y : tensor<16x1024xbf16>
}
// CHECK-LABEL: func.func @gfx950_r70_tuned_n16384_k1536(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r70_tuned_n16384_k1536(%q: tensor<16x1536xf8E4M3FN>, %s: tensor<16x12xf32>, %w: tensor<16384x1536xf8E4M3FN>, %ws: tensor<128x12xf32>) -> tensor<16x16384xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x1536xf8E4M3FN>, tensor<16x12xf32>, tensor<16384x1536xf8E4M3FN>, tensor<128x12xf32> -> tensor<16x16384xbf16>
  return %y : tensor<16x16384xbf16>
}
// CHECK-LABEL: func.func @gfx950_r70_tuned_n2112_k7168(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r70_tuned_n2112_k7168(%q: tensor<16x7168xf8E4M3FN>, %s: tensor<16x56xf32>, %w: tensor<2112x7168xf8E4M3FN>, %ws: tensor<17x56xf32>) -> tensor<16x2112xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x7168xf8E4M3FN>, tensor<16x56xf32>, tensor<2112x7168xf8E4M3FN>, tensor<17x56xf32> -> tensor<16x2112xbf16>
  return %y : tensor<16x2112xbf16>
}
// CHECK-LABEL: func.func @gfx950_r70_tuned_n3072_k1536(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r70_tuned_n3072_k1536(%q: tensor<16x1536xf8E4M3FN>, %s: tensor<16x12xf32>, %w: tensor<3072x1536xf8E4M3FN>, %ws: tensor<24x12xf32>) -> tensor<16x3072xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x1536xf8E4M3FN>, tensor<16x12xf32>, tensor<3072x1536xf8E4M3FN>, tensor<24x12xf32> -> tensor<16x3072xbf16>
  return %y : tensor<16x3072xbf16>
}
// CHECK-LABEL: func.func @gfx950_r70_tuned_n32768_k8192(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r70_tuned_n32768_k8192(%q: tensor<16x8192xf8E4M3FN>, %s: tensor<16x64xf32>, %w: tensor<32768x8192xf8E4M3FN>, %ws: tensor<256x64xf32>) -> tensor<16x32768xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x8192xf8E4M3FN>, tensor<16x64xf32>, tensor<32768x8192xf8E4M3FN>, tensor<256x64xf32> -> tensor<16x32768xbf16>
  return %y : tensor<16x32768xbf16>
}
// CHECK-LABEL: func.func @gfx950_r70_tuned_n4096_k7168(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r70_tuned_n4096_k7168(%q: tensor<16x7168xf8E4M3FN>, %s: tensor<16x56xf32>, %w: tensor<4096x7168xf8E4M3FN>, %ws: tensor<32x56xf32>) -> tensor<16x4096xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x7168xf8E4M3FN>, tensor<16x56xf32>, tensor<4096x7168xf8E4M3FN>, tensor<32x56xf32> -> tensor<16x4096xbf16>
  return %y : tensor<16x4096xbf16>
}
// CHECK-LABEL: func.func @gfx950_r70_tuned_n4608_k7168(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r70_tuned_n4608_k7168(%q: tensor<16x7168xf8E4M3FN>, %s: tensor<16x56xf32>, %w: tensor<4608x7168xf8E4M3FN>, %ws: tensor<36x56xf32>) -> tensor<16x4608xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x7168xf8E4M3FN>, tensor<16x56xf32>, tensor<4608x7168xf8E4M3FN>, tensor<36x56xf32> -> tensor<16x4608xbf16>
  return %y : tensor<16x4608xbf16>
}
// CHECK-LABEL: func.func @gfx950_r70_tuned_n512_k7168(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r70_tuned_n512_k7168(%q: tensor<16x7168xf8E4M3FN>, %s: tensor<16x56xf32>, %w: tensor<512x7168xf8E4M3FN>, %ws: tensor<4x56xf32>) -> tensor<16x512xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x7168xf8E4M3FN>, tensor<16x56xf32>, tensor<512x7168xf8E4M3FN>, tensor<4x56xf32> -> tensor<16x512xbf16>
  return %y : tensor<16x512xbf16>
}
// CHECK-LABEL: func.func @gfx950_r70_tuned_n7168_k2048(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r70_tuned_n7168_k2048(%q: tensor<16x2048xf8E4M3FN>, %s: tensor<16x16xf32>, %w: tensor<7168x2048xf8E4M3FN>, %ws: tensor<56x16xf32>) -> tensor<16x7168xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x2048xf8E4M3FN>, tensor<16x16xf32>, tensor<7168x2048xf8E4M3FN>, tensor<56x16xf32> -> tensor<16x7168xbf16>
  return %y : tensor<16x7168xbf16>
}
// CHECK-LABEL: func.func @gfx950_r70_tuned_n7168_k2304(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r70_tuned_n7168_k2304(%q: tensor<16x2304xf8E4M3FN>, %s: tensor<16x18xf32>, %w: tensor<7168x2304xf8E4M3FN>, %ws: tensor<56x18xf32>) -> tensor<16x7168xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x2304xf8E4M3FN>, tensor<16x18xf32>, tensor<7168x2304xf8E4M3FN>, tensor<56x18xf32> -> tensor<16x7168xbf16>
  return %y : tensor<16x7168xbf16>
}
// CHECK-LABEL: func.func @gfx950_r70_tuned_n7168_k16384(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r70_tuned_n7168_k16384(%q: tensor<16x16384xf8E4M3FN>, %s: tensor<16x128xf32>, %w: tensor<7168x16384xf8E4M3FN>, %ws: tensor<56x128xf32>) -> tensor<16x7168xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x16384xf8E4M3FN>, tensor<16x128xf32>, tensor<7168x16384xf8E4M3FN>, tensor<56x128xf32> -> tensor<16x7168xbf16>
  return %y : tensor<16x7168xbf16>
}
// CHECK-LABEL: func.func @gfx950_r70_tuned_n7168_k256(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r70_tuned_n7168_k256(%q: tensor<16x256xf8E4M3FN>, %s: tensor<16x2xf32>, %w: tensor<7168x256xf8E4M3FN>, %ws: tensor<56x2xf32>) -> tensor<16x7168xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x256xf8E4M3FN>, tensor<16x2xf32>, tensor<7168x256xf8E4M3FN>, tensor<56x2xf32> -> tensor<16x7168xbf16>
  return %y : tensor<16x7168xbf16>
}
// CHECK-LABEL: func.func @gfx950_r70_tuned_n8192_k1024(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r70_tuned_n8192_k1024(%q: tensor<16x1024xf8E4M3FN>, %s: tensor<16x8xf32>, %w: tensor<8192x1024xf8E4M3FN>, %ws: tensor<64x8xf32>) -> tensor<16x8192xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x1024xf8E4M3FN>, tensor<16x8xf32>, tensor<8192x1024xf8E4M3FN>, tensor<64x8xf32> -> tensor<16x8192xbf16>
  return %y : tensor<16x8192xbf16>
}
// CHECK-LABEL: func.func @gfx950_r70_tuned_n8192_k32768(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r70_tuned_n8192_k32768(%q: tensor<16x32768xf8E4M3FN>, %s: tensor<16x256xf32>, %w: tensor<8192x32768xf8E4M3FN>, %ws: tensor<64x256xf32>) -> tensor<16x8192xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x32768xf8E4M3FN>, tensor<16x256xf32>, tensor<8192x32768xf8E4M3FN>, tensor<64x256xf32> -> tensor<16x8192xbf16>
  return %y : tensor<16x8192xbf16>
}
// CHECK-LABEL: func.func @gfx950_r70_n28672_k512(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<ck>}
func.func @gfx950_r70_n28672_k512(%q: tensor<16x512xf8E4M3FN>, %s: tensor<16x4xf32>, %w: tensor<28672x512xf8E4M3FN>, %ws: tensor<224x4xf32>) -> tensor<16x28672xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x512xf8E4M3FN>, tensor<16x4xf32>, tensor<28672x512xf8E4M3FN>, tensor<224x4xf32> -> tensor<16x28672xbf16>
  return %y : tensor<16x28672xbf16>
}
// CHECK-LABEL: func.func @gfx950_r70_n16384_k2048(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<ck>}
func.func @gfx950_r70_n16384_k2048(%q: tensor<16x2048xf8E4M3FN>, %s: tensor<16x16xf32>, %w: tensor<16384x2048xf8E4M3FN>, %ws: tensor<128x16xf32>) -> tensor<16x16384xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x2048xf8E4M3FN>, tensor<16x16xf32>, tensor<16384x2048xf8E4M3FN>, tensor<128x16xf32> -> tensor<16x16384xbf16>
  return %y : tensor<16x16384xbf16>
}
// CHECK-LABEL: func.func @gfx950_r70_n6144_k12288(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<ck>}
func.func @gfx950_r70_n6144_k12288(%q: tensor<16x12288xf8E4M3FN>, %s: tensor<16x96xf32>, %w: tensor<6144x12288xf8E4M3FN>, %ws: tensor<48x96xf32>) -> tensor<16x6144xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x12288xf8E4M3FN>, tensor<16x96xf32>, tensor<6144x12288xf8E4M3FN>, tensor<48x96xf32> -> tensor<16x6144xbf16>
  return %y : tensor<16x6144xbf16>
}
// CHECK-LABEL: func.func @gfx950_r70_n4608_k4096(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<ck>}
func.func @gfx950_r70_n4608_k4096(%q: tensor<16x4096xf8E4M3FN>, %s: tensor<16x32xf32>, %w: tensor<4608x4096xf8E4M3FN>, %ws: tensor<36x32xf32>) -> tensor<16x4608xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x4096xf8E4M3FN>, tensor<16x32xf32>, tensor<4608x4096xf8E4M3FN>, tensor<36x32xf32> -> tensor<16x4608xbf16>
  return %y : tensor<16x4608xbf16>
}
// CHECK-LABEL: func.func @gfx950_r70_n6144_k4096(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<ck>}
func.func @gfx950_r70_n6144_k4096(%q: tensor<16x4096xf8E4M3FN>, %s: tensor<16x32xf32>, %w: tensor<6144x4096xf8E4M3FN>, %ws: tensor<48x32xf32>) -> tensor<16x6144xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x4096xf8E4M3FN>, tensor<16x32xf32>, tensor<6144x4096xf8E4M3FN>, tensor<48x32xf32> -> tensor<16x6144xbf16>
  return %y : tensor<16x6144xbf16>
}
// (4608, 4096) has ck safe maximum M 512: M = 512 stays on ck, M = 513 and 1024 go to Triton.
// CHECK-LABEL: func.func @gfx950_r70_n4608_k4096_m512(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<ck>}
func.func @gfx950_r70_n4608_k4096_m512(%q: tensor<512x4096xf8E4M3FN>, %s: tensor<512x32xf32>, %w: tensor<4608x4096xf8E4M3FN>, %ws: tensor<36x32xf32>) -> tensor<512x4608xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<512x4096xf8E4M3FN>, tensor<512x32xf32>, tensor<4608x4096xf8E4M3FN>, tensor<36x32xf32> -> tensor<512x4608xbf16>
  return %y : tensor<512x4608xbf16>
}
// CHECK-LABEL: func.func @gfx950_r70_n4608_k4096_m513(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r70_n4608_k4096_m513(%q: tensor<513x4096xf8E4M3FN>, %s: tensor<513x32xf32>, %w: tensor<4608x4096xf8E4M3FN>, %ws: tensor<36x32xf32>) -> tensor<513x4608xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<513x4096xf8E4M3FN>, tensor<513x32xf32>, tensor<4608x4096xf8E4M3FN>, tensor<36x32xf32> -> tensor<513x4608xbf16>
  return %y : tensor<513x4608xbf16>
}
// CHECK-LABEL: func.func @gfx950_r70_n4608_k4096_m1024(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_r70_n4608_k4096_m1024(%q: tensor<1024x4096xf8E4M3FN>, %s: tensor<1024x32xf32>, %w: tensor<4608x4096xf8E4M3FN>, %ws: tensor<36x32xf32>) -> tensor<1024x4608xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<1024x4096xf8E4M3FN>, tensor<1024x32xf32>, tensor<4608x4096xf8E4M3FN>, tensor<36x32xf32> -> tensor<1024x4608xbf16>
  return %y : tensor<1024x4608xbf16>
}
// Shapes without a safe maximum stay on ck for any M.
// CHECK-LABEL: func.func @gfx950_r70_n6144_k4096_m4096(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<ck>}
func.func @gfx950_r70_n6144_k4096_m4096(%q: tensor<4096x4096xf8E4M3FN>, %s: tensor<4096x32xf32>, %w: tensor<6144x4096xf8E4M3FN>, %ws: tensor<48x32xf32>) -> tensor<4096x6144xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<4096x4096xf8E4M3FN>, tensor<4096x32xf32>, tensor<6144x4096xf8E4M3FN>, tensor<48x32xf32> -> tensor<4096x6144xbf16>
  return %y : tensor<4096x6144xbf16>
}
}

// -----

module attributes {fp8q.target = #fp8q.target<arch = "gfx950">} {
// CHECK-LABEL: func.func @gfx950_norocm_n28672_k512(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<ck>}
func.func @gfx950_norocm_n28672_k512(%q: tensor<16x512xf8E4M3FN>, %s: tensor<16x4xf32>, %w: tensor<28672x512xf8E4M3FN>, %ws: tensor<224x4xf32>) -> tensor<16x28672xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x512xf8E4M3FN>, tensor<16x4xf32>, tensor<28672x512xf8E4M3FN>, tensor<224x4xf32> -> tensor<16x28672xbf16>
  return %y : tensor<16x28672xbf16>
}
// CHECK-LABEL: func.func @gfx950_norocm_tuned_n2112_k7168(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_norocm_tuned_n2112_k7168(%q: tensor<16x7168xf8E4M3FN>, %s: tensor<16x56xf32>, %w: tensor<2112x7168xf8E4M3FN>, %ws: tensor<17x56xf32>) -> tensor<16x2112xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x7168xf8E4M3FN>, tensor<16x56xf32>, tensor<2112x7168xf8E4M3FN>, tensor<17x56xf32> -> tensor<16x2112xbf16>
  return %y : tensor<16x2112xbf16>
}
// CHECK-LABEL: func.func @gfx950_norocm_n4608_k4096_m1024(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx950_norocm_n4608_k4096_m1024(%q: tensor<1024x4096xf8E4M3FN>, %s: tensor<1024x32xf32>, %w: tensor<4608x4096xf8E4M3FN>, %ws: tensor<36x32xf32>) -> tensor<1024x4608xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<1024x4096xf8E4M3FN>, tensor<1024x32xf32>, tensor<4608x4096xf8E4M3FN>, tensor<36x32xf32> -> tensor<1024x4608xbf16>
  return %y : tensor<1024x4608xbf16>
}
}

// -----

module attributes {fp8q.target = #fp8q.target<arch = "gfx942", rocm = "6.4">} {
// CHECK-LABEL: func.func @gfx942_n1024_k8192(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx942_n1024_k8192(%q: tensor<16x8192xf8E4M3FNUZ>, %s: tensor<16x64xf32>, %w: tensor<1024x8192xf8E4M3FNUZ>, %ws: tensor<8x64xf32>) -> tensor<16x1024xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x8192xf8E4M3FNUZ>, tensor<16x64xf32>, tensor<1024x8192xf8E4M3FNUZ>, tensor<8x64xf32> -> tensor<16x1024xbf16>
  return %y : tensor<16x1024xbf16>
}
// CHECK-LABEL: func.func @gfx942_n16384_k1536(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx942_n16384_k1536(%q: tensor<16x1536xf8E4M3FNUZ>, %s: tensor<16x12xf32>, %w: tensor<16384x1536xf8E4M3FNUZ>, %ws: tensor<128x12xf32>) -> tensor<16x16384xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x1536xf8E4M3FNUZ>, tensor<16x12xf32>, tensor<16384x1536xf8E4M3FNUZ>, tensor<128x12xf32> -> tensor<16x16384xbf16>
  return %y : tensor<16x16384xbf16>
}
// CHECK-LABEL: func.func @gfx942_n2112_k7168(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx942_n2112_k7168(%q: tensor<16x7168xf8E4M3FNUZ>, %s: tensor<16x56xf32>, %w: tensor<2112x7168xf8E4M3FNUZ>, %ws: tensor<17x56xf32>) -> tensor<16x2112xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x7168xf8E4M3FNUZ>, tensor<16x56xf32>, tensor<2112x7168xf8E4M3FNUZ>, tensor<17x56xf32> -> tensor<16x2112xbf16>
  return %y : tensor<16x2112xbf16>
}
// CHECK-LABEL: func.func @gfx942_n3072_k1536(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx942_n3072_k1536(%q: tensor<16x1536xf8E4M3FNUZ>, %s: tensor<16x12xf32>, %w: tensor<3072x1536xf8E4M3FNUZ>, %ws: tensor<24x12xf32>) -> tensor<16x3072xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x1536xf8E4M3FNUZ>, tensor<16x12xf32>, tensor<3072x1536xf8E4M3FNUZ>, tensor<24x12xf32> -> tensor<16x3072xbf16>
  return %y : tensor<16x3072xbf16>
}
// CHECK-LABEL: func.func @gfx942_n28672_k512(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx942_n28672_k512(%q: tensor<16x512xf8E4M3FNUZ>, %s: tensor<16x4xf32>, %w: tensor<28672x512xf8E4M3FNUZ>, %ws: tensor<224x4xf32>) -> tensor<16x28672xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x512xf8E4M3FNUZ>, tensor<16x4xf32>, tensor<28672x512xf8E4M3FNUZ>, tensor<224x4xf32> -> tensor<16x28672xbf16>
  return %y : tensor<16x28672xbf16>
}
// CHECK-LABEL: func.func @gfx942_n16384_k2048(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx942_n16384_k2048(%q: tensor<16x2048xf8E4M3FNUZ>, %s: tensor<16x16xf32>, %w: tensor<16384x2048xf8E4M3FNUZ>, %ws: tensor<128x16xf32>) -> tensor<16x16384xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x2048xf8E4M3FNUZ>, tensor<16x16xf32>, tensor<16384x2048xf8E4M3FNUZ>, tensor<128x16xf32> -> tensor<16x16384xbf16>
  return %y : tensor<16x16384xbf16>
}
// CHECK-LABEL: func.func @gfx942_n6144_k12288(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx942_n6144_k12288(%q: tensor<16x12288xf8E4M3FNUZ>, %s: tensor<16x96xf32>, %w: tensor<6144x12288xf8E4M3FNUZ>, %ws: tensor<48x96xf32>) -> tensor<16x6144xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x12288xf8E4M3FNUZ>, tensor<16x96xf32>, tensor<6144x12288xf8E4M3FNUZ>, tensor<48x96xf32> -> tensor<16x6144xbf16>
  return %y : tensor<16x6144xbf16>
}
// CHECK-LABEL: func.func @gfx942_n4608_k4096(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx942_n4608_k4096(%q: tensor<16x4096xf8E4M3FNUZ>, %s: tensor<16x32xf32>, %w: tensor<4608x4096xf8E4M3FNUZ>, %ws: tensor<36x32xf32>) -> tensor<16x4608xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x4096xf8E4M3FNUZ>, tensor<16x32xf32>, tensor<4608x4096xf8E4M3FNUZ>, tensor<36x32xf32> -> tensor<16x4608xbf16>
  return %y : tensor<16x4608xbf16>
}
// CHECK-LABEL: func.func @gfx942_n6144_k4096(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx942_n6144_k4096(%q: tensor<16x4096xf8E4M3FNUZ>, %s: tensor<16x32xf32>, %w: tensor<6144x4096xf8E4M3FNUZ>, %ws: tensor<48x32xf32>) -> tensor<16x6144xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x4096xf8E4M3FNUZ>, tensor<16x32xf32>, tensor<6144x4096xf8E4M3FNUZ>, tensor<48x32xf32> -> tensor<16x6144xbf16>
  return %y : tensor<16x6144xbf16>
}
// CHECK-LABEL: func.func @gfx942_n4608_k4096_m1024(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<triton>}
func.func @gfx942_n4608_k4096_m1024(%q: tensor<1024x4096xf8E4M3FNUZ>, %s: tensor<1024x32xf32>, %w: tensor<4608x4096xf8E4M3FNUZ>, %ws: tensor<36x32xf32>) -> tensor<1024x4608xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<1024x4096xf8E4M3FNUZ>, tensor<1024x32xf32>, tensor<4608x4096xf8E4M3FNUZ>, tensor<36x32xf32> -> tensor<1024x4608xbf16>
  return %y : tensor<1024x4608xbf16>
}
}

// -----

module attributes {fp8q.target = #fp8q.target<arch = "sm90">} {
// CHECK-LABEL: func.func @sm90_n1024_k8192(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<deepgemm>}
func.func @sm90_n1024_k8192(%q: tensor<16x8192xf8E4M3FN>, %s: tensor<16x64xf32>, %w: tensor<1024x8192xf8E4M3FN>, %ws: tensor<8x64xf32>) -> tensor<16x1024xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x8192xf8E4M3FN>, tensor<16x64xf32>, tensor<1024x8192xf8E4M3FN>, tensor<8x64xf32> -> tensor<16x1024xbf16>
  return %y : tensor<16x1024xbf16>
}
// CHECK-LABEL: func.func @sm90_n16384_k1536(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<deepgemm>}
func.func @sm90_n16384_k1536(%q: tensor<16x1536xf8E4M3FN>, %s: tensor<16x12xf32>, %w: tensor<16384x1536xf8E4M3FN>, %ws: tensor<128x12xf32>) -> tensor<16x16384xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x1536xf8E4M3FN>, tensor<16x12xf32>, tensor<16384x1536xf8E4M3FN>, tensor<128x12xf32> -> tensor<16x16384xbf16>
  return %y : tensor<16x16384xbf16>
}
// CHECK-LABEL: func.func @sm90_n2112_k7168(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<deepgemm>}
func.func @sm90_n2112_k7168(%q: tensor<16x7168xf8E4M3FN>, %s: tensor<16x56xf32>, %w: tensor<2112x7168xf8E4M3FN>, %ws: tensor<17x56xf32>) -> tensor<16x2112xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x7168xf8E4M3FN>, tensor<16x56xf32>, tensor<2112x7168xf8E4M3FN>, tensor<17x56xf32> -> tensor<16x2112xbf16>
  return %y : tensor<16x2112xbf16>
}
// CHECK-LABEL: func.func @sm90_n3072_k1536(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<deepgemm>}
func.func @sm90_n3072_k1536(%q: tensor<16x1536xf8E4M3FN>, %s: tensor<16x12xf32>, %w: tensor<3072x1536xf8E4M3FN>, %ws: tensor<24x12xf32>) -> tensor<16x3072xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x1536xf8E4M3FN>, tensor<16x12xf32>, tensor<3072x1536xf8E4M3FN>, tensor<24x12xf32> -> tensor<16x3072xbf16>
  return %y : tensor<16x3072xbf16>
}
// CHECK-LABEL: func.func @sm90_n28672_k512(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<deepgemm>}
func.func @sm90_n28672_k512(%q: tensor<16x512xf8E4M3FN>, %s: tensor<16x4xf32>, %w: tensor<28672x512xf8E4M3FN>, %ws: tensor<224x4xf32>) -> tensor<16x28672xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x512xf8E4M3FN>, tensor<16x4xf32>, tensor<28672x512xf8E4M3FN>, tensor<224x4xf32> -> tensor<16x28672xbf16>
  return %y : tensor<16x28672xbf16>
}
// CHECK-LABEL: func.func @sm90_n16384_k2048(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<deepgemm>}
func.func @sm90_n16384_k2048(%q: tensor<16x2048xf8E4M3FN>, %s: tensor<16x16xf32>, %w: tensor<16384x2048xf8E4M3FN>, %ws: tensor<128x16xf32>) -> tensor<16x16384xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x2048xf8E4M3FN>, tensor<16x16xf32>, tensor<16384x2048xf8E4M3FN>, tensor<128x16xf32> -> tensor<16x16384xbf16>
  return %y : tensor<16x16384xbf16>
}
// CHECK-LABEL: func.func @sm90_n6144_k12288(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<deepgemm>}
func.func @sm90_n6144_k12288(%q: tensor<16x12288xf8E4M3FN>, %s: tensor<16x96xf32>, %w: tensor<6144x12288xf8E4M3FN>, %ws: tensor<48x96xf32>) -> tensor<16x6144xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x12288xf8E4M3FN>, tensor<16x96xf32>, tensor<6144x12288xf8E4M3FN>, tensor<48x96xf32> -> tensor<16x6144xbf16>
  return %y : tensor<16x6144xbf16>
}
// CHECK-LABEL: func.func @sm90_n4608_k4096(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<deepgemm>}
func.func @sm90_n4608_k4096(%q: tensor<16x4096xf8E4M3FN>, %s: tensor<16x32xf32>, %w: tensor<4608x4096xf8E4M3FN>, %ws: tensor<36x32xf32>) -> tensor<16x4608xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x4096xf8E4M3FN>, tensor<16x32xf32>, tensor<4608x4096xf8E4M3FN>, tensor<36x32xf32> -> tensor<16x4608xbf16>
  return %y : tensor<16x4608xbf16>
}
// CHECK-LABEL: func.func @sm90_n6144_k4096(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %arg2, %arg3 {kernel = #fp8q.kernel<deepgemm>}
func.func @sm90_n6144_k4096(%q: tensor<16x4096xf8E4M3FN>, %s: tensor<16x32xf32>, %w: tensor<6144x4096xf8E4M3FN>, %ws: tensor<48x32xf32>) -> tensor<16x6144xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<16x4096xf8E4M3FN>, tensor<16x32xf32>, tensor<6144x4096xf8E4M3FN>, tensor<48x32xf32> -> tensor<16x6144xbf16>
  return %y : tensor<16x6144xbf16>
}
}
