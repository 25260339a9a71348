// fuse-producers=false: producers keep the layout they write; copies go
// right after the producer, shared, and outside every loop that does not
// define the value. Runs in fp8q-opt and in upstream mlir-opt with the
// plugin.
// RUN: fp8q-opt %s -split-input-file \
// RUN:   --pass-pipeline="builtin.module(fp8q-propagate-scale-layout{fuse-producers=false})" | FileCheck %s
// RUN: fp8q-opt %s -split-input-file \
// RUN:   --pass-pipeline="builtin.module(fp8q-propagate-scale-layout{fuse-producers=false})" \
// RUN:   | fp8q-opt -split-input-file \
// RUN:   --pass-pipeline="builtin.module(fp8q-propagate-scale-layout{fuse-producers=false})" | FileCheck %s
// RUN: fp8q-opt %s -split-input-file \
// RUN:   --pass-pipeline="builtin.module(fp8q-propagate-scale-layout{fuse-producers=false},fp8q-verify-contracts)" -o /dev/null
// RUN: mlir-opt %s -split-input-file --load-dialect-plugin=%fp8q_plugin --load-pass-plugin=%fp8q_plugin \
// RUN:   --pass-pipeline="builtin.module(fp8q-propagate-scale-layout{fuse-producers=false})" | FileCheck %s

// One copy after the producer, shared by both ck_bpreshuffle gemms.
// CHECK-LABEL: func.func @shared_copy
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}}, tensor<?x2xf32>{{$}}
// CHECK-NEXT: %[[C:.*]] = fp8q.materialize %[[S]] : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %{{.*}}, %[[C]],
// CHECK: fp8q.gemm %{{.*}}, %[[C]],
func.func @shared_copy(%x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) {
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %y0 = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  %y1 = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}

// -----

// A producer that writes column-major keeps doing so; ck gets a row-major
// copy.
// CHECK-LABEL: func.func @written_col_major
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}}, tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NEXT: %[[R:.*]] = fp8q.materialize %[[S]] : tensor<?x2xf32, #fp8q.layout<col_major>> -> tensor<?x2xf32>
// CHECK-NEXT: fp8q.gemm %{{.*}}, %[[R]], {{.*}}kernel = #fp8q.kernel<ck>}
func.func @written_col_major(%x: tensor<?x256xbf16>, %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>
  %y0 = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<ck>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}

// -----

// A value defined before a loop and read in its body is copied before the
// loop, once; a value defined in the body is copied in the body, right after
// its producer.
// CHECK-LABEL: func.func @loop_placement
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}}, tensor<?x2xf32>{{$}}
// CHECK-NEXT: %[[C:.*]] = fp8q.materialize %[[S]]
// CHECK-NEXT: scf.for
// CHECK-NEXT: fp8q.gemm %{{.*}}, %[[C]],
// CHECK-NEXT: %{{.*}}, %[[S2:.*]] = fp8q.quantize %{{.*}}, tensor<?x2xf32>{{$}}
// CHECK-NEXT: %[[C2:.*]] = fp8q.materialize %[[S2]]
// CHECK-NEXT: fp8q.gemm %{{.*}}, %[[C2]],
// CHECK-NOT: fp8q.materialize
// CHECK: return
func.func @loop_placement(%x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %y0 = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
    %q2, %s2 = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
    %y1 = fp8q.gemm %q2, %s2, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  }
  return
}

// -----

// Loop-carried scale without fusion: the iter_arg is free, the producers are
// not. Carrying row-major and copying the iter_arg once in the body (1 op)
// beats carrying column-major (a copy of the init and one of the yield).
// CHECK-LABEL: func.func @loop_carried
// CHECK: scf.for {{.*}} iter_args(%[[IT:.*]] = %{{.*}}) -> (tensor<?x2xf32>)
// CHECK-NEXT: %[[C:.*]] = fp8q.materialize %[[IT]]
// CHECK-NEXT: fp8q.gemm %{{.*}}, %[[C]],
// CHECK-NOT: fp8q.materialize
// CHECK: return
func.func @loop_carried(%x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) -> tensor<?x2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%it = %s) -> (tensor<?x2xf32>) {
    %y = fp8q.gemm %q, %it, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
    %q2, %s2 = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
    scf.yield %s2 : tensor<?x2xf32>
  }
  return %r : tensor<?x2xf32>
}
