// RUN: fp8q-opt %s -split-input-file --fp8q-bufferize | FileCheck %s

// shard.all_gather / shard.reduce_scatter along dim 0 become
// fp8q.buffer.all_gather / reduce_scatter into a new contiguous buffer with
// ranks x (gather) or 1 / ranks of (reduce_scatter) the operand's rows; a
// dynamic M is scaled at run time. The grid stays until the lowering.

// CHECK-LABEL: shard.grid @tp(shape = 4)
// CHECK-LABEL: func.func @dynamic_rows
// CHECK-SAME: (%[[Q:.*]]: memref<?x256xf8E4M3FN>, %[[S:.*]]: memref<?x2xf32>, %[[Y:.*]]: memref<?x64xbf16>)
// CHECK: %[[M:.*]] = memref.dim %[[Q]], %c0
// CHECK: %[[M4:.*]] = arith.muli %[[M]], %c4
// CHECK: %[[GQ:.*]] = memref.alloc(%[[M4]]) {{.*}} : memref<?x256xf8E4M3FN>
// CHECK: fp8q.buffer.all_gather %[[Q]], %[[GQ]] ranks(4) : memref<?x256xf8E4M3FN>, memref<?x256xf8E4M3FN>
// CHECK: %[[GS:.*]] = memref.alloc({{.*}}) {{.*}} : memref<?x2xf32>
// CHECK: fp8q.buffer.all_gather %[[S]], %[[GS]] ranks(4) : memref<?x2xf32>, memref<?x2xf32>
// CHECK: %[[MY:.*]] = memref.dim %[[Y]], %c0
// CHECK: %[[MY4:.*]] = arith.divui %[[MY]], %c4
// CHECK: %[[R:.*]] = memref.alloc(%[[MY4]]) {{.*}} : memref<?x64xbf16>
// CHECK: fp8q.buffer.reduce_scatter %[[Y]], %[[R]] ranks(4) : memref<?x64xbf16>, memref<?x64xbf16>
shard.grid @tp(shape = 4)
func.func @dynamic_rows(%q: tensor<?x256xf8E4M3FN>, %s: tensor<?x2xf32>, %y: tensor<?x64xbf16>) -> (tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<?x64xbf16>) {
  %0 = shard.all_gather %q on @tp grid_axes = [0] gather_axis = 0 : tensor<?x256xf8E4M3FN> -> tensor<?x256xf8E4M3FN>
  %1 = shard.all_gather %s on @tp grid_axes = [0] gather_axis = 0 : tensor<?x2xf32> -> tensor<?x2xf32>
  %2 = shard.reduce_scatter %y on @tp grid_axes = [0] scatter_axis = 0 : tensor<?x64xbf16> -> tensor<?x64xbf16>
  return %0, %1, %2 : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<?x64xbf16>
}

// -----

// Static rows; an e8m0 scale moves as bytes like any row-major scale.
// CHECK-LABEL: func.func @static_rows
// CHECK: %[[G:.*]] = memref.alloc() {{.*}} : memref<16x8xf8E8M0FNU>
// CHECK: fp8q.buffer.all_gather %{{.*}}, %[[G]] ranks(2) : memref<8x8xf8E8M0FNU>, memref<16x8xf8E8M0FNU>
// CHECK: %[[R:.*]] = memref.alloc() {{.*}} : memref<4x64xbf16>
// CHECK: fp8q.buffer.reduce_scatter %{{.*}}, %[[R]] ranks(2) : memref<8x64xbf16>, memref<4x64xbf16>
shard.grid @pair(shape = 2)
func.func @static_rows(%e: tensor<8x8xf8E8M0FNU>, %y: tensor<8x64xbf16>) -> (tensor<16x8xf8E8M0FNU>, tensor<4x64xbf16>) {
  %0 = shard.all_gather %e on @pair grid_axes = [0] gather_axis = 0 : tensor<8x8xf8E8M0FNU> -> tensor<16x8xf8E8M0FNU>
  %1 = shard.reduce_scatter %y on @pair grid_axes = [0] scatter_axis = 0 : tensor<8x64xbf16> -> tensor<4x64xbf16>
  return %0, %1 : tensor<16x8xf8E8M0FNU>, tensor<4x64xbf16>
}
