//===- VerifyContracts.cpp - Check every gemm against its kernel ----------===//
//
// --fp8q-verify-contracts: each gemm's kernel, block format, weight layout
// and target from the contract table; its x_scale from ScaleLayoutAnalysis
// in read-only mode, the rule propagation solves for (a kernel's scale
// layout by bytes), so what propagation proves and what this pass checks
// are one definition.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Support/Diagnostics.h"
#include "fp8q/Target/KernelContracts.h"
#include "fp8q/Transforms/Passes.h"
#include "fp8q/Transforms/ScaleLayoutAnalysis.h"

namespace fp8q {
#define GEN_PASS_DEF_VERIFYCONTRACTS
#include "fp8q/Transforms/Passes.h.inc"
} // namespace fp8q

using namespace mlir;
using namespace fp8q;

namespace {
struct VerifyContractsPass
    : public fp8q::impl::VerifyContractsBase<VerifyContractsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkScaleLayoutAnalysisContext(module)))
      return signalPassFailure();
    // The x_scale needs the analysis finds unmet, by gemm.
    ScaleLayoutAnalysis analysis(module, /*fuseProducers=*/false);
    const ScaleLayoutPlan &plan = analysis.solveInPlace();
    DenseSet<Operation *> unmetXScale;
    for (const ScaleUse &use : plan.uses)
      if (use.consumer == ScaleConsumer::XScale && !plan.isMet(use))
        unmetXScale.insert(use.operand->getOwner());

    TargetAttr target = getModuleTarget(module);
    bool failedAny = false;
    module.walk([&](GemmOp gemm) {
      ++numGemmsChecked;
      if (failed(verifyGemm(gemm, target, unmetXScale.contains(gemm)))) {
        ++numViolations;
        failedAny = true;
      }
    });
    if (failedAny)
      signalPassFailure();
    markAllAnalysesPreserved();
  }

  static LogicalResult verifyGemm(GemmOp gemm, TargetAttr target,
                                  bool xScaleUnmet) {
    std::optional<Kernel> kernel = gemm.getKernel();
    if (!kernel)
      return fp8q::emitOpErrorAt(gemm)
             << "has no kernel, so its contract cannot be checked; run "
                "--fp8q-select-kernels or set `kernel`";
    StringRef name = getKernelContract(*kernel).name;
    if (std::optional<BlockFormat> format = getGemmFormat(gemm);
        format && !kernelReadsFormat(*kernel, *format))
      return fp8q::emitOpErrorAt(gemm)
             << "breaks the " << name << " contract: kernel " << name
             << " reads " << describeFormats(*kernel) << ", got "
             << getBlockFormatName(*format) << " (q "
             << cast<RankedTensorType>(gemm.getQ().getType()).getElementType()
             << ", x_scale "
             << cast<RankedTensorType>(gemm.getXScale().getType())
                    .getElementType()
             << ")";
    auto scaleType = cast<RankedTensorType>(gemm.getXScale().getType());
    // (The analysis sees f32 scales; SPEC v2's other scale types, which no
    // kernel with a layout requirement reads yet, are checked on the table.)
    if (isScaleTensorType(scaleType)
            ? xScaleUnmet
            : !scaleLayoutSatisfies(*kernel, getScaleLayout(scaleType),
                                    scaleType.getShape()))
      return fp8q::emitOpErrorAt(gemm)
             << "x_scale breaks the " << name << " contract: kernel " << name
             << " requires "
             << describeRequirement(*kernel, GemmOperand::XScale) << ", got "
             << getScaleLayout(scaleType) << " for shape " << scaleType;
    auto wType = cast<RankedTensorType>(gemm.getW().getType());
    if (!weightLayoutSatisfies(*kernel, wType.getEncoding())) {
      InFlightDiagnostic diag =
          fp8q::emitOpErrorAt(gemm)
          << "w breaks the " << name << " contract: kernel " << name
          << " requires " << describeRequirement(*kernel, GemmOperand::Weight)
          << ", got ";
      if (wType.getEncoding())
        diag << wType.getEncoding();
      else
        diag << "plain [N, K] weight";
      return diag;
    }
    std::string reason;
    if (target &&
        !kernelRunsOn(*kernel, target, wType.getElementType(), reason))
      return fp8q::emitOpErrorAt(gemm)
             << "breaks the " << name << " contract for target " << target
             << ": " << reason;
    return success();
  }
};
} // namespace
