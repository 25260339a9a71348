//===- DeviceExecution.h - Shared rules of device execution -----*- C++ -*-===//
//
// What --fp8q-device-buffers, --fp8q-lower-to-runtime{device=true} and
// --fp8q-device-launches agree on (docs/DeviceExecution.md).
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_CONVERSION_DEVICEEXECUTION_H
#define FP8Q_CONVERSION_DEVICEEXECUTION_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

namespace fp8q {

/// Name of the module attribute in which --fp8q-device-buffers leaves the
/// GPU targets for --fp8q-device-launches (not an fp8q dialect attribute,
/// so --fp8q-lower-to-runtime keeps it).
llvm::StringRef getDeviceTargetsAttrName();

/// The runtime entry point that checks one argument of a device-mode step.
llvm::StringRef getDeviceCheckArgName();

/// True for buffers the deallocation keeps on the host: its bookkeeping of
/// pointers (index) and ownership flags (i1), never tensor data.
bool isHostBookkeeping(mlir::MemRefType type);

/// The stream of the function around `op`: its trailing !gpu.async.token
/// argument, or null.
mlir::Value getStepStream(mlir::Operation *op);

} // namespace fp8q

#endif // FP8Q_CONVERSION_DEVICEEXECUTION_H
