// The counts of the pass statistics, as a remark on the module: release LLVM
// builds (Debian's among them) compile pass statistics out.
// RUN: fp8q-opt %s -split-input-file -pass-pipeline='builtin.module(fp8q-propagate-scale-layout{report-counts=true})' -verify-diagnostics -o /dev/null

// One fused producer, one hand-written copy removed, nothing left to copy.
// expected-remark@+1 {{fp8q-propagate-scale-layout: 0 materializations inserted, 1 producers fused, 1 materializations removed, 0 materializations remain}}
module {
func.func @fused(%x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) -> tensor<?x128xbf16> {
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %c = fp8q.materialize %s : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
  %y = fp8q.gemm %q, %c, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}
}

// -----

// A public argument's layout is fixed: one copy for the bpreshuffle consumer.
// expected-remark@+1 {{fp8q-propagate-scale-layout: 1 materializations inserted, 0 producers fused, 0 materializations removed, 1 materializations remain}}
module {
func.func @pinned(%q: tensor<?x256xf8E4M3FN>, %s: tensor<?x2xf32>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) -> tensor<?x128xbf16> {
  // expected-remark@+1 {{scale materialized to #fp8q.layout<col_major> (copy) for 1 consumer: x_scale of fp8q.gemm}}
  %y = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}
}
