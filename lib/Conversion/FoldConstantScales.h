//===- FoldConstantScales.h - Constant scales at compile time --*- C++ -*-===//

#ifndef FP8Q_LIB_CONVERSION_FOLDCONSTANTSCALES_H
#define FP8Q_LIB_CONVERSION_FOLDCONSTANTSCALES_H

#include "mlir/IR/BuiltinOps.h"

namespace fp8q {

/// Replaces each `fp8q.materialize` of a constant scale, read only by
/// gemms, with the constant's bytes in the result layout (a private
/// memref.global, viewed in the layout through bufferization.to_tensor).
/// Runs right before One-Shot Bufferize; returns the number folded.
unsigned foldConstantScaleLayouts(mlir::ModuleOp module);

} // namespace fp8q

#endif // FP8Q_LIB_CONVERSION_FOLDCONSTANTSCALES_H
