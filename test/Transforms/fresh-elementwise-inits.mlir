// RUN: fp8q-opt %s -split-input-file -fp8q-fresh-elementwise-inits | FileCheck %s
// RUN: fp8q-opt %s -split-input-file -fp8q-fresh-elementwise-inits -fp8q-fresh-elementwise-inits | FileCheck %s
// RUN: fp8q-opt %s -split-input-file -fp8q-fresh-elementwise-inits="max-in-place-chain=2" | FileCheck %s --check-prefix=CHAIN2
// RUN: fp8q-opt %s -split-input-file -fp8q-fresh-elementwise-inits="max-in-place-chain=0" -fp8q-fresh-elementwise-inits="max-in-place-chain=0" | FileCheck %s --check-prefix=CHAIN0

// Running the pass twice (second RUN line) gives the same IR: an init it
// made fresh is kept, and the chains it counts start there.

#map = affine_map<(d0) -> (d0)>

// A dead, non-constant init is written in place.
// CHECK-LABEL: func.func @dead_init_kept
// CHECK-SAME: (%[[A:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK-NOT: alloc_tensor
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<8xf32>, tensor<8xf32>) outs(%[[A]] : tensor<8xf32>)
// CHAIN0-LABEL: func.func @dead_init_kept
// CHAIN0: %[[FRESH:.*]] = bufferization.alloc_tensor() : tensor<8xf32>
// CHAIN0-NOT: alloc_tensor
// CHAIN0: linalg.generic {{.*}} outs(%[[FRESH]] : tensor<8xf32>)
func.func @dead_init_kept(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %0 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%a : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

#map = affine_map<(d0) -> (d0)>

// An init read again after the generic would force a copy: fresh buffer.
// CHECK-LABEL: func.func @init_used_after
// CHECK-SAME: (%[[A:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[FRESH:.*]] = bufferization.alloc_tensor() : tensor<8xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<8xf32>, tensor<8xf32>) outs(%[[FRESH]] : tensor<8xf32>)
// CHECK: return %[[R]], %[[A]]
func.func @init_used_after(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%a : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %0, %a : tensor<8xf32>, tensor<8xf32>
}

// -----

#map = affine_map<(d0) -> (d0)>

// A constant init (the folded splat of convert-elementwise-to-linalg) is
// never written in place: that would always copy the constant first.
// CHECK-LABEL: func.func @constant_init
// CHECK: %[[FRESH:.*]] = bufferization.alloc_tensor() : tensor<8xf32>
// CHECK: linalg.generic {{.*}} outs(%[[FRESH]] : tensor<8xf32>)
func.func @constant_init(%a: tensor<8xf32>) -> tensor<8xf32> {
  %one = arith.constant dense<1.0> : tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %one : tensor<8xf32>, tensor<8xf32>) outs(%one : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

#map = affine_map<(d0) -> (d0)>

// A chain of in-place writes (the residual stream) gets a fresh buffer
// every max-in-place-chain links; with the default (16) this one is kept.
// CHECK-LABEL: func.func @residual_chain
// CHECK-NOT: alloc_tensor
// CHAIN2-LABEL: func.func @residual_chain
// CHAIN2-SAME: (%[[A:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHAIN2: %[[R0:.*]] = linalg.generic {{.*}} outs(%[[A]] : tensor<8xf32>)
// CHAIN2: %[[R1:.*]] = linalg.generic {{.*}} outs(%[[R0]] : tensor<8xf32>)
// CHAIN2: %[[FRESH:.*]] = bufferization.alloc_tensor() : tensor<8xf32>
// CHAIN2: %[[R2:.*]] = linalg.generic {{.*}} outs(%[[FRESH]] : tensor<8xf32>)
// CHAIN2: %[[R3:.*]] = linalg.generic {{.*}} outs(%[[R2]] : tensor<8xf32>)
// CHAIN2-NOT: alloc_tensor
// CHAIN2: return %[[R3]]
func.func @residual_chain(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %0 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%a : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%0, %b : tensor<8xf32>, tensor<8xf32>) outs(%0 : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%1, %b : tensor<8xf32>, tensor<8xf32>) outs(%1 : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %3 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%2, %b : tensor<8xf32>, tensor<8xf32>) outs(%2 : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %3 : tensor<8xf32>
}

// -----

#map = affine_map<(d0) -> (d0)>

// A payload that reads its init (an accumulation) keeps it, even though
// the init is used afterwards.
// CHECK-LABEL: func.func @payload_reads_init
// CHECK-NOT: alloc_tensor
// CHECK: return
// CHAIN0-LABEL: func.func @payload_reads_init
// CHAIN0-NOT: alloc_tensor
// CHAIN0: return
func.func @payload_reads_init(%a: tensor<8xf32>, %acc: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%acc : tensor<8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %s = arith.addf %x, %out : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %0, %acc : tensor<8xf32>, tensor<8xf32>
}

// -----

#map = affine_map<(d0) -> (d0)>
#sum = affine_map<(d0) -> ()>

// A reduction is not elementwise: left alone.
// CHECK-LABEL: func.func @reduction
// CHECK-NOT: alloc_tensor
// CHECK: return
// CHAIN0-LABEL: func.func @reduction
// CHAIN0-NOT: alloc_tensor
// CHAIN0: return
func.func @reduction(%a: tensor<8xf32>, %init: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %0 = linalg.generic {indexing_maps = [#map, #sum], iterator_types = ["reduction"]}
      ins(%a : tensor<8xf32>) outs(%init : tensor<f32>) {
  ^bb0(%x: f32, %out: f32):
    linalg.yield %x : f32
  } -> tensor<f32>
  return %0, %init : tensor<f32>, tensor<f32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>

// Dynamic sizes come from the old init.
// CHECK-LABEL: func.func @dynamic_shape
// CHECK-SAME: (%[[A:.*]]: tensor<?x128xbf16>)
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[M:.*]] = tensor.dim %[[A]], %[[C0]] : tensor<?x128xbf16>
// CHECK: %[[FRESH:.*]] = bufferization.alloc_tensor(%[[M]]) : tensor<?x128xbf16>
// CHECK: linalg.generic {{.*}} outs(%[[FRESH]] : tensor<?x128xbf16>)
func.func @dynamic_shape(%a: tensor<?x128xbf16>) -> (tensor<?x128xbf16>, tensor<?x128xbf16>) {
  %0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<?x128xbf16>) outs(%a : tensor<?x128xbf16>) {
  ^bb0(%x: bf16, %out: bf16):
    %n = arith.negf %x : bf16
    linalg.yield %n : bf16
  } -> tensor<?x128xbf16>
  return %0, %a : tensor<?x128xbf16>, tensor<?x128xbf16>
}

// -----

#map = affine_map<(d0) -> (d0)>

// A use in a nested region counts as a later use.
// CHECK-LABEL: func.func @used_in_region
// CHECK: %[[FRESH:.*]] = bufferization.alloc_tensor() : tensor<8xf32>
// CHECK: linalg.generic {{.*}} outs(%[[FRESH]] : tensor<8xf32>)
// CHECK: scf.if
func.func @used_in_region(%a: tensor<8xf32>, %c: i1) -> tensor<8xf32> {
  %0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%a : tensor<8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<8xf32>
  %1 = scf.if %c -> tensor<8xf32> {
    scf.yield %a : tensor<8xf32>
  } else {
    scf.yield %0 : tensor<8xf32>
  }
  return %1 : tensor<8xf32>
}
