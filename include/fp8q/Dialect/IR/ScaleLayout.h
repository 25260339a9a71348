//===- ScaleLayout.h - Scale layout queries ---------------------*- C++ -*-===//
//
// Layout queries on scale tensor types: which layout a type has, the strides
// it addresses, and whether two layouts address the same bytes.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_DIALECT_IR_SCALELAYOUT_H
#define FP8Q_DIALECT_IR_SCALELAYOUT_H

#include "fp8q/Dialect/IR/Fp8qDialect.h"
#include "llvm/ADT/SmallVector.h"

namespace fp8q {

/// Returns true when `type` is a rank-2 f32 tensor, i.e. can hold a scale.
bool isScaleTensorType(mlir::Type type);

/// Returns the layout of a scale tensor type; no encoding means row-major.
LayoutAttr getScaleLayout(mlir::RankedTensorType type);

/// Returns `type` with its scale layout replaced by `layout`. Row-major is
/// spelled as no encoding, its canonical form.
mlir::RankedTensorType withScaleLayout(mlir::RankedTensorType type,
                                       LayoutAttr layout);

/// Strides (in elements) that `layout` gives a scale of `shape` [M, G];
/// entries that depend on a dynamic M are ShapedType::kDynamic.
llvm::SmallVector<int64_t, 2> getScaleStrides(LayoutAttr layout,
                                              llvm::ArrayRef<int64_t> shape);

/// Returns true when `a` and `b` address the same bytes for every element of
/// a scale of `shape`: their strides agree on every dimension whose extent
/// may exceed 1. With M == 1 or G == 1, row_major equals col_major; with M a
/// static multiple of a, col_major equals col_major align = a.
bool areEquivalentLayouts(LayoutAttr a, LayoutAttr b,
                          llvm::ArrayRef<int64_t> shape);

/// Returns true when two scale tensor types have equal shapes and element
/// types and their layouts address the same bytes.
bool areEquivalentScaleTypes(mlir::RankedTensorType a,
                             mlir::RankedTensorType b);

/// Returns true when `type` is an FP8 element type fp8q accepts.
bool isFp8Type(mlir::Type type);

/// Largest finite value of an fp8q FP8 element type (448 or 240).
float getFp8Max(mlir::Type fp8Type);

} // namespace fp8q

#endif // FP8Q_DIALECT_IR_SCALELAYOUT_H
