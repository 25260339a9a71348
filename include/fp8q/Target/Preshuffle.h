//===- Preshuffle.h - preshuffle_16x16 on buffers and constants -*- C++ -*-===//
//
// SPEC's preshuffle_16x16 weight permutation applied to byte buffers and to
// MLIR dense constants (compile-time preshuffle). The index math itself is
// fp8q/Runtime/fp8q_preshuffle.h, shared with the runtimes.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_TARGET_PRESHUFFLE_H
#define FP8Q_TARGET_PRESHUFFLE_H

#include "fp8q/Runtime/fp8q_preshuffle.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/ArrayRef.h"

namespace fp8q {

/// Permutes the row-major [n, k] weight in `src` (elements of `elemBytes`
/// bytes each) into preshuffle_16x16 order in `dst`. Both buffers hold
/// n * k * elemBytes bytes; requires fp8q_preshuffle_ok(n, k).
void preshuffleBuffer(llvm::ArrayRef<char> src, llvm::MutableArrayRef<char> dst,
                      int64_t n, int64_t k, size_t elemBytes = 1);

/// The inverse of preshuffleBuffer: preshuffled `src` back to row-major.
void unpreshuffleBuffer(llvm::ArrayRef<char> src,
                        llvm::MutableArrayRef<char> dst, int64_t n, int64_t k,
                        size_t elemBytes = 1);

/// `type` (a plain rank-2 weight type) with the preshuffle_16x16 encoding.
mlir::RankedTensorType getPreshuffledType(mlir::RankedTensorType type);

/// Returns true when `type` is a static rank-2 tensor with no encoding whose
/// shape preshuffle_16x16 can hold: N % 16 == 0 and K % 32 == 0, where for
/// f4E2M1FN weights (two per byte, shuffled byte-wise: SPEC v2) K counts
/// bytes, so K % 64 == 0.
bool canPreshuffle(mlir::RankedTensorType type);

/// The K divisor canPreshuffle needs for `type`'s element type (32, or 64
/// for f4E2M1FN), for messages.
int64_t getPreshuffleKMultiple(mlir::RankedTensorType type);
bool canPreshuffle(mlir::RankedTensorType type);

/// Preshuffles a dense weight constant at compile time. The result has type
/// getPreshuffledType(value's type) and lists its elements in stored
/// (preshuffled) order, so its raw bytes are exactly the preshuffled buffer.
/// Returns null when the constant cannot be preshuffled (see canPreshuffle,
/// or sub-byte elements).
mlir::DenseElementsAttr preshuffleConstant(mlir::DenseElementsAttr value);

} // namespace fp8q

#endif // FP8Q_TARGET_PRESHUFFLE_H
