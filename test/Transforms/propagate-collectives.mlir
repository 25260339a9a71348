// A scale crossing a shard collective (--dp-attention's all_gather of the
// post-attention (q, scale) pair) crosses it row_major: the collective
// concatenates whole rows of bytes, so the quantize producer keeps its
// row-major write (no fused col_major write it would have to undo) and the
// column-major kernels after the gather get one materialization of the
// gathered scale, shared by every such consumer.
// RUN: fp8q-opt %s -split-input-file --fp8q-propagate-scale-layout | FileCheck %s
// Idempotent, and every contract (the collective's included) holds.
// RUN: fp8q-opt %s -split-input-file --fp8q-propagate-scale-layout \
// RUN:   | fp8q-opt -split-input-file --fp8q-propagate-scale-layout | FileCheck %s
// RUN: fp8q-opt %s -split-input-file --fp8q-propagate-scale-layout --fp8q-verify-contracts -o /dev/null
// No "unknown scale consumer" remark: a collective is a known consumer.
// RUN: fp8q-opt %s -split-input-file --fp8q-propagate-scale-layout -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARKS --allow-empty
// REMARKS-NOT: unknown scale consumer

// CHECK-LABEL: func.func @gather_then_col_major
// CHECK: %[[Q:.*]], %[[S:.*]] = fp8q.quantize %{{.*}} -> tensor<16x256xf8E4M3FN>, tensor<16x2xf32>{{$}}
// CHECK: %[[GQ:.*]] = shard.all_gather %[[Q]] on @tp grid_axes = [0] gather_axis = 0 : tensor<16x256xf8E4M3FN> -> tensor<128x256xf8E4M3FN>
// CHECK: %[[GS:.*]] = shard.all_gather %[[S]] on @tp grid_axes = [0] gather_axis = 0 : tensor<16x2xf32> -> tensor<128x2xf32>
// CHECK: %[[C:.*]] = fp8q.materialize %[[GS]] : tensor<128x2xf32> -> tensor<128x2xf32, #fp8q.layout<col_major>>
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %[[GQ]], %[[C]], {{.*}}kernel = #fp8q.kernel<cublas>
// CHECK: fp8q.gemm %[[GQ]], %[[C]], {{.*}}kernel = #fp8q.kernel<cublas>
// CHECK: shard.reduce_scatter %{{.*}} on @tp grid_axes = [0] scatter_axis = 0 : tensor<128x128xbf16> -> tensor<16x128xbf16>
module attributes {fp8q.target = #fp8q.target<arch = "sm90">} {
shard.grid @tp(shape = 8)
func.func @gather_then_col_major(%x: tensor<16x256xbf16>, %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) -> (tensor<16x128xbf16>, tensor<128x128xbf16>) {
  %q, %s = fp8q.quantize %x : tensor<16x256xbf16> -> tensor<16x256xf8E4M3FN>, tensor<16x2xf32>
  %gq = shard.all_gather %q on @tp grid_axes = [0] gather_axis = 0 : tensor<16x256xf8E4M3FN> -> tensor<128x256xf8E4M3FN>
  %gs = shard.all_gather %s on @tp grid_axes = [0] gather_axis = 0 : tensor<16x2xf32> -> tensor<128x2xf32>
  %y0 = fp8q.gemm %gq, %gs, %w, %ws {kernel = #fp8q.kernel<cublas>} : tensor<128x256xf8E4M3FN>, tensor<128x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<128x128xbf16>
  %y1 = fp8q.gemm %gq, %gs, %w, %ws {kernel = #fp8q.kernel<cublas>} : tensor<128x256xf8E4M3FN>, tensor<128x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<128x128xbf16>
  %r = shard.reduce_scatter %y0 on @tp grid_axes = [0] scatter_axis = 0 : tensor<128x128xbf16> -> tensor<16x128xbf16>
  return %r, %y1 : tensor<16x128xbf16>, tensor<128x128xbf16>
}
}

// -----

// Without the collective the same producer fuses the column-major write:
// the gather is what costs the copy.
// CHECK-LABEL: func.func @no_gather
// CHECK: fp8q.quantize %{{.*}} -> tensor<16x256xf8E4M3FN>, tensor<16x2xf32, #fp8q.layout<col_major>>
// CHECK-NOT: fp8q.materialize
module attributes {fp8q.target = #fp8q.target<arch = "sm90">} {
func.func @no_gather(%x: tensor<16x256xbf16>, %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) -> tensor<16x128xbf16> {
  %q, %s = fp8q.quantize %x : tensor<16x256xbf16> -> tensor<16x256xf8E4M3FN>, tensor<16x2xf32>
  %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<cublas>} : tensor<16x256xf8E4M3FN>, tensor<16x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<16x128xbf16>
  return %y : tensor<16x128xbf16>
}
}
