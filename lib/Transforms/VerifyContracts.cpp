//===- VerifyContracts.cpp - Check every gemm against its kernel ----------===//

#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Support/Diagnostics.h"
#include "fp8q/Target/KernelContracts.h"
#include "fp8q/Transforms/Passes.h"

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
    TargetAttr target = getModuleTarget(getOperation());
    bool failedAny = false;
    getOperation().walk([&](GemmOp gemm) {
      ++numGemmsChecked;
      if (failed(verifyGemm(gemm, target))) {
        ++numViolations;
        failedAny = true;
      }
    });
    if (failedAny)
      signalPassFailure();
    markAllAnalysesPreserved();
  }

  static LogicalResult verifyGemm(GemmOp gemm, TargetAttr target) {
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
    LayoutAttr actual = getScaleLayout(scaleType);
    if (!scaleLayoutSatisfies(*kernel, actual, scaleType.getShape()))
      return fp8q::emitOpErrorAt(gemm)
             << "x_scale breaks the " << name << " contract: kernel " << name
             << " requires "
             << describeRequirement(*kernel, GemmOperand::XScale) << ", got "
             << actual << " for shape " << scaleType;
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
