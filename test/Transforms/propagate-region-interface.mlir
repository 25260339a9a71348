// Region ops other than scf.for / if / while are seen through by their
// RegionBranchOpInterface: scf.execute_region and scf.index_switch results
// share a layout with what their regions yield. A region op whose
// successors the interface does not fully describe (an execute_region with
// several blocks) keeps its types.
// RUN: fp8q-opt %s -split-input-file --fp8q-propagate-scale-layout | FileCheck %s
// RUN: fp8q-opt %s -split-input-file --fp8q-propagate-scale-layout \
// RUN:   | fp8q-opt -split-input-file --fp8q-propagate-scale-layout | FileCheck %s
// RUN: fp8q-opt %s -split-input-file --fp8q-propagate-scale-layout --fp8q-verify-contracts -o /dev/null

// CHECK-LABEL: func.func @execute_region
// CHECK: scf.execute_region -> tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK: fp8q.quantize %{{.*}}, tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK: scf.yield %{{.*}} : tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NOT: fp8q.materialize
// CHECK: return
func.func @execute_region(%x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) -> tensor<?x128xbf16> {
  %s = "scf.execute_region"() ({
    %q, %s0 = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
    scf.yield %s0 : tensor<?x2xf32>
  }) : () -> tensor<?x2xf32>
  %q1, %s1 = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %y = fp8q.gemm %q1, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// CHECK-LABEL: func.func @index_switch
// CHECK: scf.index_switch %{{.*}} -> tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NOT: fp8q.materialize
// CHECK: return
func.func @index_switch(%i: index, %x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) -> tensor<?x128xbf16> {
  %q, %s0 = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %q1, %s1 = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %s = scf.index_switch %i -> tensor<?x2xf32>
  case 0 {
    scf.yield %s0 : tensor<?x2xf32>
  }
  default {
    scf.yield %s1 : tensor<?x2xf32>
  }
  %y = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// CHECK-LABEL: func.func @multi_block
// CHECK: scf.execute_region -> tensor<?x2xf32> {
// CHECK: fp8q.quantize %{{.*}}, tensor<?x2xf32>{{$}}
// CHECK: fp8q.materialize %{{.*}} : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
func.func @multi_block(%x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) -> tensor<?x128xbf16> {
  %s = "scf.execute_region"() ({
    %q, %s0 = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
    cf.br ^bb1(%s0 : tensor<?x2xf32>)
  ^bb1(%a: tensor<?x2xf32>):
    scf.yield %a : tensor<?x2xf32>
  }) : () -> tensor<?x2xf32>
  %q1, %s1 = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %y = fp8q.gemm %q1, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}
