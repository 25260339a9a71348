// A gemm with no kernel yet (before --fp8q-select-kernels) reads any layout:
// nothing to propagate.
// RUN: fp8q-opt %s --fp8q-propagate-scale-layout | FileCheck %s

// CHECK-LABEL: func.func @no_kernel
// CHECK: fp8q.quantize %{{.*}}, tensor<?x2xf32>{{$}}
// CHECK-NOT: fp8q.materialize
// CHECK: return
func.func @no_kernel(%x: tensor<?x256xbf16>, %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) -> tensor<?x128xbf16> {
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}
