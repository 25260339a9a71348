// An entry whose argument is marked writable: bufferization writes the sum
// into it in place, which fp8q-run must refuse (see fp8q-run.test).
func.func @decode_step(%x: tensor<8x128xbf16> {bufferization.writable = true}) -> tensor<8x128xbf16> {
  %y = arith.addf %x, %x : tensor<8x128xbf16>
  return %y : tensor<8x128xbf16>
}
