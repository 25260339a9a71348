module {
  func.func private @helper(%x: tensor<4x128xbf16>) -> tensor<4x128xbf16> {
    return %x : tensor<4x128xbf16>
  }
}
