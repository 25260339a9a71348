// RUN: fp8q-opt %s --fp8q-device-buffers=chip=gfx942 | FileCheck %s

// The chip option wins over fp8q.target (device-buffers.mlir: a module
// without either is refused).
// CHECK: fp8q_device.gpu_targets = [#rocdl.target<O = 3, chip = "gfx942">]
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
  func.func @f() {
    return
  }
}

