// --fp8q-device-launches: every launch on the step's stream, identical
// kernels merged, targets attached, and no tensor data touched on the host.
//
// RUN: fp8q-opt %s -split-input-file -verify-diagnostics --fp8q-device-launches | FileCheck %s

// CHECK-NOT: fp8q_device.gpu_targets
// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[A:.*]]: memref<256xf32>, %[[STREAM:.*]]: !gpu.async.token)
// Both launches use the one kernel that is left.
// CHECK: gpu.launch_func async [%[[STREAM]]] @k0::@k0 blocks
// CHECK: gpu.launch_func async [%[[STREAM]]] @k0::@k0 blocks
// CHECK: gpu.module @k0 [#nvvm.target<chip = "sm_90">]
// CHECK-NOT: gpu.module @k1
module attributes {gpu.container_module, fp8q_device.gpu_targets = [#nvvm.target<chip = "sm_90">]} {
  func.func @step(%a: memref<256xf32>, %s: !gpu.async.token) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    gpu.launch_func @k0::@k0 blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%a : memref<256xf32>)
    gpu.launch_func @k1::@k1 blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%a : memref<256xf32>)
    return
  }
  gpu.module @k0 {
    gpu.func @k0(%a: memref<256xf32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %a[%t] : memref<256xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %a[%t] : memref<256xf32>
      gpu.return
    }
  }
  gpu.module @k1 {
    gpu.func @k1(%a: memref<256xf32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %a[%t] : memref<256xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %a[%t] : memref<256xf32>
      gpu.return
    }
  }
}

// -----

// Kernels that differ stay apart.
// CHECK-LABEL: func.func @two
// CHECK: @k0::@k0
// CHECK: @k1::@k1
// CHECK: gpu.module @k0
// CHECK: gpu.module @k1
module attributes {gpu.container_module} {
  func.func @two(%a: memref<256xf32>, %s: !gpu.async.token) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k0::@k0 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<256xf32>)
    gpu.launch_func @k1::@k1 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<256xf32>)
    return
  }
  gpu.module @k0 {
    gpu.func @k0(%a: memref<256xf32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %a[%t] : memref<256xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %a[%t] : memref<256xf32>
      gpu.return
    }
  }
  gpu.module @k1 {
    gpu.func @k1(%a: memref<256xf32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %a[%t] : memref<256xf32>
      %w = arith.mulf %v, %v : f32
      memref.store %w, %a[%t] : memref<256xf32>
      gpu.return
    }
  }
}

// -----

// Bookkeeping on the host is allowed; tensor data is not.
module attributes {gpu.container_module} {
  func.func @host_loop(%a: memref<4xf32>, %flags: memref<4xi1>, %s: !gpu.async.token) {
    %c0 = arith.constant 0 : index
    %f = memref.load %flags[%c0] : memref<4xi1>
    // expected-error @+1 {{'memref.load' op touches tensor data on the host in device execution; only GPU kernels and runtime calls may (is it an op the GPU mapping does not handle?)}}
    %v = memref.load %a[%c0] : memref<4xf32>
    return
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @no_stream(%a: memref<256xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'gpu.launch_func' op has no stream: run --fp8q-device-buffers first}}
    gpu.launch_func @k0::@k0 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<256xf32>)
    return
  }
  gpu.module @k0 {
    gpu.func @k0(%a: memref<256xf32>) kernel {
      gpu.return
    }
  }
}
