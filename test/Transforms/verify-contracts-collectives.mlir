// --fp8q-verify-contracts on shard collectives: one message per way a
// collective breaks what fp8q lowers (fp8q/Dialect/IR/Collectives.h).
// RUN: fp8q-opt %s -split-input-file -fp8q-verify-contracts -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @holds
shard.grid @tp(shape = 4)
func.func @holds(%q: tensor<?x256xf8E4M3FN>, %s: tensor<?x2xf32>, %e: tensor<?x8xf8E8M0FNU>, %y: tensor<8x64xbf16>) {
  %0 = shard.all_gather %q on @tp grid_axes = [0] gather_axis = 0 : tensor<?x256xf8E4M3FN> -> tensor<?x256xf8E4M3FN>
  %1 = shard.all_gather %s on @tp grid_axes = [0] gather_axis = 0 : tensor<?x2xf32> -> tensor<?x2xf32>
  %2 = shard.all_gather %e on @tp grid_axes = [0] gather_axis = 0 : tensor<?x8xf8E8M0FNU> -> tensor<?x8xf8E8M0FNU>
  %3 = shard.reduce_scatter %y on @tp grid_axes = [0] scatter_axis = 0 : tensor<8x64xbf16> -> tensor<2x64xbf16>
  return
}

// -----

// The vLLM 42118 class: a column-major scale gathered along its rows.
shard.grid @tp(shape = 4)
func.func @col_major_scale(%s: tensor<?x2xf32, #fp8q.layout<col_major>>) {
  // expected-error @below {{'shard.all_gather' op breaks the collective contract: a scale crosses a collective row_major (the collective concatenates or splits whole rows of bytes), got #fp8q.layout<col_major> in 'tensor<?x2xf32, #fp8q.layout<col_major>>'; gathering a column-major scale along its rows interleaves the ranks' columns (the vLLM 42118 bug): materialize it row_major before the collective}}
  %0 = shard.all_gather %s on @tp grid_axes = [0] gather_axis = 0 : tensor<?x2xf32, #fp8q.layout<col_major>> -> tensor<?x2xf32, #fp8q.layout<col_major>>
  return
}

// -----

shard.grid @tp(shape = 4)
func.func @col_major_result(%s: tensor<?x2xf32>) {
  // expected-error @below {{got #fp8q.layout<col_major, align = 4> in 'tensor<?x2xf32, #fp8q.layout<col_major, align = 4>>'}}
  %0 = shard.all_gather %s on @tp grid_axes = [0] gather_axis = 0 : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major, align = 4>>
  return
}

// -----

shard.grid @tp(shape = 4)
func.func @fp4(%q: tensor<?x64xf4E2M1FN>) {
  // expected-error @below {{'shard.all_gather' op breaks the collective contract: packed f4E2M1FN codes are not gathered (quantize after the collective, or gather the bf16 activation)}}
  %0 = shard.all_gather %q on @tp grid_axes = [0] gather_axis = 0 : tensor<?x64xf4E2M1FN> -> tensor<?x64xf4E2M1FN>
  return
}

// -----

shard.grid @tp(shape = 4)
func.func @gather_axis(%q: tensor<8x256xf8E4M3FN>) {
  // expected-error @below {{fp8q lowers shard.all_gather of rank-2 tensors along gather_axis = 0 (the rows)}}
  %0 = shard.all_gather %q on @tp grid_axes = [0] gather_axis = 1 : tensor<8x256xf8E4M3FN> -> tensor<8x1024xf8E4M3FN>
  return
}

// -----

shard.grid @tp2(shape = 2x4)
func.func @two_axes(%q: tensor<8x256xf8E4M3FN>) {
  // expected-error @below {{fp8q lowers collectives over exactly one grid axis (one communicator), got grid_axes = [0, 1]}}
  %0 = shard.all_gather %q on @tp2 grid_axes = [0, 1] gather_axis = 0 : tensor<8x256xf8E4M3FN> -> tensor<64x256xf8E4M3FN>
  return
}

// -----

shard.grid @dyn(shape = ?)
func.func @dynamic_grid(%q: tensor<8x256xf8E4M3FN>) {
  // expected-error @below {{grid axis 0 of grid @dyn must exist and have a static size}}
  %0 = shard.all_gather %q on @dyn grid_axes = [0] gather_axis = 0 : tensor<8x256xf8E4M3FN> -> tensor<?x256xf8E4M3FN>
  return
}

// -----

shard.grid @tp(shape = 4)
func.func @reduce_f32(%y: tensor<8x64xf32>) {
  // expected-error @below {{fp8q lowers shard.reduce_scatter of rank-2 bf16 tensors with reduction = sum along scatter_axis = 0 (the rows)}}
  %0 = shard.reduce_scatter %y on @tp grid_axes = [0] scatter_axis = 0 : tensor<8x64xf32> -> tensor<2x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)
func.func @reduce_max(%y: tensor<8x64xbf16>) {
  // expected-error @below {{fp8q lowers shard.reduce_scatter of rank-2 bf16 tensors with reduction = sum}}
  %0 = shard.reduce_scatter %y on @tp grid_axes = [0] reduction = max scatter_axis = 0 : tensor<8x64xbf16> -> tensor<2x64xbf16>
  return
}
