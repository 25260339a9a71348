// RUN: fp8q-opt %s -split-input-file --fp8q-bufferize -verify-diagnostics

// A collective whose scale is typed in a layout other than row_major (which
// --fp8q-verify-contracts reports first in the pipeline) is refused at
// bufferization too: its buffer would not be whole rows of bytes.
shard.grid @tp(shape = 2)
func.func @col_major(%s: tensor<8x2xf32, #fp8q.layout<col_major>>) -> tensor<16x2xf32, #fp8q.layout<col_major>> {
  // expected-error @below {{a collective moves whole rows of a dense row-major buffer; 'tensor<8x2xf32, #fp8q.layout<col_major>>' is not one: materialize the scale row_major before the collective and into this layout after it}}
  // expected-error @below {{failed to bufferize op}}
  %0 = shard.all_gather %s on @tp grid_axes = [0] gather_axis = 0 : tensor<8x2xf32, #fp8q.layout<col_major>> -> tensor<16x2xf32, #fp8q.layout<col_major>>
  return %0 : tensor<16x2xf32, #fp8q.layout<col_major>>
}

// -----

shard.grid @tp(shape = 2)
func.func @gather_axis(%q: tensor<8x256xf8E4M3FN>) -> tensor<8x512xf8E4M3FN> {
  // expected-error @below {{fp8q lowers shard.all_gather of rank-2 tensors along gather_axis = 0 (the rows)}}
  // expected-error @below {{failed to bufferize op}}
  %0 = shard.all_gather %q on @tp grid_axes = [0] gather_axis = 1 : tensor<8x256xf8E4M3FN> -> tensor<8x512xf8E4M3FN>
  return %0 : tensor<8x512xf8E4M3FN>
}
