// A step that says it takes argument #0 prepared, with no function that
// prepares it.
module {
  func.func @decode_step(%w: tensor<256x256xf8E4M3FN>) -> tensor<256x256xf8E4M3FN> attributes {fp8q.prepared_args = array<i64: 0>} {
    return %w : tensor<256x256xf8E4M3FN>
  }
}
