//===- Diagnostics.h - Located diagnostics without IR dumps -----*- C++ -*-===//
//
// Operation::emitError / emitRemark attach a "see current operation" note
// that prints the op, and printing a nested op numbers its whole enclosing
// function: a module-level error printed the 1.5 MB module, and one remark
// per copy cost time quadratic in the function. fp8q's passes report at the
// op's location instead; the message names the op.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_SUPPORT_DIAGNOSTICS_H
#define FP8Q_SUPPORT_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"

namespace fp8q {

/// An error at `op`'s location worded as Operation::emitOpError words it
/// ("'fp8q.gemm' op ..."), without printing the op.
inline mlir::InFlightDiagnostic emitOpErrorAt(mlir::Operation *op) {
  return mlir::emitError(op->getLoc()) << "'" << op->getName() << "' op ";
}

/// An error at `op`'s location, without printing the op.
inline mlir::InFlightDiagnostic emitErrorAt(mlir::Operation *op) {
  return mlir::emitError(op->getLoc());
}

/// A remark at `op`'s location, without printing the op.
inline mlir::InFlightDiagnostic emitRemarkAt(mlir::Operation *op) {
  return mlir::emitRemark(op->getLoc());
}

} // namespace fp8q

#endif // FP8Q_SUPPORT_DIAGNOSTICS_H
