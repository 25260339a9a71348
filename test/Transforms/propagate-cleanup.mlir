// Materializations the pass can re-derive are removed first (hand-written
// ones and its own from an earlier run); only the needed ones come back.
// RUN: fp8q-opt %s -split-input-file --fp8q-propagate-scale-layout | FileCheck %s
// RUN: fp8q-opt %s -split-input-file --fp8q-propagate-scale-layout \
// RUN:   | fp8q-opt -split-input-file --fp8q-propagate-scale-layout | FileCheck %s
// RUN: fp8q-opt %s -split-input-file --fp8q-propagate-scale-layout --fp8q-verify-contracts -o /dev/null

// The hand-placed fix (`scale.t().contiguous().t()` before the kernel) is
// redundant once the producer writes column-major.
// CHECK-LABEL: func.func @redundant_handwritten
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}}, tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %{{.*}}, %[[S]],
func.func @redundant_handwritten(%x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) -> tensor<?x128xbf16> {
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %c = fp8q.materialize %s : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
  %y = fp8q.gemm %q, %c, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// A chain of materializations (col, col align 4, back to col) collapses.
// CHECK-LABEL: func.func @chain
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}}, tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %{{.*}}, %[[S]],
func.func @chain(%x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) -> tensor<?x128xbf16> {
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %a = fp8q.materialize %s : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
  %b = fp8q.materialize %a : tensor<?x2xf32, #fp8q.layout<col_major>> -> tensor<?x2xf32, #fp8q.layout<col_major, align = 4>>
  %c = fp8q.materialize %b : tensor<?x2xf32, #fp8q.layout<col_major, align = 4>> -> tensor<?x2xf32, #fp8q.layout<col_major>>
  %y = fp8q.gemm %q, %c, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// With M == 1 a materialization between row_major and col_major moves no
// bytes: the gemm reads the argument directly.
// CHECK-LABEL: func.func @equal_layouts_m1
// CHECK-SAME: (%[[Q:.*]]: tensor<1x256xf8E4M3FN>, %[[S:[^:]*]]: tensor<1x2xf32>
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %[[Q]], %[[S]],
func.func @equal_layouts_m1(%q: tensor<1x256xf8E4M3FN>, %s: tensor<1x2xf32>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) -> tensor<1x128xbf16> {
  %c = fp8q.materialize %s : tensor<1x2xf32> -> tensor<1x2xf32, #fp8q.layout<col_major>>
  %y = fp8q.gemm %q, %c, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<1x256xf8E4M3FN>, tensor<1x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<1x128xbf16>
  return %y : tensor<1x128xbf16>
}

// -----

// A public argument must be copied; two hand-written copies at two consumer
// boundaries become one, placed at the definition and shared.
// CHECK-LABEL: func.func @duplicate_handwritten
// CHECK-SAME: (%[[Q:.*]]: tensor<?x256xf8E4M3FN>, %[[S:[^:]*]]: tensor<?x2xf32>
// CHECK-NEXT: %[[C:.*]] = fp8q.materialize %[[S]] : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %[[Q]], %[[C]],
// CHECK: fp8q.gemm %[[Q]], %[[C]],
func.func @duplicate_handwritten(%q: tensor<?x256xf8E4M3FN>, %s: tensor<?x2xf32>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) {
  %c0 = fp8q.materialize %s : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
  %y0 = fp8q.gemm %q, %c0, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  %c1 = fp8q.materialize %s : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
  %y1 = fp8q.gemm %q, %c1, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}

// -----

// A hand-written copy to the wrong layout (DeepGEMM's padded one for a
// ck_bpreshuffle gemm) is replaced by the right one.
// CHECK-LABEL: func.func @wrong_handwritten
// CHECK: fp8q.materialize %{{.*}} : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NOT: fp8q.materialize
// CHECK-NOT: align = 4
// CHECK: return
func.func @wrong_handwritten(%q: tensor<?x256xf8E4M3FN>, %s: tensor<?x2xf32>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) -> tensor<?x128xbf16> {
  %c = fp8q.materialize %s : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major, align = 4>>
  %y = fp8q.gemm %q, %c, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major, align = 4>>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}
