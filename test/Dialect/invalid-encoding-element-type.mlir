// RUN: fp8q-opt %s -split-input-file -verify-diagnostics

// Regression (found by fp8q-fuzz): the tensor type parser verifies an
// encoding before it notices that the element type failed to parse; the
// encodings' verifiers read the null element type (UBSan: member call on
// null pointer). Only the parse error is reported.

// expected-error@+1 {{expected non-function type}}
func.func @weight(%w: tensor<128x256x, #fp8q.weight_layout<preshuffle_16x16>>) {
  return
}

// -----

// expected-error@+1 {{expected non-function type}}
func.func @scale(%s: tensor<16x56x, #fp8q.layout<col_major>>) {
  return
}
