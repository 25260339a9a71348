// --fp8q-device-buffers: one stream argument per function, tensor data in
// device memory on that stream, the deallocation's bookkeeping left on the
// host, and one check per argument of a public step.
//
// RUN: fp8q-opt %s -split-input-file -verify-diagnostics --fp8q-device-buffers | FileCheck %s

// CHECK: module attributes {fp8q.target = {{.*}}, fp8q_device.gpu_targets = [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">]}
// CHECK: func.func private @fp8q_rt_device_check_arg(i64, i64, i32, !gpu.async.token) -> i32 attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[X:.*]]: memref<16x256xbf16>, %[[S:.*]]: memref<256x2xf32, strided<[1, 256]>>, %[[STREAM:.*]]: !gpu.async.token) -> memref<16x256xbf16> attributes {llvm.emit_c_interface}
// The argument checks come first: pointer, bytes spanned, position, stream.
// CHECK: %[[P0:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: %[[I0:.*]] = arith.index_cast %[[P0]] : index to i64
// CHECK: call @fp8q_rt_device_check_arg(%[[I0]], %{{.*}}, %c0_i32, %[[STREAM]])
// CHECK: call @fp8q_rt_device_check_arg(%{{.*}}, %{{.*}}, %c1_i32, %[[STREAM]])
// CHECK: %[[A:.*]], %{{.*}} = gpu.alloc async [%[[STREAM]]] () : memref<16x256xbf16>
// CHECK: gpu.memcpy async [%[[STREAM]]] %[[A]], %[[X]] : memref<16x256xbf16>, memref<16x256xbf16>
// CHECK: %[[B:.*]], %{{.*}} = gpu.alloc async [%[[STREAM]]] () : memref<256x2xf32>
// A strided copy is a kernel after mapping, not a memcpy.
// CHECK: linalg.copy ins(%[[S]] : memref<256x2xf32, strided<[1, 256]>>) outs(%[[B]] : memref<256x2xf32>)
// CHECK: %[[R:.*]] = call @helper(%[[A]], %[[STREAM]])
// Bookkeeping stays on the host.
// CHECK: memref.alloc() : memref<2xindex>
// CHECK: memref.dealloc %{{.*}} : memref<2xindex>
// CHECK: gpu.dealloc async [%[[STREAM]]] %[[B]] : memref<256x2xf32>
// CHECK: gpu.dealloc async [%[[STREAM]]] %[[A]] : memref<16x256xbf16>
// CHECK: return %[[R]]
// CHECK-LABEL: func.func private @helper(
// CHECK-SAME: %{{.*}}: memref<16x256xbf16>, %[[HS:.*]]: !gpu.async.token) -> memref<16x256xbf16> {
// CHECK-NOT: fp8q_rt_device_check_arg
// CHECK: gpu.alloc async [%[[HS]]]
module attributes {fp8q.target = #fp8q.target<arch = "sm90">} {
  func.func @step(%x: memref<16x256xbf16>, %s: memref<256x2xf32, strided<[1, 256]>>) -> memref<16x256xbf16> {
    %a = memref.alloc() : memref<16x256xbf16>
    memref.copy %x, %a : memref<16x256xbf16> to memref<16x256xbf16>
    %b = memref.alloc() : memref<256x2xf32>
    memref.copy %s, %b : memref<256x2xf32, strided<[1, 256]>> to memref<256x2xf32>
    %r = call @helper(%a) : (memref<16x256xbf16>) -> memref<16x256xbf16>
    %book = memref.alloc() : memref<2xindex>
    memref.dealloc %book : memref<2xindex>
    memref.dealloc %b : memref<256x2xf32>
    memref.dealloc %a : memref<16x256xbf16>
    return %r : memref<16x256xbf16>
  }
  func.func private @helper(%a: memref<16x256xbf16>) -> memref<16x256xbf16> {
    %o = memref.alloc() : memref<16x256xbf16>
    memref.copy %a, %o : memref<16x256xbf16> to memref<16x256xbf16>
    return %o : memref<16x256xbf16>
  }
}

// -----

// The span of an argument: (offset + sum((size - 1) * stride) + 1) * bytes,
// 0 when an extent is 0; a dynamic M reads its size from the descriptor.
// CHECK-LABEL: func.func @dynamic(
// CHECK: %{{.*}}, %{{.*}}, %[[SIZES:.*]]:2, %{{.*}}:2 = memref.extract_strided_metadata
// CHECK: arith.cmpi eq, %[[SIZES]]#0, %c0
// CHECK: arith.muli %{{.*}}, %c4
// CHECK: arith.select
// CHECK: call @fp8q_rt_device_check_arg
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
  func.func @dynamic(%s: memref<?x2xf32, strided<[1, ?]>>) {
    return
  }
}

// -----

// expected-error @+1 {{device execution needs a GPU: give the module an fp8q.target (e.g. #fp8q.target<arch = "sm90">) or the chip option}}
module {
  func.func @no_target() {
    return
  }
}

// -----

module attributes {fp8q.target = #fp8q.target<arch = "sm90">} {
  memref.global "private" constant @table : memref<2x2xf32> = dense<[[1.0, 2.0], [3.0, 4.0]]>
  func.func @constant() {
    // expected-error @+1 {{'memref.get_global' op reads constant @table, which has no device copy in device execution; pass the tensor as an argument of the step}}
    %t = memref.get_global @table : memref<2x2xf32>
    return
  }
}

// -----

module attributes {fp8q.target = #fp8q.target<arch = "sm90">} {
  func.func @stack() {
    // expected-error @+1 {{'memref.alloca' op puts tensor data on the host stack, which a device-mode step cannot address}}
    %a = memref.alloca() : memref<4xf32>
    return
  }
}
