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
enum class GemmOperand { XScale, Weight, WScale };

/// Returns the table row of `kernel`.
const fp8q_kernel_contract &getKernelContract(Kernel kernel);

/// What a kernel reads for a scale operand, as the compiler compares it:
/// any layout, any strided layout, or one layout (by bytes addressed).
struct ScaleRequirement {
  fp8q_scale_req_kind kind = FP8Q_SCALE_REQ_ANY;
  /// The layout, for FP8Q_SCALE_REQ_LAYOUT; null otherwise.
  LayoutAttr layout;
};

/// Returns the requirement of `kernel` on its x_scale or w_scale operand,
/// from the table's x_scale_layout / w_scale_layout.
ScaleRequirement getScaleRequirement(Kernel kernel, GemmOperand operand,
                                     mlir::MLIRContext *ctx);

/// Returns the x_scale layout `kernel` reads, or a null attribute when the
/// kernel reads any layout or any strided one.
LayoutAttr getRequiredScaleLayout(Kernel kernel, mlir::MLIRContext *ctx);

/// Returns the LayoutAttr of an fp8q_scale_layout code with `align`.
LayoutAttr getLayoutOfCode(mlir::MLIRContext *ctx, int code, int64_t align);

/// Does a scale of `shape` stored in `layout` satisfy `operand` (x_scale or
/// w_scale) of `kernel`? Layouts are compared by the bytes they address.
bool scaleLayoutSatisfies(Kernel kernel, GemmOperand operand, LayoutAttr layout,
                          llvm::ArrayRef<int64_t> shape);

/// scaleLayoutSatisfies for the x_scale operand.
bool scaleLayoutSatisfies(Kernel kernel, LayoutAttr layout,
                          llvm::ArrayRef<int64_t> shape);

/// True when `kernel` reads FP8 1x128 weight scales per weight row
/// ([N, K/128], the table's w_scale_per_row) instead of per 128x128 block.
bool readsPerRowWScale(Kernel kernel);

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

/// Checks that `kernel` may run on `target` with fp8 element type `fp8`
/// (the fp8 flavour is FP8 1x128's: with another `format`, or an `fp8`
/// that is not an E4M3 flavour, only arch and ROCm are checked). On
/// failure returns false and sets `reason`.
bool kernelRunsOn(Kernel kernel, TargetAttr target, mlir::Type fp8,
                  std::string &reason,
                  std::optional<BlockFormat> format = std::nullopt);

} // namespace fp8q

#endif // FP8Q_TARGET_KERNELCONTRACTS_H
