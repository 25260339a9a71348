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
/// Called by registerFp8qDialects.
void registerScaleLayoutCarrierExternalModels(mlir::DialectRegistry &registry);

/// Attaches the models above to `ctx` when the tensor dialect is loaded
/// without them (a context set up without registerFp8qDialects, as the C++
/// entry point propagateScaleLayouts may be given). Not thread-safe: call
/// it before any multi-threaded pass execution.
void ensureScaleLayoutCarrierExternalModels(mlir::MLIRContext *ctx);

} // namespace fp8q

#endif // FP8Q_INTERFACES_SCALELAYOUTINTERFACES_H
