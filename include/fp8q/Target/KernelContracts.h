//===- KernelContracts.h - Kernel contracts for the compiler ----*- C++ -*-===//
//
// The compiler's view of the kernel-contract table in
// fp8q/Runtime/fp8q_contracts.h: what layout, weight layout, fp8 type and
// target each GEMM kernel family needs. Passes and verifiers ask here;
// nothing else hard-codes a contract.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_TARGET_KERNELCONTRACTS_H
#define FP8Q_TARGET_KERNELCONTRACTS_H

#include "fp8q/Dialect/IR/Fp8qDialect.h"
#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Runtime/fp8q_contracts.h"

#include <string>

namespace fp8q {

/// The GEMM operands a contract constrains.
enum class GemmOperand { XScale, Weight };

/// Returns the table row of `kernel`.
const fp8q_kernel_contract &getKernelContract(Kernel kernel);

/// Returns the x_scale layout `kernel` reads, or a null attribute when the
/// kernel honours any strides.
LayoutAttr getRequiredScaleLayout(Kernel kernel, mlir::MLIRContext *ctx);

/// Does a scale of `shape` stored in `layout` satisfy the x_scale operand of
/// `kernel`? Layouts are compared by the bytes they address.
bool scaleLayoutSatisfies(Kernel kernel, LayoutAttr layout,
                          llvm::ArrayRef<int64_t> shape);

/// Does a weight whose tensor encoding is `encoding` (null: plain [N, K])
/// satisfy the weight operand of `kernel`?
bool weightLayoutSatisfies(Kernel kernel, mlir::Attribute encoding);

/// Human-readable requirement of `operand` of `kernel`, e.g.
/// "col_major (strides (1, M))".
std::string describeRequirement(Kernel kernel, GemmOperand operand);

/// Does `kernel` read gemms of `format` (the table's `formats` bits)?
bool kernelReadsFormat(Kernel kernel, BlockFormat format);

/// The formats `kernel` reads, for messages ("FP8 1x128, MXFP4").
std::string describeFormats(Kernel kernel);

/// Architecture bit (FP8Q_ARCH_*) of a target.
unsigned getArchBit(TargetAttr target);

/// The FP8 element type `target`'s matrix units read.
mlir::Type getTargetFp8Type(TargetAttr target);

/// The FP8 element type `kernel` reads on `target`; null when it reads any.
mlir::Type getRequiredFp8Type(Kernel kernel, TargetAttr target);

/// Returns the module's `fp8q.target`, or null.
TargetAttr getModuleTarget(mlir::Operation *moduleOp);

/// Checks that `kernel` may run on `target` with fp8 element type `fp8`.
/// On failure returns false and sets `reason`.
bool kernelRunsOn(Kernel kernel, TargetAttr target, mlir::Type fp8,
                  std::string &reason);

} // namespace fp8q

#endif // FP8Q_TARGET_KERNELCONTRACTS_H
