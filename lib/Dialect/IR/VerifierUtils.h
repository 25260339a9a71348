//===- VerifierUtils.h - Shared helpers of the fp8q verifiers ---*- C++ -*-===//
//
// Shape checks and their messages, shared by the tensor ops (Fp8qOps.cpp)
// and the buffer ops (Fp8qBufferOps.cpp) so both word errors the same way.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_LIB_DIALECT_IR_VERIFIERUTILS_H
#define FP8Q_LIB_DIALECT_IR_VERIFIERUTILS_H

#include "fp8q/Dialect/IR/ScaleLayout.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

#include <string>

namespace fp8q::detail {

/// Renders a shape as "?x56" for diagnostics.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// Checks that `value` (a shaped value) has a shape compatible with
/// `expected`: equal rank, and equal extents where both are static.
llvm::LogicalResult verifyShape(mlir::Operation *op, llvm::StringRef name,
                                mlir::Value value,
                                llvm::ArrayRef<int64_t> expected);

/// A gemm's global_scale (tensor or buffer form): the product of the
/// activation and weight global scales, NVFP4's only, so rejected for every
/// other format; with `requireForNvfp4` an NVFP4 gemm without it is
/// rejected too (fp8q.buffer.gemm; fp8q.gemm's missing one is rejected by
/// bufferization, so that passes over tensor IR written before the operand
/// existed keep verifying).
llvm::LogicalResult verifyGemmGlobalScale(mlir::Operation *op,
                                          BlockFormat format,
                                          bool hasGlobalScale,
                                          bool requireForNvfp4);

/// The message of an NVFP4 gemm without its global_scale.
llvm::StringRef getMissingGemmGlobalScaleMessage();

} // namespace fp8q::detail

#endif // FP8Q_LIB_DIALECT_IR_VERIFIERUTILS_H
