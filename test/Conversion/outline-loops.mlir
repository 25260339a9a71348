// RUN: fp8q-opt %s -split-input-file --fp8q-outline-loops="min-loops=1 chunk-nests=2" | FileCheck %s
// RUN: fp8q-opt %s -split-input-file --fp8q-outline-loops | FileCheck %s --check-prefix=SMALL

// A function with more than `min-loops` outermost scf.for / scf.if nests is
// cut into runs of at most `chunk-nests` nests, each moved into a private
// function: used values become arguments (constants are cloned in), values
// used later are returned.

// The first run: two loop nests, with the constants they use cloned in; %s
// is used by the return, so it is returned.
// CHECK-LABEL: func.func private @f_part0(
// CHECK-SAME: %{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>) -> f32 {
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for {{.*}} iter_args
// CHECK: return %{{.*}} : f32
// The second run: the conditional deallocation.
// CHECK-LABEL: func.func private @f_part1(
// CHECK-SAME: %{{.*}}: i1, %{{.*}}: memref<4xf32>) {
// CHECK: scf.if
// CHECK: memref.dealloc
// CHECK-LABEL: func.func @f(
// CHECK-SAME: %[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>, %[[C:.*]]: i1)
// CHECK-COUNT-4: arith.constant
// CHECK-NEXT: %[[S:.*]] = call @f_part0(%[[A]], %[[B]]) : (memref<4xf32>, memref<4xf32>) -> f32
// CHECK-NEXT: call @f_part1(%[[C]], %[[A]]) : (i1, memref<4xf32>) -> ()
// CHECK-NEXT: return %[[S]]

// Below the threshold nothing changes.
// SMALL-LABEL: func.func @f(
// SMALL-NOT: call
// SMALL: return
func.func @f(%a: memref<4xf32>, %b: memref<4xf32>, %c: i1) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %v = memref.load %a[%j] : memref<4xf32>
      memref.store %v, %b[%i] : memref<4xf32>
    }
  }
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %a[%i] : memref<4xf32>
    %n = arith.addf %acc, %v : f32
    scf.yield %n : f32
  }
  scf.if %c {
    memref.dealloc %a : memref<4xf32>
  }
  return %s : f32
}

// -----

// Stack allocations stay in their function: a run ends before them.
// CHECK-LABEL: func.func private @g_part0(
// CHECK-SAME: %{{.*}}: index, %{{.*}}: memref<4xf32>) {
// CHECK-LABEL: func.func private @g_part1(
// CHECK-SAME: %{{.*}}: index, %{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>) {
// CHECK-LABEL: func.func @g(
// CHECK-SAME: %[[A:.*]]: memref<4xf32>, %[[N:.*]]: index)
// CHECK: call @g_part0(%[[N]], %[[A]])
// CHECK-NEXT: %[[T:.*]] = memref.alloca() : memref<4xf32>
// CHECK-NEXT: call @g_part1(%[[N]], %[[T]], %[[A]])
func.func @g(%a: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %z = arith.constant 0.0 : f32
    memref.store %z, %a[%i] : memref<4xf32>
  }
  %t = memref.alloca() : memref<4xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %t[%i] : memref<4xf32>
    memref.store %v, %a[%i] : memref<4xf32>
  }
  return
}
