// mlir-runner picks the runtime from -shared-libs: the same lowered module
// calls the ABI's _mlir_ciface_fp8q_rt_materialize, which the CPU runtime
// executes and the HIP runtime, on a machine without an AMD GPU, refuses
// with "no HIP device" and exit status 1.
// REQUIRES: fp8q-hip-runtime-no-gpu

// RUN: mlir-opt %s --finalize-memref-to-llvm --convert-func-to-llvm \
// RUN:   --convert-arith-to-llvm --reconcile-unrealized-casts > %t.ll.mlir
// RUN: mlir-runner %t.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%fp8q_libs/libfp8q_runtime_cpu.so,%llvm_libs/libmlir_runner_utils.so \
// RUN:   | FileCheck %s --check-prefix=CPU
// RUN: not mlir-runner %t.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%fp8q_libs/libfp8q_runtime_hip.so,%llvm_libs/libmlir_runner_utils.so \
// RUN:   2>&1 | FileCheck %s --check-prefix=HIP

// The column-major destination holds the row-major source's values: the
// flat bytes are [1 4 2 5 3 6].
// CPU: [1,  4,  2,  5,  3,  6]

// HIP: fp8q runtime error (hip): fp8q_rt_materialize: no HIP device
// HIP-NOT: [1,  4,  2,  5,  3,  6]

func.func private @fp8q_rt_materialize(
    memref<?x?xf32, strided<[?, ?], offset: ?>>,
    memref<?x?xf32, strided<[?, ?], offset: ?>>) -> i32
    attributes {llvm.emit_c_interface}
func.func private @printMemrefF32(memref<*xf32>)
    attributes {llvm.emit_c_interface}

func.func @main() {
  %src = memref.alloc() : memref<2x3xf32>
  %flat = memref.alloc() : memref<6xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %v1 = arith.constant 1.0 : f32
  %v2 = arith.constant 2.0 : f32
  %v3 = arith.constant 3.0 : f32
  %v4 = arith.constant 4.0 : f32
  %v5 = arith.constant 5.0 : f32
  %v6 = arith.constant 6.0 : f32
  memref.store %v1, %src[%c0, %c0] : memref<2x3xf32>
  memref.store %v2, %src[%c0, %c1] : memref<2x3xf32>
  memref.store %v3, %src[%c0, %c2] : memref<2x3xf32>
  memref.store %v4, %src[%c1, %c0] : memref<2x3xf32>
  memref.store %v5, %src[%c1, %c1] : memref<2x3xf32>
  memref.store %v6, %src[%c1, %c2] : memref<2x3xf32>
  // dst: the same 6 floats viewed as a column-major [2, 3] scale.
  %dst = memref.reinterpret_cast %flat to offset: [0], sizes: [2, 3],
      strides: [1, 2] : memref<6xf32> to memref<2x3xf32, strided<[1, 2]>>
  %s = memref.cast %src
      : memref<2x3xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %d = memref.cast %dst : memref<2x3xf32, strided<[1, 2]>>
      to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %st = func.call @fp8q_rt_materialize(%s, %d)
      : (memref<?x?xf32, strided<[?, ?], offset: ?>>,
         memref<?x?xf32, strided<[?, ?], offset: ?>>) -> i32
  %u = memref.cast %flat : memref<6xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %src : memref<2x3xf32>
  memref.dealloc %flat : memref<6xf32>
  return
}
