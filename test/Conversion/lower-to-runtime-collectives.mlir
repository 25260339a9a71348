// The collectives' runtime calls (docs/RuntimeABI.md, "Collectives"): an
// all_gather passes its element's bytes and the ranks, a reduce_scatter
// (bf16) the ranks; in device execution the same calls are named
// fp8q_rt_device_* and take the step's stream last. The shard.grid is
// erased with the ops that named it.
// RUN: fp8q-opt %s -split-input-file -verify-diagnostics --fp8q-lower-to-runtime | FileCheck %s --check-prefix=HOST
// RUN: fp8q-opt %s -split-input-file -verify-diagnostics --fp8q-lower-to-runtime=device=true | FileCheck %s --check-prefix=DEVICE

// HOST-NOT: shard.grid
// HOST-DAG: func.func private @fp8q_rt_all_gather(memref<?x?xi8, strided<[?, ?], offset: ?>>, memref<?x?xi8, strided<[?, ?], offset: ?>>, i64, i64) -> i32 attributes {llvm.emit_c_interface}
// HOST-DAG: func.func private @fp8q_rt_reduce_scatter_bf16(memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, i64) -> i32 attributes {llvm.emit_c_interface}
// HOST-LABEL: func.func @collectives
// HOST: call @fp8q_rt_all_gather(%{{.*}}, %{{.*}}, %c1_i64, %c8_i64)
// HOST: call @fp8q_rt_all_gather(%{{.*}}, %{{.*}}, %c4_i64, %c8_i64{{[_0-9]*}})
// HOST: call @fp8q_rt_reduce_scatter_bf16(%{{.*}}, %{{.*}}, %c8_i64{{[_0-9]*}})

// DEVICE-NOT: shard.grid
// DEVICE-LABEL: func.func @collectives(
// DEVICE-SAME: %[[STREAM:[^:]*]]: !gpu.async.token)
// DEVICE: call @fp8q_rt_device_all_gather(%{{.*}}, %{{.*}}, %c1_i64, %c8_i64, %[[STREAM]])
// DEVICE: call @fp8q_rt_device_all_gather(%{{.*}}, %{{.*}}, %c4_i64, %c8_i64{{[_0-9]*}}, %[[STREAM]])
// DEVICE: call @fp8q_rt_device_reduce_scatter_bf16(%{{.*}}, %{{.*}}, %c8_i64{{[_0-9]*}}, %[[STREAM]])
shard.grid @tp(shape = 8)
func.func @collectives(%q: memref<?x256xf8E4M3FN>, %gq: memref<?x256xf8E4M3FN>,
                       %s: memref<?x2xf32>, %gs: memref<?x2xf32>,
                       %y: memref<128x64xbf16>, %r: memref<16x64xbf16>,
                       %stream: !gpu.async.token) {
  fp8q.buffer.all_gather %q, %gq ranks(8) : memref<?x256xf8E4M3FN>, memref<?x256xf8E4M3FN>
  fp8q.buffer.all_gather %s, %gs ranks(8) : memref<?x2xf32>, memref<?x2xf32>
  fp8q.buffer.reduce_scatter %y, %r ranks(8) : memref<128x64xbf16>, memref<16x64xbf16>
  return
}

// -----

shard.grid @tp(shape = 2)
func.func @unbufferized(%q: tensor<8x256xf8E4M3FN>) -> tensor<16x256xf8E4M3FN> {
  // expected-error @below {{shard collective left on tensors: bufferize the module (--fp8q-bufferize) before lowering}}
  %0 = shard.all_gather %q on @tp grid_axes = [0] gather_axis = 0 : tensor<8x256xf8E4M3FN> -> tensor<16x256xf8E4M3FN>
  return %0 : tensor<16x256xf8E4M3FN>
}
