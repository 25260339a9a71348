// --fp8q-lower-strided-clones: clones of column-major scales (which
// upstream convert-bufferization-to-memref cannot lower) become a buffer
// spanning the source, viewed with its strides, and a copy.
//
// RUN: fp8q-opt %s -split-input-file --fp8q-lower-strided-clones | FileCheck %s
// RUN: fp8q-opt %s -split-input-file --fp8q-lower-strided-clones --convert-bufferization-to-memref | FileCheck %s --check-prefix=LEGAL
// RUN: fp8q-opt %s -split-input-file --fp8q-lower-strided-clones --fp8q-lower-strided-clones | FileCheck %s

// LEGAL-NOT: bufferization.clone

// Dynamic M: the span is (M - 1) + (G - 1) * ld + 1, or 0 for M = 0.
// CHECK-LABEL: func.func @dynamic_col_major(
// CHECK-SAME: %[[S:.*]]: memref<?x2xf32, strided<[1, ?]>>
// CHECK: %[[BASE:.*]], %[[OFF:.*]], %[[SIZES:.*]]:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[S]]
// CHECK: %[[SPAN:.*]] = arith.addi %{{.*}}, %c0
// CHECK: %[[FLAT:.*]] = memref.alloc(%[[SPAN]]) {alignment = 64 : i64} : memref<?xf32>
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[FLAT]] to offset: [0], sizes: [%[[SIZES]]#0, 2], strides: [1, %[[STRIDES]]#1]
// CHECK: linalg.copy ins(%[[S]] : {{.*}}) outs(%[[VIEW]] : {{.*}})
// CHECK-NOT: bufferization.clone
// CHECK: return %[[VIEW]] : memref<?x2xf32, strided<[1, ?]>>
func.func @dynamic_col_major(%s: memref<?x2xf32, strided<[1, ?]>>) -> memref<?x2xf32, strided<[1, ?]>> {
  %0 = bufferization.clone %s : memref<?x2xf32, strided<[1, ?]>> to memref<?x2xf32, strided<[1, ?]>>
  return %0 : memref<?x2xf32, strided<[1, ?]>>
}

// -----

// Static, padded column-major (align 4): the static strides are kept.
// CHECK-LABEL: func.func @static_aligned(
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [6, 2], strides: [1, 8] : memref<?xf32> to memref<6x2xf32, strided<[1, 8]>>
// CHECK: linalg.copy
func.func @static_aligned(%s: memref<6x2xf32, strided<[1, 8]>>) -> memref<6x2xf32, strided<[1, 8]>> {
  %0 = bufferization.clone %s : memref<6x2xf32, strided<[1, 8]>> to memref<6x2xf32, strided<[1, 8]>>
  return %0 : memref<6x2xf32, strided<[1, 8]>>
}

// -----

// Identity layouts are left to upstream.
// CHECK-LABEL: func.func @identity(
// CHECK: bufferization.clone
// CHECK-NOT: linalg.copy
// LEGAL-LABEL: func.func @identity(
// LEGAL: memref.alloc() : memref<16x2xf32>
// LEGAL: memref.copy
func.func @identity(%s: memref<16x2xf32>) -> memref<16x2xf32> {
  %0 = bufferization.clone %s : memref<16x2xf32> to memref<16x2xf32>
  return %0 : memref<16x2xf32>
}
