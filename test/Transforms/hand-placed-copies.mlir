// RUN: fp8q-opt %s -split-input-file -fp8q-hand-placed-copies -fp8q-verify-contracts | FileCheck %s

// The historical fix: one copy per consumer that reads another layout, never
// shared and never hoisted; consumers whose contract already holds get none.

// CHECK-LABEL: func.func @copy_per_consumer
// CHECK-SAME: (%[[Q:.*]]: tensor<?x256xf8E4M3FN>, %[[S:.*]]: tensor<?x2xf32>,
// CHECK: %[[C0:.*]] = fp8q.materialize %[[S]] : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NEXT: fp8q.gemm %[[Q]], %[[C0]]
// CHECK-NEXT: %[[C1:.*]] = fp8q.materialize %[[S]] : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NEXT: fp8q.gemm %[[Q]], %[[C1]]
// CHECK-NEXT: fp8q.gemm %[[Q]], %[[S]], {{.*}}kernel = #fp8q.kernel<ck>
// CHECK-NEXT: fp8q.gemm %[[Q]], %[[S]], {{.*}}kernel = #fp8q.kernel<triton>
func.func @copy_per_consumer(%q: tensor<?x256xf8E4M3FN>, %s: tensor<?x2xf32>,
                             %p: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>,
                             %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  %0 = fp8q.gemm %q, %s, %p, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  %1 = fp8q.gemm %q, %s, %p, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  %2 = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<ck>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x128xbf16>
  %3 = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<triton>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}

// -----

// M == 1: the bytes already match, no copy.
// CHECK-LABEL: func.func @m1_no_copy
// CHECK-NOT: fp8q.materialize
func.func @m1_no_copy(%q: tensor<1x256xf8E4M3FN>, %s: tensor<1x2xf32>,
                      %p: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) {
  %0 = fp8q.gemm %q, %s, %p, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<1x256xf8E4M3FN>, tensor<1x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<1x128xbf16>
  return
}

// -----

// DeepGEMM's padded layout.
// CHECK-LABEL: func.func @deepgemm
// CHECK: fp8q.materialize %{{.*}} : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major, align = 4>>
func.func @deepgemm(%q: tensor<?x256xf8E4M3FN>, %s: tensor<?x2xf32>, %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  %0 = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<deepgemm>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}

// -----

// The baseline asks the read-only scale-layout analysis, which sees through
// materializations: a gemm reading one whose layout holds gets no copy, the
// gemm reading the row-major scale beside it gets its own.
// CHECK-LABEL: func.func @existing_materialize
// CHECK-SAME: (%[[Q:.*]]: tensor<?x256xf8E4M3FN>, %[[S:.*]]: tensor<?x2xf32>,
// CHECK: %[[M:.*]] = fp8q.materialize %[[S]]
// CHECK-NEXT: fp8q.gemm %[[Q]], %[[M]]
// CHECK-NEXT: %[[C:.*]] = fp8q.materialize %[[S]] : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NEXT: fp8q.gemm %[[Q]], %[[C]]
// CHECK-NOT: fp8q.materialize
func.func @existing_materialize(%q: tensor<?x256xf8E4M3FN>, %s: tensor<?x2xf32>,
                                %p: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>,
                                %ws: tensor<1x2xf32>) {
  %m = fp8q.materialize %s : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
  %0 = fp8q.gemm %q, %m, %p, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  %1 = fp8q.gemm %q, %s, %p, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}
