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

#include <optional>
#include <string>

namespace fp8q {

/// Returns true when `type` can hold a scale: a rank-2 tensor of f32 or of
/// SPEC v2's 1-byte scale types (f8E8M0FNU, f8E4M3FN) with no encoding or a
/// #fp8q.layout (the scales layout propagation models).
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
/// a scale of `shape`. Two strided layouts (row_major, col_major [align])
/// are equal when their strides agree on every dimension whose extent may
/// exceed 1 (a strided memref views its buffer, so no allocation is
/// compared): with M == 1 or G == 1, row_major equals col_major; with M a
/// static multiple of a, col_major equals col_major align = a. When either
/// is one of SPEC v2's padded layouts (pack = 4, swizzle_32_4_4, cdna4_mx)
/// they are equal when every (m, g) of the static shape has the same offset
/// and the allocations are equal, both from fp8q_scale_layouts.h; with a
/// dynamic M only when the attributes (the formulas) are identical. The one
/// function folding, propagation and the contract checks compare with.
bool areEquivalentLayouts(LayoutAttr a, LayoutAttr b,
                          llvm::ArrayRef<int64_t> shape);

/// Elements (bytes for 1-byte scales) a scale of static `shape` allocates in
/// `layout`, padding included (fp8q_scale_layout_alloc); std::nullopt with a
/// dynamic M.
std::optional<int64_t> getScaleAllocation(LayoutAttr layout,
                                          llvm::ArrayRef<int64_t> shape);

/// True for the 1-byte scale element types (f8E8M0FNU, f8E4M3FN) that SPEC
/// v2's padded layouts are defined on.
bool isByteScaleType(mlir::Type type);

/// SPEC v2's block-scaled formats, chosen by (q, scale) element types and
/// the group size; the format decides the group, the rounding rules and
/// whether a global scale exists.
enum class BlockFormat {
  Fp8Block,     ///< FP8 1x128: fp8 q, f32 scale, exact or pow2_ceil
  Fp8BlockE8M0, ///< FP8 1x128 with e8m0 scales (DeepGEMM UE8M0), group 128
  MxFp8,        ///< OCP MXFP8: f8E4M3FN / f8E5M2 q, e8m0 scale, group 32
  MxFp4,        ///< OCP MXFP4: f4E2M1FN q, e8m0 scale, group 32
  NvFp4,        ///< NVFP4: f4E2M1FN q, f8E4M3FN scale, group 16, global
};

/// The format of a (q element, scale element, group size) triple, or
/// std::nullopt when SPEC v2's format table has no such row; `why` then
/// says what to change.
std::optional<BlockFormat> getBlockFormat(mlir::Type qElement,
                                          mlir::Type scaleElement,
                                          int64_t groupSize, std::string *why);

/// The format of a gemm's x side (q, x_scale, the group K / G read from
/// x_scale's shape); the verifier has made the w side agree.
std::optional<BlockFormat> getGemmFormat(GemmOp gemm);

/// SPEC name of a format ("MXFP8", ...), for messages.
llvm::StringRef getBlockFormatName(BlockFormat format);

/// The rounding rule a quantize of `format` uses without `scale_rounding`.
ScaleRounding getDefaultScaleRounding(BlockFormat format);

/// True when SPEC v2's format table allows `rounding` for `format`.
bool isScaleRoundingAllowed(BlockFormat format, ScaleRounding rounding);

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
