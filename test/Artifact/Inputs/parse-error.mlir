module {
  func.func @decode_step(%x: tensor<4x128xbf16>) -> tensor<4x128xbf16> {
    %y = fp8q.quantize %x {group_size = 128} : tensor<4x128xbf16>
    return %x : tensor<4x128xbf16>
  }
}
