//===- ScaleLayoutInterfaces.h - Ops that carry a scale layout --*- C++ -*-===//
//
// ScaleLayoutCarrierOpInterface (ScaleLayoutInterfaces.td) and the
// registration of its external models for upstream ops.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_INTERFACES_SCALELAYOUTINTERFACES_H
#define FP8Q_INTERFACES_SCALELAYOUTINTERFACES_H

#include "mlir/IR/OpDefinition.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

#include "fp8q/Interfaces/ScaleLayoutInterfaces.h.inc"

namespace fp8q {

/// Attaches ScaleLayoutCarrierOpInterface to tensor.cast,
/// tensor.extract_slice (whole rows) and tensor.concat (along dim 0).
/// Called by registerFp8qDialects, the one place fp8q registers them.
void registerScaleLayoutCarrierExternalModels(mlir::DialectRegistry &registry);

/// Whether `ctx` can see the models above: false when the tensor dialect is
/// loaded without them (a context set up without registerFp8qDialects).
/// ScaleLayoutAnalysis needs them; its users check this first.
bool hasScaleLayoutCarrierModels(mlir::MLIRContext *ctx);

} // namespace fp8q

#endif // FP8Q_INTERFACES_SCALELAYOUTINTERFACES_H
