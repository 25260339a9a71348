// RUN: fp8q-opt %s -split-input-file -canonicalize -cse | FileCheck %s

// fp8q.materialize folding: identity, chains, and equal layouts.

// CHECK-LABEL: func.func @identity
// CHECK-SAME: (%[[S:.*]]: tensor<?x56xf32, #fp8q.layout<col_major>>)
// CHECK-NOT: fp8q.materialize
// CHECK: return %[[S]]
func.func @identity(%s: tensor<?x56xf32, #fp8q.layout<col_major>>) -> tensor<?x56xf32, #fp8q.layout<col_major>> {
  %c = fp8q.materialize %s : tensor<?x56xf32, #fp8q.layout<col_major>> -> tensor<?x56xf32, #fp8q.layout<col_major>>
  return %c : tensor<?x56xf32, #fp8q.layout<col_major>>
}

// -----

// A chain re-stores the source once.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[S:.*]]: tensor<?x56xf32>)
// CHECK-NEXT: %[[M:.*]] = fp8q.materialize %[[S]] : tensor<?x56xf32> -> tensor<?x56xf32, #fp8q.layout<col_major, align = 4>>
// CHECK-NEXT: return %[[M]]
func.func @chain(%s: tensor<?x56xf32>) -> tensor<?x56xf32, #fp8q.layout<col_major, align = 4>> {
  %c = fp8q.materialize %s : tensor<?x56xf32> -> tensor<?x56xf32, #fp8q.layout<col_major>>
  %d = fp8q.materialize %c : tensor<?x56xf32, #fp8q.layout<col_major>> -> tensor<?x56xf32, #fp8q.layout<col_major, align = 4>>
  return %d : tensor<?x56xf32, #fp8q.layout<col_major, align = 4>>
}

// -----

// A chain that comes back to the source layout is no copy at all.
// CHECK-LABEL: func.func @round_trip
// CHECK-SAME: (%[[S:.*]]: tensor<?x56xf32>)
// CHECK-NOT: fp8q.materialize
// CHECK: return %[[S]]
func.func @round_trip(%s: tensor<?x56xf32>) -> tensor<?x56xf32> {
  %c = fp8q.materialize %s : tensor<?x56xf32> -> tensor<?x56xf32, #fp8q.layout<col_major>>
  %d = fp8q.materialize %c : tensor<?x56xf32, #fp8q.layout<col_major>> -> tensor<?x56xf32>
  return %d : tensor<?x56xf32>
}

// -----

// Long chains collapse, whatever the intermediate layouts.
// CHECK-LABEL: func.func @long_chain
// CHECK-SAME: (%[[S:.*]]: tensor<8x56xf32>)
// CHECK-NEXT: %[[M:.*]] = fp8q.materialize %[[S]] : tensor<8x56xf32> -> tensor<8x56xf32, #fp8q.layout<col_major>>
// CHECK-NEXT: return %[[M]]
func.func @long_chain(%s: tensor<8x56xf32>) -> tensor<8x56xf32, #fp8q.layout<col_major>> {
  %a = fp8q.materialize %s : tensor<8x56xf32> -> tensor<8x56xf32, #fp8q.layout<col_major, align = 4>>
  %b = fp8q.materialize %a : tensor<8x56xf32, #fp8q.layout<col_major, align = 4>> -> tensor<8x56xf32, #fp8q.layout<row_major>>
  %c = fp8q.materialize %b : tensor<8x56xf32, #fp8q.layout<row_major>> -> tensor<8x56xf32, #fp8q.layout<col_major>>
  return %c : tensor<8x56xf32, #fp8q.layout<col_major>>
}

// -----

// Each consumer's chain folds on its own; the shared first copy goes dead.
// CHECK-LABEL: func.func @fan_out
// CHECK-SAME: (%[[S:.*]]: tensor<?x56xf32>)
// CHECK-DAG: fp8q.materialize %[[S]] : tensor<?x56xf32> -> tensor<?x56xf32, #fp8q.layout<col_major, align = 4>>
// CHECK-DAG: fp8q.materialize %[[S]] : tensor<?x56xf32> -> tensor<?x56xf32, #fp8q.layout<col_major, align = 8>>
// CHECK-NOT: #fp8q.layout<col_major>>
func.func @fan_out(%s: tensor<?x56xf32>) -> (tensor<?x56xf32, #fp8q.layout<col_major, align = 4>>, tensor<?x56xf32, #fp8q.layout<col_major, align = 8>>) {
  %c = fp8q.materialize %s : tensor<?x56xf32> -> tensor<?x56xf32, #fp8q.layout<col_major>>
  %d = fp8q.materialize %c : tensor<?x56xf32, #fp8q.layout<col_major>> -> tensor<?x56xf32, #fp8q.layout<col_major, align = 4>>
  %e = fp8q.materialize %c : tensor<?x56xf32, #fp8q.layout<col_major>> -> tensor<?x56xf32, #fp8q.layout<col_major, align = 8>>
  return %d, %e : tensor<?x56xf32, #fp8q.layout<col_major, align = 4>>, tensor<?x56xf32, #fp8q.layout<col_major, align = 8>>
}

// -----

// Equal layouts (M == 1): a chain through an equal layout folds to the source;
// a single materialize between equal layouts stays as a type change only
// (isNoCopy: lowering makes no copy), and CSE shares it.
// CHECK-LABEL: func.func @equal_m1
// CHECK-SAME: (%[[S:.*]]: tensor<1x56xf32>)
// CHECK-NEXT: %[[M:.*]] = fp8q.materialize %[[S]] : tensor<1x56xf32> -> tensor<1x56xf32, #fp8q.layout<col_major>>
// CHECK-NEXT: return %[[S]], %[[M]], %[[M]]
func.func @equal_m1(%s: tensor<1x56xf32>) -> (tensor<1x56xf32>, tensor<1x56xf32, #fp8q.layout<col_major>>, tensor<1x56xf32, #fp8q.layout<col_major>>) {
  %c = fp8q.materialize %s : tensor<1x56xf32> -> tensor<1x56xf32, #fp8q.layout<col_major>>
  %r = fp8q.materialize %c : tensor<1x56xf32, #fp8q.layout<col_major>> -> tensor<1x56xf32>
  %c2 = fp8q.materialize %s : tensor<1x56xf32> -> tensor<1x56xf32, #fp8q.layout<col_major>>
  return %r, %c, %c2 : tensor<1x56xf32>, tensor<1x56xf32, #fp8q.layout<col_major>>, tensor<1x56xf32, #fp8q.layout<col_major>>
}

// -----

// Unused materializations are pure and disappear.
// CHECK-LABEL: func.func @dead
// CHECK-NOT: fp8q.materialize
func.func @dead(%s: tensor<?x1xf32>) {
  %c = fp8q.materialize %s : tensor<?x1xf32> -> tensor<?x1xf32, #fp8q.layout<col_major>>
  %d = fp8q.materialize %s : tensor<?x1xf32> -> tensor<?x1xf32, #fp8q.layout<col_major, align = 4>>
  return
}
