// fp8q.preshuffle of a constant folds (PreshuffleOp::fold, materialized as
// arith.constant by the fp8q dialect) wherever MLIR folds, e.g. in
// --canonicalize; folding again changes nothing.
// RUN: fp8q-opt %s --canonicalize | FileCheck %s
// RUN: fp8q-opt %s --canonicalize | fp8q-opt --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @fold_splat(
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<1.000000e+00> : tensor<16x32xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
// CHECK-NEXT: return %[[C]]
func.func @fold_splat() -> tensor<16x32xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>> {
  %w = arith.constant dense<1.0> : tensor<16x32xf8E4M3FN>
  %p = fp8q.preshuffle %w : tensor<16x32xf8E4M3FN> -> tensor<16x32xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
  return %p : tensor<16x32xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
}

// Row n of the weight is the byte n + 1 (E4M3FN 0x01..0x10); preshuffled,
// each 16x16 tile lists k fastest within a row, so rows stay 16-byte runs
// and the two 16-wide k halves of each row come 256 bytes apart.
// CHECK-LABEL: func.func @fold_dense(
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<"0x010101010101010101010101010101010202020202020202020202020202020203030303030303030303030303030303
// CHECK-SAME: : tensor<16x32xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
// CHECK-NEXT: return %[[C]]
func.func @fold_dense() -> tensor<16x32xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>> {
  %w = arith.constant dense<"0x0101010101010101010101010101010101010101010101010101010101010101020202020202020202020202020202020202020202020202020202020202020203030303030303030303030303030303030303030303030303030303030303030404040404040404040404040404040404040404040404040404040404040404050505050505050505050505050505050505050505050505050505050505050506060606060606060606060606060606060606060606060606060606060606060707070707070707070707070707070707070707070707070707070707070707080808080808080808080808080808080808080808080808080808080808080809090909090909090909090909090909090909090909090909090909090909090A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0C0C0C0C0C0C0C0C0C0C0C0C0C0C0C0C0C0C0C0C0C0C0C0C0C0C0C0C0C0C0C0C0D0D0D0D0D0D0D0D0D0D0D0D0D0D0D0D0D0D0D0D0D0D0D0D0D0D0D0D0D0D0D0D0E0E0E0E0E0E0E0E0E0E0E0E0E0E0E0E0E0E0E0E0E0E0E0E0E0E0E0E0E0E0E0E0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F1010101010101010101010101010101010101010101010101010101010101010"> : tensor<16x32xf8E4M3FN>
  %p = fp8q.preshuffle %w : tensor<16x32xf8E4M3FN> -> tensor<16x32xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
  return %p : tensor<16x32xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
}

// A non-constant operand does not fold.
// CHECK-LABEL: func.func @no_fold(
// CHECK: fp8q.preshuffle %arg0
func.func @no_fold(%w: tensor<16x32xf8E4M3FN>) -> tensor<16x32xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>> {
  %p = fp8q.preshuffle %w : tensor<16x32xf8E4M3FN> -> tensor<16x32xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
  return %p : tensor<16x32xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
}
