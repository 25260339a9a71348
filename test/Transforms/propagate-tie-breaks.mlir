// Assignments with equally many materializations: fewer copies win, then
// fewer copies weighted by how often the value is defined (each loop counts
// 8 iterations).
// RUN: fp8q-opt %s -split-input-file -allow-unregistered-dialect --fp8q-propagate-scale-layout | FileCheck %s
// RUN: fp8q-opt %s -split-input-file -allow-unregistered-dialect --fp8q-propagate-scale-layout \
// RUN:   | fp8q-opt -split-input-file -allow-unregistered-dialect --fp8q-propagate-scale-layout | FileCheck %s

// A scale read by an unknown consumer (row_major), returned col_major and
// passed to an external function taking col_major align 4, with M = 16:
// every layout of the producer needs two materializations, but writing it
// column-major makes one of them a retype (col_major and col_major align 4
// are the same bytes) and only the row_major one a copy.
// CHECK-LABEL: func.func @copy_and_retype
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}} -> tensor<16x256xf8E4M3FN>, tensor<16x2xf32, #fp8q.layout<col_major>>
// CHECK-DAG: fp8q.materialize %[[S]] : tensor<16x2xf32, #fp8q.layout<col_major>> -> tensor<16x2xf32>{{$}}
// CHECK-DAG: fp8q.materialize %[[S]] : tensor<16x2xf32, #fp8q.layout<col_major>> -> tensor<16x2xf32, #fp8q.layout<col_major, align = 4>>
// CHECK-NOT: fp8q.materialize
// CHECK: return %[[S]] :
func.func private @ext(tensor<16x2xf32, #fp8q.layout<col_major, align = 4>>)
func.func @copy_and_retype(%x: tensor<16x256xbf16>) -> tensor<16x2xf32, #fp8q.layout<col_major>> {
  %q, %s = fp8q.quantize %x : tensor<16x256xbf16> -> tensor<16x256xf8E4M3FN>, tensor<16x2xf32>
  "test.use"(%s) : (tensor<16x2xf32>) -> ()
  %a = fp8q.materialize %s : tensor<16x2xf32> -> tensor<16x2xf32, #fp8q.layout<col_major, align = 4>>
  func.call @ext(%a) : (tensor<16x2xf32, #fp8q.layout<col_major, align = 4>>) -> ()
  %c = fp8q.materialize %s : tensor<16x2xf32> -> tensor<16x2xf32, #fp8q.layout<col_major>>
  return %c : tensor<16x2xf32, #fp8q.layout<col_major>>
}

// -----

// A public argument carried by an scf.for, read by ck_bpreshuffle in the body
// and yielded unchanged: copying at the loop entry (once) beats copying the
// iter_arg in the body (once per iteration); the loop carries col_major.
// CHECK-LABEL: func.func @iter_arg_copied_before_the_loop
// CHECK-SAME: %[[S:[^:]*]]: tensor<?x2xf32>
// CHECK: %[[C:.*]] = fp8q.materialize %[[S]] : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK: scf.for {{.*}} iter_args(%[[IT:.*]] = %[[C]]) -> (tensor<?x2xf32, #fp8q.layout<col_major>>)
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %{{.*}}, %[[IT]],
// CHECK-NOT: fp8q.materialize
// CHECK: scf.yield %[[IT]] : tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NOT: fp8q.materialize
// CHECK: return
func.func @iter_arg_copied_before_the_loop(%q: tensor<?x256xf8E4M3FN>, %s: tensor<?x2xf32>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%it = %s) -> (tensor<?x2xf32>) {
    %y = fp8q.gemm %q, %it, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
    "test.sink"(%y) : (tensor<?x128xbf16>) -> ()
    scf.yield %it : tensor<?x2xf32>
  }
  return
}
