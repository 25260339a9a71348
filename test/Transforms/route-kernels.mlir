// RUN: fp8q-opt %s -split-input-file --fp8q-route-kernels | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: fp8q-opt %s -split-input-file --fp8q-route-kernels | fp8q-opt -split-input-file --fp8q-route-kernels | FileCheck %s
// RUN: fp8q-opt %s -split-input-file --fp8q-route-kernels="sm90-kernel=cublas" | FileCheck %s --check-prefix=CUBLAS
// RUN: not fp8q-opt %s -split-input-file --fp8q-route-kernels="sm90-kernel=ck" 2>&1 | FileCheck %s --check-prefix=BADKERNEL
// RUN: not fp8q-opt %s -split-input-file --fp8q-route-kernels="tuned-table=%S/Inputs/no-such-table.json" 2>&1 | FileCheck %s --check-prefix=MISSING

// BADKERNEL: error: sm90-kernel 'ck' is not a kernel that runs on sm90
// MISSING: error: tuned table '{{.*}}no-such-table.json': cannot read the file

// --fp8q-route-kernels only sets `kernel`: the ck_bpreshuffle weight stays
// plain (that is --fp8q-insert-preshuffle's job) and the fp8 flavour is not
// checked (--fp8q-check-fp8-type's).
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
// CHECK-LABEL: func.func @route_only(
// CHECK-NOT: fp8q.preshuffle
// CHECK: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<ck_bpreshuffle>} : {{.*}} tensor<6144x7168xf8E4M3FN>, {{.*}}
// CHECK-NOT: fp8q.preshuffle
// CHECK: return
func.func @route_only(%q: tensor<?x7168xf8E4M3FN>, %s: tensor<?x56xf32>, %w: tensor<6144x7168xf8E4M3FN>, %ws: tensor<48x56xf32>) -> tensor<?x6144xbf16> {
  %o = fp8q.gemm %q, %s, %w, %ws : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32>, tensor<6144x7168xf8E4M3FN>, tensor<48x56xf32> -> tensor<?x6144xbf16>
  return %o : tensor<?x6144xbf16>
}
}

// -----

// gfx942 reads f8E4M3FNUZ, but routing does not look at the flavour.
module attributes {fp8q.target = #fp8q.target<arch = "gfx942", rocm = "6.4">} {
// CHECK-LABEL: func.func @flavour_not_checked(
// CHECK: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<triton>} : tensor<4x128xf8E4M3FN>
func.func @flavour_not_checked(%q: tensor<4x128xf8E4M3FN>, %s: tensor<4x1xf32>, %w: tensor<16x128xf8E4M3FN>, %ws: tensor<1x1xf32>) -> tensor<4x16xbf16> {
  %o = fp8q.gemm %q, %s, %w, %ws : tensor<4x128xf8E4M3FN>, tensor<4x1xf32>, tensor<16x128xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x16xbf16>
  return %o : tensor<4x16xbf16>
}
}

// -----

module attributes {fp8q.target = #fp8q.target<arch = "sm90">} {
// CHECK-LABEL: func.func @sm90(
// CHECK: {kernel = #fp8q.kernel<deepgemm>}
// CUBLAS-LABEL: func.func @sm90(
// CUBLAS: {kernel = #fp8q.kernel<cublas>}
func.func @sm90(%q: tensor<4x128xf8E4M3FN>, %s: tensor<4x1xf32>, %w: tensor<16x128xf8E4M3FN>, %ws: tensor<1x1xf32>) -> tensor<4x16xbf16> {
  %o = fp8q.gemm %q, %s, %w, %ws : tensor<4x128xf8E4M3FN>, tensor<4x1xf32>, tensor<16x128xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x16xbf16>
  return %o : tensor<4x16xbf16>
}
}
